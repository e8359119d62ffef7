package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/batch/job"
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

// jobSpec is the Job spec of a Job or of a CronJob's job template, nil for
// other objects.
func jobSpec(obj runtime.Object) *batchv1.JobSpec {
	switch o := obj.(type) {
	case *batchv1.Job:
		return &o.Spec
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec
	}
	return nil
}

// dropDisabledFields clears the fields of feature gates off by default in
// v1.37 that the workload kinds share, unless old uses them, as upstream's
// workload strategies do in their PrepareForCreate and PrepareForUpdate:
// those of the pod template (pkg/api/pod's DropDisabledTemplateFields) and
// of a Job spec (pkg/api/job's DropDisabledFields). old is nil on create.
func dropDisabledFields(obj, old runtime.Object) {
	if spec := jobSpec(obj); spec != nil {
		var oldSpec *batchv1.JobSpec
		if old != nil {
			oldSpec = jobSpec(old)
		}
		job.DropDisabledSpecFields(spec, oldSpec)
	}
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
