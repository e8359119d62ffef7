// Package lease holds the Lease strategy: kube-apiserver's
// pkg/registry/coordination/lease rules.
package lease

import (
	"context"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Lease strategy.
var Strategy = leaseStrategy{strategy.Base{Namespaced: true, CreateOnUpdate: true, NameRuleOnCreateOnly: true}}

type leaseStrategy struct{ strategy.Base }

// Default drops the fields of CoordinatedLeaderElection, which is off in
// v1.37.
func (leaseStrategy) Default(obj runtime.Object) {
	l := obj.(*coordinationv1.Lease)
	l.Spec.Strategy = nil
	l.Spec.PreferredHolder = nil
}

// Validate checks a new Lease's spec.
func (leaseStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateLease(obj.(*coordinationv1.Lease))
}

// ValidateUpdate checks the spec as on create.
func (s leaseStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}

var leaseStrategies = []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}

func validateLease(l *coordinationv1.Lease) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseDurationSeconds"), d, "must be greater than 0"))
	}
	if t := l.Spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseTransitions"), t, "must be greater than or equal to 0"))
	}
	if st := l.Spec.Strategy; st != nil {
		fld := spec.Child("strategy").Child("strategy")
		if !strings.Contains(string(*st), "/") {
			if !slices.Contains(leaseStrategies, *st) {
				errs = append(errs, field.NotSupported(fld, *st, leaseStrategies))
			}
		} else {
			for _, msg := range validation.IsQualifiedName(string(*st)) {
				errs = append(errs, field.Invalid(fld, *st, msg))
			}
		}
	}
	if p := l.Spec.PreferredHolder; p != nil && *p != "" && (l.Spec.Strategy == nil || *l.Spec.Strategy == "") {
		errs = append(errs, field.Forbidden(spec.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}
