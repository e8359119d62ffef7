package server

import (
	"crypto"
	"fmt"
	"net/http"
	"slices"
	"time"

	"go.opentelemetry.io/otel/propagation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/filters/impersonation"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
	"k8s.io/component-base/tracing"

	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/auth/cafile"
	"github.com/fakeplane/fakeplane/fixtures"
	"github.com/fakeplane/fakeplane/registry"
)

// AuthConfig configures authentication and authorization, named after
// kube-apiserver's flags.
type AuthConfig struct {
	// ClientCA verifies client certificates (--client-ca-file), with its
	// bundle at each request.
	ClientCA cafile.Source
	// RequestHeader* configure the authenticating-proxy headers
	// (--requestheader-client-ca-file, --requestheader-allowed-names,
	// --requestheader-username-headers, --requestheader-uid-headers,
	// --requestheader-group-headers, --requestheader-extra-headers-prefix).
	RequestHeaderCA                  cafile.Source
	RequestHeaderAllowedNames        []string
	RequestHeaderUsernameHeaders     []string
	RequestHeaderUIDHeaders          []string
	RequestHeaderGroupHeaders        []string
	RequestHeaderExtraHeaderPrefixes []string
	// Tokens are static bearer tokens (--token-auth-file).
	Tokens []auth.StaticToken
	// BootstrapTokenAuth authenticates bootstrap tokens by their Secrets in
	// kube-system (--enable-bootstrap-token-auth; see
	// auth.BootstrapTokens).
	BootstrapTokenAuth bool
	// Anonymous lets requests without credentials in as system:anonymous
	// (--anonymous-auth); they then get what RBAC grants that user.
	Anonymous bool
	// Authorization is the authorizer chain: the AuthorizationConfiguration
	// kube-apiserver builds from --authorization-mode and
	// --authorization-webhook-*, or reads from --authorization-config (see
	// auth.AuthorizationOptions); nil is RBAC alone.
	Authorization *apiserverconfig.AuthorizationConfiguration
	// AuthorizationPolicyFile is the ABAC authorizer's policy file
	// (--authorization-policy-file), read by New when Authorization has
	// an ABAC authorizer.
	AuthorizationPolicyFile string
	// WebhookDial dials the authentication and authorization webhooks
	// (kube-apiserver's "controlplane" egress selection); nil dials
	// directly.
	WebhookDial utilnet.DialFunc
	// ServiceAccountKey signs service-account tokens (an *rsa.PrivateKey or
	// *ecdsa.PrivateKey); nil generates one.
	ServiceAccountKey crypto.Signer
	// ServiceAccountVerifyKeys, when set, verify service-account tokens
	// instead of ServiceAccountKey's public half
	// (--service-account-key-file).
	ServiceAccountVerifyKeys []crypto.PublicKey
	// ServiceAccountIssuers are the issuers of service-account tokens
	// (--service-account-issuer): the first issues them, every one is
	// accepted; auth.DefaultIssuer when empty.
	ServiceAccountIssuers []string
	// APIAudiences are the API server's audiences (--api-audiences); the
	// issuers when empty.
	APIAudiences []string
	// ServiceAccountJWKSURI is the key set's URL the discovery document
	// names (--service-account-jwks-uri); the server's own when empty.
	ServiceAccountJWKSURI string
	// ServiceAccountMaxTokenExpiration shortens longer TokenRequests, with
	// a warning (--service-account-max-token-expiration); 0 for no limit.
	ServiceAccountMaxTokenExpiration time.Duration
	// ServiceAccountNoLookup accepts Secret-based service-account tokens
	// without reading their Secret and ServiceAccount
	// (--service-account-lookup=false; see
	// auth.ServiceAccountTokens.NoLegacyLookup).
	ServiceAccountNoLookup bool
	// ServiceAccountDisableExtendedExpiration turns off the one-year
	// lifetime of the pod-bound tokens kubelets request for
	// auth.WarnOnlyBoundTokenExpirationSeconds
	// (--service-account-extend-token-expiration=false).
	ServiceAccountDisableExtendedExpiration bool
	// Authentication is an --authentication-config: its JWT authenticators
	// verify bearer tokens after the service-account tokens, and its
	// anonymous section, when set, replaces Anonymous. It is validated as
	// kube-apiserver validates it.
	Authentication *apiserverconfig.AuthenticationConfiguration
	// TokenWebhookConfigFile, TokenWebhookVersion and TokenWebhookCacheTTL
	// set up a TokenReview webhook that verifies bearer tokens last
	// (--authentication-token-webhook-config-file, -version, -cache-ttl;
	// see auth.NewTokenWebhook; a nil TTL is
	// auth.DefaultTokenWebhookCacheTTL); none when the file is empty.
	TokenWebhookConfigFile string
	TokenWebhookVersion    string
	TokenWebhookCacheTTL   *time.Duration
	// JWTSigningAlgs are the signing algorithms its JWT authenticators
	// accept (--oidc-signing-algs); every one upstream knows when empty.
	JWTSigningAlgs []string
}

