package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// podTemplateSpec is the pod spec of the template an object of a
// workload kind (or a PodTemplate) holds, nil for other objects or
// without a template.
func podTemplateSpec(obj runtime.Object) *corev1.PodSpec {
	switch o := obj.(type) {
	case *corev1.PodTemplate:
		return &o.Template.Spec
	case *corev1.ReplicationController:
		if o.Spec.Template != nil {
			return &o.Spec.Template.Spec
		}
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec
	case *batchv1.Job:
		return &o.Spec.Template.Spec
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec
	}
	return nil
}

// dropDisabledTemplateFields clears the fields of default-off feature
// gates from the pod template of obj, unless old's template uses them, as
// upstream's workload strategies do (pkg/api/pod's
// DropDisabledTemplateFields, in their PrepareForCreate and
// PrepareForUpdate). old is nil on create.
func dropDisabledTemplateFields(obj, old runtime.Object) {
	spec := podTemplateSpec(obj)
	if spec == nil {
		return
	}
	var oldSpec *corev1.PodSpec
	if old != nil {
		oldSpec = podTemplateSpec(old)
	}
	pod.DropDisabledSpecFields(spec, oldSpec)
}
