package etcdstore_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

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

func TestEtcdSpecifics(t *testing.T) {
	srv := etcdtest.Start(t)
	t.Run("RevisionsOfOtherPrefixes", func(t *testing.T) {
		t.Parallel()
		st := open(t, srv, etcdstore.Config{})
		other := open(t, srv, etcdstore.Config{Prefix: etcdtest.Prefix(t) + "-other"})
		storetest.Put(t, st, "g/r", "a", "1")
		// A revision etcd reached with a write elsewhere: a watch and a
		// list from it wait for the watch's progress to get there.
		elsewhere := storetest.Put(t, other, "g/r", "x", "1")
		w, err := st.Watch(context.Background(), "g/r", store.WatchOptions{FromRevision: elsewhere})
		if err != nil {
			t.Fatalf("watch from %d, a revision of another prefix: %v", elsewhere, err)
		}
		defer w.Stop()
		if cur := st.CurrentRevision(); cur < elsewhere {
			t.Fatalf("CurrentRevision %d after a watch from %d", cur, elsewhere)
		}
		res, err := st.List("g/r", store.ListOptions{Revision: elsewhere})
		if err != nil || len(res.Items) != 1 || res.Revision != elsewhere {
			t.Fatalf("list at %d: %+v, %v", elsewhere, res, err)
		}
		r := storetest.Put(t, st, "g/r", "b", "1")
		if ev := storetest.Next(t, w); ev.Key != "b" || ev.Revision != r {
			t.Fatalf("event %+v, want b at %d", ev, r)
		}
	})
	t.Run("Reopen", func(t *testing.T) {
		t.Parallel()
		cfg := etcdstore.Config{Prefix: etcdtest.Prefix(t)}
		st := open(t, srv, cfg)
		r := storetest.Put(t, st, "g/r", "ns/a", "1")
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		again := open(t, srv, cfg)
		got, err := again.Get("g/r", "ns/a")
		if err != nil || string(got.Value) != "1" || got.Revision != r {
			t.Fatalf("after reopening: %+v, %v; want 1 at %d", got, err, r)
		}
		if cur := again.CurrentRevision(); cur < r {
			t.Fatalf("CurrentRevision %d after reopening, want >= %d", cur, r)
		}
		// The event log starts at the reopen.
		_, err = again.Watch(context.Background(), "g/r", store.WatchOptions{FromRevision: r - 1})
		var ce *store.CompactedError
		if !errors.As(err, &ce) || ce.Oldest != again.WatchCompactedRevision() {
			t.Fatalf("watch from before the reopen: %v, want CompactedError", err)
		}
	})
	t.Run("TwoStoresOnOnePrefix", func(t *testing.T) {
		t.Parallel()
		cfg := etcdstore.Config{Prefix: etcdtest.Prefix(t)}
		a, b := open(t, srv, cfg), open(t, srv, cfg)
		w, err := b.Watch(context.Background(), "g/r", store.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		r := storetest.Put(t, a, "g/r", "k", "from a")
		if ev := storetest.Next(t, w); ev.Type != store.Added || ev.Key != "k" || string(ev.Value) != "from a" || ev.Revision != r {
			t.Fatalf("b's watch got %+v, want a's write at %d", ev, r)
		}
		// b's update of a's write is compared against a's revision.
		_, cur, err := b.Update("g/r", "k", func(c *store.Object) (store.Write, error) {
			return store.Write{Value: append(bytes.Clone(c.Value), " and b"...)}, nil
		})
		if err != nil || string(cur.Value) != "from a and b" {
			t.Fatalf("b's update: %+v, %v", cur, err)
		}
		got, err := a.Get("g/r", "k")
		if err != nil || got.Revision != cur.Revision {
			t.Fatalf("a reads %+v, %v; want b's write at %d", got, err, cur.Revision)
		}
	})
	t.Run("KeyLayout", func(t *testing.T) {
		t.Parallel()
		prefix := etcdtest.Prefix(t)
		st := open(t, srv, etcdstore.Config{Prefix: prefix})
		r := storetest.Put(t, st, "/pods", "ns/name", "v")
		cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		defer cli.Close()
		resp, err := cli.Get(context.Background(), prefix+"//pods/ns/name")
		if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" || resp.Kvs[0].ModRevision != r {
			t.Fatalf("etcd holds %+v, %v; want v at %d", resp, err, r)
		}
		for _, bad := range []string{"pods", "a/b/c"} {
			if _, err := st.Get(bad, "k"); err == nil || errors.Is(err, store.ErrNotFound) {
				t.Errorf("Get in resource %q: %v, want an error about the name", bad, err)
			}
		}
	})
}

