package etcdstore_test

import (
	"testing"

	"github.com/fakeplane/fakeplane/internal/etcdtest"
	"github.com/fakeplane/fakeplane/store"
	"github.com/fakeplane/fakeplane/store/etcdstore"
	"github.com/fakeplane/fakeplane/store/storetest"
)

// open opens a store on srv under a prefix of t's own, closed at cleanup.
func open(t *testing.T, srv *etcdtest.Server, cfg etcdstore.Config) *etcdstore.Store {
	t.Helper()
	cfg.Endpoints = srv.Endpoints
	if cfg.Prefix == "" {
		cfg.Prefix = etcdtest.Prefix(t)
	}
	if cfg.CompactionInterval == 0 {
		cfg.CompactionInterval = -1
	}
	st, err := etcdstore.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return st
}

// TestInterfaceConformance runs the store.Interface conformance suite
// (package storetest) against the etcd store: every case on a prefix of its
// own in one etcd server.
func TestInterfaceConformance(t *testing.T) {
	srv := etcdtest.Start(t)
	storetest.Run(t, func(t *testing.T) store.Interface {
		return open(t, srv, etcdstore.Config{StampOnRead: storetest.RestampRevision})
	})
}
