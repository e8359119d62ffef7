package registry

// How the registry's CRD conversion webhook clients are set up.

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiserver/pkg/util/webhook"

	"github.com/fakeplane/fakeplane/crd"
)

// SetWebhookAuthenticationInfoResolverWrapper sets up the clients of CRD
// conversion webhooks with w, as kube-apiserver sets up its own with the
// wrapper of its egress selector and loopback client
// (webhook.NewDefaultAuthenticationInfoResolverWrapper), and serves the
// CRDs with webhook conversion already known again with such clients.
// Call it before the server serves.
func (r *Registry) SetWebhookAuthenticationInfoResolverWrapper(w webhook.AuthenticationInfoResolverWrapper) {
	r.served.WebhookConverter = crd.NewWebhookConverters(endpointResolver{r}, w).For
	for _, def := range r.served.knownCRDs() {
		if c := def.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter {
			r.served.setCRD(def)
		}
	}
}