// authState is the server's authentication and authorization machinery.
type authState struct {
	authn    authenticator.Request
	authz    authorizer.Authorizer
	rules    authorizer.RuleResolver
	rbac     *auth.RBACAuthorizer
	tokens   *auth.ServiceAccountTokens
	audience authenticator.Audiences
	// openID are the service-account issuer's discovery documents; nil
	// when kube-apiserver would not serve them (see setupOpenID).
	openID *auth.OpenIDMetadata
}

// setupAuth builds the authenticators, authorizers and the filter chain
// kube-apiserver puts in front of its handlers: request info,
// authentication, impersonation, authorization.
func (s *Server) setupAuth(cfg AuthConfig) (http.Handler, error) {
	tokens, err := auth.NewServiceAccountTokens(cfg.ServiceAccountKey, tokenObjects{s.ServiceAccounts(), s.API()})
	if err != nil {
		return nil, fmt.Errorf("service account tokens: %w", err)
	}
	var bootstrapTokens *auth.BootstrapTokens
	if cfg.BootstrapTokenAuth {
		bootstrapTokens = &auth.BootstrapTokens{Secret: s.ServiceAccounts().Secret, Now: s.now, Log: s.log}
	}
	tokens.Now = s.now
	tokens.Log = s.log
	tokens.VerifyKeys = cfg.ServiceAccountVerifyKeys
	if len(cfg.ServiceAccountIssuers) > 0 {
		tokens.Issuer, tokens.ExtraIssuers = cfg.ServiceAccountIssuers[0], cfg.ServiceAccountIssuers[1:]
	}
	tokens.APIAudiences = cfg.APIAudiences
	tokens.DisableExtendedExpiration = cfg.ServiceAccountDisableExtendedExpiration
	tokens.NoLegacyLookup = cfg.ServiceAccountNoLookup
	var jwt authenticator.Token
	anonymous, anonymousConditions := cfg.Anonymous, []apiserverconfig.AnonymousAuthCondition(nil)
	if a := cfg.Authentication; a != nil {
		if err := auth.ValidateAuthenticationConfiguration(a, tokens.Issuers()); err != nil {
			return nil, err
		}
		if jwt, err = auth.NewJWTAuthenticator(s.life, a, cfg.JWTSigningAlgs, tokens.Audiences(), tokens.Issuers()); err != nil {
			return nil, fmt.Errorf("jwt authenticators: %w", err)
		}
		if a.Anonymous != nil {
			anonymous, anonymousConditions = a.Anonymous.Enabled, a.Anonymous.Conditions
		}
	}
	rbac := auth.NewRBACAuthorizer(s.rbacCache)
	var tokenWebhook authenticator.Token
	if cfg.TokenWebhookConfigFile != "" {
		ttl := auth.DefaultTokenWebhookCacheTTL
		if cfg.TokenWebhookCacheTTL != nil {
			ttl = *cfg.TokenWebhookCacheTTL
		}
		if ttl > 0 && ttl < auth.TokenSuccessCacheTTL {
			// kube-apiserver's warning.
			s.log.Warn("the webhook cache ttl is shorter than the overall cache ttl for successful token authentication attempts",
				"webhookCacheTTL", ttl, "tokenSuccessCacheTTL", auth.TokenSuccessCacheTTL)
		}
		if tokenWebhook, err = auth.NewTokenWebhook(s.life, cfg.TokenWebhookConfigFile, cfg.TokenWebhookVersion, ttl, tokens.Audiences(), cfg.WebhookDial); err != nil {
			return nil, err
		}
	}
	authzConfig := cfg.Authorization
	if authzConfig == nil {
		authzConfig = &apiserverconfig.AuthorizationConfiguration{Authorizers: []apiserverconfig.AuthorizerConfiguration{{Type: auth.ModeRBAC, Name: "rbac"}}}
	}
	var node *auth.NodeAuthorizer
	if slices.ContainsFunc(authzConfig.Authorizers, func(a apiserverconfig.AuthorizerConfiguration) bool { return a.Type == auth.ModeNode }) {
		// Only with the Node authorizer: the graph follows every pod's
		// write.
		rules, err := fixtures.NodeRules()
		if err != nil {
			return nil, err
		}
		graph := auth.NewNodeGraph()
		if err := graph.Load(s.cfg.Store); err != nil {
			return nil, fmt.Errorf("node authorizer: %w", err)
		}
		s.nodeGraph = graph
		node = auth.NewNodeAuthorizer(graph, rules)
	}
	var abac *auth.ABACAuthorizer
	if slices.ContainsFunc(authzConfig.Authorizers, func(a apiserverconfig.AuthorizerConfiguration) bool { return a.Type == auth.ModeABAC }) {
		if abac, err = auth.LoadABACPolicyFile(cfg.AuthorizationPolicyFile); err != nil {
			return nil, fmt.Errorf("invalid authorization config: %w", err)
		}
	}
	authz, rules, err := auth.NewAuthorizer(authzConfig, rbac, node, abac, cfg.WebhookDial)
	if err != nil {
		return nil, err
	}
	s.auth = authState{
		authn: auth.NewAuthenticator(auth.AuthenticatorConfig{
			ClientCA:                         cfg.ClientCA,
			RequestHeaderCA:                  cfg.RequestHeaderCA,
			RequestHeaderAllowedNames:        cfg.RequestHeaderAllowedNames,
			RequestHeaderUsernameHeaders:     cfg.RequestHeaderUsernameHeaders,
			RequestHeaderUIDHeaders:          cfg.RequestHeaderUIDHeaders,
			RequestHeaderGroupHeaders:        cfg.RequestHeaderGroupHeaders,
			RequestHeaderExtraHeaderPrefixes: cfg.RequestHeaderExtraHeaderPrefixes,
			Tokens:                           cfg.Tokens,
			ServiceAccounts:                  tokens,
			BootstrapTokens:                  bootstrapTokens,
			JWT:                              jwt,
			Webhook:                          tokenWebhook,
			Anonymous:                        anonymous,
			AnonymousConditions:              anonymousConditions,
			Now:                              s.now,
		}),
		authz:    authz,
		rules:    rules,
		rbac:     rbac,
		tokens:   tokens,
		audience: tokens.Audiences(),
	}
	s.auth.openID = s.setupOpenID(tokens, cfg.ServiceAccountJWKSURI)
	codecs := serializer.NewCodecFactory(registry.TypesScheme()).WithoutConversion()
	var h http.Handler = http.HandlerFunc(s.serveAuthorized)
	h = filters.WithAuthorization(h, s.auth.authz, codecs)
	h = withMaxInFlight(h, s.cfg.Limits.MaxRequestsInFlight, s.cfg.Limits.MaxMutatingRequestsInFlight)
	// Where kube-apiserver's priority and fairness filter classifies.
	if !s.cfg.NoPriorityAndFairness {
		h = s.withFlowSchemaHeaders(h)
	}
	h = impersonation.WithConstrainedImpersonation(h, s.auth.authz, codecs) // v1.37: ConstrainedImpersonation is on by default (beta)
	// When nothing is audited, each audit filter is the handler it wraps.
	policy, sink := s.cfg.Audit.Policy, s.cfg.Audit.Sink
	if !s.cfg.Audit.enabled() {
		policy, sink = nil, nil
	}
	h = filters.WithAudit(h, sink, policy, longRunning)
	// Inside authentication, as kube-apiserver's: a span of a privileged
	// user's request (system:masters) is not taken as a public endpoint's.
	if tp := s.cfg.TracerProvider; tp != nil {
		h = filters.WithTracing(h, tp)
	} else {
		h = withTraceContext(h)
	}
	var unauthorized http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, apierrors.NewUnauthorized("Unauthorized"))
	})
	unauthorized = filters.WithFailedAuthenticationAudit(unauthorized, sink, policy)
	h = filters.WithAuthentication(h, s.auth.authn, unauthorized, s.auth.audience, nil)
	// Before authentication, as kube-apiserver's: a preflight from an
	// allowed origin is answered without credentials.
	h = genericfilters.WithCORS(h, s.cfg.Headers.CORSAllowedOrigins, nil, nil, nil, "true")
	// Admission webhooks and policies, and the service-account token
	// authenticator (a legacy token auto-generated for its ServiceAccount),
	// add their warnings through the request's context.
	h = filters.WithWarningRecorder(h)
	h = s.withMetrics(h)
	// The timeout filter serves in a goroutine that may outlive its answer:
	// Drain (and so Stop) waits for it too.
	h = withRequestTimeout(s.counted(h), s.cfg.Limits.RequestTimeout, codecs, sink, policy)
	if c := s.cfg.Limits.GoawayChance; c > 0 {
		h = genericfilters.WithProbabilisticGoaway(h, c)
	}
	// Every answer says not to cache it, unless its handler says otherwise.
	h = filters.WithCacheControl(h)
	h = genericfilters.WithHSTS(h, s.cfg.Headers.HSTSDirectives)
	// Where kube-apiserver's WithRetryAfter (and, further in, its
	// WithWaitGroup) stand: before authentication. Without a graceful
	// shutdown there is nothing to count, and requests skip it.
	if s.cfg.GracefulShutdown {
		h = s.withShutdown(h)
	}
	h = filters.WithRequestInfo(h, s.infos)
	if s.auditInit() {
		// Outermost, as in kube-apiserver's chain: the time an event (and
		// a span) says the request came, and its audit context and
		// Audit-ID, which a span carries too.
		h = filters.WithRequestReceivedTimestamp(h)
		h = filters.WithAuditInit(h)
	}
	return h, nil
}

