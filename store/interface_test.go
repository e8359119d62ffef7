package store_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/fakeplane/fakeplane/store"
	"github.com/fakeplane/fakeplane/store/storetest"
)

// TestInterfaceConformance runs the store.Interface conformance suite
// (package storetest) against the bbolt store, committing each write and
// with deferred commits; store/etcdstore runs it against etcd.
func TestInterfaceConformance(t *testing.T) {
	for _, deferred := range []bool{false, true} {
		t.Run(fmt.Sprintf("DeferCommits=%v", deferred), func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Interface {
				st, err := store.Open(filepath.Join(t.TempDir(), "store.db"), store.Options{NoSync: true, DeferCommits: deferred, CompactionInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if err := st.Close(); err != nil {
						t.Errorf("close: %v", err)
					}
				})
				return st
			})
		})
	}
}
