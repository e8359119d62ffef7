// Package flowschema holds the FlowSchema strategy: the flags of kube-apiserver's
// pkg/registry/flowcontrol/flowschema strategy and storage, the v1 default of
// spec.matchingPrecedence, and upstream's validation of a FlowSchema
// (pkg/apis/flowcontrol/validation): its spec (matching precedence, priority
// level reference, distinguisher method, rules, their subjects and resource and
// non-resource rules), the fixed spec of the mandatory schemas (exempt and
// catch-all) and the status conditions, on create, update and writes to
// /status. Its declarative rules are the metadata's alone (alpha, not
// answered), so the handwritten rules are the whole answer.
package flowschema

import (
	"context"
	"fmt"
	"slices"
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the FlowSchema strategy.
var Strategy = flowSchemaStrategy{strategy.Base{UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusKeepsStoredMetadata: true}}

type flowSchemaStrategy struct{ strategy.Base }

// defaultMatchingPrecedence is the v1 default of spec.matchingPrecedence.
const defaultMatchingPrecedence = 1000

// maxMatchingPrecedence is the highest matching precedence upstream takes.
const maxMatchingPrecedence = 10000

// Default sets spec.matchingPrecedence when it is not given, as upstream's
// v1 SetDefaults_FlowSchemaSpec does.
func (flowSchemaStrategy) Default(obj runtime.Object) {
	if fs, ok := obj.(*flowcontrolv1.FlowSchema); ok && fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = defaultMatchingPrecedence
	}
}

// Validate checks a new FlowSchema.
func (flowSchemaStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateFlowSchema(obj.(*flowcontrolv1.FlowSchema))
}

// ValidateUpdate checks an update as a create: nothing in a FlowSchema is
// immutable.
func (flowSchemaStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateFlowSchema(obj.(*flowcontrolv1.FlowSchema))
}

// ValidateStatusUpdate checks a write to /status: its conditions alone.
func (flowSchemaStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateStatus(&obj.(*flowcontrolv1.FlowSchema).Status, field.NewPath("status"))
}

// mandatory are the FlowSchemas kube-apiserver keeps whatever is written
// (exempt and catch-all), by name: their spec is fixed.
var mandatory = func() map[string]*flowcontrolv1.FlowSchema {
	m := map[string]*flowcontrolv1.FlowSchema{}
	for _, fs := range bootstrap.MandatoryFlowSchemas {
		m[fs.Name] = fs
	}
	return m
}()

// validateFlowSchema is upstream's ValidateFlowSchema without the metadata,
// which the server validates.
func validateFlowSchema(fs *flowcontrolv1.FlowSchema) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateSpec(fs.Name, &fs.Spec, spec)
	if m, ok := mandatory[fs.Name]; ok && !apiequality.Semantic.DeepEqual(fs.Spec, m.Spec) {
		errs = append(errs, field.Invalid(spec, validate.InternalValue(fs.Spec), fmt.Sprintf("spec of '%s' must equal the fixed value", fs.Name)))
	}
	return append(errs, validateStatus(&fs.Status, field.NewPath("status"))...)
}

var (
	// distinguisherMethods are the distinguisher method types, sorted.
	distinguisherMethods = []string{string(flowcontrolv1.FlowDistinguisherMethodByNamespaceType), string(flowcontrolv1.FlowDistinguisherMethodByUserType)}
	// subjectKinds are the subject kinds, sorted.
	subjectKinds = []string{string(flowcontrolv1.SubjectKindGroup), string(flowcontrolv1.SubjectKindServiceAccount), string(flowcontrolv1.SubjectKindUser)}
	// verbs are the verbs a rule may name besides "*", sorted.
	verbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}
)

