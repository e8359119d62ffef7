package admissionregistration

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/utils/ptr"
)

// Webhook is what upstream's validation reads of a validating or mutating
// webhook (ReinvocationPolicy is a mutating webhook's alone).
type Webhook struct {
	Name                    string
	ClientConfig            admissionregistrationv1.WebhookClientConfig
	Rules                   []admissionregistrationv1.RuleWithOperations
	FailurePolicy           *admissionregistrationv1.FailurePolicyType
	MatchPolicy             *admissionregistrationv1.MatchPolicyType
	NamespaceSelector       *metav1.LabelSelector
	ObjectSelector          *metav1.LabelSelector
	SideEffects             *admissionregistrationv1.SideEffectClass
	TimeoutSeconds          *int32
	AdmissionReviewVersions []string
	ReinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
	MatchConditions         []admissionregistrationv1.MatchCondition
}

// The values upstream accepts, sorted as its messages list them.
var (
	failurePolicies        = []string{"Fail", "Ignore"}
	matchPolicies          = []string{"Equivalent", "Exact"}
	noSideEffectClasses    = []string{"None", "NoneOnDryRun"}
	operations             = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	reinvocationPolicies   = []string{"IfNeeded", "Never"}
	ruleScopes             = []string{"*", "Cluster", "Namespaced"}
	acceptedReviewVersions = []string{"v1", "v1beta1"}
)

// ValidateWebhooks is upstream's validation of a webhook configuration's
// webhooks: each webhook's name, rules, policies, side effects (None or
// NoneOnDryRun), timeout, selectors, client config and match conditions
// (compiled as CEL), its AdmissionReview versions, and unique names. On an
// update old are the stored webhooks: what they already break is not
// refused again, as upstream's update validation allows.
func ValidateWebhooks(hooks, old []Webhook, update bool) field.ErrorList {
	var errs field.ErrorList
	o := webhookOptions{requireNoSideEffects: true, requireReviewVersion: true, requireUniqueNames: true, stored: sets.New[string]()}
	if update {
		o = webhookOptions{
			ignoreMatchConditions: sameMatchConditions(hooks, old),
			requireNoSideEffects: !slices.ContainsFunc(old, func(h Webhook) bool {
				return h.SideEffects == nil || !slices.Contains(noSideEffectClasses, string(*h.SideEffects))
			}),
			requireReviewVersion: !slices.ContainsFunc(old, func(h Webhook) bool {
				return !slices.ContainsFunc(h.AdmissionReviewVersions, func(v string) bool { return slices.Contains(acceptedReviewVersions, v) })
			}),
			requireUniqueNames:    uniqueNames(old),
			allowInvalidSelectors: slices.ContainsFunc(old, hasInvalidSelector),
			stored:                sets.New[string](),
		}
		for _, h := range old {
			for _, c := range h.MatchConditions {
				o.stored.Insert(c.Expression)
			}
		}
	}
	names := sets.New[string]()
	for i := range hooks {
		h := &hooks[i]
		fld := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(h, o, fld)...)
		errs = append(errs, validateReviewVersions(h.AdmissionReviewVersions, o.requireReviewVersion, fld.Child("admissionReviewVersions"))...)
		if o.requireUniqueNames && h.Name != "" {
			if names.Has(h.Name) {
				errs = append(errs, field.Duplicate(fld.Child("name"), h.Name))
			}
			names.Insert(h.Name)
		}
	}
	return errs
}

// webhookOptions are upstream's validationOptions for webhooks.
type webhookOptions struct {
	ignoreMatchConditions bool
	requireNoSideEffects  bool
	requireReviewVersion  bool
	requireUniqueNames    bool
	allowInvalidSelectors bool
	// stored are the match-condition expressions of the stored
	// configuration, compiled in the stored-expressions environment.
	stored sets.Set[string]
}

