package fakeplane

import (
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/apis/apiserver"
	metricsv1 "k8s.io/component-base/metrics/api/v1"

	"github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/kubelet"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/scheduler"
	"github.com/fakeplane/fakeplane/server"
)

// DefaultListenAddress is where the CLI listens unless told otherwise.
const DefaultListenAddress = "127.0.0.1:6443"

// Option configures a ControlPlane.
type Option func(*options)

type options struct {
	listen         string
	listener       net.Listener
	dataDir        string
	kubeconfigPath string
	logger         *slog.Logger
	eventLogSize   int
	authzMode      string
	tokens         []auth.StaticToken
	noAnonymous    bool
	// bootstrapTokenAuth is --enable-bootstrap-token-auth.
	bootstrapTokenAuth bool
	// authnConfigFile is WithAuthenticationConfigFile's.
	authnConfigFile string
	// oidc is WithOIDC's.
	oidc *auth.OIDCFlags
	// authzModeSet says WithAuthorizationMode was given (it excludes
	// WithAuthorizationConfigFile, as --authorization-mode excludes
	// --authorization-config).
	authzModeSet bool
	// authzWebhook is WithAuthorizationWebhook's.
	authzWebhook *AuthorizationWebhookConfig
	// authzConfigFile is WithAuthorizationConfigFile's.
	authzConfigFile string
	authzPolicyFile string
	// tokenWebhook is WithAuthenticationTokenWebhook's.
	tokenWebhook *TokenWebhook
	// saIssuers, apiAudiences, saJWKSURI and saMaxExpiration are
	// WithServiceAccountIssuers', WithAPIAudiences',
	// WithServiceAccountJWKSURI's and
	// WithServiceAccountMaxTokenExpiration's.
	saIssuers, apiAudiences []string
	saJWKSURI               string
	saMaxExpiration         time.Duration
	// saNoExtendExpiration is WithServiceAccountExtendTokenExpiration(false)'s.
	saNoExtendExpiration bool
	// noAPF is WithPriorityAndFairness(false)'s.
	noAPF bool
	// metrics is WithMetricsConfiguration's.
	metrics metricsv1.MetricsConfiguration
	// noObjectCounts is WithEtcdCountMetricPollPeriod(0)'s.
	noObjectCounts bool
	// minCompatibilityVersion is WithMinCompatibilityVersion's ("" for
	// kube-apiserver's default).
	minCompatibilityVersion string
	// tracingConfigFile is WithTracingConfigFile's.
	tracingConfigFile string
	// noProfiling is WithProfiling(false)'s.
	noProfiling bool
	// forwardRedirects is WithAggregatorRejectForwardingRedirect(false)'s.
	forwardRedirects bool
	// logsHandler is WithLogsHandler's.
	logsHandler bool
	// maxConnectionBytesPerSec is WithMaxConnectionBytesPerSec's.
	maxConnectionBytesPerSec int64
	// noGC is WithGarbageCollector(false)'s.
	noGC bool
	// debugSocketPath is WithDebugSocketPath's.
	debugSocketPath string
	// saNoLookup is WithServiceAccountLookup(false)'s.
	saNoLookup bool
	// saSigningKeyFile and saKeyFiles are
	// WithServiceAccountSigningKeyFile's and WithServiceAccountKeyFiles'.
	saSigningKeyFile string
	saKeyFiles       []string
	// admissionConfigFile is WithAdmissionControlConfigFile's.
	admissionConfigFile string
	// enablePlugins, disablePlugins and onlyPlugins are
	// WithEnableAdmissionPlugins', WithDisableAdmissionPlugins' and
	// WithAdmissionControl's names.
	enablePlugins, disablePlugins, onlyPlugins []string
	// tolerationSeconds is WithDefaultTolerationSeconds'.
	tolerationSeconds *registry.TolerationSeconds
	// advertiseAddress and endpointReconciler are WithAdvertiseAddress'
	// and WithEndpointReconcilerType's.
	advertiseAddress net.IP
	// shutdown is WithGracefulShutdown's.
	shutdown GracefulShutdown
	// externalHostname is WithExternalHostname's.
	externalHostname   string
	endpointReconciler string
	// featureGates are WithFeatureGates'.
	featureGates []string
	// runtimeConfig are WithRuntimeConfig's.
	runtimeConfig []string
	// headers are WithCORSAllowedOrigins' and
	// WithStrictTransportSecurityDirectives'.
	headers server.HeadersConfig
	// nodePortRange is WithServiceNodePortRange's.
	nodePortRange string
	// kubernetesNodePort is WithKubernetesServiceNodePort's (0: none).
	kubernetesNodePort int
	// disallowPrivileged is WithAllowPrivileged(false)'s.
	disallowPrivileged bool
	// serving is WithSecureServing's.
	serving SecureServing
	// audit is WithAudit's.
	audit         *AuditOptions
	requestHeader *RequestHeader
	proxyClient   *proxyClientFiles
	// authTrustResync, when set, replaces the one-minute period of the
	// extension-apiserver-authentication controller (tests).
	authTrustResync time.Duration
	clock           func() time.Time
	// identityLeaseRenew, when set, replaces the 10 s period of the
	// identity Lease's renewals (tests).
	identityLeaseRenew time.Duration
	// kubernetesEndpointsInterval, when set, replaces the 10 s period of
	// the kubernetes Service's endpoint reconciler (tests).
	kubernetesEndpointsInterval time.Duration
	// noPresetStatuses leaves the bootstrap objects without the statuses
	// kube-apiserver's own controllers apply to them (bootstrapPrecomputed):
	// those controllers write them after the start (tests that record
	// them).
	noPresetStatuses bool
	// privateCreateMemo gives the registry a memo of the control plane's
	// own creates of its own, empty (registry.Config's PrivateCreateMemo):
	// its bootstrap fills it as a cold process's first start fills the
	// process's. noCreateSeeds leaves the bootstrap's seeds out
	// (bootstrapPrecomputed), so that it decodes, validates and encodes
	// every object. Tests that record and check the seeds set them.
	privateCreateMemo bool
	noCreateSeeds     bool
	clientCAs         [][]byte
	clientCAFile      string
	crdPaths          []string
	fixturePaths      []string
	objects           []runtime.Object
	serviceRange      string
	// compaction is --etcd-compaction-interval; nil means its default.
	compaction *time.Duration
	// eventTTLFlag is --event-ttl; nil means its default.
	eventTTLFlag *time.Duration
	// etcdServers (--etcd-servers), when set, puts the store in etcd under
	// etcdPrefix (--etcd-prefix; "": etcdstore.DefaultPrefix).
	etcdServers []string
	etcdPrefix  string
	// etcdTLS is WithEtcdTLS's (zero: none).
	etcdTLS EtcdTLS
	// etcdHealthTimeout and etcdReadyTimeout are
	// WithEtcdHealthcheckTimeout's and WithEtcdReadycheckTimeout's (0:
	// 2s).
	etcdHealthTimeout, etcdReadyTimeout time.Duration
	// leaderElection times the Leases of control planes sharing an etcd.
	leaderElection LeaderElection
	// nodes is how many simulated nodes to create (--nodes).
	nodes int
	// nodeLeaseRenew is how often simulated nodes renew their Leases.
	nodeLeaseRenew time.Duration
	// noPodLifecycle keeps the pods of simulated nodes as they are bound.
	noPodLifecycle bool
	// podStages are files of kwok Stages replacing the pod lifecycle.
	podStages []string
	// The simulated nodes' kubelet API: off (WithoutKubeletAPI), its
	// address, kwok configuration files and Go configuration.
	noKubeletAPI      bool
	kubeletAPIAddress string
	kubeletConfigs    []string
	kubeletDebug      kubelet.DebugConfig
	// How the server reaches kubelets (the --kubelet-* flags).
	kubeletClientCertFile, kubeletClientKeyFile string
	kubeletCAFile                               string
	kubeletAddressTypes                         []corev1.NodeAddressType
	// kubeletPort is WithKubeletPort's (0: 10250).
	kubeletPort int
	// schedulerConfig is the built-in scheduler's configuration; with
	// schedulerConfigFile (--scheduler-config) it is read at Start.
	schedulerConfig     *scheduler.Configuration
	schedulerConfigFile string
	withScheduler       bool
	// extensionServers are WithExtensionAPIServer's.
	extensionServers []ExtensionAPIServer
	// apiServiceCheckInterval is WithAPIServiceCheckInterval's.
	apiServiceCheckInterval time.Duration
	// webhooks are the webhook configurations of WithWebhooks.
	webhooks *WebhookInstallOptions
	// controllers are WithControllers' (nil: every controller).
	controllers controllers.Selection
	// hpaSyncPeriod is WithHorizontalPodAutoscalerSyncPeriod's.
	hpaSyncPeriod time.Duration
	// csrSigningDuration is WithClusterSigningDuration's.
	csrSigningDuration time.Duration
	// legacyTokenCleanUpPeriod is WithLegacyServiceAccountTokenCleanUpPeriod's.
	legacyTokenCleanUpPeriod time.Duration
	// podGracePeriods is WithPodGracePeriods'.
	podGracePeriods bool
	// limits are WithRequestTimeout's and WithMaxRequestsInFlight's.
	limits server.LimitsConfig
	// flags are WithFlagz's.
	flags map[string]string
	// envtestShape is WithEnvtestShape's.
	envtestShape bool
	// egressConfigFile and egressConfig are WithEgressSelectorConfigFile's
	// and WithEgressSelector's (see egress.go).
	egressConfigFile string
	egressConfig     *apiserver.EgressSelectorConfiguration
}

