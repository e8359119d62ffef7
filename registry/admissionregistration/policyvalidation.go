package admissionregistration

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Upstream's limits on a policy's audit annotations.
const (
	maxAuditAnnotations                     = 20
	maxAuditAnnotationValueExpressionLength = 5 * 1024
)

var (
	validationReasons    = []string{"Forbidden", "Invalid", "RequestEntityTooLarge"}
	validationActions    = []string{"Audit", "Deny", "Warn"}
	celIdentifier        = regexp.MustCompile("^[_a-zA-Z][_a-zA-Z0-9]*$")
	celReserved          = sets.New("true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while")
	newlines             = regexp.MustCompile(`[\n\r]+`)
	paramNotFoundActions = []string{"Deny", "Allow"}
)

// ValidatePolicy is upstream's ValidateValidatingAdmissionPolicy (old is
// nil) and ValidateValidatingAdmissionPolicyUpdate: the failure policy,
// param kind, match constraints, match conditions, variables, validations
// and audit annotations, each CEL expression compiled as upstream compiles
// it (expressions the stored policy has in the stored-expressions
// environment; match conditions not compiled again when they and the param
// kind are unchanged).
func ValidatePolicy(p, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	var errs field.ErrorList
	spec := &p.Spec
	fld := field.NewPath("spec")
	stored := sets.New[string]()
	ignoreConditions := false
	if old != nil {
		for _, c := range old.Spec.MatchConditions {
			stored.Insert(c.Expression)
		}
		for _, v := range old.Spec.Validations {
			stored.Insert(v.Expression, v.MessageExpression)
		}
		for _, a := range old.Spec.AuditAnnotations {
			stored.Insert(a.ValueExpression)
		}
		for _, v := range old.Spec.Variables {
			stored.Insert(v.Expression)
		}
		ignoreConditions = apiequality.Semantic.DeepEqual(spec.ParamKind, old.Spec.ParamKind) && apiequality.Semantic.DeepEqual(spec.MatchConditions, old.Spec.MatchConditions)
	}
	envOf := func(expr string) environment.Type {
		if stored.Has(expr) {
			return environment.StoredExpressions
		}
		return environment.NewExpressions
	}
	// Variables need the compositing compiler, which holds state: one per
	// policy, as upstream makes one.
	var compiler plugincel.Compiler
	getCompiler := func() plugincel.Compiler {
		if compiler == nil {
			compiler = celCompiler()
			if len(spec.Variables) > 0 {
				if c, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())); err == nil {
					compiler = c
				}
			}
		}
		return compiler
	}
	errs = append(errs, validatePolicyHead(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, fld)...)
	hasParams := spec.ParamKind != nil
	if !ignoreConditions {
		errs = append(errs, validateMatchConditions(spec.MatchConditions, stored, hasParams, fld.Child("matchConditions"))...)
	}
	for i, v := range spec.Variables {
		errs = append(errs, validateVariable(getCompiler(), &v, hasParams, envOf(v.Expression), fld.Child("variables").Index(i))...)
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		msg := "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(fld.Child("validations"), msg), field.Required(fld.Child("auditAnnotations"), msg))
	}
	for i, v := range spec.Validations {
		errs = append(errs, validateValidation(getCompiler(), &v, hasParams, envOf, fld.Child("validations").Index(i))...)
	}
	if spec.AuditAnnotations != nil {
		af := fld.Child("auditAnnotations")
		if len(spec.AuditAnnotations) > maxAuditAnnotations {
			errs = append(errs, field.Invalid(af, spec.AuditAnnotations, fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
		}
		keys := sets.New[string]()
		for i, a := range spec.AuditAnnotations {
			errs = append(errs, validateAuditAnnotation(getCompiler(), p.Name, &a, hasParams, envOf(a.ValueExpression), af.Index(i))...)
			if keys.Has(a.Key) {
				errs = append(errs, field.Duplicate(af.Index(i).Child("key"), a.Key))
			}
			keys.Insert(a.Key)
		}
	}
	return errs
}

// validatePolicyHead is what upstream checks first in a validating and a
// mutating policy alike: the failure policy, the param kind and the match
// constraints (with at least one resource rule).
func validatePolicyHead(fp *admissionregistrationv1.FailurePolicyType, pk *admissionregistrationv1.ParamKind, mc *admissionregistrationv1.MatchResources, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if fp == nil {
		errs = append(errs, field.Required(fld.Child("failurePolicy"), ""))
	} else if !slices.Contains(failurePolicies, string(*fp)) {
		errs = append(errs, field.NotSupported(fld.Child("failurePolicy"), *fp, failurePolicies))
	}
	if pk != nil {
		errs = append(errs, validateParamKind(pk, fld.Child("paramKind"))...)
	}
	if mc == nil {
		return append(errs, field.Required(fld.Child("matchConstraints"), ""))
	}
	errs = append(errs, validateMatchResources(mc, fld.Child("matchConstraints"))...)
	if len(mc.ResourceRules) == 0 {
		errs = append(errs, field.Required(fld.Child("matchConstraints", "resourceRules"), ""))
	}
	return errs
}

// validateParamKind is upstream's validateParamKind.
func validateParamKind(pk *admissionregistrationv1.ParamKind, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	af := fld.Child("apiVersion")
	switch gv := pk.APIVersion; {
	case gv == "":
		errs = append(errs, field.Required(af, ""))
	case strings.Count(gv, "/") > 1:
		errs = append(errs, field.Invalid(af, gv, "unexpected GroupVersion string: "+gv))
	default:
		group, version, ok := strings.Cut(gv, "/")
		if !ok {
			group, version = "", gv
		}
		if gv == "/" {
			group, version = "", ""
		}
		if group != "" {
			if msgs := utilvalidation.IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(af, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(af, gv, "version must be specified"))
		} else if msgs := utilvalidation.IsDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(af, version, strings.Join(msgs, ",")))
		}
	}
	if pk.Kind == "" {
		errs = append(errs, field.Required(fld.Child("kind"), ""))
	} else if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(pk.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(fld.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// validateMatchResources is upstream's validateMatchResources: a match
// policy and both selectors (defaulted when left out), and the rules.
func validateMatchResources(mc *admissionregistrationv1.MatchResources, fld *field.Path) field.ErrorList {
	if mc == nil {
		return nil
	}
	var errs field.ErrorList
	if mc.MatchPolicy == nil {
		errs = append(errs, field.Required(fld.Child("matchPolicy"), ""))
	} else if !slices.Contains(matchPolicies, string(*mc.MatchPolicy)) {
		errs = append(errs, field.NotSupported(fld.Child("matchPolicy"), *mc.MatchPolicy, matchPolicies))
	}
	strict := metav1validation.LabelSelectorValidationOptions{}
	if mc.NamespaceSelector == nil {
		errs = append(errs, field.Required(fld.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(mc.NamespaceSelector, strict, fld.Child("namespaceSelector"))...)
	}
	if mc.ObjectSelector == nil {
		errs = append(errs, field.Required(fld.Child("objectSelector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(mc.ObjectSelector, strict, fld.Child("objectSelector"))...)
	}
	for i := range mc.ResourceRules {
		errs = append(errs, validateNamedRule(&mc.ResourceRules[i], fld.Child("resourceRules").Index(i))...)
	}
	for i := range mc.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&mc.ExcludeResourceRules[i], fld.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// validateNamedRule is upstream's validateNamedRuleWithOperations.
func validateNamedRule(r *admissionregistrationv1.NamedRuleWithOperations, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, n := range r.ResourceNames {
		for _, msg := range content.IsPathSegmentName(n) {
			errs = append(errs, field.Invalid(fld.Child("resourceNames").Index(i), n, msg))
		}
		if names.Has(n) {
			errs = append(errs, field.Duplicate(fld.Child("resourceNames").Index(i), n))
		}
		names.Insert(n)
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, fld)...)
}

// validateVariable is upstream's validateVariable.
func validateVariable(compiler plugincel.Compiler, v *admissionregistrationv1.Variable, hasParams bool, env environment.Type, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Name) == "" {
		errs = append(errs, field.Required(fld.Child("name"), "name is not specified"))
	} else if !celIdentifier.MatchString(v.Name) || celReserved.Has(v.Name) {
		errs = append(errs, field.Invalid(fld.Child("name"), v.Name, "must be a valid CEL identifier"))
	}
	if strings.TrimSpace(v.Expression) == "" {
		return append(errs, field.Required(fld.Child("expression"), "expression is not specified"))
	}
	cc, ok := compiler.(*plugincel.CompositedCompiler)
	if !ok {
		return append(errs, field.InternalError(fld, fmt.Errorf("variable composition is not allowed")))
	}
	res := cc.CompileAndStoreVariable(&validatingpolicy.Variable{Name: v.Name, Expression: v.Expression},
		plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, env)
	return append(errs, celFieldError(fld.Child("expression"), v.Expression, res.Error)...)
}

// validateValidation is upstream's validateValidation.
func validateValidation(compiler plugincel.Compiler, v *admissionregistrationv1.Validation, hasParams bool, envOf func(string) environment.Type, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(fld.Child("expression"), "expression is not specified"))
	} else {
		res := compiler.CompileCELExpression(&validatingpolicy.ValidationCondition{Expression: v.Expression},
			plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envOf(v.Expression))
		errs = append(errs, celFieldError(fld.Child("expression"), v.Expression, res.Error)...)
	}
	msgExpr := strings.TrimSpace(v.MessageExpression)
	switch {
	case v.MessageExpression != "" && msgExpr == "":
		errs = append(errs, field.Invalid(fld.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	case msgExpr != "":
		res := compiler.CompileCELExpression(&validatingpolicy.MessageExpressionCondition{MessageExpression: v.MessageExpression},
			plugincel.OptionalVariableDeclarations{HasParams: hasParams}, envOf(v.MessageExpression))
		errs = append(errs, celFieldError(fld.Child("messageExpression"), v.MessageExpression, res.Error)...)
	}
	msg := strings.TrimSpace(v.Message)
	switch {
	case v.Message != "" && msg == "":
		errs = append(errs, field.Invalid(fld.Child("message"), v.Message, "must be non-empty if specified"))
	case newlines.MatchString(msg):
		errs = append(errs, field.Invalid(fld.Child("message"), v.Message, "must not contain line breaks"))
	}
	if r := v.Reason; r != nil && !slices.Contains(validationReasons, string(*r)) {
		errs = append(errs, field.NotSupported(fld.Child("reason"), *r, validationReasons))
	}
	return errs
}

// validateAuditAnnotation is upstream's validateAuditAnnotation: the key,
// prefixed with the policy's name, is a qualified name, and the value
// expression compiles.
func validateAuditAnnotation(compiler plugincel.Compiler, policy string, a *admissionregistrationv1.AuditAnnotation, hasParams bool, env environment.Type, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policy != "" {
		for _, msg := range utilvalidation.IsQualifiedName(policy + "/" + a.Key) {
			errs = append(errs, field.Invalid(fld.Child("key"), policy+"/"+a.Key, msg))
		}
	} else {
		errs = append(errs, field.Invalid(fld.Child("key"), a.Key, "requires metadata.name be non-empty"))
	}
	vf := fld.Child("valueExpression")
	switch expr := strings.TrimSpace(a.ValueExpression); {
	case expr == "":
		errs = append(errs, field.Required(vf, "valueExpression is not specified"))
	case len(expr) > maxAuditAnnotationValueExpressionLength:
		errs = append(errs, field.Required(vf, fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
	default:
		res := compiler.CompileCELExpression(&validatingpolicy.AuditAnnotationCondition{ValueExpression: expr},
			plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, env)
		errs = append(errs, celFieldError(vf, a.ValueExpression, res.Error)...)
	}
	return errs
}

// celFieldError is upstream's convertCELErrorToValidationError.
func celFieldError(fld *field.Path, expr string, err *apiservercel.Error) field.ErrorList {
	if err == nil {
		return nil
	}
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.ErrorList{field.Required(fld, err.Detail)}
	case apiservercel.ErrorTypeInvalid:
		return field.ErrorList{field.Invalid(fld, expr, err.Detail)}
	}
	return field.ErrorList{field.InternalError(fld, err)}
}

// ValidatePolicyBinding is upstream's ValidateValidatingAdmissionPolicyBinding.
// The policy name and the presence of validation actions are checked
// declaratively upstream: those errors come last.
func ValidatePolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	var errs, declarative field.ErrorList
	spec := &b.Spec
	fld := field.NewPath("spec")
	if spec.PolicyName == "" {
		declarative = append(declarative, field.Required(fld.Child("policyName"), ""))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(spec.PolicyName, false) {
			errs = append(errs, field.Invalid(fld.Child("policyName"), spec.PolicyName, msg))
		}
	}
	errs = append(errs, validateParamRef(spec.ParamRef, fld.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(spec.MatchResources, fld.Child("matchResources"))...)
	af := fld.Child("validationActions")
	seen := sets.New[string]()
	for i, a := range spec.ValidationActions {
		if !slices.Contains(validationActions, string(a)) {
			errs = append(errs, field.NotSupported(af.Index(i), a, validationActions))
		}
		if seen.Has(string(a)) {
			errs = append(errs, field.Duplicate(af.Index(i), a))
		}
		seen.Insert(string(a))
	}
	if seen.Has("Deny") && seen.Has("Warn") {
		errs = append(errs, field.Invalid(af, spec.ValidationActions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		declarative = append(declarative, field.Required(af, ""))
	}
	return append(errs, declarative...)
}

// validateParamRef is upstream's validateParamRef.
func validateParamRef(pr *admissionregistrationv1.ParamRef, fld *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	if pr.Name != "" {
		for _, msg := range content.IsPathSegmentName(pr.Name) {
			errs = append(errs, field.Invalid(fld.Child("name"), pr.Name, msg))
		}
		if pr.Selector != nil {
			errs = append(errs, field.Forbidden(fld.Child("name"), "name and selector are mutually exclusive"))
		}
	}
	if pr.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(pr.Selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
		if pr.Name != "" {
			errs = append(errs, field.Forbidden(fld.Child("selector"), "name and selector are mutually exclusive"))
		}
	}
	if pr.Name == "" && pr.Selector == nil {
		errs = append(errs, field.Required(fld, "one of name or selector must be specified"))
	}
	if a := pr.ParameterNotFoundAction; a == nil || *a == "" {
		errs = append(errs, field.Required(fld.Child("parameterNotFoundAction"), ""))
	} else if !slices.Contains(paramNotFoundActions, string(*a)) {
		errs = append(errs, field.NotSupported(fld.Child("parameterNotFoundAction"), a, paramNotFoundActions))
	}
	return errs
}