// withTraceContext puts a request's trace context (its traceparent,
// tracestate and baggage headers) in its context, where the webhook clients
// find it and send it on: what kube-apiserver's tracing filter does for a
// tracer that records nothing (upstream's filter, otelhttp's handler, costs
// a fifth of a get's time even so). A request without one passes as it
// came.
func withTraceContext(h http.Handler) http.Handler {
	propagators := tracing.Propagators()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Header keys arrive canonical: no lookup allocates.
		if len(r.Header["Traceparent"]) > 0 || len(r.Header["Baggage"]) > 0 {
			r = r.WithContext(propagators.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
		}
		h.ServeHTTP(w, r)
	})
}

// auditInit says whether the chain starts with upstream's WithAuditInit:
// when requests are audited or traced (else ServeHTTP sets the Audit-Id
// header alone, as the filter would, and nothing reads the audit context).
func (s *Server) auditInit() bool { return s.cfg.Audit.enabled() || s.cfg.TracerProvider != nil }

// ServiceAccountTokens is the issuer and verifier of service-account tokens.
func (s *Server) ServiceAccountTokens() *auth.ServiceAccountTokens { return s.auth.tokens }

// serveAuthorized serves a request that passed authentication and
// authorization.
func (s *Server) serveAuthorized(w http.ResponseWriter, r *http.Request) {
	info, ok := apirequest.RequestInfoFrom(r.Context())
	if !ok {
		writeError(w, r, apierrors.NewInternalError(fmt.Errorf("no request info")))
		return
	}
	if h := s.remoteHandler(r); h != nil {
		// kube-apiserver's aggregator proxies it: its request metrics
		// do not count it (recorded on refplane).
		h.ServeHTTP(w, r)
		return
	}
	markServed(r)
	u, _ := apirequest.UserFrom(r.Context())
	if !info.IsResourceRequest {
		s.serveNonResource(w, r, info)
		return
	}
	s.serveResource(w, r, info, u)
}
