package auth

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/component-helpers/auth/rbac/validation"
)

// PolicyRuleResolver resolves the RBAC rules a user holds in a namespace
// (cluster-wide rules included); *RBACAuthorizer is one.
type PolicyRuleResolver interface {
	// PolicyRulesFor returns the rules u holds in namespace and an error
	// listing what could not be resolved; the rules are valid regardless.
	PolicyRulesFor(ctx context.Context, u user.Info, namespace string) ([]rbacv1.PolicyRule, error)
}

// ConfirmNoEscalation returns nil when the rules u holds in namespace
// ("" for cluster scope) cover rules, and otherwise kube-apiserver's error
// (pkg/registry/rbac/validation): `user "bob" (groups=["g"]) is attempting
// to grant RBAC permissions not currently held:` followed by one compacted
// missing rule per line, sorted, and `; resolution errors: [...]` when some
// of u's bindings refer to missing roles. The server wraps it in a
// Forbidden error for the object being written.
func ConfirmNoEscalation(ctx context.Context, resolver PolicyRuleResolver, u user.Info, namespace string, rules []rbacv1.PolicyRule) error {
	if u == nil {
		return errors.New("no user on context")
	}
	var resolutionErrors []error
	ownerRules, err := resolver.PolicyRulesFor(ctx, u, namespace)
	if err != nil {
		resolutionErrors = append(resolutionErrors, err)
	}
	covered, missing := validation.Covers(ownerRules, rules)
	if covered {
		return nil
	}
	descriptions := sets.New[string]()
	for _, m := range compactRules(missing) {
		descriptions.Insert(CompactString(m))
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		u.GetName(), u.GetGroups(), strings.Join(sets.List(descriptions), "\n"))
	if len(resolutionErrors) > 0 {
		msg += fmt.Sprintf("; resolution errors: %v", resolutionErrors)
	}
	return errors.New(msg)
}

