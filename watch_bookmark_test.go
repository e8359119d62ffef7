package fakeplane_test

import (
	"context"
	"slices"
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
// revision as it can; a watch that does not allow bookmarks gets none, nor
// does one shorter than 2s (its bookmark time has passed when it starts).
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
		timeout   int64
		bookmarks bool
		want      []watch.EventType
	}{
		{"bookmarks allowed", 3, true, []watch.EventType{watch.Added, watch.Bookmark}},
		{"bookmarks not allowed", 3, false, []watch.EventType{watch.Added}},
		{"shorter than 2s", 1, true, []watch.EventType{watch.Added}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatInt(from-1, 10), TimeoutSeconds: ptr.To(tc.timeout), AllowWatchBookmarks: tc.bookmarks})
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
			if !slices.Equal(types, tc.want) {
				t.Fatalf("events %v before the watch ended, want %v", types, tc.want)
			}
			if slices.Contains(types, watch.Bookmark) && bookmarkRV < from {
				t.Errorf("bookmark at %d, older than the event delivered at %d", bookmarkRV, from)
			}
		})
	}
}
