// Package node holds the Node strategy: kube-apiserver's
// pkg/registry/core/node rules.
package node

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Node strategy.
var Strategy = nodeStrategy{strategy.Base{UnconditionalUpdate: true, StatusWritesMetadata: true}}

type nodeStrategy struct{ strategy.Base }

// Default sets upstream's SetDefaults_NodeStatus: allocatable defaults to
// capacity. It also does what upstream's conversion of the spec to the
// internal type and back does: a spec.podCIDR set and not first in
// spec.podCIDRs replaces them (it is authoritative, for older clients),
// and spec.podCIDR is always the first of spec.podCIDRs.
func (nodeStrategy) Default(obj runtime.Object) {
	o := obj.(*corev1.Node)
	if o.Status.Allocatable == nil && o.Status.Capacity != nil {
		o.Status.Allocatable = o.Status.Capacity.DeepCopy()
	}
	if o.Spec.PodCIDR != "" && (len(o.Spec.PodCIDRs) == 0 || o.Spec.PodCIDRs[0] != o.Spec.PodCIDR) {
		o.Spec.PodCIDRs = []string{o.Spec.PodCIDR}
	}
	o.Spec.PodCIDR = ""
	if len(o.Spec.PodCIDRs) > 0 {
		o.Spec.PodCIDR = o.Spec.PodCIDRs[0]
	}
}

// Validate checks a new Node's taints, resources and pod CIDRs.
func (nodeStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateNode(obj.(*corev1.Node), nil)
}

// ValidateUpdate also keeps the pod CIDRs, provider ID and external ID.
func (nodeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateNode(obj.(*corev1.Node), old.(*corev1.Node))
}

// ValidateStatusUpdate validates as an update, as upstream's node status
// strategy does.
func (s nodeStrategy) ValidateStatusUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return s.ValidateUpdate(ctx, obj, old)
}

// validateNode is the part of upstream's ValidateNode (old nil) and
// ValidateNodeUpdate about taints, resource quantities, pod CIDRs and the
// provider ID. (Upstream reports taints under metadata.taints.)
func validateNode(n, old *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateNodeAnnotations(n.Annotations)...)
	if old == nil && len(n.Spec.Taints) > 0 {
		errs = append(errs, validateNodeTaints(n.Spec.Taints, field.NewPath("metadata", "taints"))...)
	}
	for _, l := range []struct {
		list corev1.ResourceList
		name string
	}{{n.Status.Capacity, "capacity"}, {n.Status.Allocatable, "allocatable"}} {
		for _, k := range validate.ResourceNames(l.list) {
			errs = append(errs, validate.Quantity(k, l.list[corev1.ResourceName(k)], field.NewPath("status", l.name, k))...)
		}
	}
	if swap := n.Status.NodeInfo.Swap; swap != nil && swap.Capacity != nil && *swap.Capacity <= 0 {
		// Upstream's path for it is under metadata.
		errs = append(errs, field.Invalid(field.NewPath("metadata", "nodeSwapStatus", "capacity"), *swap.Capacity, "must be greater than zero"))
	}
	errs = append(errs, validateDeclaredFeatures(n.Status.DeclaredFeatures, field.NewPath("status", "declaredFeatures"))...)
	cidrs := field.NewPath("spec", "podCIDRs")
	if old == nil && len(n.Spec.PodCIDRs) > 0 {
		for i, c := range n.Spec.PodCIDRs {
			errs = append(errs, validate.LegacyCIDR(cidrs.Index(i), c, nil)...)
		}
		if len(n.Spec.PodCIDRs) > 1 {
			dual, err := netutils.IsDualStackCIDRStrings(n.Spec.PodCIDRs)
			if err != nil {
				errs = append(errs, field.InternalError(cidrs, fmt.Errorf("invalid PodCIDRs. failed to check with dual stack with error:%v", err)))
			}
			if !dual || len(n.Spec.PodCIDRs) > 2 {
				errs = append(errs, field.Invalid(cidrs, n.Spec.PodCIDRs, "may specify no more than one CIDR for each IP family"))
			}
		}
	}
	if old == nil {
		return errs
	}
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range n.Status.Addresses {
		if seen[a] {
			errs = append(errs, field.Duplicate(field.NewPath("status", "addresses").Index(i), validate.InternalValue(a)))
		}
		seen[a] = true
	}
	if len(old.Spec.PodCIDRs) > 0 {
		const msg = `node updates may not change podCIDR except from "" to valid`
		if len(old.Spec.PodCIDRs) != len(n.Spec.PodCIDRs) {
			errs = append(errs, field.Forbidden(cidrs, msg))
		} else {
			for i, c := range old.Spec.PodCIDRs {
				if c != n.Spec.PodCIDRs[i] {
					errs = append(errs, field.Forbidden(cidrs, msg))
				}
			}
		}
	}
	if o, p := old.Spec.ProviderID, n.Spec.ProviderID; o != "" && p != "" && o != p {
		errs = append(errs, field.Invalid(field.NewPath("spec", "providerID"), nil, "field cannot be modified once set"))
	} else if o != "" && p == "" {
		errs = append(errs, field.Invalid(field.NewPath("spec", "providerID"), nil, "field cannot be cleared once set"))
	}
	if len(n.Spec.Taints) > 0 {
		errs = append(errs, validateNodeTaints(n.Spec.Taints, field.NewPath("metadata", "taints"))...)
	}
	if n.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}

// validateNodeTaints is upstream's validateNodeTaints.
func validateNodeTaints(ts []corev1.Taint, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.TaintEffect]map[string]bool{}
	for i, t := range ts {
		idx := fld.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, idx.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(idx.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		switch t.Effect {
		case "":
			errs = append(errs, field.Required(idx.Child("effect"), ""))
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(idx.Child("effect"), t.Effect, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
		}
		if seen[t.Effect][t.Key] {
			d := field.Duplicate(idx, validate.InternalValue(t))
			d.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, d)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	return errs
}
