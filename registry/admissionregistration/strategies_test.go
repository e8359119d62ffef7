package admissionregistration_test

import (
	"context"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/mutatingadmissionpolicy"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/mutatingadmissionpolicybinding"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/mutatingwebhookconfiguration"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/validatingadmissionpolicy"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/validatingadmissionpolicybinding"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/validatingwebhookconfiguration"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// defaultingStrategy is what the tests ask of the six strategies.
type defaultingStrategy interface {
	strategy.Strategy
	strategy.Defaulter
}

// configurationCase is one object of an admission configuration kind: its
// name and (for webhooks) rules, the errors of its create and the warnings
// of its create and update.
type configurationCase struct {
	name, objName          string
	rules                  []admissionregistrationv1.RuleWithOperations
	wantErrs               []string
	wantCreate, wantUpdate []string
}

// TestAdmissionConfigurationsStaticSuffixAndRuleWarnings checks the six
// admission configuration strategies: a name ending with the static suffix
// is refused on create and warned about on update; a webhook rule naming a
// resource webhooks never see is warned about on create and update (the
// policies and bindings have no such rules).
func TestAdmissionConfigurationsStaticSuffixAndRuleWarnings(t *testing.T) {
	const (
		reserved = `names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`
		static   = "metadata.name: " + reserved
		excluded = "webhooks[0].rules[1]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect"
	)
	pods := admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}
	reviews := admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"authentication.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"tokenreviews"}}}
	configmaps := &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}}
	clientConfig := admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hook.example.com/")}
	none := ptr.To(admissionregistrationv1.SideEffectClassNone)
	for _, kind := range []struct {
		name string
		st   defaultingStrategy
		// object is a valid object named name; rules are a webhook's.
		object   func(name string, rules []admissionregistrationv1.RuleWithOperations) runtime.Object
		webhooks bool
	}{
		{"ValidatingWebhookConfiguration", validatingwebhookconfiguration.Strategy, func(name string, rules []admissionregistrationv1.RuleWithOperations) runtime.Object {
			return &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: "hook.example.com", ClientConfig: clientConfig, Rules: rules, SideEffects: none, AdmissionReviewVersions: []string{"v1"}}}}
		}, true},
		{"MutatingWebhookConfiguration", mutatingwebhookconfiguration.Strategy, func(name string, rules []admissionregistrationv1.RuleWithOperations) runtime.Object {
			return &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: "hook.example.com", ClientConfig: clientConfig, Rules: rules, SideEffects: none, AdmissionReviewVersions: []string{"v1"}}}}
		}, true},
		{"ValidatingAdmissionPolicy", validatingadmissionpolicy.Strategy, func(name string, _ []admissionregistrationv1.RuleWithOperations) runtime.Object {
			return &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: configmaps, Validations: []admissionregistrationv1.Validation{{Expression: "true"}}}}
		}, false},
		{"MutatingAdmissionPolicy", mutatingadmissionpolicy.Strategy, func(name string, _ []admissionregistrationv1.RuleWithOperations) runtime.Object {
			return &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				MatchConstraints:   configmaps,
				Mutations:          []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{}"}}},
				ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy}}
		}, false},
		{"ValidatingAdmissionPolicyBinding", validatingadmissionpolicybinding.Strategy, func(name string, _ []admissionregistrationv1.RuleWithOperations) runtime.Object {
			return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: "example", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
		}, false},
		{"MutatingAdmissionPolicyBinding", mutatingadmissionpolicybinding.Strategy, func(name string, _ []admissionregistrationv1.RuleWithOperations) runtime.Object {
			return &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "example"}}
		}, false},
	} {
		cases := []configurationCase{
			{name: "a plain name warns of nothing", objName: "hook.example.com", rules: []admissionregistrationv1.RuleWithOperations{pods}},
			{name: "the static suffix is refused on create and warned about on update", objName: "hook.static.k8s.io", rules: []admissionregistrationv1.RuleWithOperations{pods},
				wantErrs: []string{`metadata.name: Invalid value: "hook.static.k8s.io": ` + reserved}, wantUpdate: []string{static}},
		}
		if kind.webhooks {
			cases = append(cases,
				configurationCase{name: "a rule naming a resource webhooks never see", objName: "hook.example.com", rules: []admissionregistrationv1.RuleWithOperations{pods, reviews},
					wantCreate: []string{excluded}, wantUpdate: []string{excluded}},
				configurationCase{name: "both: the suffix's error, the rule's warning, and both on update", objName: "hook.static.k8s.io", rules: []admissionregistrationv1.RuleWithOperations{pods, reviews},
					wantErrs:   []string{`metadata.name: Invalid value: "hook.static.k8s.io": ` + reserved},
					wantCreate: []string{excluded}, wantUpdate: []string{static, excluded}})
		}
		for _, tc := range cases {
			t.Run(kind.name+"/"+tc.name, func(t *testing.T) {
				ctx := context.Background()
				o := kind.object(tc.objName, tc.rules)
				kind.st.Default(o)
				validatetest.ExpectErrors(t, kind.st.Validate(ctx, o), tc.wantErrs)
				validatetest.ExpectErrors(t, kind.st.ValidateUpdate(ctx, o, o.DeepCopyObject()), nil)
				if got := kind.st.WarningsOnCreate(ctx, o); !slices.Equal(got, tc.wantCreate) {
					t.Errorf("create warnings:\n got %q\nwant %q", got, tc.wantCreate)
				}
				if got := kind.st.WarningsOnUpdate(ctx, o, o.DeepCopyObject()); !slices.Equal(got, tc.wantUpdate) {
					t.Errorf("update warnings:\n got %q\nwant %q", got, tc.wantUpdate)
				}
			})
		}
	}
}
