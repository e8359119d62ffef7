package auth

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// RBACSource supplies the RBAC objects the authorizer evaluates. The server
// backs it with an in-memory cache of its store (as kube-apiserver uses
// informer caches). Returned objects and slices are read, never modified.
type RBACSource interface {
	// ClusterRoles returns all ClusterRoles.
	ClusterRoles() []*rbacv1.ClusterRole
	// ClusterRoleBindings returns all ClusterRoleBindings.
	ClusterRoleBindings() []*rbacv1.ClusterRoleBinding
	// Roles returns the Roles in namespace ns.
	Roles(ns string) []*rbacv1.Role
	// RoleBindings returns the RoleBindings in namespace ns.
	RoleBindings(ns string) []*rbacv1.RoleBinding
	// ClusterRole returns the ClusterRole name, if it exists.
	ClusterRole(name string) (*rbacv1.ClusterRole, bool)
	// Role returns the Role ns/name, if it exists.
	Role(ns, name string) (*rbacv1.Role, bool)
}

// RBACAuthorizer is kube-apiserver's RBAC authorizer
// (plugin/pkg/auth/authorizer/rbac) over an RBACSource: it allows a request
// when a rule of a role bound to the user (by a ClusterRoleBinding, or a
// RoleBinding in the request's namespace) matches it. It is also the rule
// resolver behind SelfSubjectRulesReview and the escalation checks.
type RBACAuthorizer struct {
	src RBACSource
	// notFound, when set, is the resource missing roles are reported as
	// (see ForStorage); otherwise the singular "role"/"clusterrole" the
	// informer listers use.
	notFound *schema.GroupResource
}

var (
	_ authorizer.Authorizer   = (*RBACAuthorizer)(nil)
	_ authorizer.RuleResolver = (*RBACAuthorizer)(nil)
)

// NewRBACAuthorizer returns the RBAC authorizer over src.
func NewRBACAuthorizer(src RBACSource) *RBACAuthorizer {
	return &RBACAuthorizer{src: src}
}

// ForStorage returns a copy of r that reports a missing Role or ClusterRole
// as NotFound of gr. kube-apiserver's RBAC registry resolves roles through
// its storage, whose NotFound errors name the resource of the request being
// served; so while serving a write to rolebindings, a binding to a missing
// ClusterRole reads `rolebindings.rbac.authorization.k8s.io "x" not found`.
// Use the copy for ConfirmNoEscalation, CheckRBACWrite and
// GetRoleReferenceRules when serving RBAC writes.
func (r *RBACAuthorizer) ForStorage(gr schema.GroupResource) *RBACAuthorizer {
	return &RBACAuthorizer{src: r.src, notFound: &gr}
}

