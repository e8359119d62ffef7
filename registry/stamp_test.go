package registry

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// TestSpliceResourceVersionMatchesEncoder checks that splicing the commit
// revision into an object encoded without one gives the bytes of encoding it
// with one, for typed (field order) and unstructured (sorted) objects.
func TestSpliceResourceVersionMatchesEncoder(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	grace := int64(0)
	full := metav1.ObjectMeta{
		Name: "p", GenerateName: "p-", Namespace: "ns", UID: types.UID("u-1"), Generation: 3,
		CreationTimestamp: now, DeletionTimestamp: &now, DeletionGracePeriodSeconds: &grace,
		Labels: map[string]string{"a": `q"uote}`}, Annotations: map[string]string{"resourceVersion": "{["},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "X", Name: "o", UID: "u"}},
		Finalizers:      []string{"f"},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply}},
	}
	metas := map[string]metav1.ObjectMeta{
		"name only":    {Name: "a"},
		"empty":        {},
		"no uid":       {Name: "a", Namespace: "n", Labels: map[string]string{"x": "y"}},
		"every field":  full,
		"uid last key": {Name: "a", UID: "u"},
	}
	for name, meta := range metas {
		t.Run(name+"/typed", func(t *testing.T) {
			pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: meta,
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
			checkSplice(t, pod, structOrder)
		})
		t.Run(name+"/unstructured", func(t *testing.T) {
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&corev1.ConfigMap{ObjectMeta: meta})
			if err != nil {
				t.Fatal(err)
			}
			m["apiVersion"], m["kind"] = "example.com/v1", "Widget"
			// Decoys sorted before metadata: nested metadata objects.
			m["data"] = map[string]any{"metadata": map[string]any{"name": "decoy"}, "s": `"}{`}
			m["aaa"] = []any{map[string]any{"metadata": map[string]any{}}, 1.5, true, nil}
			checkSplice(t, &unstructured.Unstructured{Object: m}, sortedOrder)
		})
	}
}

func checkSplice(t *testing.T, obj runtime.Object, order keyOrder) {
	t.Helper()
	acc := obj.(metav1.Object)
	acc.SetResourceVersion("")
	without, err := Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	acc.SetResourceVersion("12345")
	want, err := Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	got, err := spliceResourceVersion(without, 12345, order)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("splice:\n got %s\nwant %s", got, want)
	}
}

func TestSpliceResourceVersionRejectsBadInput(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"kind":"X"}`, `{"metadata":"x"}`, `{"metadata":{"resourceVersion":"1"}}`, `{"metadata":{"a":"b`} {
		if _, err := spliceResourceVersion([]byte(in), 1, sortedOrder); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
