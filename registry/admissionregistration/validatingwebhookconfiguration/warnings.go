package validatingwebhookconfiguration

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
)

// WarningsOnCreate returns upstream's warnings for a new
// ValidatingWebhookConfiguration: rules that name a resource webhooks never
// see. (Its name's static suffix is an error, not a warning, with
// ManifestBasedAdmissionControlConfig on.)
func (webhookConfigurationStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return admissionregistration.WebhookRuleWarnings(admissionregistration.FromValidating(obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks))
}

// WarningsOnUpdate returns upstream's warnings for an update: a name with
// the static suffix, then rules that name a resource webhooks never see.
func (webhookConfigurationStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	o := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
	return append(admissionregistration.StaticSuffixWarnings(o.Name), admissionregistration.WebhookRuleWarnings(admissionregistration.FromValidating(o.Webhooks))...)
}
