package registry

// The built-in admission plugins that look at a write to pods/resize:
// LimitRanger (which validates a resized pod's resources as a new pod's),
// NodeDeclaredFeatureValidator and PodResizeValidator (which check a bound
// pod's resize against its node), as kube-apiserver v1.37 enables them.

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	ndftypes "k8s.io/component-helpers/nodedeclaredfeatures/types"
	resourcehelper "k8s.io/component-helpers/resource"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/store"
)

// apiServerVersion is the version the NodeDeclaredFeatureValidator infers
// a pod update's required node features for (kube-apiserver's own).
var apiServerVersion = version.MustParse("1.37.2")

// resizedPods returns the new and stored pod of a write to pods/resize.
func resizedPods(a admission.Attributes) (pod, old *corev1.Pod, ok bool) {
	pod, ok = a.GetObject().(*corev1.Pod)
	if !ok {
		return nil, nil, false
	}
	old, ok = a.GetOldObject().(*corev1.Pod)
	return pod, old, ok
}

// validateResizeLimits is LimitRanger's validation of a resize: the
// resized pod's resources must fit the namespace's LimitRanges.
func validateResizeLimits(s *Registry, _ *Request, a admission.Attributes) error {
	pod, _, ok := resizedPods(a)
	if !ok {
		return nil
	}
	ranges, err := s.limitRanges(pod.Namespace)
	if err != nil {
		return err
	}
	return admissionplugins.ValidatePodResources(pod, ranges)
}

// boundPodResize returns the node of a bound pod whose resize changes its
// spec (the generation moved), or nil when the node plugins let it
// through unlooked at. A node that is not stored is refused as upstream's
// listers refuse it.
func boundPodResize(s *Registry, pod, old *corev1.Pod) (*corev1.Node, error) {
	if pod.Spec.NodeName == "" || pod.Generation == old.Generation {
		return nil, nil
	}
	node, err := getTyped[corev1.Node](s, "", "nodes", "", pod.Spec.NodeName)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("node %q not found", pod.Spec.NodeName)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to get node %q: %w", pod.Spec.NodeName, err)
	}
	return node, nil
}

// validateResizeNodeFeatures is the NodeDeclaredFeatureValidator's check
// of a bound pod's resize: the node must declare the features the resize
// needs (resizing pod-level resources or non-sidecar init containers).
func validateResizeNodeFeatures(s *Registry, _ *Request, a admission.Attributes) error {
	pod, old, ok := resizedPods(a)
	if !ok || pod.Spec.NodeName == "" || pod.Generation == old.Generation {
		return nil
	}
	reqs, err := ndf.DefaultFramework.InferForPodUpdate(&ndftypes.PodInfo{Spec: &old.Spec, Status: &old.Status}, &ndftypes.PodInfo{Spec: &pod.Spec, Status: &pod.Status}, apiServerVersion)
	if err != nil {
		return fmt.Errorf("failed to infer pod capability requirements: %w", err)
	}
	if reqs.IsEmpty() {
		return nil
	}
	node, err := boundPodResize(s, pod, old)
	if err != nil {
		return err
	}
	result, err := ndf.DefaultFramework.MatchNode(reqs, node)
	if err != nil {
		return fmt.Errorf("failed to match pod requirements against node %q: %w", node.Name, err)
	}
	if !result.IsMatch {
		return fmt.Errorf("pod update requires features %s which are not available on node %q", strings.Join(result.UnsatisfiedRequirements, ", "), node.Name)
	}
	return nil
}

// validateResizeNode is the PodResizeValidator: a bound pod may be
// resized on a Linux node (or one without an OS label) whose allocatable
// cpu and memory hold the pod's new requests.
func validateResizeNode(s *Registry, _ *Request, a admission.Attributes) error {
	pod, old, ok := resizedPods(a)
	if !ok {
		return nil
	}
	node, err := boundPodResize(s, pod, old)
	if node == nil || err != nil {
		return err
	}
	if os, ok := node.Labels[corev1.LabelOSStable]; ok && os != "linux" {
		return resizeRefusal(a, fmt.Errorf("pod resize is only supported on linux nodes, node %q is %q", node.Name, os), "UnsupportedPlatform")
	}
	requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	cpu, mem := requests[corev1.ResourceCPU], requests[corev1.ResourceMemory]
	var msg []string
	if alloc := node.Status.Allocatable.Cpu(); cpu.Cmp(*alloc) > 0 {
		msg = append(msg, fmt.Sprintf("cpu, requested: %d, allocatable: %d", cpu.MilliValue(), alloc.MilliValue()))
	}
	if alloc := node.Status.Allocatable.Memory(); mem.Cmp(*alloc) > 0 {
		msg = append(msg, fmt.Sprintf("memory, requested: %d, allocatable: %d", mem.Value(), alloc.Value()))
	}
	if len(msg) > 0 {
		return resizeRefusal(a, fmt.Errorf("node didn't have enough allocatable resources: %s", strings.Join(msg, "; ")), "NodeCapacity")
	}
	return nil
}

// resizeRefusal is the PodResizeValidator's 403: upstream's admission
// Forbidden with one cause of the given type.
func resizeRefusal(a admission.Attributes, err error, cause metav1.CauseType) error {
	forbidden := admission.NewForbidden(a, err)
	var se *apierrors.StatusError
	if errors.As(forbidden, &se) {
		se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{Type: cause})
		return se
	}
	return forbidden
}
