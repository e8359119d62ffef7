package controllers

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane/store"
)

// TestSyncOnce checks that SyncOnce hands a controller, once and in the
// calling goroutine, what its first Sync under a Runner gets (every wanted
// object of its resources as an Added event, in revision order), that a
// Requeue counts as success and a failure is returned with the
// controller's name, and that it reads a Bulk call's transaction, whose
// writes then commit together.
func TestSyncOnce(t *testing.T) {
	tests := []struct {
		name    string
		ctrl    func(*recorder) Controller
		fail    int
		keyed   bool
		requeue int
		want    string
		wantErr string
	}{
		{name: "every object as Added in revision order", ctrl: func(r *recorder) Controller { return r },
			want: "a/w1=1 b/x1=1 a/x1=2"},
		{name: "a filter gets only what it wants", ctrl: func(r *recorder) Controller { return filtered{r} },
			want: "a/w1=1"},
		{name: "a requeue is a success", ctrl: func(r *recorder) Controller { return r }, requeue: 1,
			want: "a/w1=1 b/x1=1 a/x1=2"},
		{name: "a failure is returned", ctrl: func(r *recorder) Controller { return r }, fail: 1,
			want: "a/w1=1 b/x1=1 a/x1=2", wantErr: "recorder: failing on purpose"},
		{name: "a requeue with failures is a failure", ctrl: func(r *recorder) Controller { return r }, fail: 1, keyed: true,
			want: "a/w1=1 b/x1=1 a/x1=2", wantErr: "recorder: failing on purpose (retry in 1ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t)
			put(t, st, "a", "w1", "1")
			put(t, st, "b", "x1", "1")
			put(t, st, "a", "x1", "1")
			put(t, st, "a", "x1", "2")
			rec := newRecorder("a", "b")
			rec.fail, rec.keyed, rec.requeue = tt.fail, tt.keyed, tt.requeue
			c, err := SyncOnce(context.Background(), st, tt.ctrl(rec))
			if got := fmt.Sprint(err); tt.wantErr != "" && got != tt.wantErr || tt.wantErr == "" && err != nil {
				t.Errorf("SyncOnce: %v, want %q", err, tt.wantErr)
			}
			// Only a sync that completed is marked as such.
			if _, marked := c.(*syncedController); marked != (tt.fail == 0 && tt.requeue == 0) {
				t.Errorf("SyncOnce returned %T", c)
			}
			if len(rec.calls) != 1 {
				t.Fatalf("%d calls of Sync, want 1", len(rec.calls))
			}
			var fed []string
			for _, ev := range rec.calls[0] {
				if ev.Type != store.Added {
					t.Errorf("%s/%s: %v event, want Added", ev.Resource, ev.Key, ev.Type)
				}
				fed = append(fed, ev.Resource+"/"+ev.Key+"="+string(ev.Value))
			}
			if got := strings.Join(fed, " "); got != tt.want {
				t.Errorf("fed %s, want %s", got, tt.want)
			}
		})
	}

	t.Run("inside a bulk write", func(t *testing.T) {
		st := openStore(t)
		before := put(t, st, "a", "w0", "1")
		rec := newRecorder("a")
		err := st.Bulk(func() error {
			if _, _, err := st.Update("a", "w1", func(*store.Object) (store.Write, error) {
				return store.Write{Value: []byte("1")}, nil
			}); err != nil {
				return err
			}
			_, err := SyncOnce(context.Background(), st, rec)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(state(rec.calls)); got != "map[a/w0:1 a/w1:1]" {
			t.Errorf("fed %s, want the object written in the bulk call too", got)
		}
		if got := rec.calls[0][1].Revision; got != before+1 {
			t.Errorf("the bulk call's object at revision %d, want %d", got, before+1)
		}
	})
}

// TestRunnerFeedsASyncedControllerTheChangesSince checks that a Runner
// given what SyncOnce returned does not list and sync everything again:
// the controller's next Sync has the changes since the revision its first
// one saw, whether they were written before the Runner started or after,
// and WaitForFirstSync does not wait for it. When the store's event log no
// longer has those changes, the Runner lists and hands it the difference
// instead. A controller whose sync asked to be called again is synced anew.
func TestRunnerFeedsASyncedControllerTheChangesSince(t *testing.T) {
	tests := []struct {
		name    string
		logSize int // the store's EventLogSize (0: its default)
		requeue int
		want    string // the events of the Syncs after the first
	}{
		{name: "the changes since, from the event log", want: "a/w1=2 a/w2=1 a/w3=1"},
		{name: "the difference, listed, once the log has moved on", logSize: 1, want: "a/w1=2 a/w2=1 a/w3=1"},
		{name: "everything again after a requeue", requeue: 1, want: "a/w0=1 a/w1=2 a/w2=1 a/w3=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := store.Open(filepath.Join(t.TempDir(), "store.db"), store.Options{NoSync: true, EventLogSize: tt.logSize})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			put(t, st, "a", "w0", "1")
			put(t, st, "a", "w1", "1")
			rec := newRecorder("a")
			rec.requeue = tt.requeue
			c, err := SyncOnce(context.Background(), st, rec)
			if err != nil {
				t.Fatal(err)
			}
			put(t, st, "a", "w1", "2")
			put(t, st, "a", "w2", "1")
			r := Start(context.Background(), st, nil, c)
			defer r.Stop()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := r.WaitForFirstSync(ctx, rec.Name()); err != nil {
				t.Fatal(err)
			}
			put(t, st, "a", "w3", "1")
			calls := rec.waitUntil(t, func(calls [][]store.Event) bool { return state(calls)["a/w3"] == "1" })
			var fed []string
			for _, evs := range calls[1:] {
				for _, ev := range evs {
					fed = append(fed, ev.Resource+"/"+ev.Key+"="+string(ev.Value))
				}
			}
			if got := strings.Join(fed, " "); got != tt.want {
				t.Errorf("after SyncOnce, fed %s, want %s", got, tt.want)
			}
		})
	}
}
