package fakeplane_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// TestWatchWithTimeoutGetsABookmarkBeforeItEnds checks kube-apiserver's
// watch-cache behaviour: a watch with timeoutSeconds that allows bookmarks
// gets one before it ends (2s before its deadline), at a revision no older
// than the writes it delivered, so that a client resumes from as recent a
// revision as it can; a watch that does not allow bookmarks gets none.
func TestWatchWithTimeoutGetsABookmarkBeforeItEnds(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cms := kubernetesClient(t, cp).CoreV1().ConfigMaps("default")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from, _ := strconv.ParseInt(created.ResourceVersion, 10, 64)
	for _, tc := range []struct {
		name      string
		bookmarks bool
	}{{"bookmarks allowed", true}, {"bookmarks not allowed", false}} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatInt(from-1, 10), TimeoutSeconds: ptr.To[int64](3), AllowWatchBookmarks: tc.bookmarks})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var types []watch.EventType
			var bookmarkRV int64
			for ev := range w.ResultChan() {
				types = append(types, ev.Type)
				if ev.Type == watch.Bookmark {
					bookmarkRV, _ = strconv.ParseInt(ev.Object.(*corev1.ConfigMap).ResourceVersion, 10, 64)
				}
			}
			want := []watch.EventType{watch.Added}
			if tc.bookmarks {
				want = append(want, watch.Bookmark)
			}
			if len(types) != len(want) || types[0] != want[0] || (tc.bookmarks && types[1] != watch.Bookmark) {
				t.Fatalf("events %v before the watch ended, want %v", types, want)
			}
			if tc.bookmarks && bookmarkRV < from {
				t.Errorf("bookmark at %d, older than the event delivered at %d", bookmarkRV, from)
			}
		})
	}
}
