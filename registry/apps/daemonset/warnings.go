package daemonset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// WarningsOnCreate is upstream's: the warnings of the template (the name
// is not checked).
func (daemonSetStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	ds := obj.(*appsv1.DaemonSet)
	return pod.WarningsForPodTemplate(field.NewPath("spec", "template"), &ds.Spec.Template, nil)
}

// WarningsOnUpdate is upstream's: the warnings of the template when
// PrepareForUpdate has incremented the template generation, that is when
// the update changes the template.
func (daemonSetStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	ds, prev := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	if TemplateGeneration(ds) == TemplateGeneration(prev) {
		return nil
	}
	return pod.WarningsForPodTemplate(field.NewPath("spec", "template"), &ds.Spec.Template, &prev.Spec.Template)
}