// CompactString is the one-line form of a rule in escalation errors, e.g.
// `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`.
func CompactString(r rbacv1.PolicyRule) string {
	var parts []string
	if len(r.APIGroups) > 0 {
		parts = append(parts, fmt.Sprintf("APIGroups:%q", r.APIGroups))
	}
	if len(r.Resources) > 0 {
		parts = append(parts, fmt.Sprintf("Resources:%q", r.Resources))
	}
	if len(r.NonResourceURLs) > 0 {
		parts = append(parts, fmt.Sprintf("NonResourceURLs:%q", r.NonResourceURLs))
	}
	if len(r.ResourceNames) > 0 {
		parts = append(parts, fmt.Sprintf("ResourceNames:%q", r.ResourceNames))
	}
	if len(r.Verbs) > 0 {
		parts = append(parts, fmt.Sprintf("Verbs:%q", r.Verbs))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// simpleResource keys the rules compactRules may merge.
type simpleResource struct {
	group, resource string
	hasName         bool
	resourceName    string
}

// compactRules merges rules that name one API group, one resource and at
// most one resource name and differ only in verbs (the broken-down
// "missing" rules of Covers), as upstream's CompactRules does.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	simple := map[simpleResource]*rbacv1.PolicyRule{}
	var order []simpleResource
	for _, rule := range rules {
		key, ok := isSimpleResourceRule(&rule)
		if !ok {
			out = append(out, rule)
			continue
		}
		if existing, ok := simple[key]; ok {
			existing.Verbs = append(existing.Verbs, rule.Verbs...)
			continue
		}
		simple[key] = rule.DeepCopy()
		order = append(order, key)
	}
	for _, k := range order {
		out = append(out, *simple[k])
	}
	return out
}

func isSimpleResourceRule(rule *rbacv1.PolicyRule) (simpleResource, bool) {
	if len(rule.ResourceNames) > 1 || len(rule.NonResourceURLs) > 0 {
		return simpleResource{}, false
	}
	if len(rule.APIGroups) != 1 || len(rule.Resources) != 1 {
		return simpleResource{}, false
	}
	only := &rbacv1.PolicyRule{APIGroups: rule.APIGroups, Resources: rule.Resources, Verbs: rule.Verbs, ResourceNames: rule.ResourceNames}
	if !reflect.DeepEqual(only, rule) {
		return simpleResource{}, false
	}
	key := simpleResource{group: rule.APIGroups[0], resource: rule.Resources[0]}
	if len(rule.ResourceNames) == 1 {
		key.hasName, key.resourceName = true, rule.ResourceNames[0]
	}
	return key, true
}

// EscalationAllowed reports whether u may write any RBAC object without
// escalation checks: members of system:masters.
func EscalationAllowed(u user.Info) bool {
	if u == nil {
		return false
	}
	for _, g := range u.GetGroups() {
		if g == user.SystemPrivilegedGroup {
			return true
		}
	}
	return false
}

// RoleEscalationAuthorized reports whether authz grants u the "escalate"
// verb on the roles or clusterroles resource gr (name is the request's
// name, "" for a create by POST), which lets u write roles with rules it
// does not hold.
func RoleEscalationAuthorized(ctx context.Context, authz authorizer.UnconditionalAuthorizer, u user.Info, gr schema.GroupResource, namespace, name string) bool {
	if authz == nil || u == nil {
		return false
	}
	if gr.Group != rbacv1.GroupName || (gr.Resource != "roles" && gr.Resource != "clusterroles") {
		return false
	}
	d, _, _ := authz.Authorize(ctx, authorizer.AttributesRecord{
		User:            u,
		Verb:            "escalate",
		APIGroup:        gr.Group,
		APIVersion:      "*",
		Resource:        gr.Resource,
		Name:            name,
		Namespace:       namespace,
		ResourceRequest: true,
	})
	return d == authorizer.DecisionAllow
}

// BindingAuthorized reports whether authz grants u the "bind" verb on the
// role roleRef names, in bindingNamespace ("" for a ClusterRoleBinding),
// which lets u bind a role whose rules it does not hold.
func BindingAuthorized(ctx context.Context, authz authorizer.UnconditionalAuthorizer, u user.Info, roleRef rbacv1.RoleRef, bindingNamespace string) bool {
	if authz == nil || u == nil {
		return false
	}
	attrs := authorizer.AttributesRecord{
		User:            u,
		Verb:            "bind",
		Namespace:       bindingNamespace,
		APIGroup:        roleRef.APIGroup,
		APIVersion:      "*",
		Name:            roleRef.Name,
		ResourceRequest: true,
	}
	switch roleRef.Kind {
	case "ClusterRole":
		attrs.Resource = "clusterroles"
	case "Role":
		attrs.Resource = "roles"
	default:
		return false
	}
	d, _, _ := authz.Authorize(ctx, attrs)
	return d == authorizer.DecisionAllow
}

// RBACWrite is a create or update of a Role, ClusterRole, RoleBinding or
// ClusterRoleBinding as kube-apiserver's policy-based RBAC storage sees it.
type RBACWrite struct {
	// User is the requester.
	User user.Info
	// Namespace is the request's namespace ("" for cluster-scoped kinds).
	Namespace string
	// Name is the request's name (from the URL; "" for a create by POST).
	Name string
	// Object is the object to be stored: *rbacv1.Role, *rbacv1.ClusterRole,
	// *rbacv1.RoleBinding or *rbacv1.ClusterRoleBinding.
	Object runtime.Object
	// Old is the stored object an update replaces; nil for a create.
	Old runtime.Object
}

// fullAuthority is what setting an aggregationRule requires: * on *.* and
// on every non-resource URL.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// CheckRBACWrite applies the privilege-escalation prevention kube-apiserver
// performs before storing w (pkg/registry/rbac/*/policybased), with authz
// deciding the "escalate" and "bind" verbs and r resolving roles. It
// returns nil to proceed, or the API error to answer: Forbidden with the
// ConfirmNoEscalation message (or "must have cluster-admin privileges to
// use the aggregationRule"), or NotFound when a binding's role does not
// exist (named after the written resource, as upstream's storage does).
func (r *RBACAuthorizer) CheckRBACWrite(ctx context.Context, authz authorizer.UnconditionalAuthorizer, w RBACWrite) error {
	if EscalationAllowed(w.User) {
		return nil
	}
	gcOnly := func() bool { return w.Old != nil && isOnlyMutatingGCFields(w.Object, w.Old) }
	switch obj := w.Object.(type) {
	case *rbacv1.Role:
		gr := rbacv1.Resource("roles")
		if RoleEscalationAuthorized(ctx, authz, w.User, gr, w.Namespace, w.Name) || gcOnly() {
			return nil
		}
		if err := ConfirmNoEscalation(ctx, r.ForStorage(gr), w.User, w.Namespace, obj.Rules); err != nil {
			return apierrors.NewForbidden(gr, obj.Name, err)
		}
		return nil
	case *rbacv1.ClusterRole:
		gr := rbacv1.Resource("clusterroles")
		if RoleEscalationAuthorized(ctx, authz, w.User, gr, "", w.Name) || gcOnly() {
			return nil
		}
		resolver := r.ForStorage(gr)
		if err := ConfirmNoEscalation(ctx, resolver, w.User, "", obj.Rules); err != nil {
			return apierrors.NewForbidden(gr, obj.Name, err)
		}
		old, _ := w.Old.(*rbacv1.ClusterRole)
		if hasAggregationRule(obj) || (old != nil && hasAggregationRule(old)) {
			if err := ConfirmNoEscalation(ctx, resolver, w.User, "", fullAuthority); err != nil {
				return apierrors.NewForbidden(gr, obj.Name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
			}
		}
		return nil
	case *rbacv1.RoleBinding:
		return r.checkBinding(ctx, authz, w, rbacv1.Resource("rolebindings"), obj.Name, obj.RoleRef, w.Namespace, gcOnly)
	case *rbacv1.ClusterRoleBinding:
		return r.checkBinding(ctx, authz, w, rbacv1.Resource("clusterrolebindings"), obj.Name, obj.RoleRef, "", gcOnly)
	default:
		return fmt.Errorf("not an RBAC object: %T", w.Object)
	}
}

func (r *RBACAuthorizer) checkBinding(ctx context.Context, authz authorizer.UnconditionalAuthorizer, w RBACWrite, gr schema.GroupResource, name string, roleRef rbacv1.RoleRef, namespace string, gcOnly func() bool) error {
	if gcOnly() || BindingAuthorized(ctx, authz, w.User, roleRef, namespace) {
		return nil
	}
	resolver := r.ForStorage(gr)
	rules, err := resolver.GetRoleReferenceRules(ctx, roleRef, namespace)
	if err != nil {
		return err
	}
	if err := ConfirmNoEscalation(ctx, resolver, w.User, namespace, rules); err != nil {
		return apierrors.NewForbidden(gr, name, err)
	}
	return nil
}

func hasAggregationRule(cr *rbacv1.ClusterRole) bool {
	return cr.AggregationRule != nil && len(cr.AggregationRule.ClusterRoleSelectors) > 0
}

// isOnlyMutatingGCFields reports whether obj differs from old only in the
// fields the garbage collector changes (owner references, finalizers) or
// that do not count (selfLink, managedFields).
func isOnlyMutatingGCFields(obj, old runtime.Object) bool {
	if old == nil || reflect.ValueOf(old).IsNil() {
		return false
	}
	copied := obj.DeepCopyObject()
	copiedMeta, err := meta.Accessor(copied)
	if err != nil {
		return false
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	copiedMeta.SetOwnerReferences(oldMeta.GetOwnerReferences())
	copiedMeta.SetFinalizers(oldMeta.GetFinalizers())
	copiedMeta.SetSelfLink(oldMeta.GetSelfLink())
	copiedMeta.SetManagedFields(oldMeta.GetManagedFields())
	return equality.Semantic.DeepEqual(copied, old)
}
