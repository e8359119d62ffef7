package auth

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// ABACAuthorizer is kube-apiserver's attribute-based authorizer
// (--authorization-mode=ABAC, --authorization-policy-file), written after
// upstream's pkg/auth/authorizer/abac: it allows a request that one of its
// policies matches and has no opinion on the others ("No policy matched.").
// A policy matches a request when its subject does (the user, or a group
// of the user's; "*" for any), its verb does (a read-only policy matches
// get, list and watch only), and either its namespace, resource and API
// group do (each exact or "*") for a resource request, or its
// nonResourcePath does (exact, "*", or a prefix ending in "*") for a
// non-resource one.
type ABACAuthorizer struct {
	policies []abacPolicy
}

var (
	_ authorizer.Authorizer   = (*ABACAuthorizer)(nil)
	_ authorizer.RuleResolver = (*ABACAuthorizer)(nil)
)

// abacPolicy is a policy as kube-apiserver keeps it (its internal
// version), whatever version its line was written in.
type abacPolicy struct {
	User, Group                            string
	Readonly                               bool
	APIGroup, Resource, Namespace, NonPath string
}

// abacLine is a policy file's line: abac.authorization.kubernetes.io/v1beta1's
// Policy, or v0's (no apiVersion or kind; its fields at the top).
type abacLine struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		User            string `json:"user"`
		Group           string `json:"group"`
		Readonly        bool   `json:"readonly"`
		APIGroup        string `json:"apiGroup"`
		Resource        string `json:"resource"`
		Namespace       string `json:"namespace"`
		NonResourcePath string `json:"nonResourcePath"`
	} `json:"spec"`
	// v0's fields.
	User      string `json:"user"`
	Group     string `json:"group"`
	Readonly  bool   `json:"readonly"`
	Resource  string `json:"resource"`
	Namespace string `json:"namespace"`
}

// The policy versions of abac.authorization.kubernetes.io.
const (
	abacGroup   = "abac.authorization.kubernetes.io"
	abacV1beta1 = abacGroup + "/v1beta1"
	abacV0      = abacGroup + "/v0"
)

// LoadABACPolicyFile reads an ABAC policy file: a JSON policy a line, blank
// lines and lines starting with # skipped. A line without apiVersion (or
// of v0) is read as v0, as kube-apiserver migrates it. The
// errors are kube-apiserver's: the file's open error, or
// `error reading policy file PATH, line N: LINE: ERROR`.
func LoadABACPolicyFile(path string) (*ABACAuthorizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a := &ABACAuthorizer{}
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		b := scanner.Bytes()
		if trimmed := strings.TrimSpace(string(b)); trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		p, err := parseABACLine(b)
		if err != nil {
			return nil, fmt.Errorf("error reading policy file %s, line %d: %s: %w", path, n, b, err)
		}
		a.policies = append(a.policies, p)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("error reading policy file %s: %w", path, err)
	}
	return a, nil
}

// parseABACLine reads one policy, converted as kube-apiserver converts its
// versions to its internal one.
func parseABACLine(b []byte) (abacPolicy, error) {
	var l abacLine
	if err := json.Unmarshal(b, &l); err != nil {
		return abacPolicy{}, fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
	}
	// What kube-apiserver's decoder makes of the type: v1beta1's Policy, or
	// v0's (no apiVersion, or v0's with no kind or Policy); v1beta1 with no
	// kind fails to convert, any other kind is not registered.
	switch {
	case l.APIVersion == "" || l.APIVersion == abacV0 && (l.Kind == "" || l.Kind == "Policy"):
		return v0Policy(l), nil
	case l.APIVersion == abacV1beta1 && l.Kind == "":
		return abacPolicy{}, errors.New("converting (v1beta1.Policy) to (v0.Policy): unknown conversion")
	case l.APIVersion != abacV1beta1 || l.Kind != "Policy":
		return abacPolicy{}, fmt.Errorf("no kind %q is registered for version %q in scheme %q", cmp.Or(l.Kind, "Policy"), l.APIVersion, "pkg/runtime/scheme.go:111")
	}
	s := l.Spec
	p := abacPolicy{User: s.User, Group: s.Group, Readonly: s.Readonly, APIGroup: s.APIGroup, Resource: s.Resource, Namespace: s.Namespace, NonPath: s.NonResourcePath}
	// In v1beta1 a user or group "*" is every authenticated user.
	if s.User == "*" || s.Group == "*" {
		p.Group, p.User = user.AllAuthenticated, ""
	}
	return p, nil
}

