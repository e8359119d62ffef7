// Package priorityclass holds the PriorityClass strategy: kube-apiserver's
// pkg/registry/scheduling/priorityclass rules.
package priorityclass

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PriorityClass strategy.
var Strategy = priorityClassStrategy{strategy.Base{UnconditionalUpdate: true, Generation: true, NameRuleOnCreateOnly: true}}

type priorityClassStrategy struct{ strategy.Base }

// Default sets the preemption policy.
func (priorityClassStrategy) Default(obj runtime.Object) {
	if o := obj.(*schedulingv1.PriorityClass); o.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		o.PreemptionPolicy = &p
	}
}

// Validate checks a new class's value, reserved names and policy.
func (priorityClassStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validatePriorityClass(obj.(*schedulingv1.PriorityClass), nil)
}

// ValidateUpdate keeps the value and the preemption policy.
func (priorityClassStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validatePriorityClass(obj.(*schedulingv1.PriorityClass), old.(*schedulingv1.PriorityClass))
}

// systemPriorityClasses are the reserved classes upstream knows (value,
// global default).
var systemPriorityClasses = map[string]int32{"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}

// validatePriorityClass is upstream's ValidatePriorityClass(Update) less the
// metadata.
func validatePriorityClass(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	var errs field.ErrorList
	if old != nil {
		if pc.Value != old.Value {
			errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
		}
		return append(errs, validate.ImmutableField(pc.PreemptionPolicy, old.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	if strings.HasPrefix(pc.Name, "system-") {
		var err string
		if v, ok := systemPriorityClasses[pc.Name]; !ok {
			err = pc.Name + " is not a known system priority class"
		} else if v != pc.Value {
			err = fmt.Sprintf("value of %v PriorityClass must be %v", pc.Name, v)
		} else if pc.GlobalDefault {
			err = fmt.Sprintf("globalDefault of %v PriorityClass must be false", pc.Name)
		}
		if err != "" {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with 'system-' prefix are reserved for system use only. error: "+err))
		}
	} else if pc.Value > 1000000000 {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "maximum allowed value of a user defined priority is 1000000000"))
	}
	if p := pc.PreemptionPolicy; p != nil {
		errs = append(errs, validate.SupportedValue(field.NewPath("preemptionPolicy"), string(*p), "PreemptLowerPriority", "Never")...)
	}
	return errs
}
