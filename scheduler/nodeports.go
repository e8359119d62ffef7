package scheduler

import corev1 "k8s.io/api/core/v1"

// errReasonNodePorts is kube-scheduler's NodePorts reason.
const errReasonNodePorts = "node(s) didn't have free ports for the requested pod ports"

// nodePorts rejects nodes where a host port the pod asks for is taken (the
// NodePorts plugin): same protocol and port, and the same host IP or either
// one the wildcard 0.0.0.0.
type nodePorts struct{}

func (nodePorts) Name() string { return NodePorts }

// Filter implements filterPlugin.
func (nodePorts) Filter(_ *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	for _, want := range podHostPorts(pod) {
		if portConflicts(n.usedPorts, want) {
			return newStatus(unschedulable, errReasonNodePorts)
		}
	}
	return nil
}

func portConflicts(used map[hostPort]bool, want hostPort) bool {
	if len(used) == 0 {
		return false
	}
	if want.ip == "0.0.0.0" {
		for u := range used {
			if u.protocol == want.protocol && u.port == want.port {
				return true
			}
		}
		return false
	}
	return used[want] || used[hostPort{ip: "0.0.0.0", protocol: want.protocol, port: want.port}]
}

// eventsToRegister implements queueingHinter: an assigned pod that goes,
// and a new node (kube-scheduler's NodePorts registrations; ports are
// immutable, so pod updates do not count).
func (nodePorts) eventsToRegister() []eventHint {
	return []eventHint{
		{resource: resAssignedPod, actions: actDelete, hint: afterPortHolderDelete},
		{resource: resNode, actions: actAdd},
	}
}

// afterPortHolderDelete: a placed pod goes that held a host port the pod
// asks for.
func afterPortHolderDelete(pod *corev1.Pod, e clusterEvent) bool {
	old, _ := eventPods(e)
	if old == nil {
		return true
	}
	if !placed(old) {
		return false
	}
	held := map[hostPort]bool{}
	for _, hp := range podHostPorts(old) {
		held[hp] = true
	}
	for _, want := range podHostPorts(pod) {
		if portConflicts(held, want) {
			return true
		}
	}
	return false
}
