package server

import (
	"github.com/fakeplane/fakeplane/internal/validate"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Built-in validation: the rules of kube-apiserver's registry strategies
// (pkg/apis/*/validation upstream) for the built-in types, reimplemented on
// the v1 types. Each rule answers with upstream's field path and message,
// and the causes of a 422 come in upstream's order (metadata first, see
// validateCreate and beforeUpdate). Where upstream ranges over a map, the
// keys are taken in sorted order (upstream's order is random).

// validateBuiltin returns the errors of upstream's Validate (old == nil) or
// ValidateUpdate for a built-in object, metadata excluded.
func validateBuiltin(obj, old runtime.Object) field.ErrorList {
	switch n := obj.(type) {
	case *corev1.Pod:
		if old != nil {
			return validatePodUpdate(n, old.(*corev1.Pod))
		}
		return validatePod(n)
	case *appsv1.Deployment:
		errs := validateDeployment(n)
		if old != nil {
			errs = append(errs, validateSelectorUpdate(n.Spec.Selector, old.(*appsv1.Deployment).Spec.Selector)...)
		}
		return errs
	case *appsv1.ReplicaSet:
		errs := validateReplicaSet(n)
		if old != nil {
			errs = append(errs, validateSelectorUpdate(n.Spec.Selector, old.(*appsv1.ReplicaSet).Spec.Selector)...)
		}
		return errs
	case *appsv1.StatefulSet:
		if old != nil {
			return validateStatefulSetUpdate(n, old.(*appsv1.StatefulSet))
		}
		return validateStatefulSet(n)
	case *appsv1.DaemonSet:
		if old != nil {
			return append(validateSelectorUpdate(n.Spec.Selector, old.(*appsv1.DaemonSet).Spec.Selector), validateDaemonSet(n)...)
		}
		return validateDaemonSet(n)
	case *corev1.ReplicationController:
		return validateReplicationController(n)
	case *corev1.PodTemplate:
		return validatePodTemplate(&n.Template, field.NewPath("template"))
	case *batchv1.Job:
		if old != nil {
			return validateJobUpdate(n, old.(*batchv1.Job))
		}
		return validateJob(n)
	case *batchv1.CronJob:
		if old != nil {
			return validateCronJob(n, old.(*batchv1.CronJob))
		}
		return validateCronJob(n, nil)
	case *corev1.PersistentVolumeClaim:
		if old != nil {
			return validatePVCUpdate(n, old.(*corev1.PersistentVolumeClaim))
		}
		return validatePVCSpec(&n.Spec, field.NewPath("spec"))
	}
	return nil
}

// validateBuiltinStatus returns the errors of upstream's status strategy
// ValidateUpdate for a built-in object, metadata excluded.
func validateBuiltinStatus(obj, old runtime.Object) field.ErrorList {
	switch n := obj.(type) {
	case *corev1.Pod:
		return validatePodStatusUpdate(n, old.(*corev1.Pod))
	case *appsv1.Deployment:
		return validateDeploymentStatus(n, old.(*appsv1.Deployment))
	case *appsv1.ReplicaSet:
		return validateReplicaSetStatus(n)
	case *appsv1.StatefulSet:
		return validateStatefulSetStatus(n, old.(*appsv1.StatefulSet))
	case *appsv1.DaemonSet:
		return validateDaemonSetStatus(n, old.(*appsv1.DaemonSet))
	case *corev1.ReplicationController:
		return validateReplicationControllerStatus(n)
	case *batchv1.Job:
		return validateJobStatusUpdate(n, old.(*batchv1.Job))
	}
	return nil
}

// portNumOrName is upstream's ValidatePortNumOrName, which the pod rules
// still in this package use.
var portNumOrName = validate.PortNumOrName