// TestStoresSharingAPrefix: two stores on one prefix (two processes): each
// Observe sees both's writes in revision order, and a claim one key holds
// keeps every other key from taking it until it is released.
func TestStoresSharingAPrefix(t *testing.T) {
	srv := etcdtest.Start(t)
	prefix := etcdtest.Prefix(t)
	var mu sync.Mutex
	var seen []int64
	one := open(t, srv, etcdstore.Config{Prefix: prefix, Observe: func(ev store.Event) {
		mu.Lock()
		seen = append(seen, ev.Revision)
		mu.Unlock()
	}})
	two := open(t, srv, etcdstore.Config{Prefix: prefix})

	claim := func(st *etcdstore.Store, key string, claims []string, del bool) (calls int, err error) {
		_, _, err = st.Update("g/r", key, func(cur *store.Object) (store.Write, error) {
			calls++
			if calls > 1 {
				return store.Write{}, errHeld
			}
			return store.Write{Value: []byte(key), Claims: claims, Delete: del}, nil
		})
		return calls, err
	}
	if _, err := claim(one, "a", []string{"x", "y"}, false); err != nil {
		t.Fatal(err)
	}
	// b asks for y, which a holds: its UpdateFunc is called again.
	if calls, err := claim(two, "b", []string{"y", "z"}, false); !errors.Is(err, errHeld) || calls != 2 {
		t.Fatalf("b claims y held by a: %d calls, %v; want the UpdateFunc called again", calls, err)
	}
	// a keeps x and lets y go; b takes y and z.
	if _, err := claim(one, "a", []string{"x"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := claim(two, "b", []string{"y", "z"}, false); err != nil {
		t.Fatalf("b claims y once a let it go: %v", err)
	}
	if calls, err := claim(one, "c", []string{"x"}, false); !errors.Is(err, errHeld) || calls != 2 {
		t.Fatalf("c claims x held by a: %d calls, %v", calls, err)
	}
	// Deleting a releases x.
	if _, err := claim(two, "a", []string{}, true); err != nil {
		t.Fatal(err)
	}
	cRev := storetest.Put(t, one, "g/r", "d", "no claims")
	if _, err := claim(one, "c", []string{"x"}, false); err != nil {
		t.Fatalf("c claims x once a is deleted: %v", err)
	}

	// one's Observe saw every write of both, in order, by the time its
	// writes returned.
	mu.Lock()
	defer mu.Unlock()
	if !slices.IsSorted(seen) || len(seen) != 6 || !slices.Contains(seen, cRev) {
		t.Fatalf("Observe saw revisions %v, want the 6 writes in order", seen)
	}
}

// errHeld ends an UpdateFunc called again after a claim was found held.
var errHeld = errors.New("claim held")

// TestOpenContextEndsWithItsContext: an etcd that does not answer holds
// OpenContext only until its context is done.
func TestOpenContextEndsWithItsContext(t *testing.T) {
	// A port nothing listens on: a listener closed at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	stopped := errors.New("stopped by the test")
	time.AfterFunc(100*time.Millisecond, func() { cancel(stopped) })
	st, err := etcdstore.OpenContext(ctx, etcdstore.Config{Endpoints: []string{"http://" + addr}})
	if err == nil {
		st.Close()
		t.Fatal("OpenContext succeeded without etcd")
	}
	if !errors.Is(err, stopped) {
		t.Fatalf("OpenContext: %v, want the context's cause", err)
	}
}
