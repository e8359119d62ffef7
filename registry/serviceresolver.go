package registry

import "k8s.io/apiserver/pkg/util/webhook"

// WebhookServiceResolver finds where a webhook given as a Service is
// served (an address of its Endpoints or EndpointSlices), for admission
// webhooks: the resolver CRD conversion webhooks use.
func (s *Registry) WebhookServiceResolver() webhook.ServiceResolver { return endpointResolver{s} }
