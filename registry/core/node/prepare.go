package node

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PrepareForCreate runs the node lifecycle controller's pass (see
// conditionTaints) on a new node, which the TaintNodesByCondition
// admission plugin tainted not ready, unless the control plane runs no
// such controller (WithoutLifecycleController). The status the client
// sent is kept, less its config: upstream clears it and
// spec.configSource, whose feature is removed. The spec's fields of
// default-off gates are cleared (dropDisabledSpecFields).
func (nodeStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	n := obj.(*corev1.Node)
	n.Spec.ConfigSource = nil
	n.Status.Config = nil
	dropDisabledSpecFields(&n.Spec, nil)
	if lifecycleController(ctx) {
		conditionTaints(n)
	}
}

// PrepareForUpdate clears the spec's fields of default-off gates the
// stored node does not use, and spec.configSource unless the stored node
// has one (as upstream, which keeps it then), and runs the node lifecycle
// controller's pass (see conditionTaints) unless the control plane runs
// none.
func (nodeStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	if old.(*corev1.Node).Spec.ConfigSource == nil {
		obj.(*corev1.Node).Spec.ConfigSource = nil
	}
	dropDisabledSpecFields(&obj.(*corev1.Node).Spec, &old.(*corev1.Node).Spec)
	if lifecycleController(ctx) {
		conditionTaints(obj.(*corev1.Node))
	}
}

// PrepareForStatusUpdate clears status.config unless the stored node has
// one, as upstream's node status strategy, and runs the node lifecycle
// controller's pass, as PrepareForUpdate does.
func (nodeStrategy) PrepareForStatusUpdate(ctx context.Context, obj, old runtime.Object) {
	if old.(*corev1.Node).Status.Config == nil {
		obj.(*corev1.Node).Status.Config = nil
	}
	if lifecycleController(ctx) {
		conditionTaints(obj.(*corev1.Node))
	}
}

// noLifecycleKey marks a context (see WithoutLifecycleController).
type noLifecycleKey struct{}

// WithoutLifecycleController marks ctx as a request to a control plane that
// runs no node lifecycle controller (envtest's shape): the strategy then
// keeps the taints a client writes, as kube-apiserver alone does, and only
// the TaintNodesByCondition plugin taints a new node not ready.
func WithoutLifecycleController(ctx context.Context) context.Context {
	return context.WithValue(ctx, noLifecycleKey{}, true)
}

// lifecycleController reports whether the strategy stands in for the node
// lifecycle controller in a request of context ctx.
func lifecycleController(ctx context.Context) bool {
	return ctx == nil || ctx.Value(noLifecycleKey{}) == nil
}

// conditionTaints is what kube-controller-manager's node lifecycle
// controller keeps on a node (the taints it adds stamped with the time):
// a NoSchedule taint for a Ready condition
// False (not-ready) or Unknown (unreachable), none when it is True, and
// the unschedulable taint while spec.unschedulable is set. A node without
// a Ready condition keeps what it has.
func conditionTaints(n *corev1.Node) {
	want := map[string]bool{corev1.TaintNodeUnschedulable: n.Spec.Unschedulable}
	ready := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = true
			want[corev1.TaintNodeNotReady] = c.Status == corev1.ConditionFalse
			want[corev1.TaintNodeUnreachable] = c.Status == corev1.ConditionUnknown
		}
	}
	var taints []corev1.Taint
	has := map[string]bool{}
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule {
			if w, managed := want[t.Key]; managed && (ready || t.Key == corev1.TaintNodeUnschedulable) && !w {
				continue
			}
			has[t.Key] = true
		}
		taints = append(taints, t)
	}
	for _, k := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeUnschedulable} {
		if want[k] && !has[k] {
			// With the time it is added, as the controller's taint swap
			// stamps every taint it adds.
			taints = append(taints, corev1.Taint{Key: k, Effect: corev1.TaintEffectNoSchedule, TimeAdded: new(metav1.Now())})
		}
	}
	n.Spec.Taints = taints
}
