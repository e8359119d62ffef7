// Package runtimeclass holds the RuntimeClass strategy: the flags of kube-apiserver's
// pkg/registry/node/runtimeclass strategy and storage, and the rules of its
// validation for the handler (required, a DNS label, unchanged by updates),
// the overhead and the scheduling node selector and tolerations.
package runtimeclass

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the RuntimeClass strategy.
var Strategy = runtimeClassStrategy{strategy.Base{CreateOnUpdate: true}}

type runtimeClassStrategy struct{ strategy.Base }

// Validate checks a new RuntimeClass's overhead (as a container's limits),
// scheduling (node selector, tolerations, none repeated) and handler.
func (runtimeClassStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	rc := obj.(*nodev1.RuntimeClass)
	errs := validateOverheadAndScheduling(rc)
	// The handler's rules are declarative upstream: their errors come last.
	fld := field.NewPath("handler")
	if rc.Handler == "" {
		errs = append(errs, field.Required(fld, ""))
	} else {
		// The declarative short-name format, whose messages count bytes.
		errs = append(errs, validate.ShortName(ctx, operation.Operation{}, fld, &rc.Handler, nil)...)
	}
	return errs
}

// validateOverheadAndScheduling checks a RuntimeClass's overhead (as a
// container's limits) and scheduling (node selector, tolerations, none
// repeated).
func validateOverheadAndScheduling(rc *nodev1.RuntimeClass) field.ErrorList {
	var errs field.ErrorList
	if rc.Overhead != nil {
		errs = append(errs, pod.ValidateOverhead(rc.Overhead.PodFixed, field.NewPath("overhead"))...)
	}
	if s := rc.Scheduling; s != nil {
		if s.NodeSelector != nil {
			errs = append(errs, metav1validation.ValidateLabels(s.NodeSelector, field.NewPath("scheduling", "nodeSelector"))...)
		}
		errs = append(errs, validateTolerations(s.Tolerations, field.NewPath("scheduling", "tolerations"))...)
	}
	return errs
}

// validateTolerations is upstream's RuntimeClass validateTolerations: a
// pod's rules, and no two tolerations with one key, operator, value and
// effect.
func validateTolerations(ts []corev1.Toleration, fld *field.Path) field.ErrorList {
	errs := pod.ValidateTolerations(ts, fld)
	seen := map[corev1.Toleration]bool{}
	for i, t := range ts {
		key := corev1.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect}
		if seen[key] {
			errs = append(errs, field.Duplicate(fld.Index(i), internalToleration(t)))
			continue
		}
		seen[key] = true
	}
	return errs
}

// internalToleration is a toleration as upstream's internal type encodes
// in an error (its fields have no JSON names).
type internalToleration struct {
	Key               string
	Operator          corev1.TolerationOperator
	Value             string
	Effect            corev1.TaintEffect
	TolerationSeconds *int64
}

// ValidateUpdate checks the RuntimeClass as upstream's merge of its
// handwritten and declarative errors has it on update: the declarative
// rules for the handler are that it is unchanged (an error naming no value)
// and not empty, and they stop there, so its handwritten format errors
// (whose messages count characters) stay, first.
func (runtimeClassStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*nodev1.RuntimeClass), old.(*nodev1.RuntimeClass)
	fld := field.NewPath("handler")
	var errs field.ErrorList
	if n.Handler != "" {
		for _, msg := range apivalidation.NameIsDNSLabel(n.Handler, false) {
			errs = append(errs, field.Invalid(fld, n.Handler, msg))
		}
	}
	errs = append(errs, validateOverheadAndScheduling(n)...)
	if n.Handler != p.Handler {
		errs = append(errs, field.Invalid(fld, nil, "field is immutable"))
	}
	if n.Handler == "" {
		errs = append(errs, field.Required(fld, ""))
	}
	return errs
}