// RequestHeader configures an authenticating front proxy
// (--requestheader-* flags): requests from a client certificate signed by CA
// with a CN in AllowedNames may name the user in headers.
type RequestHeader struct {
	// CA verifies the proxy's client certificate. When nil, it is made
	// from CABundle or CAFile.
	CA *x509.CertPool
	// CABundle is the CA bundle in PEM, what --requestheader-client-ca-file
	// holds. It is published, with the settings below, in the ConfigMap
	// kube-system/extension-apiserver-authentication for extension API
	// servers; with CA alone (a pool cannot be read back) the ConfigMap has
	// no request-header keys.
	CABundle []byte
	// CAFile is a file that holds the CA bundle, as
	// --requestheader-client-ca-file: read at Start and again whenever it
	// changes, as kube-apiserver reads it (a content that does not load is
	// logged and the last good one stays in use), and published as
	// CABundle is. Give one of CA, CABundle and CAFile.
	CAFile              string
	AllowedNames        []string // empty allows any CN
	UsernameHeaders     []string // default X-Remote-User
	GroupHeaders        []string // default X-Remote-Group
	ExtraHeaderPrefixes []string // default X-Remote-Extra-
	// UIDHeaders name the user's UID (--requestheader-uid-headers); off by
	// default, as in kube-apiserver. When set, they must include
	// X-Remote-Uid.
	UIDHeaders []string
}

// FrontProxyClientName is the CN of the front-proxy client certificate a
// control plane makes for itself when it is given no request-header CA (as
// kubeadm does), and the one name its request-header authentication
// allows then.
const FrontProxyClientName = "front-proxy-client"

// The request headers kubeadm sets kube-apiserver up with, and the UID
// header --requestheader-uid-headers must include.
const (
	frontProxyUsernameHeader     = "X-Remote-User"
	frontProxyGroupHeader        = "X-Remote-Group"
	frontProxyExtraHeadersPrefix = "X-Remote-Extra-"
	frontProxyUIDHeader          = "X-Remote-Uid"
)

// proxyClientFiles is WithProxyClientCert's certificate and key.
type proxyClientFiles struct{ certPEM, keyPEM []byte }

// Authorization modes.
const (
	AuthorizationRBAC        = auth.ModeRBAC
	AuthorizationAlwaysAllow = auth.ModeAlwaysAllow
	AuthorizationAlwaysDeny  = auth.ModeAlwaysDeny
	AuthorizationWebhook     = auth.ModeWebhook
	AuthorizationNode        = auth.ModeNode
	AuthorizationABAC        = auth.ModeABAC
)

// WithAuthorizationMode chooses the authorizers, a comma-separated list as
// kube-apiserver's --authorization-mode: AuthorizationRBAC (the default,
// with the bootstrap policy of a fresh cluster), AuthorizationAlwaysAllow,
// AuthorizationAlwaysDeny, AuthorizationWebhook (with
// WithAuthorizationWebhook), AuthorizationNode (kube-apiserver's Node
// authorizer: users system:node:NAME in system:nodes read what the pods
// bound to NAME need), AuthorizationABAC (with
// WithAuthorizationPolicyFile), asked in the list's order after
// system:masters, each once. Start fails with kube-apiserver's errors for
// a mode it does not know, one given twice, Webhook without its
// kubeconfig, ABAC without its policy file, and with
// WithAuthorizationConfigFile.
func WithAuthorizationMode(mode string) Option {
	return func(o *options) { o.authzMode, o.authzModeSet = mode, true }
}

// AuthorizationWebhookConfig is the SubjectAccessReview webhook of
// AuthorizationWebhook mode, as kube-apiserver's --authorization-webhook-*
// flags configure it.
type AuthorizationWebhookConfig struct {
	// ConfigFile is a kubeconfig whose cluster is the webhook and whose
	// user the credentials presented to it
	// (--authorization-webhook-config-file).
	ConfigFile string
	// Version is the SubjectAccessReview version sent, "v1beta1" (the
	// default) or "v1" (--authorization-webhook-version).
	Version string
	// CacheAuthorizedTTL and CacheUnauthorizedTTL are how long its allowals
	// and its other answers are kept (nil: 5m and 30s; 0: not kept;
	// --authorization-webhook-cache-authorized-ttl, -unauthorized-ttl).
	CacheAuthorizedTTL, CacheUnauthorizedTTL *time.Duration
}

// WithAuthorizationWebhook sets up the webhook of AuthorizationWebhook mode
// as kube-apiserver does from its --authorization-webhook-* flags:
// upstream's webhook authorizer, named "default" (the prefix of its reasons
// in a denial that no authorizer decided), asked with a 30 s timeout and
// kube-apiserver's retry backoff, no opinion when the call fails, through
// the "controlplane" egress selection (WithEgressSelectorConfigFile). Like
// the flags, it excludes WithAuthorizationConfigFile, and a ConfigFile
// without mode Webhook makes Start fail.
func WithAuthorizationWebhook(w AuthorizationWebhookConfig) Option {
	return func(o *options) { o.authzWebhook = &w }
}

