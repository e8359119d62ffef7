package fakeplane

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/store"
)

// admissionConfigResources are the resources whose objects configure
// admission webhooks and policies: storing one starts the admission
// plugins.
var admissionConfigResources = []string{
	"mutatingwebhookconfigurations", "validatingwebhookconfigurations",
	"validatingadmissionpolicies", "validatingadmissionpolicybindings",
	"mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
}

// setUpAdmission builds the admission chain (webhooks and policies) over a
// loopback client with the admin identity, and has it started by the first
// stored admission configuration (one kept in a data directory counts).
func (cp *ControlPlane) setUpAdmission() error {
	chain, err := admission.New(admission.Config{
		Loopback:        cp.loopbackConfig(),
		ServiceResolver: cp.srv.ServiceResolver(),
		// Webhooks are called through the egress selections.
		AuthenticationInfoResolverWrapper: cp.egress.webhookWrapper(cp),
		Authorizer:                        cp.srv.Authorizer(),
		Logger:                            cp.opts.logger.With("component", "admission"),
		NoPolicyStatus:                    !cp.opts.runs(controllers.PolicyStatusName),
		Plugins:                           cp.admissionPlugins,
		MutatingWebhookConfig:             cp.admissionConfig.MutatingWebhook,
		ValidatingWebhookConfig:           cp.admissionConfig.ValidatingWebhook,
	})
	if err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	cp.admission = chain
	buckets := map[string]bool{}
	for _, res := range admissionConfigResources {
		r, ok := cp.srv.Resources().Lookup("admissionregistration.k8s.io", "v1", res)
		if !ok {
			continue
		}
		buckets[r.Bucket] = true
		lst, err := cp.store.List(r.Bucket, store.ListOptions{Limit: 1})
		if err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		if len(lst.Items) > 0 {
			chain.Configured()
		}
	}
	cp.srv.AddCommitObserver(func(bucket, _ string, _ runtime.Object, _ []byte, deleted bool) {
		if !deleted && buckets[bucket] {
			chain.Configured()
		}
	})
	return nil
}
