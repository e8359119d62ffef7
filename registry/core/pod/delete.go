package pod

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// CheckGracefulDelete makes pods deleted gracefully, as upstream's pod
// strategy does (rest.RESTGracefulDeleteStrategy): it sets the grace period
// of options to the one asked for, else the pod's
// terminationGracePeriodSeconds, and to 0 for a pod that is not bound to a
// node or has already terminated (Succeeded or Failed); a negative one is
// 1.
func (podStrategy) CheckGracefulDelete(_ context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	if options == nil {
		return false
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return false
	}
	period := int64(0)
	switch {
	case options.GracePeriodSeconds != nil:
		period = *options.GracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	options.GracePeriodSeconds = &period
	return true
}
