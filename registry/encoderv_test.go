package registry

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestEncodeWithAndWithoutRVIsEncoding checks that splicing the
// resourceVersion into an object's encoding without it gives the encoding
// with it, for built-in and unstructured objects with metadata members on
// either side of resourceVersion, and that the object keeps its
// resourceVersion.
func TestEncodeWithAndWithoutRVIsEncoding(t *testing.T) {
	ts := metav1.Unix(1700000000, 0)
	for _, tc := range []struct {
		name string
		obj  runtime.Object
	}{
		{"typed, name only", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "7"}}},
		{"typed, all before", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", GenerateName: "a-", Namespace: "ns", SelfLink: "/x", UID: "u", ResourceVersion: "12345"}}},
		{"typed, after", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ResourceVersion: "3", Generation: 2, CreationTimestamp: ts,
			Labels: map[string]string{"a": "b"}, Finalizers: []string{"f"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}},
		{"typed, empty metadata", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9"}}},
		{"unstructured", &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "W",
			"metadata": map[string]any{"name": "w", "namespace": "ns", "labels": map[string]any{"a": "b"}, "uid": "u", "resourceVersion": "42", "zzz": "z"},
			"spec":     map[string]any{"x": int64(1)}}}},
		{"unstructured, only before", &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"annotations": map[string]any{"a": "b"}, "resourceVersion": "5"}}}},
		{"unstructured, only after", &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"uid": "u", "resourceVersion": "5"}}}},
		{"not a revision", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "007"}}},
		{"no resourceVersion", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}},
	} {
		acc := mustAccessor(t, tc.obj)
		rv := acc.GetResourceVersion()
		want, err := Encode(tc.obj)
		if err != nil {
			t.Fatal(err)
		}
		acc.SetResourceVersion("")
		wantBare, err := Encode(tc.obj)
		if err != nil {
			t.Fatal(err)
		}
		acc.SetResourceVersion(rv)
		bare, withRV, err := encodeWithAndWithoutRV(&Object{Obj: tc.obj, Meta: acc})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(bare, wantBare) {
			t.Errorf("%s: bare\n%s\nwant\n%s", tc.name, bare, wantBare)
		}
		if !bytes.Equal(withRV, want) {
			t.Errorf("%s: with resourceVersion\n%s\nwant\n%s", tc.name, withRV, want)
		}
		if got := acc.GetResourceVersion(); got != rv {
			t.Errorf("%s: resourceVersion %q afterwards, want %q", tc.name, got, rv)
		}
	}
}
