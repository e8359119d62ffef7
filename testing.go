package fakeplane

import (
	"context"
	"path/filepath"
	"testing"
)

// Start runs a control plane for the duration of a test: it listens on a
// loopback port the kernel picks, writes an admin kubeconfig into the
// test's temporary directory, and stops when the test and its subtests end.
// It fails the test if the control plane cannot start.
func Start(t testing.TB, opts ...Option) *ControlPlane {
	t.Helper()
	all := append([]Option{WithKubeconfigPath(filepath.Join(t.TempDir(), "kubeconfig"))}, opts...)
	cp, err := New(all...)
	if err != nil {
		t.Fatalf("fakeplane.New: %v", err)
	}
	if err := cp.Start(context.Background()); err != nil {
		t.Fatalf("fakeplane.Start: %v", err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("fakeplane.Stop: %v", err)
		}
	})
	return cp
}
