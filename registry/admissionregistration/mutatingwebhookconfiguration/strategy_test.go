package mutatingwebhookconfiguration

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"
)

func TestMutatingWebhookConfigurationDefaults(t *testing.T) {
	for _, tc := range []struct {
		name        string
		hook        admissionregistrationv1.MutatingWebhook
		wantTimeout int32
		wantPort    int32
	}{
		{name: "all defaulted", hook: admissionregistrationv1.MutatingWebhook{
			Rules:        []admissionregistrationv1.RuleWithOperations{{}},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "s"}},
		}, wantTimeout: 10, wantPort: 443},
		{name: "set values kept", hook: admissionregistrationv1.MutatingWebhook{
			TimeoutSeconds: ptr.To[int32](3),
			ClientConfig:   admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "s", Port: ptr.To[int32](8443)}},
		}, wantTimeout: 3, wantPort: 8443},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{tc.hook}}
			Strategy.Default(cfg)
			w := cfg.Webhooks[0]
			if *w.TimeoutSeconds != tc.wantTimeout || *w.ClientConfig.Service.Port != tc.wantPort ||
				*w.FailurePolicy != admissionregistrationv1.Fail || *w.MatchPolicy != admissionregistrationv1.Equivalent ||
				w.NamespaceSelector == nil || w.ObjectSelector == nil || *w.ReinvocationPolicy != admissionregistrationv1.NeverReinvocationPolicy {
				t.Errorf("defaults: %+v", w)
			}
			for _, r := range w.Rules {
				if *r.Scope != admissionregistrationv1.AllScopes {
					t.Errorf("rule scope %q", *r.Scope)
				}
			}
		})
	}
}
