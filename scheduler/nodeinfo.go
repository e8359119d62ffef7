package scheduler

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// The requests kube-scheduler assumes, when scoring, for containers that
// request no cpu or memory (its non-zero defaults).
const (
	defaultMilliCPURequest int64 = 100
	defaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// resources is an amount of the resources the scheduler accounts for.
type resources struct {
	milliCPU, memory, ephemeralStorage int64
	scalar                             map[corev1.ResourceName]int64
}

// resourcesOf converts a ResourceList.
func resourcesOf(rl corev1.ResourceList) resources {
	var r resources
	for name, q := range rl {
		switch name {
		case corev1.ResourceCPU:
			r.milliCPU = q.MilliValue()
		case corev1.ResourceMemory:
			r.memory = q.Value()
		case corev1.ResourceEphemeralStorage:
			r.ephemeralStorage = q.Value()
		case corev1.ResourcePods:
		default:
			if isScalarResource(name) {
				if r.scalar == nil {
					r.scalar = map[corev1.ResourceName]int64{}
				}
				r.scalar[name] = q.Value()
			}
		}
	}
	return r
}

// isScalarResource reports resources counted as integers besides cpu,
// memory and ephemeral-storage: extended resources, hugepages and
// attachable volumes.
func isScalarResource(name corev1.ResourceName) bool {
	s := string(name)
	return strings.Contains(s, "/") || strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) || strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix)
}

func (r *resources) add(o resources) {
	r.milliCPU += o.milliCPU
	r.memory += o.memory
	r.ephemeralStorage += o.ephemeralStorage
	for k, v := range o.scalar {
		if r.scalar == nil {
			r.scalar = map[corev1.ResourceName]int64{}
		}
		r.scalar[k] += v
	}
}

func (r *resources) sub(o resources) {
	r.milliCPU -= o.milliCPU
	r.memory -= o.memory
	r.ephemeralStorage -= o.ephemeralStorage
	for k, v := range o.scalar {
		if r.scalar != nil {
			r.scalar[k] -= v
		}
	}
}

func (r resources) clone() resources {
	c := r
	if r.scalar != nil {
		c.scalar = make(map[corev1.ResourceName]int64, len(r.scalar))
		for k, v := range r.scalar {
			c.scalar[k] = v
		}
	}
	return c
}

// podInfo is a pod with what the scheduler computes from it once.
type podInfo struct {
	pod *corev1.Pod
	// requests are the pod's effective requests (pod-level resources when
	// set, else containers and init containers as the API defines, plus
	// overhead).
	requests resources
	// nonZero are the cpu and memory requests with kube-scheduler's
	// defaults for containers that request none, used for scoring.
	nonZero resources
}

// newPodInfo computes a pod's requests.
func newPodInfo(pod *corev1.Pod) *podInfo {
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	nonZero := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{
		NonMissingContainerRequests: corev1.ResourceList{
			corev1.ResourceCPU:    *resourceQuantityMilli(defaultMilliCPURequest),
			corev1.ResourceMemory: *resourceQuantity(defaultMemoryRequest),
		},
	})
	nz := resourcesOf(nonZero)
	return &podInfo{pod: pod, requests: resourcesOf(req), nonZero: resources{milliCPU: nz.milliCPU, memory: nz.memory}}
}

// hostPort is a port a pod asks for on its node.
type hostPort struct {
	ip       string
	protocol corev1.Protocol
	port     int32
}

// nodeInfo is a node and the pods bound (or assumed bound) to it.
type nodeInfo struct {
	node        *corev1.Node
	pods        []*podInfo
	requested   resources
	nonZero     resources
	allocatable resources
	allowedPods int64
	usedPorts   map[hostPort]bool
}

// setNode sets (or replaces) the node.
func (n *nodeInfo) setNode(node *corev1.Node) {
	n.node = node
	if node != nil {
		n.allocatable = resourcesOf(node.Status.Allocatable)
		n.allowedPods = node.Status.Allocatable.Pods().Value()
	}
}

// clone copies what a scheduling cycle may change.
func (n *nodeInfo) clone() *nodeInfo {
	c := *n
	c.pods = append([]*podInfo(nil), n.pods...)
	c.requested = n.requested.clone()
	c.nonZero = n.nonZero.clone()
	c.usedPorts = nil
	if len(n.usedPorts) > 0 {
		c.usedPorts = make(map[hostPort]bool, len(n.usedPorts))
		for k, v := range n.usedPorts {
			c.usedPorts[k] = v
		}
	}
	return &c
}

// addPod accounts for a pod on the node.
func (n *nodeInfo) addPod(pi *podInfo) {
	n.pods = append(n.pods, pi)
	n.requested.add(pi.requests)
	n.nonZero.add(pi.nonZero)
	for _, p := range podHostPorts(pi.pod) {
		if n.usedPorts == nil {
			n.usedPorts = map[hostPort]bool{}
		}
		n.usedPorts[p] = true
	}
}

// removePod forgets a pod (by UID); it reports whether it was there.
func (n *nodeInfo) removePod(pod *corev1.Pod) bool {
	for i, pi := range n.pods {
		if pi.pod.UID != pod.UID {
			continue
		}
		n.pods = append(n.pods[:i:i], n.pods[i+1:]...)
		n.requested.sub(pi.requests)
		n.nonZero.sub(pi.nonZero)
		for _, p := range podHostPorts(pi.pod) {
			delete(n.usedPorts, p)
		}
		return true
	}
	return false
}

// podHostPorts lists the host ports a pod's containers ask for, with the
// wildcard address for an empty hostIP and TCP for an empty protocol.
func podHostPorts(pod *corev1.Pod) []hostPort {
	var out []hostPort
	add := func(cs []corev1.Container) {
		for _, c := range cs {
			for _, p := range c.Ports {
				if p.HostPort <= 0 {
					continue
				}
				hp := hostPort{ip: p.HostIP, protocol: p.Protocol, port: p.HostPort}
				if hp.ip == "" {
					hp.ip = "0.0.0.0"
				}
				if hp.protocol == "" {
					hp.protocol = corev1.ProtocolTCP
				}
				out = append(out, hp)
			}
		}
	}
	add(pod.Spec.Containers)
	// Restartable init containers (sidecars) run alongside and hold ports.
	var sidecars []corev1.Container
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars = append(sidecars, c)
		}
	}
	add(sidecars)
	return out
}

func resourceQuantityMilli(v int64) *resource.Quantity {
	return resource.NewMilliQuantity(v, resource.DecimalSI)
}

func resourceQuantity(v int64) *resource.Quantity { return resource.NewQuantity(v, resource.BinarySI) }
