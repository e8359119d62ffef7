package pod

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DisallowedByClusterPolicy is what kube-apiserver started with
// --allow-privileged=false refuses in the pod spec of obj (a Pod, a
// PodTemplate, or a workload's or CronJob's template): privileged
// containers, and host process containers. Other objects have none.
func DisallowedByClusterPolicy(obj runtime.Object) field.ErrorList {
	s, fld := podSpecOf(obj)
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	privileged := func(c *corev1.Container, cf *field.Path) {
		if sc := c.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, field.Forbidden(cf.Child("securityContext", "privileged"), "disallowed by cluster policy"))
		}
	}
	// In the order of upstream's ValidatePodSpec: containers, init
	// containers, ephemeral containers.
	for i := range s.Containers {
		privileged(&s.Containers[i], fld.Child("containers").Index(i))
	}
	for i := range s.InitContainers {
		privileged(&s.InitContainers[i], fld.Child("initContainers").Index(i))
	}
	for i := range s.EphemeralContainers {
		c := corev1.Container(s.EphemeralContainers[i].EphemeralContainerCommon)
		privileged(&c, fld.Child("ephemeralContainers").Index(i))
	}
	if hostProcessContainers(s) > 0 {
		errs = append(errs, field.Forbidden(fld, "hostProcess containers are disallowed by cluster policy"))
	}
	return errs
}

// hostProcessContainers counts the containers of s that are Windows host
// process containers, by their own setting or the pod's.
func hostProcessContainers(s *corev1.PodSpec) int {
	var podHostProcess *bool
	if s.SecurityContext != nil && s.SecurityContext.WindowsOptions != nil {
		podHostProcess = s.SecurityContext.WindowsOptions.HostProcess
	}
	n := 0
	visitContainersWithPath(s, nil, func(c *corev1.Container, _ *field.Path) {
		var own *bool
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			own = c.SecurityContext.WindowsOptions.HostProcess
		}
		if own != nil && *own || own == nil && podHostProcess != nil && *podHostProcess {
			n++
		}
	})
	return n
}

// podSpecOf is the pod spec obj holds and its path, nil for an object
// without one (or a ReplicationController without a template).
func podSpecOf(obj runtime.Object) (*corev1.PodSpec, *field.Path) {
	template := field.NewPath("spec", "template", "spec")
	switch o := obj.(type) {
	case *corev1.Pod:
		return &o.Spec, field.NewPath("spec")
	case *corev1.PodTemplate:
		return &o.Template.Spec, field.NewPath("template", "spec")
	case *corev1.ReplicationController:
		if o.Spec.Template == nil {
			return nil, nil
		}
		return &o.Spec.Template.Spec, template
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec, template
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec, template
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec, template
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec, template
	case *batchv1.Job:
		return &o.Spec.Template.Spec, template
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec, field.NewPath("spec", "jobTemplate", "spec", "template", "spec")
	}
	return nil, nil
}
