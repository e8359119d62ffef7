package fakeplane_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/fakeplane/fakeplane"
)

// TestObjectLeavingASelectionIsDeletedAsItWas watches ConfigMaps by label
// and changes one's label so that it no longer matches: the watch sends a
// DELETED event with the object as it was before the change, at the
// change's resourceVersion, as kube-apiserver's cacher does (refplane sends
// the old labels).
func TestObjectLeavingASelectionIsDeletedAsItWas(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cms := clientset(t, cp).CoreV1().ConfigMaps("default")
	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{LabelSelector: "app=x", ResourceVersion: created.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	changed, err := cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"y"}},"data":{"v":"2"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Deleted || !ok {
			t.Fatalf("event %s %#v, want DELETED of the ConfigMap", ev.Type, ev.Object)
		}
		if cm.Labels["app"] != "x" || cm.Data["v"] != "1" || cm.ResourceVersion != changed.ResourceVersion {
			t.Errorf("DELETED %v %v at %s, want the labels and data before the change at %s", cm.Labels, cm.Data, cm.ResourceVersion, changed.ResourceVersion)
		}
	case <-ctx.Done():
		t.Fatal("no event")
	}
}
