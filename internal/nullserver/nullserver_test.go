package nullserver_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane/internal/nullserver"
	"github.com/fakeplane/fakeplane/registry"
)

// encode returns obj (a v1 object of the given kind) as kube-apiserver
// sends it in protobuf.
func encode(t *testing.T, kind string, obj runtime.Object) []byte {
	t.Helper()
	obj.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
	b, err := registry.ProtobufEncode(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNullServerAnswersClientGo(t *testing.T) {
	cm := func(name string) corev1.ConfigMap {
		return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Data: map[string]string{"k": name}}
	}
	s := nullserver.Start(nullserver.Answers{
		Object:    encode(t, "ConfigMap", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "the-object", Namespace: "ns"}}),
		Lists:     map[string][]byte{"set=two": encode(t, "ConfigMapList", &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}, Items: []corev1.ConfigMap{cm("a"), cm("b")}})},
		EmptyList: encode(t, "ConfigMapList", &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}}),
	})
	defer s.Close()
	c, err := kubernetes.NewForConfig(s.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cms := c.CoreV1().ConfigMaps("ns")

	got, err := cms.Get(ctx, "anything", metav1.GetOptions{})
	if err != nil || got.Name != "the-object" {
		t.Fatalf("get: %v, %v", got, err)
	}
	tests := []struct {
		selector string
		want     int
	}{
		{"set=two", 2},
		{"set=other", 0},
		{"", 0},
	}
	for _, tt := range tests {
		l, err := cms.List(ctx, metav1.ListOptions{LabelSelector: tt.selector})
		if err != nil || len(l.Items) != tt.want {
			t.Errorf("list %q: %d items, %v; want %d", tt.selector, len(l.Items), err, tt.want)
		}
	}
	if got, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil || len(got.Items) != 0 {
		t.Errorf("list of a cluster-scoped collection: %v, %v; want the empty list", got, err)
	}

	var watches []watch.Interface
	for range 3 {
		w, err := cms.Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		watches = append(watches, w)
	}
	in := cm("created")
	created, err := cms.Create(ctx, &in, metav1.CreateOptions{})
	if err != nil || created.Name != "created" || created.Data["k"] != "created" {
		t.Fatalf("create: %v, %v", created, err)
	}
	for i, w := range watches {
		select {
		case ev := <-w.ResultChan():
			if o, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || !ok || o.Name != "created" {
				t.Errorf("watch %d: %s %#v, want ADDED of created", i, ev.Type, ev.Object)
			}
		case <-ctx.Done():
			t.Fatalf("watch %d: no event", i)
		}
	}
	in.Data["k"] = "updated"
	if updated, err := cms.Update(ctx, &in, metav1.UpdateOptions{}); err != nil || updated.Data["k"] != "updated" {
		t.Errorf("update: %v, %v; want the object sent", updated, err)
	}
	if err := cms.Delete(ctx, "created", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete: %v", err)
	}
}
