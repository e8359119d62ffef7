package etcdtest

import (
	"context"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/goleak"
	"go.uber.org/zap"
)

// TestMain fails the package when a goroutine is left after the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// putGet writes a key through a client of endpoints and reads it back.
func putGet(t *testing.T, endpoints []string) {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: startTimeout, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("client of %v: %v", endpoints, err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	key := Prefix(t) + "/k"
	if _, err := cli.Put(ctx, key, "v"); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	resp, err := cli.Get(ctx, key)
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get %s = %v, want v", key, resp.Kvs)
	}
}

// TestStartInProcess starts etcd in process ($FAKEPLANE_ETCD_BINARY=none)
// and writes and reads a key through it.
func TestStartInProcess(t *testing.T) {
	t.Setenv(BinaryEnv, "none")
	putGet(t, Start(t).Endpoints)
}

// TestStartBinary starts the etcd binary when there is one, else etcd in
// process, and writes and reads a key through it.
func TestStartBinary(t *testing.T) {
	putGet(t, Start(t).Endpoints)
}

// TestInProcessLeavesNoGoroutine starts etcd in process, uses it and stops
// it (at its subtest's cleanup): no goroutine started meanwhile is left.
func TestInProcessLeavesNoGoroutine(t *testing.T) {
	// Not parallel: goleak compares with the goroutines from before.
	before := goleak.IgnoreCurrent()
	t.Run("serve", func(t *testing.T) {
		putGet(t, startRetrying(t, "in process", startInProcess).Endpoints)
	})
	if err := goleak.Find(before); err != nil {
		t.Fatalf("etcd in process left goroutines once stopped: %v", err)
	}
}
