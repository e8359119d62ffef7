package daemonset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

// PrepareForCreate clears the status and sets a new DaemonSet's template
// generation to 1, as upstream's PrepareForCreate does.
func (s daemonSetStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Base.PrepareForCreate(ctx, obj)
	SetTemplateGeneration(obj.(*appsv1.DaemonSet), 1)
}

// PrepareForUpdate keeps the stored template generation, incremented when
// the template changes, as upstream's PrepareForUpdate does.
func (daemonSetStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ds, prev := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	gen := TemplateGeneration(prev)
	if !apiequality.Semantic.DeepEqual(ds.Spec.Template, prev.Spec.Template) {
		gen++
	}
	SetTemplateGeneration(ds, gen)
}

// PrepareForStatusUpdate keeps the stored template generation.
func (daemonSetStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	SetTemplateGeneration(obj.(*appsv1.DaemonSet), TemplateGeneration(old.(*appsv1.DaemonSet)))
}
