package fakeplane_test

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/fakeplane/fakeplane"
)

// TestRemovingTheLastFinalizerDeletesTheObjectAsLastStored: an update that
// removes the last finalizer of an object being deleted is answered with
// the update (no finalizers, its new labels, the replaced resourceVersion),
// and the object is deleted as it was last stored: the DELETED event
// carries that state, finalizer and old labels included, at the deletion's
// resourceVersion (recorded on refplane; informers' DeleteFunc sees it).
func TestRemovingTheLastFinalizerDeletesTheObjectAsLastStored(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cms := clientset(t, cp).CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Labels: map[string]string{"a": "1"}, Finalizers: []string{"example.com/hold"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := cms.Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, err := cms.Get(ctx, "held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Finalizers, cur.Labels = nil, map[string]string{"a": "2"}
	answer, err := cms.Update(ctx, cur, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(answer.Finalizers) != 0 || answer.Labels["a"] != "2" || answer.ResourceVersion != cur.ResourceVersion || answer.DeletionTimestamp == nil {
		t.Errorf("answer: finalizers %v labels %v resourceVersion %s (want none, a=2, %s)", answer.Finalizers, answer.Labels, answer.ResourceVersion, cur.ResourceVersion)
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Deleted {
				continue
			}
			gone := ev.Object.(*corev1.ConfigMap)
			if !slices.Equal(gone.Finalizers, []string{"example.com/hold"}) || gone.Labels["a"] != "1" || gone.DeletionTimestamp == nil || gone.ResourceVersion == cur.ResourceVersion {
				t.Errorf("DELETED: finalizers %v labels %v resourceVersion %s; want the last stored state at a new resourceVersion", gone.Finalizers, gone.Labels, gone.ResourceVersion)
			}
			return
		case <-timeout:
			t.Fatal("no DELETED event")
		}
	}
}
