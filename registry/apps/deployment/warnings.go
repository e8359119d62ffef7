package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// WarningsOnCreate is upstream's: a name that is not a DNS label, then the
// warnings of the template.
func (deploymentStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	d := obj.(*appsv1.Deployment)
	warnings := pod.WorkloadNameWarnings(d.Name)
	return append(warnings, pod.WarningsForPodTemplate(field.NewPath("spec", "template"), &d.Spec.Template, nil)...)
}

// WarningsOnUpdate is upstream's: the warnings of the template when the
// update changes the spec or the annotations (when upstream increments
// the generation).
func (deploymentStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	d, prev := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	if apiequality.Semantic.DeepEqual(d.Spec, prev.Spec) && apiequality.Semantic.DeepEqual(d.Annotations, prev.Annotations) {
		return nil
	}
	return pod.WarningsForPodTemplate(field.NewPath("spec", "template"), &d.Spec.Template, &prev.Spec.Template)
}
