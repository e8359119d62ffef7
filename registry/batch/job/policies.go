package job

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// Upstream's limits on a Job's policies and manager.
const (
	maxPodFailurePolicyRules                   = 20
	maxPodFailurePolicyOnExitCodesValues       = 255
	maxPodFailurePolicyOnPodConditionsPatterns = 20
	maxManagedByLength                         = 63
	maxSuccessPolicySucceededIndexesLength     = 64 * 1024
	maxSuccessPolicyRules                      = 20
)

// The values upstream's validation accepts, sorted as its messages list
// them.
var (
	podFailurePolicyActions = []string{string(batchv1.PodFailurePolicyActionCount), string(batchv1.PodFailurePolicyActionFailIndex),
		string(batchv1.PodFailurePolicyActionFailJob), string(batchv1.PodFailurePolicyActionIgnore)}
	podFailurePolicyOperators       = []string{string(batchv1.PodFailurePolicyOnExitCodesOpIn), string(batchv1.PodFailurePolicyOnExitCodesOpNotIn)}
	podFailurePolicyConditionStatus = []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
	podReplacementPolicies          = []string{string(batchv1.Failed), string(batchv1.TerminatingOrFailed)}
)

// validatePodFailurePolicy is upstream's validatePodFailurePolicy: at most
// 20 rules, each with a known action and exactly one of its exit codes and
// pod conditions, naming containers the template has.
func validatePodFailurePolicy(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := fld.Child("rules")
	if n := len(s.PodFailurePolicy.Rules); n > maxPodFailurePolicyRules {
		errs = append(errs, field.TooMany(rules, n, maxPodFailurePolicyRules))
	}
	containers := sets.New[string]()
	for _, c := range s.Template.Spec.Containers {
		containers.Insert(c.Name)
	}
	for _, c := range s.Template.Spec.InitContainers {
		containers.Insert(c.Name)
	}
	for i := range s.PodFailurePolicy.Rules {
		errs = append(errs, validatePodFailurePolicyRule(s, &s.PodFailurePolicy.Rules[i], rules.Index(i), containers)...)
	}
	return errs
}