// WithAuthorizationPolicyFile is the ABAC authorizer's policy file
// (--authorization-policy-file): a JSON policy a line
// (abac.authorization.kubernetes.io/v1beta1 Policy, or v0's unversioned
// lines), read at Start, which fails with kube-apiserver's error for a
// line it cannot read, or when no authorizer is ABAC. See auth.ABACAuthorizer
// for what a policy matches.
func WithAuthorizationPolicyFile(path string) Option {
	return func(o *options) { o.authzPolicyFile = path }
}

// WithAuthorizationConfigFile builds the authorizers from the
// AuthorizationConfiguration (apiserver.config.k8s.io/v1) in the file at
// path, as kube-apiserver's --authorization-config: authorizers of type
// RBAC, AlwaysAllow, AlwaysDeny (each once, named after its type in lower
// case) and Webhook (any number, each named: a kubeConfigFile connection,
// timeout, failurePolicy, subjectAccessReviewVersion, CEL matchConditions
// with matchConditionSubjectAccessReviewVersion, cached answers and their
// TTLs), asked in the file's order after system:masters. The file is
// decoded strictly and validated as kube-apiserver validates it, with its
// errors; Node and ABAC (with WithAuthorizationPolicyFile) too, and a
// connection of type InClusterConfig makes Start fail (kube-apiserver
// v1.37 crashes on it). It may not be combined with
// WithAuthorizationMode or WithAuthorizationWebhook. The file is read once,
// at start (kube-apiserver also reloads it when it changes).
func WithAuthorizationConfigFile(path string) Option {
	return func(o *options) { o.authzConfigFile = path }
}

// WithFlagz has /flagz list these command-line flags, name to value, as
// kube-apiserver's /flagz lists its own (the fakeplane command gives its
// flags); without it, /flagz lists none.
func WithFlagz(flags map[string]string) Option { return func(o *options) { o.flags = flags } }

// WithToken adds a static bearer token for a user (like a line of
// kube-apiserver's --token-auth-file).
func WithToken(token, user string, groups ...string) Option {
	return func(o *options) {
		o.tokens = append(o.tokens, auth.StaticToken{Token: token, User: user, Groups: groups})
	}
}

// StaticToken is one line of a --token-auth-file: a bearer token and the
// user (name, UID, groups) it authenticates as.
type StaticToken = auth.StaticToken

// WithTokens adds static bearer tokens.
func WithTokens(tokens ...StaticToken) Option {
	return func(o *options) { o.tokens = append(o.tokens, tokens...) }
}

// WithAuthenticationConfigFile authenticates requests as the
// AuthenticationConfiguration (apiserver.config.k8s.io/v1) in the file at
// path says, as kube-apiserver's --authentication-config: its JWT
// authenticators (OIDC issuers, with claim mappings, validation rules and
// CEL expressions) verify bearer tokens after the service-account tokens,
// and its anonymous section, when set, says who may be anonymous and where
// (it may not be combined with WithoutAnonymous). The file is read and
// validated once, at start.
func WithAuthenticationConfigFile(path string) Option {
	return func(o *options) { o.authnConfigFile = path }
}

// WithServiceAccountIssuers sets the issuers of service-account tokens, as
// kube-apiserver's --service-account-issuer: the first is the "iss" of
// the tokens issued and of the discovery document, every one is accepted
// (to move from one issuer to another). The default is
// https://kubernetes.default.svc.cluster.local.
func WithServiceAccountIssuers(issuers ...string) Option {
	return func(o *options) { o.saIssuers = issuers }
}

// WithServiceAccountSigningKeyFile signs service-account tokens with the
// private key (PEM: RSA, signing RS256, or ECDSA P-256, P-384 or P-521) in
// the file at path, as kube-apiserver's --service-account-signing-key-file
// (kubeadm's sa.key). Without it a control plane makes an ECDSA P-256 key,
// kept in WithDataDir's pki/sa.key.
func WithServiceAccountSigningKeyFile(path string) Option {
	return func(o *options) { o.saSigningKeyFile = path }
}

// WithServiceAccountKeyFiles verifies service-account tokens with the
// public keys (or the public halves of the private keys) in the PEM files
// at paths, instead of the signing key alone, and publishes them at
// /openid/v1/jwks, as kube-apiserver's --service-account-key-file (list
// the signing key's too, as kubeadm lists sa.pub).
func WithServiceAccountKeyFiles(paths ...string) Option {
	return func(o *options) { o.saKeyFiles = append(o.saKeyFiles, paths...) }
}

// WithAPIAudiences sets the API server's audiences, as kube-apiserver's
// --api-audiences: the audiences of tokens requested without any, and
// those a token must have one of. The default is the issuers.
func WithAPIAudiences(audiences ...string) Option {
	return func(o *options) { o.apiAudiences = audiences }
}

// WithServiceAccountJWKSURI sets the key set's URL the service-account
// issuer's discovery document names (--service-account-jwks-uri), an
// https URL; the default is the server's own /openid/v1/jwks.
func WithServiceAccountJWKSURI(uri string) Option {
	return func(o *options) { o.saJWKSURI = uri }
}

// WithServiceAccountMaxTokenExpiration shortens the TokenRequests that ask
// for longer, with kube-apiserver's warning
// (--service-account-max-token-expiration; between an hour and 2^32
// seconds). The default is no limit.
func WithServiceAccountMaxTokenExpiration(d time.Duration) Option {
	return func(o *options) { o.saMaxExpiration = d }
}

// WithServiceAccountLookup says whether a Secret-based (legacy)
// service-account token is valid only while its Secret and ServiceAccount
// are there, as kube-apiserver's --service-account-lookup (default true).
// With false it is checked on its signature and claims alone. Bound tokens
// are always checked against the objects they are bound to.
func WithServiceAccountLookup(lookup bool) Option {
	return func(o *options) { o.saNoLookup = !lookup }
}

// WithServiceAccountExtendTokenExpiration says whether the pod-bound tokens
// kubelets request for an hour and 7 seconds (the ServiceAccount admission
// plugin's projected volumes) are valid for a year instead, as
// kube-apiserver's --service-account-extend-token-expiration (default
// true; such a token's claims say when it was due to expire in
// kubernetes.io.warnafter). With false they expire when asked.
func WithServiceAccountExtendTokenExpiration(extend bool) Option {
	return func(o *options) { o.saNoExtendExpiration = !extend }
}

// TokenWebhook is a TokenReview webhook that authenticates bearer tokens,
// as kube-apiserver's --authentication-token-webhook-* flags configure it.
type TokenWebhook struct {
	// ConfigFile is a kubeconfig whose cluster is the webhook and whose
	// user the credentials presented to it
	// (--authentication-token-webhook-config-file).
	ConfigFile string
	// Version is the TokenReview version sent, "v1beta1" (the default) or
	// "v1" (--authentication-token-webhook-version).
	Version string
	// CacheTTL is how long its answers are kept, the users it gives and
	// its refusals without an error (nil: 2m; 0: not kept;
	// --authentication-token-webhook-cache-ttl).
	CacheTTL *time.Duration
}

// WithAuthenticationTokenWebhook asks the webhook w about the bearer tokens
// no other authenticator knows, last (after static, service-account and
// JWT tokens), as kube-apiserver does with
// --authentication-token-webhook-config-file: upstream's webhook
// authenticator with kube-apiserver's retry backoff, through the
// "controlplane" egress selection (WithEgressSelectorConfigFile), its
// answers kept for w.CacheTTL.
func WithAuthenticationTokenWebhook(w TokenWebhook) Option {
	return func(o *options) { o.tokenWebhook = &w }
}

