// Package mutatingwebhookconfiguration holds the MutatingWebhookConfiguration
// strategy: kube-apiserver's
// pkg/registry/admissionregistration/mutatingwebhookconfiguration rules: its
// defaults and the webhooks' validation (../webhookvalidation.go).
package mutatingwebhookconfiguration

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/admissionregistration"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the MutatingWebhookConfiguration strategy.
var Strategy = webhookConfigurationStrategy{strategy.Base{Generation: true}}

type webhookConfigurationStrategy struct{ strategy.Base }

// Default sets each webhook's policies, selectors, timeout, rule scopes,
// service port and reinvocation policy.
func (webhookConfigurationStrategy) Default(obj runtime.Object) {
	o := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
	for i := range o.Webhooks {
		w := &o.Webhooks[i]
		admissionregistration.DefaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig)
		if w.ReinvocationPolicy == nil {
			p := admissionregistrationv1.NeverReinvocationPolicy
			w.ReinvocationPolicy = &p
		}
	}
}

// Validate checks the webhooks (upstream's ValidateMutatingWebhookConfiguration)
// and that the name does not end with the suffix of static configurations.
func (webhookConfigurationStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	o := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
	errs := admissionregistration.ValidateWebhooks(admissionregistration.FromMutating(o.Webhooks), nil, false)
	return append(errs, admissionregistration.ValidateStaticSuffix(o.Name)...)
}

// ValidateUpdate checks the new webhooks as upstream's
// ValidateMutatingWebhookConfigurationUpdate does, against the stored ones.
func (webhookConfigurationStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return admissionregistration.ValidateWebhooks(admissionregistration.FromMutating(obj.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks),
		admissionregistration.FromMutating(old.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks), true)
}