// v0Policy is a v0 line's policy, converted as kube-apiserver converts it.
func v0Policy(l abacLine) abacPolicy {
	p := abacPolicy{User: l.User, Group: l.Group, Readonly: l.Readonly, Resource: l.Resource, Namespace: l.Namespace, APIGroup: "*"}
	if l.User == "" && l.Group == "" {
		p.Group = user.AllAuthenticated
	}
	if l.User == "*" || l.Group == "*" {
		p.Group, p.User = user.AllAuthenticated, ""
	}
	if l.Namespace == "" {
		p.Namespace = "*"
	}
	if l.Resource == "" {
		p.Resource = "*"
	}
	// Non-resource paths only when neither a namespace nor a resource is
	// given.
	if l.Namespace == "" && l.Resource == "" {
		p.NonPath = "*"
	}
	return p
}

// Authorize implements authorizer.Authorizer.
func (a *ABACAuthorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	for _, p := range a.policies {
		if p.subjectMatches(attrs.GetUser()) && (attrs.IsReadOnly() || !p.Readonly) && (p.resourceMatches(attrs) || p.nonResourceMatches(attrs)) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "No policy matched.", nil
}

// ConditionsAwareAuthorize returns Authorize's decision; ABAC has no
// conditions.
func (a *ABACAuthorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(a.Authorize(ctx, attrs))
}

// EvaluateConditions is not supported by ABAC and fails closed.
func (a *ABACAuthorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor implements authorizer.RuleResolver: the rules of the policies
// whose subject is u's in namespace ns (or every namespace), complete.
func (a *ABACAuthorizer) RulesFor(_ context.Context, u user.Info, ns string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	var resourceRules []authorizer.ResourceRuleInfo
	var nonResourceRules []authorizer.NonResourceRuleInfo
	for _, p := range a.policies {
		if !p.subjectMatches(u) || (p.Namespace != "*" && p.Namespace != ns) {
			continue
		}
		verbs := []string{"*"}
		if p.Readonly {
			verbs = []string{"get", "list", "watch"}
		}
		if p.Resource != "" {
			resourceRules = append(resourceRules, &authorizer.DefaultResourceRuleInfo{Verbs: verbs, APIGroups: []string{p.APIGroup}, Resources: []string{p.Resource}})
		}
		if p.NonPath != "" {
			nonResourceRules = append(nonResourceRules, &authorizer.DefaultNonResourceRuleInfo{Verbs: verbs, NonResourceURLs: []string{p.NonPath}})
		}
	}
	return resourceRules, nonResourceRules, false, nil
}

// subjectMatches reports whether the policy's user and group, those it
// gives, match u; a policy giving neither matches nobody.
func (p abacPolicy) subjectMatches(u user.Info) bool {
	if u == nil {
		return false
	}
	matched := false
	if p.User != "" {
		if p.User != "*" && p.User != u.GetName() {
			return false
		}
		matched = true
	}
	if p.Group != "" {
		if p.Group != "*" && !slices.Contains(u.GetGroups(), p.Group) {
			return false
		}
		matched = true
	}
	return matched
}

// resourceMatches reports whether a resource request is in the policy's
// namespace, resource and API group.
func (p abacPolicy) resourceMatches(attrs authorizer.Attributes) bool {
	return attrs.IsResourceRequest() &&
		(p.Namespace == "*" || p.Namespace == attrs.GetNamespace()) &&
		(p.Resource == "*" || p.Resource == attrs.GetResource()) &&
		(p.APIGroup == "*" || p.APIGroup == attrs.GetAPIGroup())
}

// nonResourceMatches reports whether a non-resource request's path is the
// policy's: "*", the same, or under a path ending in "*".
func (p abacPolicy) nonResourceMatches(attrs authorizer.Attributes) bool {
	if attrs.IsResourceRequest() {
		return false
	}
	path := attrs.GetPath()
	return p.NonPath == "*" || p.NonPath == path ||
		strings.HasSuffix(p.NonPath, "*") && strings.HasPrefix(path, strings.TrimRight(p.NonPath, "*"))
}
