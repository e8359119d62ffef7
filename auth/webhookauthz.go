package auth

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"
)

// NewAuthorizationWebhook returns the SubjectAccessReview webhook authorizer
// kube-apiserver builds for an authorizer of type Webhook named name
// (pkg/kubeapiserver/authorizer): upstream's webhook authorizer, its
// kubeconfig's client dialing with dial (kube-apiserver's "controlplane"
// egress selection; nil dials directly), asked with cfg's timeout (the
// kubeconfig's when 0) and kube-apiserver's retry backoff (500 ms, ×1.5,
// five tries), deciding cfg's failure policy when the call fails, skipped
// (no opinion) when its match conditions, compiled with compiler, do not
// hold, its answers kept as cfg says. A nil compiler is
// authorizationcel.NewDefaultCompiler().
//
// A connectionInfo of type InClusterConfig is an error: kube-apiserver
// v1.37 reads the kubeConfigFile that type leaves unset and crashes at
// start.
func NewAuthorizationWebhook(name string, cfg *apiserverconfig.WebhookConfiguration, dial utilnet.DialFunc, compiler authorizationcel.Compiler) (*webhook.WebhookAuthorizer, error) {
	if cfg.ConnectionInfo.Type != apiserverconfig.AuthorizationWebhookConnectionInfoTypeKubeConfigFile || cfg.ConnectionInfo.KubeConfigFile == nil {
		return nil, fmt.Errorf("authorization webhook %q: connectionInfo type %q is not supported: kube-apiserver v1.37 reads a kubeConfigFile for every webhook authorizer (and crashes at start without one)", name, cfg.ConnectionInfo.Type)
	}
	clientConfig, err := webhookutil.LoadKubeconfig(*cfg.ConnectionInfo.KubeConfigFile, dial)
	if err != nil {
		return nil, fmt.Errorf("authorization webhook %q: %w", name, err)
	}
	if cfg.Timeout.Duration != 0 {
		clientConfig.Timeout = cfg.Timeout.Duration
	}
	var decisionOnError authorizer.Decision
	switch cfg.FailurePolicy {
	case apiserverconfig.FailurePolicyNoOpinion:
		decisionOnError = authorizer.DecisionNoOpinion
	case apiserverconfig.FailurePolicyDeny:
		decisionOnError = authorizer.DecisionDeny
	default:
		return nil, fmt.Errorf("unknown failurePolicy %q", cfg.FailurePolicy)
	}
	authorizedTTL, unauthorizedTTL := cfg.AuthorizedTTL.Duration, cfg.UnauthorizedTTL.Duration
	if !cfg.CacheAuthorizedRequests {
		authorizedTTL = 0
	}
	if !cfg.CacheUnauthorizedRequests {
		unauthorizedTTL = 0
	}
	if compiler == nil {
		compiler = authorizationcel.NewDefaultCompiler()
	}
	// kube-apiserver reports the webhook's metrics to its global registry,
	// which fakeplane's /metrics does not serve: none are kept.
	w, err := webhook.New(clientConfig, cfg.SubjectAccessReviewVersion, authorizedTTL, unauthorizedTTL, *webhook.DefaultRetryBackoff(),
		decisionOnError, cfg.MatchConditions, name, webhookmetrics.NoopAuthorizerMetrics{}, compiler)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// durationOf is d as a metav1.Duration.
func durationOf(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }
