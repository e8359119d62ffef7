package podtemplate

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// WarningsOnCreate is upstream's: the warnings of the template.
func (podTemplateStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	pt := obj.(*corev1.PodTemplate)
	return pod.WarningsForPodTemplate(field.NewPath("template"), &pt.Template, nil)
}

// WarningsOnUpdate is upstream's: the warnings of the template when the
// update changes it (when upstream increments the generation).
func (podTemplateStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	pt, prev := obj.(*corev1.PodTemplate), old.(*corev1.PodTemplate)
	if apiequality.Semantic.DeepEqual(pt.Template, prev.Template) {
		return nil
	}
	return pod.WarningsForPodTemplate(field.NewPath("template"), &pt.Template, &prev.Template)
}
