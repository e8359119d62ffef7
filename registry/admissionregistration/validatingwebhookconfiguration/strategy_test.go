package validatingwebhookconfiguration

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"
)

func TestValidatingWebhookConfigurationDefaults(t *testing.T) {
	for _, tc := range []struct {
		name        string
		hook        admissionregistrationv1.ValidatingWebhook
		wantFailure admissionregistrationv1.FailurePolicyType
	}{
		{name: "defaulted", wantFailure: admissionregistrationv1.Fail},
		{name: "kept", hook: admissionregistrationv1.ValidatingWebhook{FailurePolicy: ptr.To(admissionregistrationv1.Ignore)}, wantFailure: admissionregistrationv1.Ignore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What the defaults leave for a client to give.
			tc.hook.Name = "hook.example.com"
			tc.hook.ClientConfig.URL = ptr.To("https://hook.example.com/validate")
			tc.hook.SideEffects = ptr.To(admissionregistrationv1.SideEffectClassNone)
			tc.hook.AdmissionReviewVersions = []string{"v1"}
			cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{tc.hook}}
			Strategy.Default(cfg)
			if w := cfg.Webhooks[0]; *w.FailurePolicy != tc.wantFailure || *w.TimeoutSeconds != 10 {
				t.Errorf("defaults: %+v", w)
			}
			if errs := Strategy.Validate(context.Background(), cfg); len(errs) != 0 {
				t.Errorf("errors: %v", errs)
			}
		})
	}
}
