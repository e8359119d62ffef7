package fakeplane_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

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

// TestDeleteCollectionAnswersAsAList checks that a DELETE of a collection
// answers the list of what it deleted negotiated as a list is (recorded
// from kube-apiserver v1.37): a Table with the resource's columns, a
// PartialObjectMetadataList, or protobuf through client-go.
func TestDeleteCollectionAnswersAsAList(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cms := "/api/v1/namespaces/default/configmaps"
	for _, name := range []string{"a", "b"} {
		if code, _, b := rawRequest(t, cp, "POST", cms, "application/json", []byte(`{"metadata":{"name":"`+name+`","labels":{"del":"x"}},"data":{"k":"v"}}`), nil); code != 201 {
			t.Fatalf("create: %d %s", code, b)
		}
	}
	for _, tc := range []struct{ accept, kind string }{
		{"application/json;as=Table;v=v1;g=meta.k8s.io", "Table"},
		{"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", "PartialObjectMetadataList"},
		{"application/yaml", ""},
	} {
		code, ctype, out := rawRequest(t, cp, "DELETE", cms+"?labelSelector=del%3Dx&dryRun=All", "", nil, http.Header{"Accept": {tc.accept}})
		if code != 200 {
			t.Fatalf("%s: %d %s", tc.accept, code, out)
		}
		if tc.kind == "" {
			if ctype != "application/yaml" || !strings.HasPrefix(string(out), "apiVersion: v1\nitems:") {
				t.Errorf("YAML: %s %s", ctype, out)
			}
			continue
		}
		var got struct {
			Kind  string            `json:"kind"`
			Rows  []json.RawMessage `json:"rows"`
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(out, &got); err != nil || got.Kind != tc.kind || len(got.Rows)+len(got.Items) != 2 {
			t.Errorf("%s: %v %s", tc.accept, err, out)
		}
	}
	cfg := cp.RESTConfig()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	cs := kubernetes.NewForConfigOrDie(cfg)
	res := cs.CoreV1().RESTClient().Delete().Namespace("default").Resource("configmaps").Param("labelSelector", "del=x").Do(ctxT(t))
	var ctype string
	res.ContentType(&ctype)
	obj, err := res.Get()
	if err != nil {
		t.Fatal(err)
	}
	list, ok := obj.(*corev1.ConfigMapList)
	if ctype != "application/vnd.kubernetes.protobuf" || !ok || len(list.Items) != 2 || list.Items[0].Data["k"] != "v" {
		t.Errorf("protobuf answer %s: %T %+v", ctype, obj, obj)
	}
}