func validateWebhook(h *Webhook, o webhookOptions, fld *field.Path) field.ErrorList {
	errs := utilvalidation.IsFullyQualifiedName(fld.Child("name"), h.Name)
	for i := range h.Rules {
		errs = append(errs, validateRuleWithOperations(&h.Rules[i], fld.Child("rules").Index(i))...)
	}
	if p := h.FailurePolicy; p != nil && !slices.Contains(failurePolicies, string(*p)) {
		errs = append(errs, field.NotSupported(fld.Child("failurePolicy"), *p, failurePolicies))
	}
	if p := h.MatchPolicy; p != nil && !slices.Contains(matchPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(fld.Child("matchPolicy"), *p, matchPolicies))
	}
	allowed := []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	if o.requireNoSideEffects {
		allowed = noSideEffectClasses
	}
	if h.SideEffects == nil {
		errs = append(errs, field.Required(fld.Child("sideEffects"), fmt.Sprintf("must specify one of %v", strings.Join(allowed, ", "))))
	} else if !slices.Contains(allowed, string(*h.SideEffects)) {
		errs = append(errs, field.NotSupported(fld.Child("sideEffects"), *h.SideEffects, allowed))
	}
	if t := h.TimeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, field.Invalid(fld.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	selOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: o.allowInvalidSelectors}
	if h.NamespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.NamespaceSelector, selOpts, fld.Child("namespaceSelector"))...)
	}
	if h.ObjectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.ObjectSelector, selOpts, fld.Child("objectSelector"))...)
	}
	if p := h.ReinvocationPolicy; p != nil && !slices.Contains(reinvocationPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(fld.Child("reinvocationPolicy"), *p, reinvocationPolicies))
	}
	cc := h.ClientConfig
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, field.Required(fld.Child("clientConfig"), "exactly one of url or service is required"))
	case cc.URL != nil:
		errs = append(errs, webhook.ValidateWebhookURL(fld.Child("clientConfig", "url"), *cc.URL, true)...)
	default:
		errs = append(errs, webhook.ValidateWebhookService(fld.Child("clientConfig", "service"), cc.Service.Name, cc.Service.Namespace, cc.Service.Path, ptr.Deref(cc.Service.Port, 0))...)
	}
	if !o.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(h.MatchConditions, o.stored, false, fld.Child("matchConditions"))...)
	}
	return errs
}