// validateSpec checks the matching precedence (1 for exempt alone), the
// priority level's name, the distinguisher method and the rules.
func validateSpec(name string, spec *flowcontrolv1.FlowSchemaSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	mp := fld.Child("matchingPrecedence")
	if spec.MatchingPrecedence <= 0 {
		errs = append(errs, field.Invalid(mp, spec.MatchingPrecedence, "must be a positive value"))
	}
	if spec.MatchingPrecedence > maxMatchingPrecedence {
		errs = append(errs, field.Invalid(mp, spec.MatchingPrecedence, fmt.Sprintf("must not be greater than %d", maxMatchingPrecedence)))
	}
	if spec.MatchingPrecedence == 1 && name != flowcontrolv1.FlowSchemaNameExempt {
		errs = append(errs, field.Invalid(mp, spec.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if dm := spec.DistinguisherMethod; dm != nil && !slices.Contains(distinguisherMethods, string(dm.Type)) {
		// Upstream shows the whole method, in its internal form.
		errs = append(errs, field.NotSupported(fld.Child("distinguisherMethod", "type"), validate.InternalValue(dm), distinguisherMethods))
	}
	pl := fld.Child("priorityLevelConfiguration", "name")
	if n := spec.PriorityLevelConfiguration.Name; n == "" {
		errs = append(errs, field.Required(pl, "must reference a priority level"))
	} else {
		for _, msg := range apivalidation.NameIsDNSSubdomain(n, false) {
			errs = append(errs, field.Invalid(pl, n, msg))
		}
	}
	for i := range spec.Rules {
		errs = append(errs, validateRule(&spec.Rules[i], fld.Child("rules").Index(i))...)
	}
	return errs
}

// validateRule checks a rule's subjects (at least one), that it has a
// resource or non-resource rule, and those rules.
func validateRule(rule *flowcontrolv1.PolicyRulesWithSubjects, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Subjects) == 0 {
		errs = append(errs, field.Required(fld.Child("subjects"), "subjects must contain at least one value"))
	}
	for i := range rule.Subjects {
		errs = append(errs, validateSubject(&rule.Subjects[i], fld.Child("subjects").Index(i))...)
	}
	if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
		errs = append(errs, field.Required(fld, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range rule.ResourceRules {
		errs = append(errs, validateResourceRule(&rule.ResourceRules[i], fld.Child("resourceRules").Index(i))...)
	}
	for i := range rule.NonResourceRules {
		errs = append(errs, validateNonResourceRule(&rule.NonResourceRules[i], fld.Child("nonResourceRules").Index(i))...)
	}
	return errs
}

// validateSubject checks that a subject gives the member its kind names,
// and no other.
func validateSubject(s *flowcontrolv1.Subject, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	forbidUser := func() {
		if s.User != nil {
			errs = append(errs, field.Forbidden(fld.Child("user"), "user is forbidden when subject kind is not 'User'"))
		}
	}
	forbidGroup := func() {
		if s.Group != nil {
			errs = append(errs, field.Forbidden(fld.Child("group"), "group is forbidden when subject kind is not 'Group'"))
		}
	}
	forbidServiceAccount := func() {
		if s.ServiceAccount != nil {
			errs = append(errs, field.Forbidden(fld.Child("serviceAccount"), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"))
		}
	}
	switch s.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		errs = append(errs, validateServiceAccount(s.ServiceAccount, fld.Child("serviceAccount"))...)
		forbidUser()
		forbidGroup()
	case flowcontrolv1.SubjectKindUser:
		if s.User == nil {
			errs = append(errs, field.Required(fld.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			errs = append(errs, field.Required(fld.Child("user", "name"), ""))
		}
		forbidServiceAccount()
		forbidGroup()
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil {
			errs = append(errs, field.Required(fld.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			errs = append(errs, field.Required(fld.Child("group", "name"), ""))
		}
		forbidServiceAccount()
		forbidUser()
	default:
		errs = append(errs, field.NotSupported(fld.Child("kind"), s.Kind, subjectKinds))
	}
	return errs
}

// validateServiceAccount checks a service account subject: a name ("*" for
// all) and a namespace.
func validateServiceAccount(sa *flowcontrolv1.ServiceAccountSubject, fld *field.Path) field.ErrorList {
	if sa == nil {
		return field.ErrorList{field.Required(fld, "serviceAccount is required when subject kind is 'ServiceAccount'")}
	}
	var errs field.ErrorList
	switch {
	case sa.Name == "":
		errs = append(errs, field.Required(fld.Child("name"), ""))
	case sa.Name != flowcontrolv1.NameAll:
		for _, msg := range apivalidation.ValidateServiceAccountName(sa.Name, false) {
			errs = append(errs, field.Invalid(fld.Child("name"), sa.Name, msg))
		}
	}
	if sa.Namespace == "" {
		return append(errs, field.Required(fld.Child("namespace"), "must specify namespace for service account"))
	}
	for _, msg := range apivalidation.ValidateNamespaceName(sa.Namespace, false) {
		errs = append(errs, field.Invalid(fld.Child("namespace"), sa.Namespace, msg))
	}
	return errs
}

// validateVerbs checks a rule's verbs: at least one, "*" alone, else
// known verbs.
func validateVerbs(vs []string, fld *field.Path) field.ErrorList {
	switch {
	case len(vs) == 0:
		return field.ErrorList{field.Required(fld, "verbs must contain at least one value")}
	case slices.Contains(vs, "*"):
		if len(vs) > 1 {
			return field.ErrorList{field.Invalid(fld, vs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range vs {
			if !slices.Contains(verbs, v) {
				return field.ErrorList{field.NotSupported(fld, vs, verbs)}
			}
		}
	}
	return nil
}

// validateResourceRule checks a resource rule's verbs, API groups,
// resources and namespaces (none only when cluster-scoped).
func validateResourceRule(rule *flowcontrolv1.ResourcePolicyRule, fld *field.Path) field.ErrorList {
	errs := validateVerbs(rule.Verbs, fld.Child("verbs"))
	for _, l := range []struct {
		name, what string
		values     []string
	}{{"apiGroups", "api group", rule.APIGroups}, {"resources", "resource", rule.Resources}} {
		switch {
		case len(l.values) == 0:
			errs = append(errs, field.Required(fld.Child(l.name), "resource rules must supply at least one "+l.what))
		case len(l.values) > 1 && slices.Contains(l.values, "*"):
			errs = append(errs, field.Invalid(fld.Child(l.name), l.values, "if '*' is present, must not specify other "+l.what+"s"))
		}
	}
	ns := fld.Child("namespaces")
	switch {
	case len(rule.Namespaces) == 0 && !rule.ClusterScope:
		errs = append(errs, field.Required(ns, "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(rule.Namespaces, "*"):
		if len(rule.Namespaces) > 1 {
			errs = append(errs, field.Invalid(ns, rule.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, n := range rule.Namespaces {
			for _, msg := range apivalidation.ValidateNamespaceName(n, false) {
				errs = append(errs, field.Invalid(ns.Index(i), n, "each member of this list must be '*' or a DNS-1123 label; "+msg))
			}
		}
	}
	return errs
}

// validateNonResourceRule checks a non-resource rule's verbs and URLs.
func validateNonResourceRule(rule *flowcontrolv1.NonResourcePolicyRule, fld *field.Path) field.ErrorList {
	errs := validateVerbs(rule.Verbs, fld.Child("verbs"))
	urls := fld.Child("nonResourceURLs")
	switch {
	case len(rule.NonResourceURLs) == 0:
		errs = append(errs, field.Required(urls, "nonResourceURLs must contain at least one value"))
	case slices.Contains(rule.NonResourceURLs, "*"):
		if len(rule.NonResourceURLs) > 1 {
			errs = append(errs, field.Invalid(urls, rule.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range rule.NonResourceURLs {
			if msg := nonResourceURLError(u); msg != "" {
				errs = append(errs, field.Invalid(urls.Index(i), u, msg))
			}
		}
	}
	return errs
}

// nonResourceURLError says what is wrong with a non-resource URL, "" when
// nothing: it is "/" or starts with "/", has no space nor "//", and a "*"
// only as its last segment.
func nonResourceURLError(u string) string {
	switch {
	case u == "":
		return "must not be empty"
	case u == "/":
		return ""
	case !strings.HasPrefix(u, "/"):
		return "must start with slash"
	case strings.Contains(u, " "):
		return "must not contain white-space"
	case strings.Contains(u, "//"):
		return "must not contain double slash"
	}
	if n := strings.Count(u, "*"); n > 1 || n == 1 && !strings.HasSuffix(u, "/*") {
		return "wildcard can only do suffix matching"
	}
	return ""
}

// validateStatus checks the conditions: each with a type, no type twice.
func validateStatus(st *flowcontrolv1.FlowSchemaStatus, fld *field.Path) field.ErrorList {
	types := make([]flowcontrolv1.FlowSchemaConditionType, len(st.Conditions))
	for i, c := range st.Conditions {
		types[i] = c.Type
	}
	return validate.ConditionTypes(fld, types)
}
