package scheduler

import corev1 "k8s.io/api/core/v1"

// errReasonNodeName is kube-scheduler's NodeName plugin's reason.
const errReasonNodeName = "node(s) didn't match the requested node name"

// nodeName rejects nodes other than the one spec.nodeName names (the
// NodeName plugin).
type nodeName struct{}

func (nodeName) Name() string { return NodeName }

// Filter implements filterPlugin.
func (nodeName) Filter(_ *cycleState, pod *corev1.Pod, n *nodeInfo) *status {
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != n.node.Name {
		return newStatus(unresolvable, errReasonNodeName)
	}
	return nil
}

// eventsToRegister implements queueingHinter: a new node, always
// (kube-scheduler's NodeName registration has no hint).
func (nodeName) eventsToRegister() []eventHint {
	return []eventHint{{resource: resNode, actions: actAdd}}
}
