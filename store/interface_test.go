package store_test

import (
	"path/filepath"
	"testing"

	"github.com/fakeplane/fakeplane/store"
	"github.com/fakeplane/fakeplane/store/storetest"
)

// TestInterfaceConformance runs the store.Interface conformance suite
// (package storetest) against the bbolt store; store/etcdstore runs it
// against etcd.
func TestInterfaceConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Interface {
		st, err := store.Open(filepath.Join(t.TempDir(), "store.db"), store.Options{NoSync: true, CompactionInterval: -1})
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
}
