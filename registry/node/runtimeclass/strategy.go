// Package runtimeclass holds the RuntimeClass strategy: the flags of kube-apiserver's
// pkg/registry/node/runtimeclass strategy and storage, and the rules of its
// validation for the handler (required, a DNS label, unchanged by updates)
// and the scheduling node selector. The overhead and the scheduling
// tolerations are not checked.
package runtimeclass

import (
	"context"

	nodev1 "k8s.io/api/node/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the RuntimeClass strategy.
var Strategy = runtimeClassStrategy{strategy.Base{CreateOnUpdate: true}}

type runtimeClassStrategy struct{ strategy.Base }

// Validate checks a new RuntimeClass's handler and scheduling node selector.
func (runtimeClassStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	rc := obj.(*nodev1.RuntimeClass)
	var errs field.ErrorList
	fld := field.NewPath("handler")
	if rc.Handler == "" {
		errs = append(errs, field.Required(fld, ""))
	} else {
		for _, msg := range apivalidation.NameIsDNSLabel(rc.Handler, false) {
			errs = append(errs, field.Invalid(fld, rc.Handler, msg))
		}
	}
	if rc.Scheduling != nil && rc.Scheduling.NodeSelector != nil {
		errs = append(errs, metav1validation.ValidateLabels(rc.Scheduling.NodeSelector, field.NewPath("scheduling", "nodeSelector"))...)
	}
	return errs
}

// ValidateUpdate checks that an update keeps the handler. Upstream's error
// comes from its declarative validation, which names no value.
func (runtimeClassStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	if obj.(*nodev1.RuntimeClass).Handler != old.(*nodev1.RuntimeClass).Handler {
		return field.ErrorList{field.Invalid(field.NewPath("handler"), nil, "field is immutable")}
	}
	return nil
}
