package registry

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestWatchFrameIsBuiltOnceForAllWatches checks that the watches sending
// one event at the same time share one frame, built once, and that a
// frame is kept per object revision and event type.
func TestWatchFrameIsBuiltOnceForAllWatches(t *testing.T) {
	f := newEncCacheFixture(t)
	var builds atomic.Int32
	build := func(s string) func() ([]byte, error) {
		return func() ([]byte, error) {
			builds.Add(1)
			return []byte(s), nil
		}
	}
	var wg sync.WaitGroup
	frames := make([][]byte, 50)
	for i := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := f.ec.WatchFrame(f.res, "ns/a", 7, "ADDED", build("a@7 ADDED"))
			if err != nil {
				t.Error(err)
			}
			frames[i] = b
		}()
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("50 watches built the frame %d times, want once", n)
	}
	for i, b := range frames {
		if string(b) != "a@7 ADDED" {
			t.Fatalf("watch %d sent %q", i, b)
		}
	}
	// Another type, revision or key is another frame.
	for _, tc := range []struct {
		key  string
		rev  int64
		typ  string
		want string
	}{
		{"ns/a", 7, "MODIFIED", "a@7 MODIFIED"},
		{"ns/a", 8, "ADDED", "a@8 ADDED"},
		{"ns/b", 7, "ADDED", "b@7 ADDED"},
		{"ns/a", 7, "ADDED", "a@7 ADDED"}, // still kept
	} {
		b, err := f.ec.WatchFrame(f.res, tc.key, tc.rev, tc.typ, build(tc.want))
		if err != nil || string(b) != tc.want {
			t.Errorf("%s@%d %s: %q, %v; want %q", tc.key, tc.rev, tc.typ, b, err, tc.want)
		}
	}
	if n := builds.Load(); n != 4 {
		t.Errorf("%d builds, want 4 (one per distinct frame)", n)
	}
}

// TestWatchFrameKeepsOnlyRecentSmallFrames checks what the frame cache
// lets go: frames beyond the most recent maxRecentFrames, frames larger
// than maxRecentFrameSize, and failed builds are built again.
func TestWatchFrameKeepsOnlyRecentSmallFrames(t *testing.T) {
	f := newEncCacheFixture(t)
	builds := 0
	frame := func(data []byte, err error) func() ([]byte, error) {
		return func() ([]byte, error) { builds++; return data, err }
	}
	for i := range maxRecentFrames + 1 {
		if _, err := f.ec.WatchFrame(f.res, fmt.Sprintf("ns/k%d", i), 1, "ADDED", frame([]byte("x"), nil)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		key    string
		build  func() ([]byte, error)
		builds int // builds for two calls
	}{
		{name: "oldest is gone", key: "ns/k0", build: frame([]byte("x"), nil), builds: 1},
		{name: "newest is kept", key: fmt.Sprintf("ns/k%d", maxRecentFrames), build: frame([]byte("x"), nil), builds: 0},
		{name: "big frame is not kept", key: "ns/big", build: frame(bytes.Repeat([]byte("x"), maxRecentFrameSize+1), nil), builds: 2},
		{name: "error is not kept", key: "ns/err", build: frame(nil, errors.New("no encoding")), builds: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			builds = 0
			for range 2 {
				_, _ = f.ec.WatchFrame(f.res, tt.key, 1, "ADDED", tt.build)
			}
			if builds != tt.builds {
				t.Errorf("two calls built %d times, want %d", builds, tt.builds)
			}
		})
	}
}
