package admissionregistration

import (
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Upstream's allowed values in a MutatingAdmissionPolicy and its binding,
// sorted as its messages list them.
var (
	mutatingOperations = []string{"*", "CONNECT", "CREATE", "UPDATE"}
	mutationPatchTypes = []string{"ApplyConfiguration", "JSONPatch"}
)

// ValidateMutatingPolicy is upstream's ValidateMutatingAdmissionPolicy (old
// nil) and ValidateMutatingAdmissionPolicyUpdate: the failure policy, param
// kind, match constraints (create, update and connect only), match
// conditions, variables, mutations (an apply configuration or a JSON patch,
// compiled with the patch types) and the reinvocation policy.
func ValidateMutatingPolicy(p, old *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	var errs field.ErrorList
	spec := &p.Spec
	fld := field.NewPath("spec")
	conditions, applyConfigurations := sets.New[string](), sets.New[string]()
	ignoreConditions := false
	if old != nil {
		for _, c := range old.Spec.MatchConditions {
			conditions.Insert(c.Expression)
		}
		for _, m := range old.Spec.Mutations {
			if m.ApplyConfiguration != nil {
				applyConfigurations.Insert(m.ApplyConfiguration.Expression)
			}
		}
		ignoreConditions = apiequality.Semantic.DeepEqual(spec.ParamKind, old.Spec.ParamKind) && apiequality.Semantic.DeepEqual(spec.MatchConditions, old.Spec.MatchConditions)
	}
	// Upstream compiles a mutating policy with the compositing compiler
	// (variables), one per policy.
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return append(errs, field.InternalError(fld, err))
	}
	errs = append(errs, validatePolicyHead(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, fld)...)
	if spec.MatchConstraints != nil {
		errs = append(errs, mutatingOperationErrors(spec.MatchConstraints, fld.Child("matchConstraints", "resourceRules", "operations"))...)
	}
	hasParams := spec.ParamKind != nil
	if !ignoreConditions {
		errs = append(errs, validateMatchConditions(spec.MatchConditions, conditions, hasParams, fld.Child("matchConditions"))...)
	}
	for i, v := range spec.Variables {
		errs = append(errs, validateVariable(compiler, &v, hasParams, environment.NewExpressions, fld.Child("variables").Index(i))...)
	}
	if len(spec.Mutations) == 0 {
		errs = append(errs, field.Required(fld.Child("mutations"), "mutations must contain at least one item"))
	}
	for i, m := range spec.Mutations {
		errs = append(errs, validateMutation(compiler, &m, hasParams, applyConfigurations, fld.Child("mutations").Index(i))...)
	}
	if spec.ReinvocationPolicy == "" {
		errs = append(errs, field.Required(fld.Child("reinvocationPolicy"), ""))
	} else if !slices.Contains(reinvocationPolicies, string(spec.ReinvocationPolicy)) {
		errs = append(errs, field.NotSupported(fld.Child("reinvocationPolicy"), spec.ReinvocationPolicy, reinvocationPolicies))
	}
	return errs
}

// mutatingOperationErrors refuses rules on operations a mutating policy
// cannot mutate (delete).
func mutatingOperationErrors(mr *admissionregistrationv1.MatchResources, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, r := range mr.ResourceRules {
		for _, op := range r.Operations {
			if !slices.Contains(mutatingOperations, string(op)) {
				errs = append(errs, field.NotSupported(fld, op, mutatingOperations))
			}
		}
	}
	return errs
}

// validateMutation is upstream's validateMutation. A JSON patch expression
// compiles in the stored-expressions environment when it was one of the
// stored policy's apply configurations, as upstream (which looks it up
// there) does.
func validateMutation(compiler plugincel.Compiler, m *admissionregistrationv1.Mutation, hasParams bool, stored sets.Set[string], fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	compile := func(accessor plugincel.ExpressionAccessor, expr string, f *field.Path) {
		env := environment.NewExpressions
		if stored.Has(expr) {
			env = environment.StoredExpressions
		}
		res := compiler.CompileCELExpression(accessor, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true, HasPatchTypes: true}, env)
		errs = append(errs, celFieldError(f, strings.TrimSpace(expr), res.Error)...)
	}
	switch m.PatchType {
	case "":
		errs = append(errs, field.Required(fld.Child("patchType"), ""))
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, field.Required(fld.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else if expr := strings.TrimSpace(m.JSONPatch.Expression); expr == "" {
			errs = append(errs, field.Required(fld.Child("jsonPatch", "expression"), ""))
		} else {
			compile(&patch.JSONPatchCondition{Expression: expr}, m.JSONPatch.Expression, fld.Child("jsonPatch", "expression"))
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(fld.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, field.Required(fld.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else if expr := strings.TrimSpace(m.ApplyConfiguration.Expression); expr == "" {
			errs = append(errs, field.Required(fld.Child("applyConfiguration", "expression"), ""))
		} else {
			compile(&patch.ApplyConfigurationCondition{Expression: expr}, m.ApplyConfiguration.Expression, fld.Child("applyConfiguration", "expression"))
		}
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(fld.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("patchType"), m.PatchType, mutationPatchTypes))
	}
	return errs
}

// ValidateMutatingPolicyBinding is upstream's
// ValidateMutatingAdmissionPolicyBinding: the policy name, the param
// reference and the match resources (create, update and connect only).
func ValidateMutatingPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	var errs field.ErrorList
	spec := &b.Spec
	fld := field.NewPath("spec")
	if spec.PolicyName == "" {
		errs = append(errs, field.Required(fld.Child("policyName"), ""))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(spec.PolicyName, false) {
			errs = append(errs, field.Invalid(fld.Child("policyName"), spec.PolicyName, msg))
		}
	}
	errs = append(errs, validateParamRef(spec.ParamRef, fld.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(spec.MatchResources, fld.Child("matchResources"))...)
	if spec.MatchResources != nil {
		errs = append(errs, mutatingOperationErrors(spec.MatchResources, fld.Child("matchResources", "resourceRules", "operations"))...)
	}
	return errs
}
