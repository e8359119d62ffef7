package k8sstorage

import (
	"context"
	"testing"

	storagetesting "k8s.io/apiserver/pkg/storage/testing"

	"github.com/fakeplane/fakeplane/internal/etcdtest"
	"github.com/fakeplane/fakeplane/store/etcdstore"
)

// The suites run against the adapter over the etcd store as well
// (store/etcdstore), on etcdtest's etcd (in process when there is no etcd
// binary): each fixture's store under a prefix of its own in one etcd
// server per test.

// openEtcd returns an openStore of etcd stores on srv.
func openEtcd(srv *etcdtest.Server) openStore {
	return func(t testing.TB) fixtureStore {
		st, err := etcdstore.Open(etcdstore.Config{Endpoints: srv.Endpoints, Prefix: etcdtest.Prefix(t), CompactionInterval: -1})
		if err != nil {
			t.Fatalf("open etcd store: %v", err)
		}
		t.Cleanup(func() {
			if err := st.Close(); err != nil {
				t.Errorf("close store: %v", err)
			}
		})
		return st
	}
}

// serialSuites run first, one after the other, before the rest run in
// parallel: on etcd revisions and compaction are the whole server's. Most
// compact the store, which would take the history that other suites' lists
// at past revisions read; ConsistentList expects its write of another key
// (increaseRV) to be the revision right after its create.
var serialSuites = map[string]bool{"List": true, "CompactRevision": true, "ListInconsistentContinuation": true, "WatchFromZero": true, "ConsistentList": true}

// runOnEtcd runs suites on stores of one etcd server.
func runOnEtcd(t *testing.T, suites []suite) {
	open := openEtcd(etcdtest.Start(t))
	var rest []suite
	for _, s := range suites {
		if !serialSuites[s.name] {
			rest = append(rest, s)
			continue
		}
		t.Run(s.name, func(t *testing.T) { s.run(context.Background(), t, newFixtureOn(t, open)) })
	}
	runParallelOn(t, open, rest)
}

// TestEtcdStoreConformance runs the storage suites of store_tests.go against
// the adapter over the etcd store.
func TestEtcdStoreConformance(t *testing.T) {
	runOnEtcd(t, storeSuites)
}

// TestEtcdGetConformance runs RunTestGet against the adapter over the etcd
// store.
func TestEtcdGetConformance(t *testing.T) {
	storagetesting.RunTestGet(context.Background(), t, newFixtureOn(t, openEtcd(etcdtest.Start(t))))
}

// TestEtcdWatchConformance runs the watch suites of watcher_tests.go
// against the adapter over the etcd store.
func TestEtcdWatchConformance(t *testing.T) {
	runOnEtcd(t, watchSuites)
}

// TestEtcdWatchListConformance runs the suites that set the WatchList
// feature gate against the adapter over the etcd store, one after the
// other.
func TestEtcdWatchListConformance(t *testing.T) {
	open := openEtcd(etcdtest.Start(t))
	for _, s := range []suite{
		{"WatchSemantics", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunWatchSemantics(ctx, t, f) }},
		{"WatchSemanticInitialEventsExtended", func(ctx context.Context, t *testing.T, f *fixture) {
			storagetesting.RunWatchSemanticInitialEventsExtended(ctx, t, f)
		}},
		{"WatchListMatchSingle", func(ctx context.Context, t *testing.T, f *fixture) { storagetesting.RunWatchListMatchSingle(ctx, t, f) }},
	} {
		t.Run(s.name, func(t *testing.T) { s.run(context.Background(), t, newFixtureOn(t, open)) })
	}
}
