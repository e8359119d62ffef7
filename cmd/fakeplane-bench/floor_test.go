package main

import (
	"context"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane"
)

// TestFloorRunsEveryOperation runs the operations against fakeplane and
// then, with fakeplane's answers, against the null server, as -floor does:
// every operation of the report must get a figure from both.
func TestFloorRunsEveryOperation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cp := fakeplane.Start(t)
	cfg := config{n: 3, c: 2, watchers: 3}
	c, err := newClient(cfg, cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	tg, err := newTarget(ctx, c, "fakeplane")
	if err != nil {
		t.Fatal(err)
	}
	fp := &report{results: map[string]result{}}
	if err := tg.benchOps(ctx, cfg, fp); err != nil {
		t.Fatalf("fakeplane: %v", err)
	}
	floor := &report{results: map[string]result{}}
	if err := tg.benchFloor(ctx, cfg, floor); err != nil {
		t.Fatalf("floor: %v", err)
	}
	for key, r := range fp.results {
		f, ok := floor.results[key]
		if !ok || f.p50 <= 0 || f.opsPerS <= 0 {
			t.Errorf("floor %s: %+v, want a figure as fakeplane's (%+v)", key, f, r)
		}
	}
	for _, key := range []string{"create", "get", "update", "patch", "apply", "delete", "list", "watch", "watchers"} {
		if _, ok := fp.results[key]; !ok {
			t.Errorf("fakeplane has no figure for %s", key)
		}
	}
	if len(floor.results) != len(fp.results) {
		t.Errorf("floor measured %d operations, fakeplane %d", len(floor.results), len(fp.results))
	}
}
