// Package validatingwebhookconfiguration holds the ValidatingWebhookConfiguration
// strategy: kube-apiserver's
// pkg/registry/admissionregistration/validatingwebhookconfiguration rules: its
// defaults and the webhooks' validation (../webhookvalidation.go).
package validatingwebhookconfiguration

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ValidatingWebhookConfiguration strategy.
var Strategy = webhookConfigurationStrategy{strategy.Base{Generation: true}}

type webhookConfigurationStrategy struct{ strategy.Base }

// Default sets each webhook's policies, selectors, timeout, rule scopes,
// service port.
func (webhookConfigurationStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
	for i := range o.Webhooks {
		w := &o.Webhooks[i]
		admissionregistration.DefaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig)
	}
}

// Validate checks the webhooks (upstream's ValidateValidatingWebhookConfiguration)
// and that the name does not end with the suffix of static configurations.
func (webhookConfigurationStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	o := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
	errs := admissionregistration.ValidateWebhooks(admissionregistration.FromValidating(o.Webhooks), nil, false)
	return append(errs, admissionregistration.ValidateStaticSuffix(o.Name)...)
}

// ValidateUpdate checks the new webhooks as upstream's
// ValidateValidatingWebhookConfigurationUpdate does, against the stored ones.
func (webhookConfigurationStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return admissionregistration.ValidateWebhooks(admissionregistration.FromValidating(obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks),
		admissionregistration.FromValidating(old.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks), true)
}
