package auth

import (
	"fmt"
	"time"

	"k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"
)

// ModeWebhook is the authorization mode of a SubjectAccessReview webhook.
const ModeWebhook = "Webhook"

// The defaults of kube-apiserver's --authorization-webhook-* flags.
const (
	DefaultAuthorizationWebhookVersion         = "v1beta1"
	DefaultAuthorizationWebhookAuthorizedTTL   = 5 * time.Minute
	DefaultAuthorizationWebhookUnauthorizedTTL = 30 * time.Second
)

// AuthorizationWebhook is the SubjectAccessReview webhook of
// --authorization-mode=...,Webhook.
type AuthorizationWebhook interface {
	authorizer.Authorizer
	authorizer.RuleResolver
}

// NewAuthorizationWebhook returns the authorizer kube-apiserver builds for
// mode Webhook from --authorization-webhook-config-file (a kubeconfig
// naming the webhook), --authorization-webhook-version and the cache TTLs
// (0 keeps no answers of that kind): upstream's webhook authorizer, named
// "default" as kube-apiserver names it, asked with a 30 s timeout and
// upstream's retry backoff, no opinion when it fails.
func NewAuthorizationWebhook(kubeconfigFile, version string, authorizedTTL, unauthorizedTTL time.Duration) (AuthorizationWebhook, error) {
	cfg, err := webhookutil.LoadKubeconfig(kubeconfigFile, nil)
	if err != nil {
		return nil, fmt.Errorf("authorization webhook: %w", err)
	}
	cfg.Timeout = 30 * time.Second
	w, err := webhook.New(cfg, version, authorizedTTL, unauthorizedTTL, webhookutil.DefaultRetryBackoffWithInitialDelay(500*time.Millisecond),
		authorizer.DecisionNoOpinion, nil, "default", webhookmetrics.NoopAuthorizerMetrics{}, authorizationcel.NewDefaultCompiler())
	if err != nil {
		return nil, fmt.Errorf("authorization webhook: %w", err)
	}
	return w, nil
}