// WithOIDC authenticates the tokens of one OpenID Connect issuer, as
// kube-apiserver's --oidc-* flags do (the older way to configure what
// WithAuthenticationConfigFile configures; the two are exclusive): the
// issuer URL and client ID are required, the user name is the "sub" claim
// prefixed by the issuer URL and "#" unless said otherwise, and only RS256
// signatures are accepted unless SigningAlgs says otherwise.
func WithOIDC(flags auth.OIDCFlags) Option {
	return func(o *options) { o.oidc = &flags }
}

// WithAdmissionControlConfigFile configures admission plugins with the
// AdmissionConfiguration (apiserver.config.k8s.io/v1) in the file at path,
// as kube-apiserver's --admission-control-config-file: PodSecurity's
// defaults and exemptions (a PodSecurityConfiguration), and the
// credentials the admission webhooks present to webhook servers (a
// WebhookAdmission's kubeConfigFile). The configuration of another plugin
// kube-apiserver runs by default (ResourceQuota) is refused. The file is
// read once, at start.
func WithAdmissionControlConfigFile(path string) Option {
	return func(o *options) { o.admissionConfigFile = path }
}

// WithEnableAdmissionPlugins runs the named admission plugins besides
// those kube-apiserver runs by default, as its --enable-admission-plugins:
// of the plugins off by default, every one (NodeRestriction with or
// without AuthorizationNode), those
// that read a configuration (EventRateLimit, ImagePolicyWebhook,
// PodNodeSelector, PodTolerationRestriction) configured by
// WithAdmissionControlConfigFile. The order of the names does not matter:
// plugins run in kube-apiserver's order. An unknown name, or one also
// disabled, fails the start with kube-apiserver's error.
// Repeated options add up.
func WithEnableAdmissionPlugins(names ...string) Option {
	return func(o *options) { o.enablePlugins = append(o.enablePlugins, names...) }
}

// WithDisableAdmissionPlugins turns off admission plugins kube-apiserver
// runs by default, as its --disable-admission-plugins (for example
// ServiceAccount, which WithEnvtestShape turns off as envtest does, or
// PodSecurity, ResourceQuota, the webhooks and policies). Repeated options
// add up.
func WithDisableAdmissionPlugins(names ...string) Option {
	return func(o *options) { o.disablePlugins = append(o.disablePlugins, names...) }
}

// WithDefaultTolerationSeconds sets how long the DefaultTolerationSeconds
// admission plugin lets new pods stay on a node that is not ready or is
// unreachable, in seconds, as kube-apiserver's
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds (default 300 each).
func WithDefaultTolerationSeconds(notReady, unreachable int64) Option {
	return func(o *options) {
		o.tolerationSeconds = &registry.TolerationSeconds{NotReady: notReady, Unreachable: unreachable}
	}
}

// WithAdmissionControl runs exactly the named admission plugins, as
// kube-apiserver's deprecated --admission-control; it cannot be combined
// with WithEnableAdmissionPlugins or WithDisableAdmissionPlugins.
func WithAdmissionControl(names ...string) Option {
	return func(o *options) { o.onlyPlugins = append(o.onlyPlugins, names...) }
}

// WithoutAnonymous answers requests without credentials 401 instead of
// treating them as system:anonymous (--anonymous-auth=false).
func WithoutAnonymous() Option { return func(o *options) { o.noAnonymous = true } }

// WithBootstrapTokenAuth authenticates bootstrap tokens
// ("abcdef.0123456789abcdef") by their Secrets of type
// bootstrap.kubernetes.io/token in kube-system, as kube-apiserver's
// --enable-bootstrap-token-auth (off by default; kubeadm turns it on): the
// user is system:bootstrap:<id> in system:bootstrappers and the Secret's
// auth-extra-groups.
func WithBootstrapTokenAuth() Option { return func(o *options) { o.bootstrapTokenAuth = true } }

// WithRequestHeader trusts an authenticating front proxy. Without it the
// control plane trusts a front-proxy CA of its own (kept in the data
// directory as pki/front-proxy-ca.crt and .key), as a kubeadm cluster
// does: allowed name front-proxy-client, headers X-Remote-User,
// X-Remote-Group and X-Remote-Extra-; ControlPlane.ProxyClientCert is the
// client certificate it signed.
func WithRequestHeader(rh RequestHeader) Option {
	return func(o *options) { o.requestHeader = &rh }
}

// WithProxyClientCert sets the client certificate and key (PEM) the
// aggregator presents to extension API servers (--proxy-client-cert-file,
// --proxy-client-key-file), for use with WithRequestHeader. Given without
// WithRequestHeader, the control plane makes no front-proxy CA of its own
// and, like kube-apiserver with these flags alone, does no request-header
// authentication.
func WithProxyClientCert(certPEM, keyPEM []byte) Option {
	return func(o *options) { o.proxyClient = &proxyClientFiles{certPEM: certPEM, keyPEM: keyPEM} }
}

// withAuthenticationTrustResync shortens the period after which an edited
// extension-apiserver-authentication ConfigMap is corrected (tests).
func withAuthenticationTrustResync(d time.Duration) Option {
	return func(o *options) { o.authTrustResync = d }
}

func defaultOptions() options {
	return options{listen: "127.0.0.1:0"}
}

// WithListenAddress sets the host:port to listen on. Port 0 lets the kernel
// pick one. The default is 127.0.0.1:0.
func WithListenAddress(addr string) Option { return func(o *options) { o.listen = addr } }

// WithListener serves on a listener the caller already holds.
func WithListener(ln net.Listener) Option { return func(o *options) { o.listener = ln } }

// WithDataDir keeps the store (and the CA) in dir, fsynced on every commit,
// so state survives restarts. Without it the store lives in a temporary
// directory removed at Stop. A new dir is made 0700 (an existing one keeps
// its mode, with a warning if others may use it, as etcd's data directory);
// the keys and the server URL written in it are 0600.
func WithDataDir(dir string) Option { return func(o *options) { o.dataDir = dir } }

// WithKubeconfigPath sets where the admin kubeconfig is written. The default
// is admin.kubeconfig inside the data directory.
func WithKubeconfigPath(path string) Option { return func(o *options) { o.kubeconfigPath = path } }

// WithLogger sends the control plane's logs to l. The default discards them.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithWatchCacheSize sets how many recent changes the control plane keeps
// for watches and consistent paging (kube-apiserver's watch cache). A watch
// or continue token older than that answers 410 Gone. The default is 10000.
func WithWatchCacheSize(n int) Option { return func(o *options) { o.eventLogSize = n } }

// WithClock makes the control plane read time from now instead of the
// system clock: creation and deletion timestamps, token issue and expiry.
// Tests use it to move time forward.
func WithClock(now func() time.Time) Option { return func(o *options) { o.clock = now } }

// WithClientCA also accepts client certificates signed by the CAs in a PEM
// bundle (--client-ca-file), besides the control plane's own CA.
func WithClientCA(pem []byte) Option {
	return func(o *options) { o.clientCAs = append(o.clientCAs, pem) }
}

// WithClientCAFile also accepts client certificates signed by the CAs in a
// PEM file, as kube-apiserver's --client-ca-file: read at Start (which
// fails as kube-apiserver does when it is missing or holds no certificate)
// and again whenever it changes, from the next request on; a content that
// does not load is logged and the last good one stays in use. The
// ConfigMap kube-system/extension-apiserver-authentication gains a CA
// added to the file (and keeps one removed, as kube-apiserver's, until it
// expires). A later WithClientCAFile replaces an earlier one.
func WithClientCAFile(path string) Option {
	return func(o *options) { o.clientCAFile = path }
}

// WithCRDs installs the CustomResourceDefinitions found in YAML or JSON files
// or directories (like envtest's CRDDirectoryPaths) before Start returns;
// other kinds in those files are ignored.
func WithCRDs(paths ...string) Option {
	return func(o *options) { o.crdPaths = append(o.crdPaths, paths...) }
}

// WithFixtures loads every object found in YAML or JSON files or
// directories before Start returns: CRDs first, then namespaces, then the
// rest (the CLI's --fixtures).
func WithFixtures(paths ...string) Option {
	return func(o *options) { o.fixturePaths = append(o.fixturePaths, paths...) }
}

// WithObjects creates objects (built-in types or unstructured, with their
// apiVersion and kind, or a kind client-go's scheme knows) after the CRDs
// and fixtures, before Start returns.
func WithObjects(objs ...runtime.Object) Option {
	return func(o *options) { o.objects = append(o.objects, objs...) }
}

// WithServiceClusterIPRange sets the range ClusterIPs come from, as
// kube-apiserver's --service-cluster-ip-range (default 10.0.0.0/24): one
// IPv4 CIDR no larger than a /12. The kubernetes Service gets its first
// address.
func WithServiceClusterIPRange(cidr string) Option {
	return func(o *options) { o.serviceRange = cidr }
}

// WithServiceNodePortRange sets the range node ports come from, as
// kube-apiserver's --service-node-port-range (default 30000-32767):
// "low-high" or "base+size". New refuses one that does not parse.
func WithServiceNodePortRange(r string) Option {
	return func(o *options) { o.nodePortRange = r }
}

// WithKubernetesServiceNodePort makes the kubernetes Service, when the
// control plane creates it, of type NodePort with this node port, as
// kube-apiserver's --kubernetes-service-node-port (0, the default: of type
// ClusterIP). New refuses a port outside 0-65535 or the node port range
// with kube-apiserver's errors. As kube-apiserver, a control plane that
// finds the Service already there (a restart on the same data) leaves it
// as it is.
func WithKubernetesServiceNodePort(port int) Option {
	return func(o *options) { o.kubernetesNodePort = port }
}

// WithRequestTimeout bounds the requests that are not long-running (all
// but watches, proxies, exec, attach, port-forward and logs), as
// kube-apiserver's --request-timeout (default 1m): past it the client gets
// 504 "Timeout: request did not complete within the allotted timeout". A
// client's ?timeout= may shorten it.
func WithRequestTimeout(d time.Duration) Option {
	return func(o *options) { o.limits.RequestTimeout = d }
}

// WithMaxRequestsInFlight bounds the read-only and the mutating requests
// served at once, as kube-apiserver's --max-requests-inflight (default
// 400) and --max-mutating-requests-inflight (default 200): a request over
// the limit gets 429 with Retry-After. Long-running requests and members
// of system:masters are not limited. A negative limit means none.
func WithMaxRequestsInFlight(readOnly, mutating int) Option {
	return func(o *options) {
		o.limits.MaxRequestsInFlight, o.limits.MaxMutatingRequestsInFlight = readOnly, mutating
	}
}

// WithMinRequestTimeout is kube-apiserver's --min-request-timeout (default
// 1800 seconds): a watch that names no timeoutSeconds ends after a random
// time between it and twice it, so that watches started together do not
// all end together; 0 lets such a watch run until its client ends it.
// Negative fails New with kube-apiserver's error.
func WithMinRequestTimeout(seconds int) Option {
	return func(o *options) {
		d := time.Duration(seconds) * time.Second
		o.limits.MinRequestTimeout = &d
	}
}

// WithEventTTL is kube-apiserver's --event-ttl (default 1h): an Event not
// written for this long is removed, and watchers see it deleted, as etcd
// removes it when its lease expires. As there, whole seconds count (cut
// toward zero), 0 of them means Events never expire, and etcd's shortest
// lease (2 s) is the least a TTL gives, a negative one included.
func WithEventTTL(d time.Duration) Option {
	return func(o *options) { o.eventTTLFlag = &d }
}

// now is the control plane's clock: WithClock's, or time.Now.
func (o *options) now() func() time.Time {
	if o.clock != nil {
		return o.clock
	}
	return time.Now
}

// eventExpiryInterval is how often the Events past their TTL are looked
// for (etcd checks its leases every 500 ms).
const eventExpiryInterval = time.Second

// minEventLeaseTTL is etcd's shortest lease with its default election
// timeout and heartbeat: 3/2 of ten heartbeats of 100 ms, in whole seconds
// rounded up. A shorter TTL is given that long.
const minEventLeaseTTL = 2 * time.Second

// eventTTL is the TTL Events get: --event-ttl as kube-apiserver turns it
// into an etcd lease (uint64(EventTTL.Seconds()), which etcd lengthens to
// its shortest); 0 for none.
func (o *options) eventTTL() time.Duration {
	if o.eventTTLFlag == nil {
		return registry.DefaultEventTTL
	}
	switch secs := int64(o.eventTTLFlag.Seconds()); {
	case secs == 0:
		return 0
	case time.Duration(secs)*time.Second < minEventLeaseTTL:
		return minEventLeaseTTL
	default:
		return time.Duration(secs) * time.Second
	}
}

// WithProfiling says whether the debug endpoints are served, as
// kube-apiserver's --profiling (default true): Go's profiles under
// /debug/pprof/, /debug/flags/v (a PUT sets klog's verbosity, which is the
// process's), and a DELETE of /metrics or /metrics/slis resets the
// metrics. Like every non-resource path they are authorized (cluster-admin
// may).
func WithProfiling(enable bool) Option { return func(o *options) { o.noProfiling = !enable } }

// WithAggregatorRejectForwardingRedirect says whether the aggregator
// refuses an extension API server's redirect, as kube-apiserver's
// --aggregator-reject-forwarding-redirect: true (the default) answers the
// client 502 "the backend attempted to redirect this request, which is not
// permitted"; false passes the redirect on.
func WithAggregatorRejectForwardingRedirect(reject bool) Option {
	return func(o *options) { o.forwardRedirects = !reject }
}

// WithLogsHandler serves the host's /var/log under /logs/ (a file, or a
// directory's listing, to those RBAC lets get the path), as
// kube-apiserver's --enable-logs-handler. Off by default, as there.
func WithLogsHandler() Option { return func(o *options) { o.logsHandler = true } }

// WithMaxConnectionBytesPerSec throttles each upgraded connection of exec,
// attach, port-forward and the pod, service and node proxies to n bytes a
// second each way, as kube-apiserver's --max-connection-bytes-per-sec
// (0, the default, or less: no limit).
func WithMaxConnectionBytesPerSec(n int64) Option {
	return func(o *options) { o.maxConnectionBytesPerSec = n }
}

// WithGarbageCollector(false) turns garbage collection off, as
// --enable-garbage-collector=false does on kube-apiserver and on
// kube-controller-manager (whose flag must say the same): a delete adds
// neither the orphan nor the foregroundDeletion finalizer (a namespace's
// still does, as kube-apiserver's namespace REST adds them), so the
// object goes at once whatever its propagation policy, and the garbage
// collector controller does not run, so dependents keep their owner
// references. On by default.
func WithGarbageCollector(enable bool) Option { return func(o *options) { o.noGC = !enable } }

