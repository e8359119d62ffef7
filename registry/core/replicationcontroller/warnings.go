package replicationcontroller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// WarningsOnCreate is upstream's: a name that is not a DNS label, then the
// warnings of the template.
func (rcStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	rc := obj.(*corev1.ReplicationController)
	warnings := pod.WorkloadNameWarnings(rc.Name)
	return append(warnings, pod.WarningsForPodTemplate(field.NewPath("spec", "template"), rc.Spec.Template, nil)...)
}

// WarningsOnUpdate is upstream's: when the update changes the spec (when
// upstream increments the generation), the warnings of a template, which,
// as upstream passes the templates the wrong way round, is the stored one.
func (rcStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	rc, prev := obj.(*corev1.ReplicationController), old.(*corev1.ReplicationController)
	if apiequality.Semantic.DeepEqual(rc.Spec, prev.Spec) {
		return nil
	}
	return pod.WarningsForPodTemplate(field.NewPath("spec", "template"), prev.Spec.Template, rc.Spec.Template)
}
