package fakeplane_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestDeleteCollectionAnswersTheListedItems: as kube-apiserver v1.37's
// store (recorded from refplane), a DELETE of a collection lists it with
// the request's list options and answers that list: the items as they were
// before their deletion (no deletionTimestamp, their old
// resourceVersions), at the list's resourceVersion; a dry run changes
// nothing. A list selecting one name by field selector reads that key
// alone: no continue token, whatever the limit.
func TestDeleteCollectionAnswersTheListedItems(t *testing.T) {
	t.Parallel()
	// The revisions below are compared: no identity Lease renewal among them.
	cp := fakeplane.Start(t, fakeplane.WithIdentityLeaseRenewInterval(time.Hour))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	const ns = "default"
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"x": "1"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", Labels: map[string]string{"x": "2"}, Finalizers: []string{"example.com/f"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "c"}},
	} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: "x"})
	if err != nil {
		t.Fatal(err)
	}
	deleteCollection := func(query string) corev1.ConfigMapList {
		t.Helper()
		code, _, out := rawRequest(t, cp, "DELETE", "/api/v1/namespaces/default/configmaps?"+query, "", nil, nil)
		var l corev1.ConfigMapList
		if err := json.Unmarshal(out, &l); code != 200 || err != nil {
			t.Fatalf("DELETE ?%s: %d %v %s", query, code, err, out)
		}
		return l
	}
	listed := func(l corev1.ConfigMapList) (out []string) {
		for _, it := range l.Items {
			out = append(out, it.Name+"@"+it.ResourceVersion+deletionMark(it.DeletionTimestamp))
		}
		return out
	}
	want := listed(*before)
	if got := listed(deleteCollection("labelSelector=x&dryRun=All")); !slices.Equal(got, want) {
		t.Errorf("dry run answered %v, want %v", got, want)
	}
	got := deleteCollection("labelSelector=x")
	if l := listed(got); !slices.Equal(l, want) || got.ResourceVersion != before.ResourceVersion {
		t.Errorf("delete answered %v at %s, want %v at %s", l, got.ResourceVersion, want, before.ResourceVersion)
	}
	if b, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "b", metav1.GetOptions{}); err != nil || b.DeletionTimestamp == nil {
		t.Errorf("b after the delete: %v, deletionTimestamp %v", err, b.DeletionTimestamp)
	}
	one, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=b", Limit: 1})
	if err != nil || len(one.Items) != 1 || one.Continue != "" || one.RemainingItemCount != nil {
		t.Errorf("list of one name with a limit: %v, %d items, continue %q", err, len(one.Items), one.Continue)
	}
}

func deletionMark(t *metav1.Time) string {
	if t != nil {
		return " (deleting)"
	}
	return ""
}
