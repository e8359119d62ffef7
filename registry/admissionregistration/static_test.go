package admissionregistration

import (
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

func TestStaticSuffix(t *testing.T) {
	const msg = `names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`
	for _, tc := range []struct {
		name      string
		reserved  bool
		wantError string
	}{
		{name: "policy.example.com"},
		{name: "static.k8s.io"},
		{name: "x.static.k8s.io.example"},
		{name: "deny.static.k8s.io", reserved: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wantErrs, wantWarnings []string
			if tc.reserved {
				wantErrs = []string{`metadata.name: Invalid value: "` + tc.name + `": ` + msg}
				wantWarnings = []string{"metadata.name: " + msg}
			}
			validatetest.ExpectErrors(t, ValidateStaticSuffix(tc.name), wantErrs)
			if got := StaticSuffixWarnings(tc.name); !slices.Equal(got, wantWarnings) {
				t.Errorf("warnings:\n got %q\nwant %q", got, wantWarnings)
			}
		})
	}
}

func TestWebhookRuleWarnings(t *testing.T) {
	rule := func(groups, resources []string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"v1"}, Resources: resources}}
	}
	for _, tc := range []struct {
		name  string
		hooks []Webhook
		want  []string
	}{
		{name: "rules of persisted resources warn of nothing", hooks: []Webhook{{Rules: []admissionregistrationv1.RuleWithOperations{
			rule([]string{""}, []string{"pods", "serviceaccounts/token"}),
			rule([]string{"authentication.k8s.io"}, []string{"tokenreviews/status"}),
		}}}},
		{name: "wildcards are not flagged", hooks: []Webhook{{Rules: []admissionregistrationv1.RuleWithOperations{
			rule([]string{"*"}, []string{"tokenreviews"}),
			rule([]string{"authentication.k8s.io"}, []string{"*"}),
			rule([]string{"authorization.k8s.io", "*"}, []string{"subjectaccessreviews"}),
		}}}},
		{name: "excluded resources, once per rule, in the rule's order", hooks: []Webhook{
			{Rules: []admissionregistrationv1.RuleWithOperations{rule([]string{""}, []string{"pods"})}},
			{Rules: []admissionregistrationv1.RuleWithOperations{
				rule([]string{"apps"}, []string{"deployments"}),
				rule([]string{"authorization.k8s.io", "authentication.k8s.io", "authorization.k8s.io"},
					[]string{"tokenreviews", "subjectaccessreviews", "selfsubjectreviews", "selfsubjectrulesreviews"}),
				rule([]string{"authorization.k8s.io"}, []string{"localsubjectaccessreviews", "selfsubjectaccessreviews", "localsubjectaccessreviews"}),
			}},
		}, want: []string{
			"webhooks[1].rules[1]: subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect",
			"webhooks[1].rules[1]: selfsubjectrulesreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect",
			"webhooks[1].rules[1]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect",
			"webhooks[1].rules[1]: selfsubjectreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect",
			"webhooks[1].rules[2]: localsubjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect",
			"webhooks[1].rules[2]: selfsubjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := WebhookRuleWarnings(tc.hooks); !slices.Equal(got, tc.want) {
				t.Errorf("warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
