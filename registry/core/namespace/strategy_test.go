package namespace

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPrepareForCreate(t *testing.T) {
	ns := &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "team", Labels: map[string]string{"a": "b", corev1.LabelMetadataName: "other"}},
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"mine"}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
	}
	Strategy.PrepareForCreate(context.Background(), ns)
	// The finalizers named are kept, and kubernetes follows them (as
	// kube-apiserver v1.37 answers).
	if want := []corev1.FinalizerName{"mine", corev1.FinalizerKubernetes}; !reflect.DeepEqual(ns.Spec.Finalizers, want) {
		t.Errorf("finalizers %v, want %v", ns.Spec.Finalizers, want)
	}
	if ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("phase %q, want Active", ns.Status.Phase)
	}
	if want := map[string]string{"a": "b", corev1.LabelMetadataName: "team"}; !reflect.DeepEqual(ns.Labels, want) {
		t.Errorf("labels %v, want %v", ns.Labels, want)
	}
	ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bare"}}
	Strategy.PrepareForCreate(context.Background(), ns)
	if ns.Labels[corev1.LabelMetadataName] != "bare" {
		t.Errorf("labels %v", ns.Labels)
	}
	if want := []corev1.FinalizerName{corev1.FinalizerKubernetes}; !reflect.DeepEqual(ns.Spec.Finalizers, want) {
		t.Errorf("finalizers %v, want %v", ns.Spec.Finalizers, want)
	}
	// Named already: not again, in its place.
	ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "named"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes, "a.io/x"}}}
	Strategy.PrepareForCreate(context.Background(), ns)
	if want := []corev1.FinalizerName{corev1.FinalizerKubernetes, "a.io/x"}; !reflect.DeepEqual(ns.Spec.Finalizers, want) {
		t.Errorf("finalizers %v, want %v", ns.Spec.Finalizers, want)
	}
}

func TestPrepareUpdates(t *testing.T) {
	ctx := context.Background()
	old := &corev1.Namespace{
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
	sent := func() *corev1.Namespace {
		return &corev1.Namespace{
			Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"new"}},
			Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
		}
	}
	for _, tc := range []struct {
		name           string
		prepare        func(obj *corev1.Namespace)
		keptFinalizers bool
		keptStatus     bool
	}{
		{"main", func(obj *corev1.Namespace) { Strategy.PrepareForUpdate(ctx, obj, old) }, true, true},
		{"status", func(obj *corev1.Namespace) { Strategy.PrepareForStatusUpdate(ctx, obj, old) }, true, false},
		{"finalize", func(obj *corev1.Namespace) { Strategy.PrepareForFinalizeUpdate(ctx, obj, old) }, false, true},
	} {
		ns := sent()
		tc.prepare(ns)
		if got := reflect.DeepEqual(ns.Spec.Finalizers, old.Spec.Finalizers); got != tc.keptFinalizers {
			t.Errorf("%s: finalizers %v (kept %v, want %v)", tc.name, ns.Spec.Finalizers, got, tc.keptFinalizers)
		}
		if got := reflect.DeepEqual(ns.Status, old.Status); got != tc.keptStatus {
			t.Errorf("%s: status %v (kept %v, want %v)", tc.name, ns.Status, got, tc.keptStatus)
		}
	}
}
