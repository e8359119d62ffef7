package auth

import (
	"fmt"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	tokencache "k8s.io/apiserver/pkg/authentication/token/cache"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authenticator/token/webhook"
)

// DefaultTokenWebhookCacheTTL is how long kube-apiserver keeps a token
// webhook's answers (--authentication-token-webhook-cache-ttl).
const DefaultTokenWebhookCacheTTL = 2 * time.Minute

// NewTokenWebhook returns the bearer-token authenticator of a TokenReview
// webhook, built as kube-apiserver builds it from
// --authentication-token-webhook-config-file (a kubeconfig naming the
// webhook), --authentication-token-webhook-version ("v1" or "v1beta1";
// "v1beta1", kube-apiserver's default, when empty) and --authentication-token-webhook-cache-ttl (both its
// answers, successes and failures, kept that long; DefaultTokenWebhookCacheTTL
// when 0): upstream's webhook authenticator, retried with upstream's
// backoff, asked for apiAudiences when a request names none.
func NewTokenWebhook(kubeconfigFile, version string, cacheTTL time.Duration, apiAudiences authenticator.Audiences) (authenticator.Token, error) {
	if version == "" {
		version = "v1beta1"
	}
	if cacheTTL == 0 {
		cacheTTL = DefaultTokenWebhookCacheTTL
	}
	cfg, err := webhookutil.LoadKubeconfig(kubeconfigFile, nil)
	if err != nil {
		return nil, fmt.Errorf("authentication token webhook: %w", err)
	}
	wh, err := webhook.New(cfg, version, apiAudiences, webhookutil.DefaultRetryBackoffWithInitialDelay(500*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("authentication token webhook: %w", err)
	}
	return tokencache.New(wh, false, cacheTTL, cacheTTL), nil
}
