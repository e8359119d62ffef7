package validatingwebhookconfiguration

import (
	"context"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

func TestValidatingWebhookConfigurationWarnings(t *testing.T) {
	const (
		static   = "metadata.name: names ending with \".static.k8s.io\" are reserved for static manifest-based configurations and cannot be managed via the API"
		excluded = "webhooks[0].rules[1]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect"
	)
	pods := admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}
	reviews := admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"authentication.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"tokenreviews"}}}
	for _, tc := range []struct {
		name       string
		objName    string
		rules      []admissionregistrationv1.RuleWithOperations
		wantErrs   []string
		wantCreate []string
		wantUpdate []string
	}{
		{name: "plain configuration warns of nothing", objName: "hook.example.com", rules: []admissionregistrationv1.RuleWithOperations{pods}},
		{name: "rule naming a resource webhooks never see", objName: "hook.example.com", rules: []admissionregistrationv1.RuleWithOperations{pods, reviews},
			wantCreate: []string{excluded}, wantUpdate: []string{excluded}},
		{name: "static suffix is refused on create and warned about on update", objName: "hook.static.k8s.io", rules: []admissionregistrationv1.RuleWithOperations{pods, reviews},
			wantErrs:   []string{`metadata.name: Invalid value: "hook.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`},
			wantCreate: []string{excluded}, wantUpdate: []string{static, excluded}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: tc.objName},
				Webhooks: []admissionregistrationv1.ValidatingWebhook{{
					Name: "hook.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hook.example.com/")},
					Rules: tc.rules, SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
				}}}
			Strategy.Default(cfg)
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), cfg), tc.wantErrs)
			validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), cfg, cfg.DeepCopy()), nil)
			if got := Strategy.WarningsOnCreate(context.Background(), cfg); !slices.Equal(got, tc.wantCreate) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.wantCreate)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), cfg, cfg.DeepCopy()); !slices.Equal(got, tc.wantUpdate) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.wantUpdate)
			}
		})
	}
}
