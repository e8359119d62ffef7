package kubelet

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/fakeplane/fakeplane/internal/qos"
)

// podQOSClass is the QoS class a kubelet reports for pod: the one the API
// server stored at create, else the class computed from the pod's
// (defaulted) resources as kube-apiserver and the kubelet compute it.
func podQOSClass(pod *corev1.Pod) corev1.PodQOSClass { return qos.PodClass(pod) }