// WithDebugSocketPath serves Go's profiles (/debug/pprof/) and the klog
// verbosity flag (/debug/flags/v) on a Unix socket at path, without
// authentication and whatever WithProfiling says, as kube-apiserver's
// --debug-socket-path. A file already at path is replaced; a socket that
// cannot be served is logged and the control plane serves on, as there.
func WithDebugSocketPath(path string) Option { return func(o *options) { o.debugSocketPath = path } }

// WithGoawayChance is kube-apiserver's --goaway-chance: the probability
// (at most 0.02) that an HTTP/2 request other than a watch is answered
// with GOAWAY, which makes its client open a new connection, as the
// clients of several servers behind a load balancer need. 0 (the default)
// sends none; outside [0, 0.02] New fails with kube-apiserver's error.
func WithGoawayChance(chance float64) Option {
	return func(o *options) { o.limits.GoawayChance = chance }
}

// WithPriorityAndFairness says whether API priority and fairness
// classifies requests, as kube-apiserver's --enable-priority-and-fairness
// (default true). With false, answers carry no X-Kubernetes-PF-* headers,
// FlowSchemas get no Dangling condition, and the health checks name the
// max-in-flight filter; the flowcontrol API and its bootstrap objects stay.
// (Either way, --max-requests-inflight bounds requests: fakeplane does not
// queue by priority level.)
func WithPriorityAndFairness(enable bool) Option { return func(o *options) { o.noAPF = !enable } }

// WithCompactionInterval sets how often the store compacts the history that
// lists at past revisions (continue tokens) read, as kube-apiserver's
// --etcd-compaction-interval does (default 5m): a continue token stays
// valid for at least one interval. 0 disables compaction.
func WithCompactionInterval(d time.Duration) Option {
	return func(o *options) { o.compaction = &d }
}

// WithEtcdServers keeps the objects in the etcd cluster at urls
// (kube-apiserver's --etcd-servers: "http://127.0.0.1:2379", ...) instead
// of a bbolt file, under the prefix WithEtcdPrefix sets: objects survive a
// restart of the control plane on the same etcd. The data directory still
// holds the CA and the kubeconfig. Several control planes on one etcd and
// prefix serve one cluster, as several kube-apiservers do: each follows the
// others' writes, a Service's ClusterIPs and node ports are claimed in
// etcd, and kube-controller-manager's controllers run in one of them at a
// time, the holder of the Lease kube-system/kube-controller-manager (see
// WithLeaderElection). Give them one data directory (or the same CA) for
// one set of credentials.
func WithEtcdServers(urls []string) Option {
	return func(o *options) { o.etcdServers = slices.Clone(urls) }
}

// WithEtcdPrefix sets the prefix of every key the control plane writes in
// etcd (kube-apiserver's --etcd-prefix). The default is
// "/registry-fakeplane", not upstream's "/registry": fakeplane's keys and
// values (JSON, bucket names) are not kube-apiserver's, and must not mix
// with a real cluster's in a shared etcd.
func WithEtcdPrefix(prefix string) Option { return func(o *options) { o.etcdPrefix = prefix } }

// EtcdTLS names the PEM files that secure the control plane's connections
// to etcd, as kube-apiserver's --etcd-cafile, --etcd-certfile and
// --etcd-keyfile: the CA that signed etcd's serving certificate, and the
// client certificate and key the control plane presents (both or neither).
// They are read as kube-apiserver's etcd client reads them: the CA once,
// the certificate and key again at each new connection.
type EtcdTLS struct {
	CAFile   string
	CertFile string
	KeyFile  string
}

// empty says whether f names no file.
func (f EtcdTLS) empty() bool { return f == EtcdTLS{} }

// WithEtcdTLS secures the connections to WithEtcdServers' etcd with
// files, as kubeadm's kube-apiserver connects to its etcd (an https URL
// in WithEtcdServers, --etcd-cafile, --etcd-certfile and --etcd-keyfile).
// Without it, an https endpoint is verified against the system's roots.
func WithEtcdTLS(files EtcdTLS) Option { return func(o *options) { o.etcdTLS = files } }

// WithEtcdHealthcheckTimeout bounds each read of etcd by the "etcd" check
// of /livez, /readyz and /healthz, as kube-apiserver's
// --etcd-healthcheck-timeout (0: its default, 2s). As there, the check reads
// etcd at most once every half timeout and otherwise answers the last read's
// result; with WithEtcdServers only (the embedded store's checks pass).
func WithEtcdHealthcheckTimeout(d time.Duration) Option {
	return func(o *options) { o.etcdHealthTimeout = d }
}

// WithEtcdReadycheckTimeout is WithEtcdHealthcheckTimeout for the
// "etcd-readiness" check of /readyz (kube-apiserver's
// --etcd-readycheck-timeout, default 2s).
func WithEtcdReadycheckTimeout(d time.Duration) Option {
	return func(o *options) { o.etcdReadyTimeout = d }
}

// WithNodes creates n simulated nodes, node-0 to node-(n-1), when the
// control plane starts (the CLI's --nodes), as kwok's fake nodes: Ready,
// with 32 cpu, 256Gi memory, 110 pods and 100Gi ephemeral storage, an
// InternalIP in 10.89.0.0/16, a pod CIDR in 10.128.0.0/9, the labels a
// kubelet sets plus node.kubernetes.io/instance-type=fakeplane, and a Lease
// in kube-node-lease renewed every 10 seconds. Nodes a user creates with
// the annotation kwok.x-k8s.io/node=fake are simulated the same way. Pods
// bound to simulated nodes run as kwok's default stages run them (see
// package kubelet): Running and Ready at once, Succeeded once running when
// a Job owns them, removed as soon as they are deleted (the registry
// marks them first, as kube-apiserver does; see WithPodGracePeriods and
// WithoutPodLifecycle). It also starts the built-in scheduler (see
// WithScheduler), and the cluster gets kind's default StorageClass,
// "standard" (WaitForFirstConsumer, provisioned as rancher.io/local-path
// would: see controllers.PersistentVolumeBinder).
func WithNodes(n int) Option {
	return func(o *options) { o.nodes = n; o.withScheduler = o.withScheduler || n > 0 }
}

// WithPodGracePeriods makes deleted pods on simulated nodes wait out their
// grace period before the simulated kubelet removes them, as containers
// that ignore SIGTERM do: they stay Terminating until their
// deletionTimestamp passes on the control plane's clock (with WithClock,
// until the test moves the clock past it). Without it they are removed at
// once, as kwok's fast pod-delete stage removes them.
func WithPodGracePeriods() Option { return func(o *options) { o.podGracePeriods = true } }

// WithoutPodLifecycle keeps simulated nodes Ready without running the
// pods bound to them: pods stay Pending, and deleted pods with a grace
// period stay Terminating, as on nodes with no kubelet.
func WithoutPodLifecycle() Option {
	return func(o *options) { o.noPodLifecycle = true }
}

// WithPodStages replaces the built-in pod lifecycle of simulated nodes
// with the kwok Stages (kwok.x-k8s.io/v1alpha1, resourceRef v1 Pod) in
// YAML files, as kwok's --config does: each pod bound to a simulated node
// is moved on by the stage whose selector matches it (the highest weight
// wins). See kubelet.Stage for the part of a Stage that is run.
func WithPodStages(paths ...string) Option {
	return func(o *options) { o.podStages = append(o.podStages, paths...) }
}

