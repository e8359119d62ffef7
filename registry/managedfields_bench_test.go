package registry

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Benchmarks of the field manager work one write does, in process: what
// BenchmarkCreate, BenchmarkUpdate and BenchmarkPatchApply of the root
// package spend on managedFields, without HTTP around it.

// benchConfigMapResource is the served v1 configmaps resource.
func benchConfigMapResource(b *testing.B) *Resource {
	b.Helper()
	reg, err := newServedResources()
	if err != nil {
		b.Fatal(err)
	}
	r, ok := reg.Lookup("", "v1", "configmaps")
	if !ok {
		b.Fatal("no configmaps")
	}
	return r
}

// benchLiveConfigMap is a ConfigMap as stored after a create by one manager
// and an apply by another.
func benchLiveConfigMap(b *testing.B, r *Resource) *corev1.ConfigMap {
	b.Helper()
	fm, err := r.FieldManager("")
	if err != nil {
		b.Fatal(err)
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", Labels: map[string]string{"app": "bench"}},
		Data:       map[string]string{"payload": strings.Repeat("x", 160)},
	}
	empty := &corev1.ConfigMap{TypeMeta: cm.TypeMeta}
	created := fm.UpdateNoErrors(empty, cm, "creator")
	out, err := fm.Apply(created, benchApplyPatch(0), "applier", true)
	if err != nil {
		b.Fatal(err)
	}
	return out.(*corev1.ConfigMap)
}

// benchApplyPatch is an applied ConfigMap with a changing key.
func benchApplyPatch(i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "namespace": "ns", "labels": map[string]any{"app": "bench"}},
		"data":     map[string]any{"payload": strings.Repeat("x", 160), "i": strconv.Itoa(i)},
	}}
}

func BenchmarkFieldManagerApplyConfigMap(b *testing.B) {
	r := benchConfigMapResource(b)
	fm, err := r.FieldManager("")
	if err != nil {
		b.Fatal(err)
	}
	live := benchLiveConfigMap(b, r)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := fm.Apply(live, benchApplyPatch(i), "applier", true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFieldManagerUpdateConfigMap(b *testing.B) {
	r := benchConfigMapResource(b)
	fm, err := r.FieldManager("")
	if err != nil {
		b.Fatal(err)
	}
	live := benchLiveConfigMap(b, r)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		next := live.DeepCopy()
		next.Data["i"] = strconv.Itoa(i)
		fm.UpdateNoErrors(live, next, "updater")
	}
}

func BenchmarkFieldManagerCreateConfigMap(b *testing.B) {
	r := benchConfigMapResource(b)
	fm, err := r.FieldManager("")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		cm := &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i), Namespace: "ns", Labels: map[string]string{"app": "bench"}},
			Data:       map[string]string{"payload": strings.Repeat("x", 160)},
		}
		var empty runtime.Object = &corev1.ConfigMap{TypeMeta: cm.TypeMeta}
		fm.UpdateNoErrors(empty, cm, "creator")
	}
}
