package kubelet

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ManagedAnnotation marks a Node the simulator manages, with the value
// ManagedValue: kwok's annotation, so that nodes made for kwok work here
// unchanged.
const (
	ManagedAnnotation = "kwok.x-k8s.io/node"
	ManagedValue      = "fake"
)

// ExtendWebSocketsToKubelet is the node feature a kubelet whose API serves
// WebSocket streams declares in status.declaredFeatures.
const ExtendWebSocketsToKubelet = "ExtendWebSocketsToKubelet"

// Labels and values of the nodes the simulator creates.
const (
	// InstanceType is the node.kubernetes.io/instance-type of created
	// nodes.
	InstanceType = "fakeplane"
	// Arch is the kubernetes.io/arch of created nodes.
	Arch = "amd64"
	// KubeletVersion is the version a simulated node reports.
	KubeletVersion = "v1.37.2"
	// kubeletPort is the kubelet's port reported in daemonEndpoints.
	kubeletPort = 10250
)

// DefaultCapacity is the capacity (and allocatable) of created nodes, and
// of managed nodes that declare none: kwok's defaults for cpu, memory and
// pods, and 100Gi of ephemeral storage.
func DefaultCapacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("32"),
		corev1.ResourceMemory:           resource.MustParse("256Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
}

// NodeName is the name of the i-th created node: node-0, node-1, ...
func NodeName(i int) string { return "node-" + strconv.Itoa(i) }

// nodeIPBase and podCIDRBase are where created nodes' InternalIPs and pod
// CIDRs are taken from: node i gets 10.89.0.0 + i + 2 and the i-th /24 of
// 10.128.0.0/9.
var (
	nodeIPBase  = netip.MustParseAddr("10.89.0.0")
	podCIDRBase = netip.MustParseAddr("10.128.0.0")
)

// addOffset returns base + n.
func addOffset(base netip.Addr, n uint32) netip.Addr {
	b := base.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v += n
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// NewNode returns the i-th node the simulator creates: labelled as a
// kubelet labels its node (hostname, os, arch) plus an instance type, with
// a pod CIDR, the managed annotation and the default capacity. Its status
// is filled in once it is created.
func NewNode(i int) *corev1.Node {
	name := NodeName(i)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				corev1.LabelHostname:           name,
				corev1.LabelOSStable:           "linux",
				corev1.LabelArchStable:         Arch,
				corev1.LabelInstanceTypeStable: InstanceType,
				"beta.kubernetes.io/os":        "linux",
				"beta.kubernetes.io/arch":      Arch,
			},
			Annotations: map[string]string{ManagedAnnotation: ManagedValue},
		},
		Spec: corev1.NodeSpec{
			PodCIDR:  netip.PrefixFrom(addOffset(podCIDRBase, uint32(i)<<8), 24).String(),
			PodCIDRs: []string{netip.PrefixFrom(addOffset(podCIDRBase, uint32(i)<<8), 24).String()},
		},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: addOffset(nodeIPBase, uint32(i)+2).String()},
				{Type: corev1.NodeHostName, Address: name},
			},
		},
	}
}

// IsManaged reports whether the simulator manages node.
func IsManaged(node *corev1.Node) bool {
	return node.Annotations[ManagedAnnotation] == ManagedValue
}

// desiredStatus returns the status a kubelet would report for node: its
// conditions as a healthy kubelet sets them (keeping transition times that
// did not change), node info, the default capacity when it declares none,
// allocatable equal to capacity when unset, a Hostname address when it has
// none. With the kubelet API on (api not nil), the API's IP is the node's
// InternalIP, first of its addresses, and its port the kubelet endpoint's.
func desiredStatus(node *corev1.Node, now metav1.Time, api *net.TCPAddr) corev1.NodeStatus {
	st := *node.Status.DeepCopy()
	st.DaemonEndpoints.KubeletEndpoint.Port = kubeletPort
	if api != nil {
		addrs := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: api.IP.String()}}
		for _, a := range st.Addresses {
			if a.Type != corev1.NodeInternalIP {
				addrs = append(addrs, a)
			}
		}
		st.Addresses = addrs
		st.DaemonEndpoints.KubeletEndpoint.Port = int32(api.Port)
		// The kubelet API serves WebSocket streams itself, as a v1.37
		// kubelet does and declares: kube-apiserver then passes them
		// through instead of translating them to SPDY.
		if !slices.Contains(st.DeclaredFeatures, ExtendWebSocketsToKubelet) {
			st.DeclaredFeatures = append(st.DeclaredFeatures, ExtendWebSocketsToKubelet)
		}
	}
	if len(st.Capacity) == 0 {
		st.Capacity = DefaultCapacity()
	}
	if len(st.Allocatable) == 0 {
		st.Allocatable = st.Capacity.DeepCopy()
	}
	hasHostname := false
	for _, a := range st.Addresses {
		if a.Type == corev1.NodeHostName {
			hasHostname = true
		}
	}
	if !hasHostname {
		st.Addresses = append(st.Addresses, corev1.NodeAddress{Type: corev1.NodeHostName, Address: node.Name})
	}
	st.NodeInfo = corev1.NodeSystemInfo{
		MachineID:               orDefault(st.NodeInfo.MachineID, string(node.UID)),
		SystemUUID:              orDefault(st.NodeInfo.SystemUUID, string(node.UID)),
		BootID:                  orDefault(st.NodeInfo.BootID, string(node.UID)),
		KernelVersion:           orDefault(st.NodeInfo.KernelVersion, "6.8.0-fakeplane"),
		OSImage:                 orDefault(st.NodeInfo.OSImage, "fakeplane simulated node"),
		ContainerRuntimeVersion: orDefault(st.NodeInfo.ContainerRuntimeVersion, "fakeplane://"+KubeletVersion),
		KubeletVersion:          KubeletVersion,
		OperatingSystem:         orDefault(node.Labels[corev1.LabelOSStable], "linux"),
		Architecture:            orDefault(node.Labels[corev1.LabelArchStable], Arch),
	}
	want := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	conds := make([]corev1.NodeCondition, 0, len(want)+len(st.Conditions))
	for _, w := range want {
		w.LastHeartbeatTime, w.LastTransitionTime = now, now
		for _, old := range st.Conditions {
			if old.Type == w.Type && old.Status == w.Status && old.Reason == w.Reason && old.Message == w.Message {
				w.LastHeartbeatTime, w.LastTransitionTime = old.LastHeartbeatTime, old.LastTransitionTime
			}
		}
		conds = append(conds, w)
	}
	for _, old := range st.Conditions {
		known := false
		for _, w := range want {
			known = known || old.Type == w.Type
		}
		if !known {
			conds = append(conds, old)
		}
	}
	st.Conditions = conds
	return st
}

// statusUpToDate reports whether node already reports what desiredStatus
// would set.
func statusUpToDate(node *corev1.Node, now metav1.Time, api *net.TCPAddr) bool {
	return equality.Semantic.DeepEqual(node.Status, desiredStatus(node, now, api))
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// errorf wraps an error with what was being done.
func errorf(format string, args ...any) error { return fmt.Errorf("kubelet: "+format, args...) }