func validatePodFailurePolicyRule(s *batchv1.JobSpec, r *batchv1.PodFailurePolicyRule, fld *field.Path, containers sets.Set[string]) field.ErrorList {
	var errs field.ErrorList
	action := fld.Child("action")
	switch {
	case r.Action == "":
		errs = append(errs, field.Required(action, fmt.Sprintf("valid values: %q", podFailurePolicyActions)))
	case r.Action == batchv1.PodFailurePolicyActionFailIndex:
		if s.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Invalid(action, r.Action, "requires the backoffLimitPerIndex to be set"))
		}
	case !slices.Contains(podFailurePolicyActions, string(r.Action)):
		errs = append(errs, field.NotSupported(action, r.Action, podFailurePolicyActions))
	}
	if r.OnExitCodes != nil {
		errs = append(errs, validateOnExitCodes(r.OnExitCodes, fld.Child("onExitCodes"), containers)...)
	}
	if len(r.OnPodConditions) > 0 {
		errs = append(errs, validateOnPodConditions(r.OnPodConditions, fld.Child("onPodConditions"))...)
	}
	if r.OnExitCodes != nil && len(r.OnPodConditions) > 0 {
		errs = append(errs, field.Invalid(fld, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
	}
	if r.OnExitCodes == nil && len(r.OnPodConditions) == 0 {
		errs = append(errs, field.Invalid(fld, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	return errs
}

func validateOnPodConditions(patterns []batchv1.PodFailurePolicyOnPodConditionsPattern, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(patterns) > maxPodFailurePolicyOnPodConditionsPatterns {
		errs = append(errs, field.TooMany(fld, len(patterns), maxPodFailurePolicyOnPodConditionsPatterns))
	}
	for j, p := range patterns {
		pf := fld.Index(j)
		for _, msg := range validation.IsQualifiedName(string(p.Type)) {
			errs = append(errs, field.Invalid(pf.Child("type"), string(p.Type), msg))
		}
		switch {
		case p.Status == "":
			errs = append(errs, field.Required(pf.Child("status"), fmt.Sprintf("valid values: %q", podFailurePolicyConditionStatus)))
		case !slices.Contains(podFailurePolicyConditionStatus, string(p.Status)):
			errs = append(errs, field.NotSupported(pf.Child("status"), p.Status, podFailurePolicyConditionStatus))
		}
	}
	return errs
}

func validateOnExitCodes(r *batchv1.PodFailurePolicyOnExitCodesRequirement, fld *field.Path, containers sets.Set[string]) field.ErrorList {
	var errs field.ErrorList
	op := fld.Child("operator")
	switch {
	case r.Operator == "":
		errs = append(errs, field.Required(op, fmt.Sprintf("valid values: %q", podFailurePolicyOperators)))
	case !slices.Contains(podFailurePolicyOperators, string(r.Operator)):
		errs = append(errs, field.NotSupported(op, r.Operator, podFailurePolicyOperators))
	}
	if r.ContainerName != nil && !containers.Has(*r.ContainerName) {
		errs = append(errs, field.Invalid(fld.Child("containerName"), *r.ContainerName, "must be one of the container or initContainer names in the pod template"))
	}
	values := fld.Child("values")
	if len(r.Values) == 0 {
		errs = append(errs, field.Invalid(values, r.Values, "at least one value is required"))
	} else if len(r.Values) > maxPodFailurePolicyOnExitCodesValues {
		errs = append(errs, field.TooMany(values, len(r.Values), maxPodFailurePolicyOnExitCodesValues))
	}
	ordered := true
	seen := sets.New[int32]()
	for j, v := range r.Values {
		if r.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, field.Invalid(values.Index(j), v, "must not be 0 for the In operator"))
		}
		if seen.Has(v) {
			errs = append(errs, field.Duplicate(values.Index(j), v))
		} else {
			seen.Insert(v)
		}
		if j > 0 && r.Values[j-1] > v {
			ordered = false
		}
	}
	if !ordered {
		errs = append(errs, field.Invalid(values, r.Values, "must be ordered"))
	}
	return errs
}

// validateSuccessPolicy is upstream's validateSuccessPolicy, for an
// Indexed Job: 1 to 20 rules, each with a count or indexes the completions
// allow.
func validateSuccessPolicy(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := fld.Child("rules")
	if len(s.SuccessPolicy.Rules) == 0 {
		errs = append(errs, field.Required(rules, "at least one rules must be specified when the successPolicy is specified"))
	}
	if n := len(s.SuccessPolicy.Rules); n > maxSuccessPolicyRules {
		errs = append(errs, field.TooMany(rules, n, maxSuccessPolicyRules))
	}
	completions := int32(0)
	if s.Completions != nil {
		completions = *s.Completions
	}
	for i, r := range s.SuccessPolicy.Rules {
		rf := rules.Index(i)
		if r.SucceededCount == nil && r.SucceededIndexes == nil {
			errs = append(errs, field.Required(rf, "at least one of succeededCount or succeededIndexes must be specified"))
		}
		var total int32
		if r.SucceededIndexes != nil {
			idx := rf.Child("succeededIndexes")
			if len(*r.SucceededIndexes) > maxSuccessPolicySucceededIndexesLength {
				errs = append(errs, field.TooLong(idx, "", maxSuccessPolicySucceededIndexesLength))
			}
			var err error
			if total, err = indexesFormat(*r.SucceededIndexes, completions); err != nil {
				errs = append(errs, field.Invalid(idx, *r.SucceededIndexes, fmt.Sprintf("error parsing succeededIndexes: %s", err)))
			}
		}
		if r.SucceededCount != nil {
			cf := rf.Child("succeededCount")
			errs = append(errs, validate.Nonnegative(int64(*r.SucceededCount), cf)...)
			if *r.SucceededCount > completions {
				errs = append(errs, field.Invalid(cf, *r.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)))
			}
			if r.SucceededIndexes != nil && *r.SucceededCount > total {
				errs = append(errs, field.Invalid(cf, *r.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
			}
		}
	}
	return errs
}

// validatePodReplacementPolicy is upstream's: Failed alone with a pod
// failure policy, else Failed or TerminatingOrFailed.
func validatePodReplacementPolicy(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	p := s.PodReplacementPolicy
	switch {
	case p == nil:
		return nil
	case s.PodFailurePolicy != nil:
		if *p != batchv1.Failed {
			return field.ErrorList{field.NotSupported(fld, *p, []string{string(batchv1.Failed)})}
		}
	case !slices.Contains(podReplacementPolicies, string(*p)):
		return field.ErrorList{field.NotSupported(fld, *p, podReplacementPolicies)}
	}
	return nil
}