// WithKubeletConfig configures the kubelet API of the simulated nodes
// with kwok's ClusterLogs/Logs, ClusterExec/Exec, ClusterAttach/Attach and
// ClusterPortForward/PortForward (kwok.x-k8s.io/v1alpha1) in YAML files:
// which files hold containers' logs, which pods run exec'd commands on
// this machine, which pod ports forward to local addresses. Other kwok
// kinds in the files are skipped. See kubelet.DebugConfig.
func WithKubeletConfig(paths ...string) Option {
	return func(o *options) { o.kubeletConfigs = append(o.kubeletConfigs, paths...) }
}

// WithKubeletDebugConfig adds Go-built kwok rules to the kubelet API's
// configuration, as WithKubeletConfig's files do.
func WithKubeletDebugConfig(cfg kubelet.DebugConfig) Option {
	return func(o *options) { o.kubeletDebug.Merge(cfg) }
}

// WithKubeletAPIAddress sets where the simulated nodes' kubelet API
// listens (default 127.0.0.1:0); its IP becomes the nodes' InternalIP.
func WithKubeletAPIAddress(addr string) Option {
	return func(o *options) { o.kubeletAPIAddress = addr }
}

// WithKubeletClientCertificate sets the client certificate and key files
// the server presents to kubelets (--kubelet-client-certificate,
// --kubelet-client-key); by default it is one the cluster CA signs for
// kube-apiserver-kubelet-client.
func WithKubeletClientCertificate(certFile, keyFile string) Option {
	return func(o *options) { o.kubeletClientCertFile, o.kubeletClientKeyFile = certFile, keyFile }
}

// WithKubeletCertificateAuthority sets the CA file that kubelets' serving
// certificates are verified against (--kubelet-certificate-authority); by
// default they are not verified, as kube-apiserver does without the flag.
func WithKubeletCertificateAuthority(caFile string) Option {
	return func(o *options) { o.kubeletCAFile = caFile }
}

// WithKubeletPreferredAddressTypes sets the order in which a node's
// addresses are tried to reach its kubelet
// (--kubelet-preferred-address-types); the default is kubeadm's
// InternalIP, ExternalIP, Hostname.
func WithKubeletPreferredAddressTypes(types ...corev1.NodeAddressType) Option {
	return func(o *options) { o.kubeletAddressTypes = types }
}

// WithKubeletPort is kube-apiserver's (deprecated) --kubelet-port: the
// port a kubelet is reached at when its Node reports none
// (status.daemonEndpoints.kubeletEndpoint.port 0); the default is 10250.
// Simulated nodes report theirs.
func WithKubeletPort(port int) Option { return func(o *options) { o.kubeletPort = port } }

// WithoutKubeletAPI turns the simulated nodes' kubelet API off: nodes keep
// their made-up InternalIPs (10.89.0.x) and the kubelet port 10250, on
// which nothing answers.
func WithoutKubeletAPI() Option { return func(o *options) { o.noKubeletAPI = true } }

// WithNodeLeaseRenewInterval sets how often simulated nodes renew their
// Leases (default 10s, a kubelet's).
func WithNodeLeaseRenewInterval(d time.Duration) Option {
	return func(o *options) { o.nodeLeaseRenew = d }
}

// WithScheduler starts the built-in scheduler (package scheduler), which
// binds the pods whose spec.schedulerName names one of its profiles, as
// kube-scheduler does, authenticated as system:kube-scheduler. cfg is its
// KubeSchedulerConfiguration (see scheduler.LoadConfig and
// scheduler.NewConfig); nil is kube-scheduler's default configuration (one
// profile, default-scheduler, leader election on Lease
// kube-system/kube-scheduler) with clientConnection.qps -1, no client-side
// throttling. Without WithScheduler, WithSchedulerConfigFile or WithNodes,
// no pod is scheduled. With any of them, Nodes created with the annotation
// kwok.x-k8s.io/node=fake are simulated (see WithNodes).
func WithScheduler(cfg *scheduler.Configuration) Option {
	return func(o *options) { o.schedulerConfig = cfg; o.withScheduler = true }
}

// WithSchedulerConfigFile starts the built-in scheduler with the
// KubeSchedulerConfiguration in a file (the CLI's --scheduler-config, as
// kube-scheduler's --config), read at Start.
func WithSchedulerConfigFile(path string) Option {
	return func(o *options) { o.schedulerConfigFile = path; o.withScheduler = true }
}

// WithControllers selects the kube-controller-manager controllers the
// control plane runs, as kube-controller-manager's --controllers does: "*"
// runs every one, "name" turns one on and "-name" one off, with upstream's
// names ("deployment-controller", "garbage-collector-controller", ...) or
// their older aliases ("deployment", "garbagecollector", ...). The first
// entry that names a controller decides for it. No names at all runs none.
// The default is "*". kube-apiserver's own loops (CRD finalization, the
// aggregator's, the kubernetes Service) always run. A name no
// kube-controller-manager controller has makes Start fail.
func WithControllers(names ...string) Option {
	return func(o *options) { o.controllers = append(controllers.Selection{}, names...) }
}

// WithHorizontalPodAutoscalerSyncPeriod sets how often the
// horizontal-pod-autoscaler-controller reconciles each
// HorizontalPodAutoscaler, as kube-controller-manager's
// --horizontal-pod-autoscaler-sync-period does (default 15 s). A
// HorizontalPodAutoscaler is also reconciled when it is created and when
// its spec changes.
func WithHorizontalPodAutoscalerSyncPeriod(d time.Duration) Option {
	return func(o *options) { o.hpaSyncPeriod = d }
}

// WithClusterSigningDuration sets the longest certificate the
// certificatesigningrequest-signing-controller issues, as
// kube-controller-manager's --cluster-signing-duration does (default a
// year); a request's spec.expirationSeconds asks for less.
func WithClusterSigningDuration(d time.Duration) Option {
	return func(o *options) { o.csrSigningDuration = d }
}

// WithLegacyServiceAccountTokenCleanUpPeriod sets how long an
// auto-generated service-account token Secret goes unused before the
// legacy-serviceaccount-token-cleaner-controller marks it invalid, and then
// stays invalid before it is deleted, as kube-controller-manager's
// --legacy-service-account-token-clean-up-period does (default a year).
// With WithClock, a test can move past it.
func WithLegacyServiceAccountTokenCleanUpPeriod(d time.Duration) Option {
	return func(o *options) { o.legacyTokenCleanUpPeriod = d }
}

// runs reports whether the control plane runs the kube-controller-manager
// controller of canonical name name (see WithControllers).
func (o *options) runs(name string) bool { return o.selection().Enabled(name) }

// selection is WithControllers' selection, or the default (every
// controller) when none was given.
func (o *options) selection() controllers.Selection {
	sel := o.controllers
	if sel == nil {
		sel = controllers.DefaultSelection
	}
	if o.noGC {
		// The first entry that names a controller decides it.
		sel = append(controllers.Selection{"-" + controllers.GarbageCollectorName}, sel...)
	}
	return sel
}

