package replicaset

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
func (replicaSetStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	rs := obj.(*appsv1.ReplicaSet)
	warnings := pod.WorkloadNameWarnings(rs.Name)
	return append(warnings, pod.WarningsForPodTemplate(field.NewPath("spec", "template"), &rs.Spec.Template, nil)...)
}

// WarningsOnUpdate is upstream's: the warnings of the template when the
// update changes the spec (when upstream increments the generation).
func (replicaSetStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	rs, prev := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
	if apiequality.Semantic.DeepEqual(rs.Spec, prev.Spec) {
		return nil
	}
	return pod.WarningsForPodTemplate(field.NewPath("spec", "template"), &rs.Spec.Template, &prev.Spec.Template)
}