// validateRuleWithOperations is upstream's validateRuleWithOperations.
func validateRuleWithOperations(r *admissionregistrationv1.RuleWithOperations, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(fld.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, admissionregistrationv1.OperationAll) {
		errs = append(errs, field.Invalid(fld.Child("operations"), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(operations, string(op)) {
			errs = append(errs, field.NotSupported(fld.Child("operations").Index(i), op, operations))
		}
	}
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(fld.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, field.Invalid(fld.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(fld.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, field.Invalid(fld.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(fld.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateRuleResources(r.Resources, fld.Child("resources"))...)
	if s := r.Scope; s != nil && !slices.Contains(ruleScopes, string(*s)) {
		errs = append(errs, field.NotSupported(fld.Child("scope"), *s, ruleScopes))
	}
	return errs
}

// validateRuleResources is upstream's validateResources: resources and
// subresources, with wildcards that do not overlap.
func validateRuleResources(resources []string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(fld, ""))
	}
	wildSub, wildRes := sets.New[string](), sets.New[string]()
	double, single, plain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(fld.Index(i), ""))
			continue
		}
		double = double || rs == "*/*"
		single = single || rs == "*"
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			plain = rs != "*"
			continue
		}
		if wildSub.Has(res) {
			errs = append(errs, field.Invalid(fld.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes.Has(sub) {
			errs = append(errs, field.Invalid(fld.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSub.Insert(res)
		}
		if res == "*" {
			wildRes.Insert(sub)
		}
	}
	if len(resources) > 1 && double {
		errs = append(errs, field.Invalid(fld, resources, "if '*/*' is present, must not specify other resources"))
	}
	if single && plain {
		errs = append(errs, field.Invalid(fld, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateReviewVersions is upstream's validateAdmissionReviewVersions.
func validateReviewVersions(versions []string, requireAccepted bool, fld *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(fld, "must specify one of "+strings.Join(acceptedReviewVersions, ", "))}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	accepted := false
	for i, v := range versions {
		if seen.Has(v) {
			errs = append(errs, field.Invalid(fld.Index(i), v, "duplicate version"))
			continue
		}
		seen.Insert(v)
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(fld.Index(i), v, msg))
		}
		accepted = accepted || slices.Contains(acceptedReviewVersions, v)
	}
	if requireAccepted && !accepted {
		errs = append(errs, field.Invalid(fld, versions, "must include at least one of "+strings.Join(acceptedReviewVersions, ", ")))
	}
	return errs
}

// validateMatchConditions is upstream's validateMatchConditions (a
// policy's with params when it has a param kind): at most 64, each named (a qualified name, unique) with an expression that
// compiles in the webhook match-condition environment.
func validateMatchConditions(conds []admissionregistrationv1.MatchCondition, stored sets.Set[string], hasParams bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > 64 {
		errs = append(errs, field.TooMany(fld, len(conds), 64))
	}
	names := sets.New[string]()
	for i, c := range conds {
		idx := fld.Index(i)
		if expr := strings.TrimSpace(c.Expression); expr == "" {
			errs = append(errs, field.Required(idx.Child("expression"), ""))
		} else {
			errs = append(errs, compileMatchCondition(expr, stored.Has(expr), hasParams, idx.Child("expression"))...)
		}
		if c.Name == "" {
			errs = append(errs, field.Required(idx.Child("name"), ""))
		} else {
			for _, msg := range utilvalidation.IsQualifiedName(c.Name) {
				errs = append(errs, field.Invalid(idx.Child("name"), c.Name, msg))
			}
		}
		if c.Name != "" {
			if names.Has(c.Name) {
				errs = append(errs, field.Duplicate(idx.Child("name"), c.Name))
			}
			names.Insert(c.Name)
		}
	}
	return errs
}

// celCompiler is upstream's strict stateless compiler of admission CEL
// expressions: built once per process, read-only after.
var celCompiler = sync.OnceValue(func() plugincel.Compiler {
	return plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

// compileMatchCondition compiles a match condition as upstream's
// validation does (with the authorizer; with params for a policy that has
// a param kind), turning a compile error into upstream's field error.
func compileMatchCondition(expr string, stored, hasParams bool, fld *field.Path) field.ErrorList {
	env := environment.NewExpressions
	if stored {
		env = environment.StoredExpressions
	}
	accessor := &matchconditions.MatchCondition{Expression: expr}
	res := celCompiler().CompileCELExpression(accessor, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, env)
	return celFieldError(fld, expr, res.Error)
}

// sameMatchConditions reports whether an update leaves every webhook's
// match conditions as stored (upstream then does not compile them again).
func sameMatchConditions(hooks, old []Webhook) bool {
	if len(hooks) != len(old) {
		return false
	}
	for i := range old {
		if !reflect.DeepEqual(hooks[i].MatchConditions, old[i].MatchConditions) {
			return false
		}
	}
	return true
}

// uniqueNames reports whether the webhooks' names are unique.
func uniqueNames(hooks []Webhook) bool {
	seen := sets.New[string]()
	for _, h := range hooks {
		if seen.Has(h.Name) {
			return false
		}
		seen.Insert(h.Name)
	}
	return true
}

// hasInvalidSelector reports whether a webhook's selectors have a label
// value that strict validation refuses.
func hasInvalidSelector(h Webhook) bool {
	strict := metav1validation.LabelSelectorValidationOptions{}
	for _, sel := range []*metav1.LabelSelector{h.NamespaceSelector, h.ObjectSelector} {
		if sel != nil && len(metav1validation.ValidateLabelSelector(sel, strict, nil)) > 0 {
			return true
		}
	}
	return false
}

// FromValidating and FromMutating turn a configuration's webhooks into
// Webhooks for ValidateWebhooks.
func FromValidating(hs []admissionregistrationv1.ValidatingWebhook) []Webhook {
	out := make([]Webhook, len(hs))
	for i, h := range hs {
		out[i] = Webhook{Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy, MatchPolicy: h.MatchPolicy,
			NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector, SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds,
			AdmissionReviewVersions: h.AdmissionReviewVersions, MatchConditions: h.MatchConditions}
	}
	return out
}

// FromMutating is FromValidating for mutating webhooks.
func FromMutating(hs []admissionregistrationv1.MutatingWebhook) []Webhook {
	out := make([]Webhook, len(hs))
	for i, h := range hs {
		out[i] = Webhook{Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy, MatchPolicy: h.MatchPolicy,
			NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector, SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds,
			AdmissionReviewVersions: h.AdmissionReviewVersions, ReinvocationPolicy: h.ReinvocationPolicy, MatchConditions: h.MatchConditions}
	}
	return out
}
