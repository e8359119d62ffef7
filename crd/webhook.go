package crd

import (
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/util/webhook"
)

// WebhookConverters builds the converters of CRDs whose conversion strategy
// is Webhook, with upstream's converter: it sends the ConversionReview
// version the CRD asks for and checks the answer as kube-apiserver does.
// It holds one webhook client manager, built on first use and shared by
// every CRD; use one per server.
type WebhookConverters struct {
	resolver webhook.ServiceResolver
	wrapper  webhook.AuthenticationInfoResolverWrapper

	once    sync.Once
	factory *conversion.CRConverterFactory
	err     error
}

// NewWebhookConverters returns the builder of webhook converters. resolver
// finds where a webhook given as a Service (spec.conversion.webhook.
// clientConfig.service) is served; fakeplane has no cluster network to
// route a ClusterIP, so it is meant to pick an address of the Service's
// Endpoints or EndpointSlices. wrapper, when not nil, sets up the webhook
// clients as kube-apiserver's does (webhook.
// NewDefaultAuthenticationInfoResolverWrapper: the loopback client for the
// kubernetes Service, the egress selector's dialers for the others).
func NewWebhookConverters(resolver webhook.ServiceResolver, wrapper webhook.AuthenticationInfoResolverWrapper) *WebhookConverters {
	return &WebhookConverters{resolver: resolver, wrapper: wrapper}
}

// For returns the converter of def's conversion webhook, for NewConverter.
func (w *WebhookConverters) For(def *apiextensionsv1.CustomResourceDefinition) (runtime.ObjectConvertor, error) {
	w.once.Do(func() {
		w.factory, w.err = conversion.NewCRConverterFactory(w.resolver, w.wrapper)
		if w.err != nil {
			w.err = fmt.Errorf("conversion webhook client manager: %w", w.err)
		}
	})
	if w.err != nil {
		return nil, w.err
	}
	safe, _, err := w.factory.NewConverter(def)
	if err != nil {
		return nil, fmt.Errorf("conversion webhook of %s: %w", def.Name, err)
	}
	return safe, nil
}
