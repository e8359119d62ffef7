package auth

import (
	"context"
	"fmt"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	tokencache "k8s.io/apiserver/pkg/authentication/token/cache"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authenticator/token/webhook"
)

// The defaults of kube-apiserver's --authentication-token-webhook-version
// and --authentication-token-webhook-cache-ttl.
const (
	DefaultTokenWebhookVersion  = "v1beta1"
	DefaultTokenWebhookCacheTTL = 2 * time.Minute
)

// NewTokenWebhook returns the bearer-token authenticator of a TokenReview
// webhook, built as kube-apiserver builds it from
// --authentication-token-webhook-config-file (a kubeconfig naming the
// webhook), --authentication-token-webhook-version ("v1beta1" or "v1";
// DefaultTokenWebhookVersion when empty) and
// --authentication-token-webhook-cache-ttl (the users it gives and its
// refusals without an error kept that long; 0 keeps none; errors, a
// refusal's included, are never kept):
// upstream's webhook authenticator, its client dialing with dial
// (kube-apiserver's "controlplane" egress selection; nil dials directly),
// retried with kube-apiserver's backoff (500 ms, ×1.5, five tries), asked
// for apiAudiences when a request names none. Its calls end when life
// does: none outlives the control plane.
func NewTokenWebhook(life context.Context, kubeconfigFile, version string, cacheTTL time.Duration, apiAudiences authenticator.Audiences, dial utilnet.DialFunc) (authenticator.Token, error) {
	if version == "" {
		version = DefaultTokenWebhookVersion
	}
	cfg, err := webhookutil.LoadKubeconfig(kubeconfigFile, dial)
	if err != nil {
		return nil, fmt.Errorf("authentication token webhook: %w", err)
	}
	wh, err := webhook.New(cfg, version, apiAudiences, webhookutil.DefaultRetryBackoffWithInitialDelay(500*time.Millisecond))
	if err != nil {
		return nil, err
	}
	return tokencache.New(lifeBoundToken{next: wh, life: life}, false, cacheTTL, cacheTTL), nil
}

// lifeBoundToken asks next with a context that also ends with life: the
// answer cache in front asks on a context of its own, detached from the
// request's, which a stopping control plane would otherwise wait out
// (with the webhook's retries).
type lifeBoundToken struct {
	next authenticator.Token
	life context.Context
}

func (l lifeBoundToken) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(l.life, cancel)()
	return l.next.AuthenticateToken(ctx, token)
}