// Authorize allows the request if a rule bound to its user matches it,
// with the reason `RBAC: allowed by <binding>`; otherwise it has no opinion,
// with the reason "RBAC: <errors>" when bindings refer to missing roles.
func (r *RBACAuthorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	var (
		allowed bool
		reason  string
		errs    []error
	)
	r.VisitRulesFor(ctx, attrs.GetUser(), attrs.GetNamespace(), func(source fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil && RuleAllows(attrs, rule) {
			allowed = true
			reason = "RBAC: allowed by " + source.String()
			return false
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	if allowed {
		return authorizer.DecisionAllow, reason, nil
	}
	if len(errs) > 0 {
		reason = fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(errs))
	}
	return authorizer.DecisionNoOpinion, reason, nil
}

// ConditionsAwareAuthorize returns Authorize's decision; RBAC has no
// conditions.
func (r *RBACAuthorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(r.Authorize(ctx, attrs))
}

// EvaluateConditions is not supported by RBAC and fails closed.
func (r *RBACAuthorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor returns the rules that apply to u in namespace, split into
// resource and non-resource rules as SelfSubjectRulesReview reports them;
// RBAC never reports them incomplete, and the error lists missing roles.
func (r *RBACAuthorizer) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	var (
		resourceRules    []authorizer.ResourceRuleInfo
		nonResourceRules []authorizer.NonResourceRuleInfo
	)
	policyRules, err := r.PolicyRulesFor(ctx, u, namespace)
	for _, pr := range policyRules {
		if len(pr.Resources) > 0 {
			resourceRules = append(resourceRules, &authorizer.DefaultResourceRuleInfo{
				Verbs:         pr.Verbs,
				APIGroups:     pr.APIGroups,
				Resources:     pr.Resources,
				ResourceNames: pr.ResourceNames,
			})
		}
		if len(pr.NonResourceURLs) > 0 {
			nonResourceRules = append(nonResourceRules, &authorizer.DefaultNonResourceRuleInfo{
				Verbs:           pr.Verbs,
				NonResourceURLs: pr.NonResourceURLs,
			})
		}
	}
	return resourceRules, nonResourceRules, false, err
}

// PolicyRulesFor returns every rule that applies to u in namespace
// (cluster-wide bindings first, then the namespace's RoleBindings) and an
// aggregate of the errors met resolving them; the rules are valid even
// when the error is not nil.
func (r *RBACAuthorizer) PolicyRulesFor(ctx context.Context, u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	var (
		rules []rbacv1.PolicyRule
		errs  []error
	)
	r.VisitRulesFor(ctx, u, namespace, func(_ fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil {
			rules = append(rules, *rule)
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// VisitRulesFor calls visitor with each rule that applies to u in namespace
// and the binding it comes from, and with each error resolving a binding's
// role (rule nil); it stops when visitor returns false. ClusterRoleBindings
// come first, then, for a non-empty namespace, its RoleBindings.
func (r *RBACAuthorizer) VisitRulesFor(ctx context.Context, u user.Info, namespace string, visitor func(source fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool) {
	name, groups := u.GetName(), u.GetGroups()
	for _, b := range r.src.ClusterRoleBindings() {
		i, ok := appliesTo(name, groups, b.Subjects, "")
		if !ok {
			continue
		}
		rules, err := r.GetRoleReferenceRules(ctx, b.RoleRef, "")
		if err != nil {
			if !visitor(nil, nil, err) {
				return
			}
			continue
		}
		src := &clusterRoleBindingSource{binding: b, subject: &b.Subjects[i]}
		for j := range rules {
			if !visitor(src, &rules[j], nil) {
				return
			}
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range r.src.RoleBindings(namespace) {
		i, ok := appliesTo(name, groups, b.Subjects, namespace)
		if !ok {
			continue
		}
		rules, err := r.GetRoleReferenceRules(ctx, b.RoleRef, namespace)
		if err != nil {
			if !visitor(nil, nil, err) {
				return
			}
			continue
		}
		src := &roleBindingSource{binding: b, subject: &b.Subjects[i]}
		for j := range rules {
			if !visitor(src, &rules[j], nil) {
				return
			}
		}
	}
}

// GetRoleReferenceRules returns the rules of the Role (in bindingNamespace)
// or ClusterRole that roleRef names, or a NotFound error when it does not
// exist.
func (r *RBACAuthorizer) GetRoleReferenceRules(_ context.Context, roleRef rbacv1.RoleRef, bindingNamespace string) ([]rbacv1.PolicyRule, error) {
	switch roleRef.Kind {
	case "Role":
		role, ok := r.src.Role(bindingNamespace, roleRef.Name)
		if !ok {
			return nil, apierrors.NewNotFound(r.missing("role"), roleRef.Name)
		}
		return role.Rules, nil
	case "ClusterRole":
		role, ok := r.src.ClusterRole(roleRef.Name)
		if !ok {
			return nil, apierrors.NewNotFound(r.missing("clusterrole"), roleRef.Name)
		}
		return role.Rules, nil
	default:
		return nil, fmt.Errorf("unsupported role reference kind: %q", roleRef.Kind)
	}
}

func (r *RBACAuthorizer) missing(singular string) schema.GroupResource {
	if r.notFound != nil {
		return *r.notFound
	}
	return rbacv1.Resource(singular)
}

// RuleAllows reports whether rule grants the request attrs: verb, API
// group, resource ("*", "res/sub", "*/sub") and resourceNames for resource
// requests; verb and nonResourceURLs (exact, "*", or a trailing-* prefix)
// for the others.
func RuleAllows(attrs authorizer.Attributes, rule *rbacv1.PolicyRule) bool {
	if attrs.IsResourceRequest() {
		combined := attrs.GetResource()
		if sub := attrs.GetSubresource(); sub != "" {
			combined += "/" + sub
		}
		return verbMatches(rule, attrs.GetVerb()) &&
			apiGroupMatches(rule, attrs.GetAPIGroup()) &&
			resourceMatches(rule, combined, attrs.GetSubresource()) &&
			resourceNameMatches(rule, attrs.GetName())
	}
	return verbMatches(rule, attrs.GetVerb()) && nonResourceURLMatches(rule, attrs.GetPath())
}

func verbMatches(rule *rbacv1.PolicyRule, verb string) bool {
	for _, v := range rule.Verbs {
		if v == rbacv1.VerbAll || v == verb {
			return true
		}
	}
	return false
}

func apiGroupMatches(rule *rbacv1.PolicyRule, group string) bool {
	for _, g := range rule.APIGroups {
		if g == rbacv1.APIGroupAll || g == group {
			return true
		}
	}
	return false
}

func resourceMatches(rule *rbacv1.PolicyRule, combined, subresource string) bool {
	for _, res := range rule.Resources {
		if res == rbacv1.ResourceAll || res == combined {
			return true
		}
		// "*/sub" matches that subresource of any resource.
		if subresource != "" && len(res) == len(subresource)+2 &&
			strings.HasPrefix(res, "*/") && strings.HasSuffix(res, subresource) {
			return true
		}
	}
	return false
}

func resourceNameMatches(rule *rbacv1.PolicyRule, name string) bool {
	if len(rule.ResourceNames) == 0 {
		return true
	}
	for _, n := range rule.ResourceNames {
		if n == name {
			return true
		}
	}
	return false
}

func nonResourceURLMatches(rule *rbacv1.PolicyRule, path string) bool {
	for _, u := range rule.NonResourceURLs {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}

// appliesTo returns the index of the first subject that matches the user
// with name and groups.
func appliesTo(name string, groups []string, subjects []rbacv1.Subject, namespace string) (int, bool) {
	for i := range subjects {
		if appliesToUser(name, groups, &subjects[i], namespace) {
			return i, true
		}
	}
	return 0, false
}

func appliesToUser(name string, groups []string, s *rbacv1.Subject, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return name == s.Name
	case rbacv1.GroupKind:
		for _, g := range groups {
			if g == s.Name {
				return true
			}
		}
		return false
	case rbacv1.ServiceAccountKind:
		// A ServiceAccount subject without a namespace means the binding's.
		ns := namespace
		if s.Namespace != "" {
			ns = s.Namespace
		}
		if ns == "" {
			return false
		}
		return serviceaccount.MatchesUsername(ns, s.Name, name)
	default:
		return false
	}
}

func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

type clusterRoleBindingSource struct {
	binding *rbacv1.ClusterRoleBinding
	subject *rbacv1.Subject
}

func (d *clusterRoleBindingSource) String() string {
	return fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s",
		d.binding.Name, d.binding.RoleRef.Kind, d.binding.RoleRef.Name, describeSubject(d.subject, ""))
}

type roleBindingSource struct {
	binding *rbacv1.RoleBinding
	subject *rbacv1.Subject
}

func (d *roleBindingSource) String() string {
	return fmt.Sprintf("RoleBinding %q of %s %q to %s",
		d.binding.Name+"/"+d.binding.Namespace, d.binding.RoleRef.Kind, d.binding.RoleRef.Name, describeSubject(d.subject, d.binding.Namespace))
}

// StaticRBAC is an in-memory RBACSource, safe for concurrent use. Lists
// are kept sorted by namespace and name.
type StaticRBAC struct {
	mu                  sync.RWMutex
	clusterRoles        map[string]*rbacv1.ClusterRole
	clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding
	roles               map[string]map[string]*rbacv1.Role
	roleBindings        map[string]map[string]*rbacv1.RoleBinding

	// sorted snapshots, rebuilt lazily after a change
	crList  []*rbacv1.ClusterRole
	crbList []*rbacv1.ClusterRoleBinding
	rList   map[string][]*rbacv1.Role
	rbList  map[string][]*rbacv1.RoleBinding
	dirty   bool
}

var _ RBACSource = (*StaticRBAC)(nil)

// NewStaticRBAC returns a StaticRBAC holding objs, each a *rbacv1.Role,
// *rbacv1.ClusterRole, *rbacv1.RoleBinding or *rbacv1.ClusterRoleBinding.
func NewStaticRBAC(objs ...any) *StaticRBAC {
	s := &StaticRBAC{
		clusterRoles:        map[string]*rbacv1.ClusterRole{},
		clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{},
		roles:               map[string]map[string]*rbacv1.Role{},
		roleBindings:        map[string]map[string]*rbacv1.RoleBinding{},
	}
	s.Add(objs...)
	return s
}

// Add stores objs (each a *rbacv1.Role, *rbacv1.ClusterRole,
// *rbacv1.RoleBinding or *rbacv1.ClusterRoleBinding), replacing objects of
// the same kind, namespace and name. It panics on other types.
func (s *StaticRBAC) Add(objs ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range objs {
		switch o := o.(type) {
		case *rbacv1.ClusterRole:
			s.clusterRoles[o.Name] = o
		case *rbacv1.ClusterRoleBinding:
			s.clusterRoleBindings[o.Name] = o
		case *rbacv1.Role:
			if s.roles[o.Namespace] == nil {
				s.roles[o.Namespace] = map[string]*rbacv1.Role{}
			}
			s.roles[o.Namespace][o.Name] = o
		case *rbacv1.RoleBinding:
			if s.roleBindings[o.Namespace] == nil {
				s.roleBindings[o.Namespace] = map[string]*rbacv1.RoleBinding{}
			}
			s.roleBindings[o.Namespace][o.Name] = o
		default:
			panic(fmt.Sprintf("auth.StaticRBAC: unsupported object %T", o))
		}
	}
	s.dirty = true
}

// Delete removes the object of kind ("Role", "ClusterRole", "RoleBinding"
// or "ClusterRoleBinding") named namespace/name, if present.
func (s *StaticRBAC) Delete(kind, namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch kind {
	case "ClusterRole":
		delete(s.clusterRoles, name)
	case "ClusterRoleBinding":
		delete(s.clusterRoleBindings, name)
	case "Role":
		delete(s.roles[namespace], name)
	case "RoleBinding":
		delete(s.roleBindings[namespace], name)
	}
	s.dirty = true
}

// snapshot returns the sorted lists, rebuilding them after a change.
func (s *StaticRBAC) snapshot() *StaticRBAC {
	s.mu.RLock()
	if !s.dirty {
		return s
	}
	s.mu.RUnlock()
	s.mu.Lock()
	if s.dirty {
		s.crList = sortedValues(s.clusterRoles)
		s.crbList = sortedValues(s.clusterRoleBindings)
		s.rList = map[string][]*rbacv1.Role{}
		for ns, m := range s.roles {
			s.rList[ns] = sortedValues(m)
		}
		s.rbList = map[string][]*rbacv1.RoleBinding{}
		for ns, m := range s.roleBindings {
			s.rbList[ns] = sortedValues(m)
		}
		s.dirty = false
	}
	s.mu.Unlock()
	s.mu.RLock()
	return s
}

func sortedValues[T any](m map[string]*T) []*T {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*T, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// ClusterRoles returns all ClusterRoles, sorted by name.
func (s *StaticRBAC) ClusterRoles() []*rbacv1.ClusterRole {
	defer s.snapshot().mu.RUnlock()
	return s.crList
}

// ClusterRoleBindings returns all ClusterRoleBindings, sorted by name.
func (s *StaticRBAC) ClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	defer s.snapshot().mu.RUnlock()
	return s.crbList
}

// Roles returns the Roles in ns, sorted by name.
func (s *StaticRBAC) Roles(ns string) []*rbacv1.Role {
	defer s.snapshot().mu.RUnlock()
	return s.rList[ns]
}

// RoleBindings returns the RoleBindings in ns, sorted by name.
func (s *StaticRBAC) RoleBindings(ns string) []*rbacv1.RoleBinding {
	defer s.snapshot().mu.RUnlock()
	return s.rbList[ns]
}

// ClusterRole returns the ClusterRole name.
func (s *StaticRBAC) ClusterRole(name string) (*rbacv1.ClusterRole, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.clusterRoles[name]
	return r, ok
}

// Role returns the Role ns/name.
func (s *StaticRBAC) Role(ns, name string) (*rbacv1.Role, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.roles[ns][name]
	return r, ok
}
