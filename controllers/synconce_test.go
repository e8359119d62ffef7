package controllers

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t)
			put(t, st, "a", "w1", "1")
			put(t, st, "b", "x1", "1")
			put(t, st, "a", "x1", "1")
			put(t, st, "a", "x1", "2")
			rec := newRecorder("a", "b")
			rec.fail, rec.requeue = tt.fail, tt.requeue
			err := SyncOnce(context.Background(), st, tt.ctrl(rec))
			if got := fmt.Sprint(err); tt.wantErr != "" && got != tt.wantErr || tt.wantErr == "" && err != nil {
				t.Errorf("SyncOnce: %v, want %q", err, tt.wantErr)
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
			return SyncOnce(context.Background(), st, rec)
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