// admissionPlugins is the admission plugin selection the options make:
// their names, and with WithEnvtestShape the ServiceAccount plugin off
// unless they enable it (envtest's --disable-admission-plugins).
func (o *options) admissionPlugins() (admission.Plugins, error) {
	disable := o.disablePlugins
	if o.envtestShape && len(o.onlyPlugins) == 0 && !slices.Contains(o.enablePlugins, "ServiceAccount") && !slices.Contains(disable, "ServiceAccount") {
		disable = append(slices.Clip(disable), "ServiceAccount")
	}
	return admission.NewPlugins(o.enablePlugins, disable, o.onlyPlugins)
}

// WithEnvtestShape starts the control plane in the shape envtest gives
// (kube-apiserver alone, with no kube-controller-manager, scheduler or
// kubelets, and with the ServiceAccount admission plugin off, as envtest
// starts kube-apiserver): no controllers run, so namespaces get no default
// ServiceAccount and no kube-root-ca.crt (pods need neither), nothing is
// garbage-collected, deleted namespaces stay Terminating and workloads
// create no pods; nor is there a front proxy (no request-header
// authentication or proxy client certificate) unless WithRequestHeader or
// WithProxyClientCert gives one. Tests written for envtest pass unchanged.
// Options given after it can turn parts back on (WithControllers,
// WithNodes, WithScheduler).
func WithEnvtestShape() Option {
	return func(o *options) {
		o.controllers = controllers.Selection{}
		o.envtestShape = true
		o.nodes, o.withScheduler, o.schedulerConfig, o.schedulerConfigFile = 0, false, nil, ""
	}
}

// WithAllowPrivileged(false) refuses privileged containers and Windows host
// process containers in pods and pod templates, as kube-apiserver's
// --allow-privileged=false does (with its 422). fakeplane allows them by
// default, as kubeadm's clusters and envtest run kube-apiserver.
func WithAllowPrivileged(allow bool) Option {
	return func(o *options) { o.disallowPrivileged = !allow }
}

// WithAdvertiseAddress sets the address the control plane advertises, as
// kube-apiserver's --advertise-address: the default/kubernetes Endpoints
// and EndpointSlice name it and the port served on. The default is
// kube-apiserver's: the host's default address when the control plane
// listens on a loopback or unspecified address (as it does by default),
// the address listened on otherwise. A loopback address, or a host without
// a default route, leaves them unwritten, as kube-apiserver's reconciler
// cannot write them (Endpoints refuse loopback addresses).
func WithAdvertiseAddress(ip net.IP) Option { return func(o *options) { o.advertiseAddress = ip } }

// WithExternalHostname sets the host name in the URLs the control plane
// gives out for itself, as kube-apiserver's --external-hostname: /api's
// serverAddressByClientCIDRs and the service-account issuer's default
// jwks_uri name it, with the port served on. Without it they name the
// advertise address (WithAdvertiseAddress) when one is given, else the
// address listened on (the host's default address when that is an
// unspecified address). kube-apiserver names the host's default address
// for a loopback one too; fakeplane names the loopback address, which
// clients can reach.
func WithExternalHostname(host string) Option { return func(o *options) { o.externalHostname = host } }

// GracefulShutdown is how Stop ends the serving, as kube-apiserver's
// --shutdown-* flags say it ends on SIGTERM. The zero value stops at once.
type GracefulShutdown struct {
	// DelayDuration is --shutdown-delay-duration: for this long after
	// Stop is called, /readyz fails its shutdown check ("[-]shutdown
	// failed") while every request is served as before, so that load
	// balancers and clients move away.
	DelayDuration time.Duration
	// SendRetryAfter is --shutdown-send-retry-after: once the delay has
	// passed, new requests (but /readyz, /livez, /healthz and /metrics)
	// are answered 429 with Retry-After: 5 and Connection: close, while
	// the requests in flight are answered; then the server stops.
	SendRetryAfter bool
	// WatchTerminationGracePeriod is
	// --shutdown-watch-termination-grace-period: once the requests in
	// flight are answered, open watches get this long to end before they
	// are closed.
	WatchTerminationGracePeriod time.Duration
}

// validate checks g as kube-apiserver checks its flags.
func (g GracefulShutdown) validate() error {
	if g.DelayDuration < 0 {
		return errors.New("--shutdown-delay-duration can not be negative value")
	}
	if g.WatchTerminationGracePeriod < 0 {
		return errors.New("shutdown-watch-termination-grace-period, if provided, can not be a negative value")
	}
	return nil
}

// graceful says whether Stop waits or drains before it stops.
func (g GracefulShutdown) graceful() bool { return g != GracefulShutdown{} }

// WithGracefulShutdown makes Stop end the serving as kube-apiserver ends
// it on SIGTERM with its --shutdown-* flags (see GracefulShutdown). New
// refuses negative durations with kube-apiserver's errors.
func WithGracefulShutdown(g GracefulShutdown) Option { return func(o *options) { o.shutdown = g } }

// WithEndpointReconcilerType is kube-apiserver's --endpoint-reconciler-type:
// EndpointReconcilerLease (the default) and EndpointReconcilerMasterCount
// keep the kubernetes Service's endpoints, EndpointReconcilerNone leaves
// them alone. New refuses other types with kube-apiserver's error.
func WithEndpointReconcilerType(t string) Option {
	return func(o *options) { o.endpointReconciler = t }
}

// WithCORSAllowedOrigins answers the origins these regular expressions
// match with CORS headers, as kube-apiserver's --cors-allowed-origins:
// Access-Control-Allow-Origin (the request's origin), -Methods, -Headers,
// -Expose-Headers and -Allow-Credentials on every answer to them, and a
// preflight OPTIONS answered 204 before authentication. Each must pin the
// host's start (^ or //) and end ($ or :); New refuses one that does not
// with kube-apiserver's error.
func WithCORSAllowedOrigins(origins ...string) Option {
	return func(o *options) { o.headers.CORSAllowedOrigins = append(o.headers.CORSAllowedOrigins, origins...) }
}

// WithStrictTransportSecurityDirectives adds a Strict-Transport-Security
// header of these directives (max-age=N, includeSubDomains, preload) to
// every answer, as kube-apiserver's
// --strict-transport-security-directives; New refuses others with its
// error.
func WithStrictTransportSecurityDirectives(directives ...string) Option {
	return func(o *options) { o.headers.HSTSDirectives = append(o.headers.HSTSDirectives, directives...) }
}

// WithRuntimeConfig takes kube-apiserver's --runtime-config values (each a
// comma-separated list of key[=value]: api/all, api/ga, api/beta,
// api/alpha, group/version or group/version/resource, true or false).
// fakeplane serves the API versions kube-apiserver v1.37 serves by
// default: New accepts values that leave them so (apps/v1=true, a version
// registered but not served), and refuses the rest with kube-apiserver's
// errors (an unknown group or version, a key or value that is not one,
// turning off the flowcontrol API) or, for a value that would turn a
// served version or resource on or off, one saying it is not built.
func WithRuntimeConfig(values ...string) Option {
	return func(o *options) { o.runtimeConfig = append(o.runtimeConfig, values...) }
}

// WithFeatureGates takes kube-apiserver's --feature-gates values (each a
// comma-separated list of [kube:]Name=bool). fakeplane serves kube-apiserver
// v1.37 with its default gates: New accepts gates set to their defaults,
// and refuses the rest with kube-apiserver's errors (an unknown gate or
// component, a value that is not a bool, a gate locked to its default) or,
// for a gate set away from its default, one saying it is not built.
func WithFeatureGates(values ...string) Option {
	return func(o *options) { o.featureGates = append(o.featureGates, values...) }
}
