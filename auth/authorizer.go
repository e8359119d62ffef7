package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/union"
)

// Authorization modes accepted by NewAuthorizer (--authorization-mode).
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeRBAC        = "RBAC"
)

// NewAuthorizer returns the authorizer and rule resolver kube-apiserver
// builds for --authorization-mode=mode, a comma-separated list of
// "AlwaysAllow", "AlwaysDeny", "RBAC" (rbac must be set for RBAC) and
// "Webhook" (webhook must be set: NewAuthorizationWebhook). As in
// kube-apiserver, members of system:masters are allowed everything before
// the modes are consulted, and a denial's reason joins each mode's reason
// prefixed by its lower-cased name ("rbac: RBAC: ..."). The rule resolver
// (for SelfSubjectRulesReview) unions the modes' rules.
//
// (Written with k8s.io/apiserver's authorization/union; the built-in
// authorizers are re-implemented here, as authorizerfactory's are
// kube-apiserver's own.)
func NewAuthorizer(mode string, rbac *RBACAuthorizer, webhook AuthorizationWebhook) (authorizer.Authorizer, authorizer.RuleResolver, error) {
	named := []union.NamedAuthorizer{{
		AuthorizerName: "kubernetes.io/system-privileged-group",
		Authorizer:     privilegedGroups{user.SystemPrivilegedGroup},
	}}
	var resolvers []authorizer.RuleResolver
	for _, m := range strings.Split(mode, ",") {
		m = strings.TrimSpace(m)
		var a authorizer.Authorizer
		var rr authorizer.RuleResolver
		switch m {
		case ModeAlwaysAllow:
			a, rr = alwaysAllow{}, alwaysAllow{}
		case ModeAlwaysDeny:
			a, rr = alwaysDeny{}, alwaysDeny{}
		case ModeRBAC:
			if rbac == nil {
				return nil, nil, errors.New("authorization mode RBAC needs an RBAC authorizer")
			}
			a, rr = rbac, rbac
		case ModeWebhook:
			if webhook == nil {
				return nil, nil, errors.New("authorization-mode Webhook's authorization config file not passed")
			}
			a, rr = webhook, webhook
		case "":
			return nil, nil, errors.New("at least one authorization mode must be passed")
		default:
			return nil, nil, fmt.Errorf("unknown authorization mode %q", m)
		}
		// Named as kube-apiserver names the authorizers it makes of its
		// modes: the webhook "default", the others their mode in lower case.
		name := strings.ToLower(m)
		if m == ModeWebhook {
			name = "default"
		}
		named = append(named, union.NamedAuthorizer{AuthorizerName: name, Authorizer: a})
		resolvers = append(resolvers, rr)
	}
	authz, err := union.New(named...)
	if err != nil {
		return nil, nil, err
	}
	return authz, union.NewRuleResolvers(resolvers...), nil
}

// conditionsAware is ConditionsAwareAuthorize for an authorizer without
// conditions: its Authorize decision, converted.
func conditionsAware(ctx context.Context, a authorizer.UnconditionalAuthorizer, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(a.Authorize(ctx, attrs))
}

// privilegedGroups allows members of its groups everything
// (authorizerfactory.NewPrivilegedGroups).
type privilegedGroups []string

func (p privilegedGroups) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetUser() == nil {
		return authorizer.DecisionNoOpinion, "Error", errors.New("no user on request.")
	}
	for _, g := range attrs.GetUser().GetGroups() {
		for _, pg := range p {
			if g == pg {
				return authorizer.DecisionAllow, "", nil
			}
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func (p privilegedGroups) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return conditionsAware(ctx, p, attrs)
}

func (privilegedGroups) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// alwaysAllow is the AlwaysAllow mode.
type alwaysAllow struct{}

func (alwaysAllow) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

func (a alwaysAllow) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return conditionsAware(ctx, a, attrs)
}

func (alwaysAllow) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

func (alwaysAllow) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	return []authorizer.ResourceRuleInfo{&authorizer.DefaultResourceRuleInfo{
			Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
		}}, []authorizer.NonResourceRuleInfo{&authorizer.DefaultNonResourceRuleInfo{
			Verbs: []string{"*"}, NonResourceURLs: []string{"*"},
		}}, false, nil
}

// alwaysDeny is the AlwaysDeny mode.
type alwaysDeny struct{}

func (alwaysDeny) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, "Everything is forbidden.", nil
}

func (a alwaysDeny) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return conditionsAware(ctx, a, attrs)
}

func (alwaysDeny) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

func (alwaysDeny) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	return []authorizer.ResourceRuleInfo{}, []authorizer.NonResourceRuleInfo{}, false, nil
}
