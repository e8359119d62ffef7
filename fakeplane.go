// Package fakeplane runs a Kubernetes control plane in one Go process, for
// tests and local development: an HTTPS server that answers as
// kube-apiserver v1.37 does, with objects kept in bbolt.
//
// In a Go test:
//
//	cp := fakeplane.Start(t)
//	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
//
// Start listens on a loopback port the kernel picks, bootstraps the state a
// fresh cluster has (system namespaces, default ServiceAccounts, the
// kubernetes Service) and stops the control plane when the test ends. Many
// control planes can run in one process at once.
//
// In a program, New builds one and Start(ctx) / Stop run it.
package fakeplane

import (
	"cmp"
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/server/egressselector"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/keyutil"
	"k8s.io/component-base/tracing"

	"github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/aggregator"
	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/auth/cafile"
	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/fixtures"
	"github.com/fakeplane/fakeplane/internal/featuregates"
	"github.com/fakeplane/fakeplane/internal/pki"
	"github.com/fakeplane/fakeplane/internal/runtimeconfig"
	"github.com/fakeplane/fakeplane/kubelet"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/core/node"
	"github.com/fakeplane/fakeplane/scheduler"
	"github.com/fakeplane/fakeplane/server"
	"github.com/fakeplane/fakeplane/store"
)

// AdminUser and AdminGroup name the identity of the admin kubeconfig.
const (
	AdminUser  = "kubernetes-admin"
	AdminGroup = "system:masters"
)

// Files inside the data directory.
const (
	dbFileName    = "fakeplane.db"
	serverURLFile = "server-url"
	// servingTrustFile holds what clients trust of the serving
	// certificate, when that is not the cluster CA (WithSecureServing's
	// files): `fakeplane kubeconfig` writes it into users' kubeconfigs.
	servingTrustFile = "serving-trust.crt"
)

// ControlPlane is one running (or ready to run) fake control plane.
type ControlPlane struct {
	opts options
	// metrics is what the options change of /metrics.
	metrics server.MetricsConfig
	// tracer makes the requests' spans (WithTracingConfigFile); nil
	// without a tracing configuration (see tracerProvider).
	tracer tracing.TracerProvider

	ca    *pki.CA
	admin pki.KeyPair
	// saKey signs service-account tokens: WithServiceAccountSigningKeyFile's,
	// the one kept in --data-dir, or nil for one made afresh.
	saKey crypto.Signer
	// requestHeader is the effective request-header authentication; its
	// ca is nil when there is none.
	requestHeader requestHeaderConfig
	// proxyClient is the front-proxy client certificate the aggregator
	// presents to extension API servers; zero when there is none.
	proxyClient aggregator.ProxyClientCert
	// clientCAs is the bundle that verifies users' client certificates.
	clientCAs cafile.Source
	// caFilesDone waits for the goroutines that follow the CA files.
	caFilesDone sync.WaitGroup
	// eventExpiry removes the Events past --event-ttl, every
	// eventExpiryInterval.
	eventExpiry periodic
	// proxy routes the group/versions of APIServices with a service.
	proxy *aggregator.Proxy
	// egress holds the egress selections' dialers (egress.go).
	egress egress
	// audit is the audit policy and backends, nil when nothing is audited.
	audit *auditing
	// authWebhookConns are the connections of the authentication and
	// authorization webhooks when no "controlplane" egress selection
	// carries them, closed at Stop.
	authWebhookConns *openConns

	mu           sync.Mutex
	started      bool
	stopped      bool
	store        storeBackend
	serviceRange netip.Prefix // --service-cluster-ip-range
	srv          *server.Server
	controllers  *controllers.Runner
	// controllerElector runs kube-controller-manager's controllers while
	// this process holds their Lease (a store shared with other
	// processes); nil otherwise.
	controllerElector *elector
	// identity renews kube-apiserver's identity Lease.
	identity *identityLease
	// endpoints keeps the kubernetes Service's endpoints (nil when they
	// are not kept).
	endpoints *kubernetesEndpoints
	// feed hands the views the events of a shared store (nil otherwise).
	feed      *eventFeed
	admission *admission.Chain
	// admissionConfig is what WithAdmissionControlConfigFile's file
	// configures (zero: nothing).
	admissionConfig admission.PluginConfig
	// admissionPlugins are the admission plugins that run.
	admissionPlugins admission.Plugins
	webhookServing   *WebhookServing
	httpServer       *http.Server
	listener         net.Listener
	url              string
	kubeconfigPath   string
	tmpDir           string
	// servingTrustPEM is what clients outside the control plane trust
	// (the cluster CA, or WithSecureServing's certificate file), and
	// loopbackServerName the server name its own clients ask for (set
	// when that is not the cluster CA).
	// nodePorts is WithServiceNodePortRange's (zero: kube-apiserver's
	// default).
	nodePorts          utilnet.PortRange
	servingTrustPEM    []byte
	loopbackServerName string
	// tls is WithSecureServing's TLS version and cipher suites, parsed.
	tls       tlsParams
	cancel    context.CancelFunc
	serveDone chan struct{}
	nodes     *kubelet.Simulator
	// debugSocket serves WithDebugSocketPath's socket (nil: none).
	debugSocket *debugSocket
	scheduler   *scheduler.Scheduler
}

// New prepares a control plane; nothing listens until Start.
func New(opts ...Option) (*ControlPlane, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	if err := o.controllers.Validate(); err != nil {
		return nil, fmt.Errorf("fakeplane: controllers: %w", err)
	}
	tlsParams, err := parseSecureServing(o.serving)
	if err != nil {
		return nil, err
	}
	if err := featuregates.Check(o.featureGates); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	if err := runtimeconfig.Check(o.runtimeConfig); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	if err := o.limits.Validate(); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	if err := o.headers.Validate(); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	if err := validateEndpointReconcilerType(o.endpointReconciler); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	if err := o.shutdown.validate(); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	if !o.etcdTLS.empty() && len(o.etcdServers) == 0 {
		// There is no etcd to secure: the store is a bbolt file.
		return nil, errors.New("fakeplane: --etcd-cafile, --etcd-certfile and --etcd-keyfile secure --etcd-servers, and none is given")
	}
	if ip := o.advertiseAddress; ip != nil && ip.To4() == nil && o.endpointReconciler != EndpointReconcilerNone {
		return nil, fmt.Errorf("fakeplane: service IP family %q must match public address family %q", cmp.Or(o.serviceRange, registry.DefaultServiceClusterIPRange.String()), ip)
	}
	if o.audit != nil {
		if err := o.audit.withDefaults().validate(); err != nil {
			return nil, fmt.Errorf("fakeplane: %w", err)
		}
	}
	cp := &ControlPlane{opts: o, serviceRange: registry.DefaultServiceClusterIPRange, tls: tlsParams}
	if o.serviceRange != "" {
		r, err := registry.ParseServiceClusterIPRange(o.serviceRange)
		if err != nil {
			return nil, fmt.Errorf("fakeplane: %w", err)
		}
		cp.serviceRange = r
	}
	if o.nodePortRange != "" {
		if err := cp.nodePorts.Set(o.nodePortRange); err != nil {
			return nil, fmt.Errorf("fakeplane: service-node-port-range %q: %w", o.nodePortRange, err)
		}
	}
	if err := checkKubernetesServiceNodePort(o.kubernetesNodePort, cp.nodePorts); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	if err := checkMinCompatibilityVersion(o.minCompatibilityVersion); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	if cp.metrics, err = serverMetricsConfig(o.metrics, o.noObjectCounts); err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	return cp, nil
}

// Start opens the store, bootstraps the cluster state, starts listening and
// serving, and writes the admin kubeconfig. It returns once the server
// answers requests.
func (cp *ControlPlane) Start(ctx context.Context) (err error) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.started {
		return errors.New("fakeplane: already started")
	}
	cp.started = true
	defer func() {
		if err != nil {
			cp.stopLocked()
		}
	}()
	if cp.opts.tracingConfigFile != "" {
		hostname, _ := os.Hostname()
		if cp.tracer, err = startTracing(cp.opts.tracingConfigFile, apiserverID(hostname)); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
	}

	// What a start needs once per process is built on another core while
	// it sets up the certificates and the store, in the order it needs
	// them: the scheme of the built-in types (the server's), the bootstrap
	// objects' documents and managedFields, and PodSecurity's configuration
	// (the first namespace create needs it). Start waits for it as it
	// returns.
	defer inBackground(func() error {
		registry.TypesScheme()
		_, _ = bootstrapPrecomputed()
		fixtures.WarmBootstrap()
		admission.WarmPodSecurity()
		return nil
	})()

	dataDir := cp.opts.dataDir
	if dataDir == "" {
		if cp.tmpDir, err = os.MkdirTemp("", "fakeplane-"); err != nil {
			return fmt.Errorf("fakeplane: temp dir: %w", err)
		}
		dataDir = cp.tmpDir
	} else if err := cp.privateDir(dataDir); err != nil {
		return fmt.Errorf("fakeplane: data dir: %w", err)
	}

	// Without a data directory, the file is the control plane's alone and
	// removed at Stop: no sync, and commits in batches (store.Options).
	ephemeral := cp.opts.dataDir == ""
	storeOpts := store.Options{NoSync: ephemeral, DeferCommits: ephemeral, Logger: cp.opts.logger, EventLogSize: cp.opts.eventLogSize, IndexTerms: registry.StoredIndexTerms}
	if d := cp.opts.compaction; d != nil {
		storeOpts.CompactionInterval = *d
		if *d == 0 { // kube-apiserver's 0 disables compaction
			storeOpts.CompactionInterval = -1
		}
	}
	shared := len(cp.opts.etcdServers) > 0
	// The bbolt store opens on another core while the certificates are
	// made; it needs nothing of them.
	openBolt := func() error { return nil }
	if !shared {
		openBolt = inBackground(func() (err error) {
			cp.store, err = openBoltStore(filepath.Join(dataDir, dbFileName), storeOpts)
			return err
		})
	}
	// Before the deferred stop, which closes the store.
	defer openBolt()

	// As kube-apiserver completes its options: the longest
	// service-account token, then the signing key.
	if cp.saKey, err = auth.CompleteServiceAccountFlags(cp.opts.saMaxExpiration, cp.opts.saSigningKeyFile); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	if err := cp.loadOrCreatePKI(dataDir); err != nil {
		return err
	}
	if cp.egress, err = newEgress(&cp.opts); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	if shared {
		cp.feed = &eventFeed{}
		cp.store, err = openEtcdStore(ctx, &cp.opts, storeOpts, cp.feed.deliver)
	} else {
		err = openBolt()
	}
	if err != nil {
		return fmt.Errorf("fakeplane: open store: %w", err)
	}

	ln := cp.opts.listener
	if ln == nil {
		if ln, err = listen(ctx, cp.opts.listen, cp.opts.serving, cp.opts.logger); err != nil {
			return fmt.Errorf("fakeplane: listen: %w", err)
		}
	}
	cp.listener = ln
	addr := ln.Addr().(*net.TCPAddr)
	cp.url = "https://" + net.JoinHostPort(hostFor(addr.IP), strconv.Itoa(addr.Port))
	// The admin kubeconfig is encoded, and the serving certificate made,
	// on another core meanwhile: they are needed once the server serves.
	serving, certDir, err := cp.givenServingCertificate()
	if err != nil {
		return err
	}
	cp.servingTrustPEM = serving.trustPEM
	cp.loopbackServerName = ""
	if serving.fromFiles() {
		cp.loopbackServerName = loopbackServerName
	}
	var kubeconfig []byte
	encodeKubeconfig := inBackground(func() (err error) {
		kubeconfig, err = cp.kubeconfigBytes(AdminUser, cp.admin)
		return err
	})
	defer encodeKubeconfig()
	makeServingCert := inBackground(func() error {
		own, err := cp.ca.NewServingCert("kube-apiserver", servingHosts(), servingIPs(net.IP(registry.FirstServiceIP(cp.serviceRange).AsSlice()), addr.IP))
		if err == nil {
			serving.own, err = own.TLSCertificate()
		}
		if err != nil {
			return fmt.Errorf("fakeplane: serving certificate: %w", err)
		}
		if certDir != "" {
			return writeServingPair(certDir, append(append(own.CertPEM, '\n'), cp.ca.CertPEM...), own.KeyPEM)
		}
		return nil
	})
	defer makeServingCert()

	clientCAs, clientCAFile, err := cp.clientCASource()
	if err != nil {
		return err
	}
	cp.clientCAs = clientCAs
	rh := cp.requestHeader
	if err := auth.ValidateServiceAccountFlags(cp.opts.saIssuers, cp.opts.saJWKSURI); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	for _, w := range auth.ServiceAccountExpirationWarnings(!cp.opts.saNoExtendExpiration, cp.opts.saMaxExpiration) {
		cp.opts.logger.Warn(w)
	}
	var authnConfig *apiserverconfig.AuthenticationConfiguration
	var jwtSigningAlgs []string
	if f := cp.opts.oidc; f != nil {
		if cp.opts.authnConfigFile != "" {
			return errors.New("fakeplane: authentication-config file and oidc-* flags are mutually exclusive")
		}
		if authnConfig, err = f.AuthenticationConfiguration(); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		jwtSigningAlgs = f.SigningAlgs
		if len(jwtSigningAlgs) == 0 {
			jwtSigningAlgs = []string{"RS256"}
		}
	}
	if path := cp.opts.authnConfigFile; path != "" {
		if authnConfig, err = auth.LoadAuthenticationConfiguration(path); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		if authnConfig.Anonymous != nil && cp.opts.noAnonymous {
			return fmt.Errorf("fakeplane: %w", field.Forbidden(field.NewPath("anonymous"), "--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file"))
		}
	}
	authzOpts := auth.AuthorizationOptions{Modes: auth.SplitAuthorizationModes(cp.opts.authzMode), ConfigFile: cp.opts.authzConfigFile,
		LegacyFlagsSet: cp.opts.authzModeSet || cp.opts.authzWebhook != nil, PolicyFile: cp.opts.authzPolicyFile}
	if w := cp.opts.authzWebhook; w != nil {
		authzOpts.WebhookConfigFile, authzOpts.WebhookVersion = w.ConfigFile, w.Version
		authzOpts.WebhookCacheAuthorizedTTL, authzOpts.WebhookCacheUnauthorizedTTL = w.CacheAuthorizedTTL, w.CacheUnauthorizedTTL
	}
	authzConfig, err := authzOpts.Configuration()
	if err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	var tokenWebhook TokenWebhook
	if cp.opts.tokenWebhook != nil {
		tokenWebhook = *cp.opts.tokenWebhook
	}
	plugins, err := cp.opts.admissionPlugins()
	if err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	cp.admissionPlugins = plugins
	webhookDial, err := cp.authWebhookDialer(tokenWebhook.ConfigFile != "" || slices.ContainsFunc(authzConfig.Authorizers, func(a apiserverconfig.AuthorizerConfiguration) bool {
		return a.Type == apiserverconfig.TypeWebhook
	}) || plugins.Enabled(admission.ImagePolicyWebhookPluginName))
	if err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	var saVerifyKeys []crypto.PublicKey
	for _, f := range cp.opts.saKeyFiles {
		keys, err := keyutil.PublicKeysFromFile(f)
		if err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		for _, k := range keys {
			saVerifyKeys = append(saVerifyKeys, k)
		}
	}
	authCfg := server.AuthConfig{
		ServiceAccountKey:        cp.saKey,
		Authorization:            authzConfig,
		AuthorizationPolicyFile:  cp.opts.authzPolicyFile,
		WebhookDial:              webhookDial,
		TokenWebhookConfigFile:   tokenWebhook.ConfigFile,
		TokenWebhookVersion:      tokenWebhook.Version,
		TokenWebhookCacheTTL:     tokenWebhook.CacheTTL,
		ServiceAccountVerifyKeys: saVerifyKeys,
		Authentication:           authnConfig,
		JWTSigningAlgs:           jwtSigningAlgs,

		ServiceAccountIssuers:            cp.opts.saIssuers,
		APIAudiences:                     cp.opts.apiAudiences,
		ServiceAccountJWKSURI:            cp.opts.saJWKSURI,
		ServiceAccountMaxTokenExpiration: cp.opts.saMaxExpiration,
		ClientCA:                         clientCAs,
		Tokens:                           cp.opts.tokens,
		Anonymous:                        !cp.opts.noAnonymous,
		BootstrapTokenAuth:               cp.opts.bootstrapTokenAuth,

		RequestHeaderCA:                  rh.ca,
		RequestHeaderAllowedNames:        rh.allowedNames,
		RequestHeaderUsernameHeaders:     rh.usernameHeaders,
		RequestHeaderUIDHeaders:          rh.uidHeaders,
		RequestHeaderGroupHeaders:        rh.groupHeaders,
		RequestHeaderExtraHeaderPrefixes: rh.extraHeaderPrefixes,

		ServiceAccountDisableExtendedExpiration: cp.opts.saNoExtendExpiration,
		ServiceAccountNoLookup:                  cp.opts.saNoLookup,
	}
	kubeletClient, err := cp.kubeletClientConfig()
	if err != nil {
		return err
	}
	// The proxy subresources present the front-proxy client certificate,
	// as kube-apiserver's proxy transport does.
	var proxyCert *tls.Certificate
	if !cp.proxyClient.IsZero() {
		c, err := cp.proxyClient.TLSCertificate()
		if err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		proxyCert = &c
	}
	eventRateLimit, imagePolicy, err := cp.readAdmissionConfig(plugins, webhookDial)
	if err != nil {
		return err
	}
	if a := cp.opts.audit; a != nil {
		if cp.audit, err = cp.newAuditing(*a); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
	}
	// On etcd, the health checks read it as kube-apiserver's do.
	var etcdHealth, etcdReadiness func() error
	if probe, ok := cp.store.(interface{ Probe(context.Context) error }); ok {
		etcdHealth = etcdCheck(probe.Probe, cp.opts.etcdHealthTimeout, defaultEtcdHealthcheckTimeout)
		etcdReadiness = etcdCheck(probe.Probe, cp.opts.etcdReadyTimeout, defaultEtcdReadycheckTimeout)
	}
	cp.srv, err = server.New(server.Config{
		Audit:                  cp.audit.serverConfig(),
		PodSecurity:            cp.admissionConfig.PodSecurity,
		Kubelet:                kubeletClient,
		ProxyClientCertificate: proxyCert,
		Store:                  cp.store,
		Logger:                 cp.opts.logger,
		RootCAPEM:              cp.ca.CertPEM,
		ServerAddress:          externalAddress(cp.opts.externalHostname, cp.opts.advertiseAddress, ln.Addr().(*net.TCPAddr)),
		Auth:                   authCfg,
		Now:                    cp.opts.clock,

		ServiceClusterIPRange:    cp.serviceRange,
		ServiceNodePortRange:     cp.nodePorts,
		AdmissionPlugins:         plugins,
		PodNodeSelector:          cp.admissionConfig.PodNodeSelector,
		PodTolerationRestriction: cp.admissionConfig.PodTolerationRestriction,
		TolerationSeconds:        cp.opts.tolerationSeconds,
		EventRateLimit:           eventRateLimit,
		ImagePolicyWebhook:       imagePolicy,
		// Without kube-controller-manager's resource quota controller,
		// quotas are kube-apiserver's alone (status-driven).
		NoResourceQuotaController: !cp.opts.runs(controllers.ResourceQuotaName),
		DisallowPrivileged:        cp.opts.disallowPrivileged,
		NoGarbageCollection:       cp.opts.noGC,
		MaxConnectionBytesPerSec:  cp.opts.maxConnectionBytesPerSec,
		EnableLogsHandler:         cp.opts.logsHandler,
		PrivateCreateMemo:         cp.opts.privateCreateMemo,
		SharedStore:               shared,
		DialCluster:               cp.egress.cluster,
		Limits:                    cp.opts.limits,
		Flags:                     cp.opts.flags,
		Headers:                   cp.opts.headers,
		NoProfiling:               cp.opts.noProfiling,
		Metrics:                   cp.metrics,
		TracerProvider:            cp.tracer, // nil (no spans) without a tracing configuration
		Version:                   cp.opts.version(),
		NoPriorityAndFairness:     cp.opts.noAPF,
		EtcdHealth:                etcdHealth,
		EtcdReadiness:             etcdReadiness,
		GracefulShutdown:          cp.opts.shutdown.graceful(),
		ShutdownSendRetryAfter:    cp.opts.shutdown.SendRetryAfter,
	})
	if err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	// CRD conversion webhooks are called as kube-apiserver calls them,
	// through the egress selections.
	cp.srv.SetWebhookAuthenticationInfoResolverWrapper(cp.egress.webhookWrapper(cp))
	// The garbage collector's owner index follows every commit from the
	// first (the bootstrap objects') on; a store from an earlier run is
	// indexed first.
	owners := controllers.NewOwners(cp.srv.Registry)
	if err := owners.Load(); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	cp.srv.AddCommitObserver(owners.Observe)
	// The aggregator's routing follows APIServices from their commit on.
	cp.proxy = aggregator.NewProxy(cp.srv.ServiceResolver(), cp.proxyClient, cp.opts.logger.With("component", "aggregator"))
	cp.proxy.SetDialer(cp.egress.cluster)
	cp.proxy.SetRejectForwardingRedirects(!cp.opts.forwardRedirects)
	if err := cp.proxy.Load(cp.store); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	cp.srv.AddCommitObserver(cp.proxy.Observe)
	// Events expire --event-ttl after their last write.
	var events *registry.EventExpiry
	if ttl := cp.opts.eventTTL(); ttl > 0 {
		if events, err = registry.NewEventExpiry(cp.srv.Registry, ttl, cp.opts.now()); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		if err := events.Load(); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		cp.srv.AddCommitObserver(events.Observe)
	}
	cp.srv.SetAggregator(cp.proxy)
	if err := cp.setUpAdmission(); err != nil {
		return err
	}
	if cp.feed != nil {
		// Every view is loaded and observed: from here on they follow
		// every process's commits (those since the store opened first).
		cp.feed.start(cp.srv.Registry.ObserveStoreEvent)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	cp.cancel = cancel

	// The controllers start once the bootstrap objects and fixtures are
	// in, so that their first sync sees all of them at once.
	ctrlCfg := controllers.Config{
		Registry:            cp.srv.API(),
		NamespacedResources: cp.srv.NamespacedResources,
		Owners:              owners,
		RootCA:              cp.ca.CertPEM,
		Log:                 cp.opts.logger,
		Now:                 cp.opts.clock,
		Controllers:         cp.opts.selection(),
		KindResources:       kindResources(cp.srv.Registry),
		LegacyToken:         legacyTokens(cp.srv),
		HPASyncPeriod:       cp.opts.hpaSyncPeriod,
		// As kubeadm's kube-controller-manager, the signer signs with the
		// cluster CA, so a kube-apiserver-client certificate it issues
		// authenticates its user here.
		CSRSigningCA:             &controllers.CSRSigningCA{Cert: cp.ca.Cert, Key: cp.ca.Key},
		CSRSigningDuration:       cp.opts.csrSigningDuration,
		Authorizer:               cp.srv.Authorizer(),
		LegacyTokenCleanUpPeriod: cp.opts.legacyTokenCleanUpPeriod,
		NoPriorityAndFairness:    cp.opts.noAPF,
	}
	ctrls := controllers.Default(ctrlCfg)
	if shared {
		// kube-controller-manager's run in the holder of its Lease, once
		// the server serves (startElectedControllers).
		ctrls = slices.DeleteFunc(ctrls, func(c controllers.Controller) bool { return !isAPIServerController(c.Name()) })
	}
	authTrust := aggregator.NewClusterAuthenticationTrust(cp.srv.API(), aggregator.AuthenticationInfo{
		ClientCA:                         clientCAs.Bundle().PEM,
		RequestHeaderCA:                  rh.pem(),
		RequestHeaderAllowedNames:        rh.allowedNames,
		RequestHeaderUsernameHeaders:     rh.usernameHeaders,
		RequestHeaderUIDHeaders:          rh.uidHeaders,
		RequestHeaderGroupHeaders:        rh.groupHeaders,
		RequestHeaderExtraHeaderPrefixes: rh.extraHeaderPrefixes,
	}, cp.opts.logger.With("controller", "cluster-authentication-trust-controller"))
	if cp.opts.authTrustResync > 0 {
		authTrust.Resync = cp.opts.authTrustResync
	}
	// A CA file read again is published as kube-apiserver publishes it.
	publishCAs := func() { authTrust.SetCABundles(clientCAs.Bundle().PEM, rh.pem()) }
	for _, f := range []*cafile.File{clientCAFile, rh.file} {
		if f != nil {
			f.OnChange(publishCAs)
		}
	}
	cp.followCAFiles(runCtx, clientCAFile, rh.file)
	if events != nil {
		cp.eventExpiry.start(eventExpiryInterval, func(ctx context.Context) error {
			_, err := events.Expire(ctx)
			return err
		}, cp.opts.logger, "expiring events")
	}
	available := aggregator.NewAvailableConditionController(cp.srv.API(), cp.proxy, cp.opts.logger.With("controller", "apiservice-available-condition-controller"))
	if cp.opts.apiServiceCheckInterval > 0 {
		available.Interval = cp.opts.apiServiceCheckInterval
	}
	if cp.opts.clock != nil {
		available.Now = cp.opts.clock
	}
	ctrls = append(ctrls,
		aggregator.NewCRDAutoRegistration(cp.srv.API(), cp.opts.logger.With("controller", "crd-autoregister")),
		authTrust, available)
	// A fresh cluster's namespaces have their default ServiceAccount and
	// kube-root-ca.crt, and kube-system its extension-apiserver-authentication,
	// by the time a client can use it: Start returns once those controllers
	// acted on what is present at start (later namespaces get theirs a
	// moment after they are created, as on a cluster). With the embedded
	// store, their first sync runs inside the bootstrap transaction, their
	// writes committed with it.
	// (kube-apiserver's own status writers of the bootstrap FlowSchemas and
	// the default ServiceCIDR have nothing to write at start: those objects
	// are created with the statuses they apply, see bootstrapPrecomputed.)
	awaited := []string{"serviceaccount-controller", "root-ca-certificate-publisher-controller", authTrust.Name()}
	var first, rest []controllers.Controller
	for _, c := range ctrls {
		if slices.Contains(awaited, c.Name()) {
			first = append(first, c)
		} else {
			rest = append(rest, c)
		}
	}
	identity, err := newIdentityLease(cp.srv.API(), peerAddress(cp.opts.advertiseAddress, addr), cp.opts.clock,
		cp.opts.logger.With("controller", "kube-apiserver-identity-lease"))
	if err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	var endpoints *kubernetesEndpoints
	if cp.opts.endpointReconciler != EndpointReconcilerNone {
		if ip := advertiseAddress(cp.opts.advertiseAddress, addr.IP); ip != nil {
			endpoints = &kubernetesEndpoints{reg: cp.srv.API(), ip: ip, port: int32(addr.Port), log: cp.opts.logger.With("controller", "kubernetes-service-endpoints")}
		}
	}
	synced, err := cp.bootstrap(runCtx, addr.Port, shared, first, identity, endpoints)
	if err != nil {
		return err
	}
	fixtured, err := cp.loadFixtures()
	if err != nil {
		return err
	}
	if err := cp.installWebhooks(dataDir); err != nil {
		return err
	}
	if shared || fixtured {
		// The fixtures, or other processes sharing the store, may have
		// made namespaces the bootstrap transaction did not see: those
		// controllers act on them before Start returns, and the others
		// start once they have, so as not to compete with them.
		cp.controllers = controllers.Start(runCtx, cp.store, cp.opts.logger, first...)
		if err := cp.controllers.WaitForFirstSync(ctx, awaited...); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		cp.controllers.Add(rest...)
	} else {
		// Their first sync ran in the bootstrap transaction: they are fed
		// the changes since.
		cp.controllers = controllers.Start(runCtx, cp.store, cp.opts.logger, append(synced, rest...)...)
	}

	if err := makeServingCert(); err != nil {
		return err
	}
	tlsConfig, err := serving.tlsConfig(cp.tls, servingClientCAs(clientCAs, rh.ca), cp.opts.logger)
	if err != nil {
		return err
	}
	var handler http.Handler = cp.srv
	if !cp.opts.runs(controllers.NodeLifecycleName) {
		// Without kube-controller-manager's node lifecycle controller,
		// the node strategy does not stand in for it: nodes keep the
		// taints their writers give them.
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			cp.srv.ServeHTTP(w, r.WithContext(node.WithoutLifecycleController(r.Context())))
		})
	}
	cp.httpServer = &http.Server{
		Handler:   handler,
		ErrorLog:  log.New(io.Discard, "", 0),
		TLSConfig: tlsConfig,
	}
	if err := configureHTTP(cp.httpServer, cp.opts.serving); err != nil {
		return err
	}
	cp.serveDone = make(chan struct{})
	go func() {
		defer close(cp.serveDone)
		if err := cp.httpServer.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cp.opts.logger.Error("fakeplane: serve", "err", err)
		}
	}()
	if path := cp.opts.debugSocketPath; path != "" {
		// As kube-apiserver's, a socket that cannot be served is logged
		// and the server serves on.
		if cp.debugSocket, err = startDebugSocket(path); err != nil {
			cp.opts.logger.Error("fakeplane: debug socket", "err", err)
		}
	}

	// The admission plugins read through the loopback client, so they are
	// installed once the server serves; they start with the first
	// admission configuration.
	cp.srv.SetAdmission(cp.admission)
	cp.admission.Serving()
	cp.identity = identity
	renew := identityLeaseRenewInterval
	if cp.opts.identityLeaseRenew > 0 {
		renew = cp.opts.identityLeaseRenew
	}
	identity.start(renew)
	if endpoints != nil && !shared {
		// Servers sharing a store would take turns: each keeps its own
		// port there only as it starts.
		cp.endpoints = endpoints
		endpoints.start(cmp.Or(cp.opts.kubernetesEndpointsInterval, kubernetesEndpointsInterval))
	}

	cp.kubeconfigPath = cp.opts.kubeconfigPath
	if cp.kubeconfigPath == "" {
		cp.kubeconfigPath = filepath.Join(dataDir, "admin.kubeconfig")
	}
	if err := encodeKubeconfig(); err != nil {
		return err
	}
	if err := writeKubeconfigFile(cp.kubeconfigPath, kubeconfig); err != nil {
		return err
	}
	if cp.opts.dataDir != "" {
		// For `fakeplane kubeconfig`, which signs user certificates offline.
		if err := pki.WriteSecretFile(filepath.Join(dataDir, serverURLFile), []byte(cp.url)); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		trust := filepath.Join(dataDir, servingTrustFile)
		if cp.loopbackServerName != "" {
			err = os.WriteFile(trust, cp.servingTrustPEM, 0o644)
		} else if err = os.Remove(trust); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		if err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
	}
	if shared {
		if err := cp.startElectedControllers(ctx, ctrlCfg, awaited); err != nil {
			return err
		}
	}
	if err := cp.startNodesAndScheduler(ctx); err != nil {
		return err
	}
	cp.opts.logger.Info("fakeplane serving", "url", cp.url, "kubeconfig", cp.kubeconfigPath)
	return nil
}

// bootstrap writes the bootstrap objects and the identity Lease in one
// store transaction and, with the embedded store, runs the first sync of
// the controllers first (those that give namespaces their default objects)
// in it, so that their writes commit with it. It returns those controllers
// as SyncOnce returns them, to run once nothing else was written meanwhile
// (nil with a shared store).
func (cp *ControlPlane) bootstrap(runCtx context.Context, port int, shared bool, first []controllers.Controller, identity *identityLease, endpoints *kubernetesEndpoints) ([]controllers.Controller, error) {
	boot, err := fixtures.Bootstrap(port, cp.serviceRange, cp.opts.kubernetesNodePort)
	if err != nil {
		return nil, fmt.Errorf("fakeplane: bootstrap: %w", err)
	}
	// kube-apiserver's legacy token tracking controller records the day it
	// started tracking legacy service account tokens.
	now := cp.opts.now()
	boot = append(boot, legacyTokenTracking(now()))
	// kube-controller-manager's client builder creates the account of
	// each controller it starts (with --use-service-account-credentials);
	// here they come with the bootstrap, not in writes after a start.
	boot = append(boot, controllerAccountDocs(cp.opts.selection())...)
	if cp.opts.nodes > 0 {
		// A cluster with nodes has a default StorageClass, as kind's has.
		sc, err := fixtures.StandardStorageClass()
		if err != nil {
			return nil, fmt.Errorf("fakeplane: bootstrap: %w", err)
		}
		boot = append(boot, sc)
	}
	// One transaction for all of them: a commit each would take most of
	// Start's time.
	pre, err := bootstrapPrecomputed()
	if err != nil {
		return nil, fmt.Errorf("fakeplane: bootstrap: %w", err)
	}
	if cp.opts.noPresetStatuses || cp.opts.noCreateSeeds {
		p := *pre
		if cp.opts.noPresetStatuses {
			p.Statuses = nil
		}
		if cp.opts.noCreateSeeds {
			p.Seeds = nil
		}
		pre = &p
	}
	if !shared && cp.opts.runs(controllers.ClusterTrustBundlePublisherName) {
		// The bundle kube-controller-manager's publisher publishes at
		// once, created as it creates it: no write of its after a start.
		b := controllers.KubeAPIServerServingBundle(cp.ca.CertPEM)
		doc, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("fakeplane: bootstrap: %w", err)
		}
		boot = append(boot, doc)
		p := *pre
		p.Fields = maps.Clone(p.Fields)
		p.Fields["certificates.k8s.io/v1/ClusterTrustBundle//"+b.Name] = []metav1.ManagedFieldsEntry{{
			Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "certificates.k8s.io/v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:signerName":{},"f:trustBundle":{}}}`)},
		}}
		pre = &p
	}
	if cp.opts.noAPF && pre.Statuses != nil {
		// No priority and fairness: no config consumer writes the
		// FlowSchemas' Dangling condition.
		p := *pre
		p.Statuses = maps.Clone(p.Statuses)
		maps.DeleteFunc(p.Statuses, func(key string, _ registry.PresetStatus) bool {
			return strings.HasPrefix(key, "flowcontrol.apiserver.k8s.io/v1/FlowSchema/")
		})
		pre = &p
	}
	if cp.opts.kubernetesNodePort > 0 {
		// The precomputed managedFields are the ClusterIP Service's: the
		// NodePort one's are tracked as its create records them.
		p := *pre
		p.Fields = maps.Clone(p.Fields)
		delete(p.Fields, kubernetesServiceKey)
		pre = &p
	}
	if !cp.opts.noPresetStatuses && cp.opts.runs(controllers.ServiceCIDRName) {
		p := *pre
		p.Statuses = maps.Clone(p.Statuses)
		p.Statuses[defaultServiceCIDRKey] = kcmDefaultServiceCIDR
		pre = &p
	}
	// Another core decodes the built-in types' merge schema meanwhile,
	// which the controllers' first writes need.
	warmed := inBackground(func() error {
		registry.WarmTypeConverter()
		return nil
	})
	var synced []controllers.Controller
	err = cp.store.Bulk(func() error {
		if err := cp.srv.CreateAll(boot, pre); err != nil {
			return err
		}
		if err := identity.ensure(runCtx); err != nil {
			return err
		}
		if endpoints != nil {
			if err := endpoints.ensure(runCtx); err != nil {
				return err
			}
		}
		if shared {
			return nil
		}
		for _, c := range first {
			c, err := controllers.SyncOnce(runCtx, cp.store, c)
			if err != nil {
				return err
			}
			synced = append(synced, c)
		}
		return nil
	})
	_ = warmed()
	if err != nil {
		return nil, fmt.Errorf("fakeplane: bootstrap: %w", err)
	}
	return synced, nil
}

// bootstrapPrecomputed is what is known beforehand of the bootstrap
// objects' creates: their managedFields, and the statuses kube-apiserver's
// own controllers apply to some of them at once (the FlowSchemas' and the
// default ServiceCIDR's, see controllers.FlowSchemaStatus and
// controllers.DefaultServiceCIDRStatus). Created with those, the objects
// need no write of those controllers after a start: their server-side
// applies would take a start several milliseconds. The caller may keep but
// not modify it.
var bootstrapPrecomputed = sync.OnceValues(func() (*registry.Precomputed, error) {
	fields, err := fixtures.BootstrapManagedFields()
	if err != nil {
		return nil, err
	}
	pre := &registry.Precomputed{Fields: fields}
	if err := json.Unmarshal(fixtures.BootstrapStatusesJSON(), &pre.Statuses); err != nil {
		return nil, fmt.Errorf("bootstrap/statuses.json: %w", err)
	}
	if pre.Seeds, err = registry.ParseCreateSeeds(fixtures.BootstrapCreateSeeds()); err != nil {
		return nil, fmt.Errorf("bootstrap/createseeds.bin: %w", err)
	}
	return pre, nil
})

// defaultServiceCIDRKey is the default ServiceCIDR's key in
// registry.Precomputed.
const defaultServiceCIDRKey = "networking.k8s.io/v1/ServiceCIDR//kubernetes"

// kcmDefaultServiceCIDR is the default ServiceCIDR's preset status when
// kube-controller-manager's service-cidr-controller runs: after
// kube-apiserver's Ready condition, that controller adds its finalizer and
// applies its own Ready condition with force (its message, a reason, a
// later time), which leaves kube-apiserver's entry the condition's status
// and type (as refplane's default ServiceCIDR has them). Created so, the
// default ServiceCIDR needs none of that controller's two writes after a
// start, about a millisecond of a start's CPU.
var kcmDefaultServiceCIDR = registry.PresetStatus{
	Status: json.RawMessage(`{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"` + registry.PresetTime +
		`","reason":"","message":"Kubernetes Service CIDR is ready"}]}`),
	Finalizers: []string{"networking.k8s.io/service-cidr-finalizer"},
	ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "kubernetes-service-cidr-controller", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "networking.k8s.io/v1",
			FieldsType: "FieldsV1", Subresource: "status",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}}}}}`)}},
		{Manager: "service-cidr-controller", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "networking.k8s.io/v1",
			FieldsType: "FieldsV1", Subresource: "status",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)}},
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "networking.k8s.io/v1",
			FieldsType: "FieldsV1",
			FieldsV1:   &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:finalizers":{".":{},"v:\"networking.k8s.io/service-cidr-finalizer\"":{}}}}`)}},
	},
}

// controllerAccountDocs are the documents of the kube-system
// ServiceAccounts of the controllers sel runs (see
// controllers.ControllerServiceAccountNames); the bootstrap's create seeds
// hold those of every controller.
func controllerAccountDocs(sel controllers.Selection) [][]byte {
	names := controllers.ControllerServiceAccountNames(sel)
	docs := make([][]byte, len(names))
	for i, name := range names {
		docs[i] = []byte(`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"` + name + `","namespace":"kube-system"}}`)
	}
	return docs
}

// legacyTokenTracking is the kube-system ConfigMap in which kube-apiserver
// records, as "since", the day (UTC) it began tracking legacy service
// account tokens.
func legacyTokenTracking(now time.Time) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kube-apiserver-legacy-service-account-token-tracking","namespace":"kube-system"},"data":{"since":"` +
		now.UTC().Format("2006-01-02") + `"}}`)
}

// inBackground runs fn in a goroutine of its own and returns a function
// that waits for fn to return and returns its error, each time it is
// called.
func inBackground(fn func() error) (wait func() error) {
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		err = fn()
	}()
	return func() error {
		<-done
		return err
	}
}

// kubeletAPIConfig is the simulated nodes' kubelet API configuration (nil
// with WithoutKubeletAPI): on WithKubeletAPIAddress's address (loopback by
// default), with a serving certificate of the cluster CA for that IP,
// 127.0.0.1 and localhost, requiring client certificates of the cluster
// CA, and the logs, exec, attach and port-forward of WithKubeletConfig and
// WithKubeletDebugConfig.
func (cp *ControlPlane) kubeletAPIConfig() (*kubelet.APIConfig, error) {
	if cp.opts.noKubeletAPI {
		return nil, nil
	}
	addr := cp.opts.kubeletAPIAddress
	if addr == "" {
		addr = kubelet.DefaultAPIAddress
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("fakeplane: kubelet API address: %w", err)
	}
	ips := []net.IP{net.IPv4(127, 0, 0, 1)}
	if ip := net.ParseIP(host); ip != nil && !ip.Equal(ips[0]) {
		ips = append(ips, ip)
	}
	kp, err := cp.ca.NewServingCert("kubelet", []string{"localhost"}, ips)
	if err != nil {
		return nil, fmt.Errorf("fakeplane: kubelet API certificate: %w", err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		return nil, fmt.Errorf("fakeplane: kubelet API certificate: %w", err)
	}
	debug, err := kubelet.LoadDebugConfig(cp.opts.kubeletConfigs...)
	if err != nil {
		return nil, fmt.Errorf("fakeplane: %w", err)
	}
	debug.Merge(cp.opts.kubeletDebug)
	return &kubelet.APIConfig{Address: addr, Certificate: cert, ClientCAs: cp.ca.Pool(), Debug: debug}, nil
}

// Kubelet returns the kubelet API of the simulated nodes (where tests
// append container logs), nil when no nodes are simulated, with
// WithoutKubeletAPI, or before Start.
func (cp *ControlPlane) Kubelet() *kubelet.APIServer {
	if cp.nodes == nil {
		return nil
	}
	return cp.nodes.API()
}

// KubeletClientUser and KubeletClientGroup name the certificate the
// server presents to kubelets, as kubeadm's apiserver-kubelet-client.
const (
	KubeletClientUser  = "kube-apiserver-kubelet-client"
	KubeletClientGroup = "kubeadm:cluster-admins"
)

// kubeletClientConfig is how the server reaches kubelets: with the
// certificate and CA of WithKubeletClientCertificate and
// WithKubeletCertificateAuthority, or else a client certificate of the
// cluster CA (which the simulated kubelets trust), signed on first use,
// and no verification of kubelets' certificates, as kube-apiserver without
// --kubelet-certificate-authority.
func (cp *ControlPlane) kubeletClientConfig() (server.KubeletClientConfig, error) {
	cfg := server.KubeletClientConfig{PreferredAddressTypes: cp.opts.kubeletAddressTypes, Port: cp.opts.kubeletPort}
	if cp.opts.kubeletClientCertFile != "" {
		cert, err := tls.LoadX509KeyPair(cp.opts.kubeletClientCertFile, cp.opts.kubeletClientKeyFile)
		if err != nil {
			return cfg, fmt.Errorf("fakeplane: kubelet client certificate: %w", err)
		}
		cfg.Certificate = &cert
	} else {
		// Signed when a kubelet first asks for it: a third of a
		// millisecond that most starts do not need.
		ca := cp.ca
		cfg.NewCertificate = sync.OnceValues(func() (*tls.Certificate, error) {
			kp, err := ca.NewClientCert(KubeletClientUser, KubeletClientGroup)
			if err != nil {
				return nil, fmt.Errorf("fakeplane: kubelet client certificate: %w", err)
			}
			cert, err := kp.TLSCertificate()
			if err != nil {
				return nil, fmt.Errorf("fakeplane: kubelet client certificate: %w", err)
			}
			return &cert, nil
		})
	}
	if f := cp.opts.kubeletCAFile; f != "" {
		pem, err := os.ReadFile(f)
		if err != nil {
			return cfg, fmt.Errorf("fakeplane: kubelet certificate authority: %w", err)
		}
		cfg.CAs = x509.NewCertPool()
		if !cfg.CAs.AppendCertsFromPEM(pem) {
			return cfg, fmt.Errorf("fakeplane: kubelet certificate authority %s: no certificates", f)
		}
	}
	return cfg, nil
}

// KubeSchedulerUser is the user the built-in scheduler authenticates as,
// the one the bootstrap ClusterRole system:kube-scheduler is bound to.
const KubeSchedulerUser = "system:kube-scheduler"

// startNodesAndScheduler starts the simulated nodes (WithNodes) and the
// built-in scheduler (WithScheduler) once the server answers, as clients of
// it: the nodes as the admin, the scheduler as system:kube-scheduler.
func (cp *ControlPlane) startNodesAndScheduler(ctx context.Context) error {
	if cp.opts.nodes > 0 || cp.opts.withScheduler {
		stages, err := kubelet.LoadStages(cp.opts.podStages...)
		if err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		api, err := cp.kubeletAPIConfig()
		if err != nil {
			return err
		}
		cp.nodes = kubelet.New(kubelet.Config{
			Client:              kubernetes.NewForConfigOrDie(cp.loopbackConfig()),
			Nodes:               cp.opts.nodes,
			RenewInterval:       cp.opts.nodeLeaseRenew,
			Now:                 cp.opts.clock,
			Log:                 cp.opts.logger.With("component", "kubelet"),
			DisablePodLifecycle: cp.opts.noPodLifecycle,
			WaitGracePeriod:     cp.opts.podGracePeriods,
			Stages:              stages,
			API:                 api,
		})
		if err := cp.nodes.Start(ctx); err != nil {
			cp.nodes = nil
			return fmt.Errorf("fakeplane: %w", err)
		}
	}
	if !cp.opts.withScheduler {
		return nil
	}
	cfg := cp.opts.schedulerConfig
	var err error
	switch {
	case cp.opts.schedulerConfigFile != "":
		if cfg, err = scheduler.LoadConfigFile(cp.opts.schedulerConfigFile); err != nil {
			return fmt.Errorf("fakeplane: scheduler config: %w", err)
		}
	case cfg == nil:
		cfg = &scheduler.Configuration{}
		cfg.ClientConnection.QPS = -1
		if err = scheduler.Complete(cfg); err != nil {
			return fmt.Errorf("fakeplane: scheduler config: %w", err)
		}
	case cfg.Parallelism == nil: // built by hand: complete a copy
		cfg = cfg.DeepCopy()
		if err = scheduler.Complete(cfg); err != nil {
			return fmt.Errorf("fakeplane: scheduler config: %w", err)
		}
	}
	kp, err := cp.ca.NewClientCert(KubeSchedulerUser)
	if err != nil {
		return fmt.Errorf("fakeplane: scheduler certificate: %w", err)
	}
	rc := cp.configFor(kp)
	rc.QPS, rc.Burst = cfg.ClientConnection.QPS, int(cfg.ClientConnection.Burst)
	rc.ContentType = cfg.ClientConnection.ContentType
	rc.UserAgent = "kube-scheduler/" + kubelet.KubeletVersion + " (fakeplane)"
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("fakeplane: scheduler client: %w", err)
	}
	sched, err := scheduler.New(client, cfg, scheduler.Options{Log: cp.opts.logger.With("component", "kube-scheduler")})
	if err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	if err := sched.Start(ctx); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	cp.scheduler = sched
	return nil
}

// hostFor is the host clients should dial for a listener address.
func hostFor(ip net.IP) string {
	if ip == nil || ip.IsUnspecified() {
		return "127.0.0.1"
	}
	return ip.String()
}

// loadOrCreatePKI reuses the CA kept in a data directory (so kubeconfigs
// survive restarts) or makes a new one.
func (cp *ControlPlane) loadOrCreatePKI(dataDir string) (err error) {
	pkiDir := filepath.Join(dataDir, "pki")
	// The front proxy's CA and certificate are made on another core
	// meanwhile: they are independent of the cluster CA.
	frontProxy := inBackground(func() error { return cp.setUpFrontProxy(pkiDir) })
	defer func() {
		if fpErr := frontProxy(); err == nil {
			err = fpErr
		}
	}()
	ca, err := pki.LoadCA(pkiDir)
	switch {
	case err == nil:
		cp.ca = ca
	case errors.Is(err, fs.ErrNotExist):
		if cp.ca, err = pki.NewCA("fakeplane-ca"); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
		if cp.opts.dataDir != "" {
			if err := cp.privateDir(pkiDir); err != nil {
				return fmt.Errorf("fakeplane: pki dir: %w", err)
			}
			if err := cp.ca.Save(pkiDir); err != nil {
				return fmt.Errorf("fakeplane: %w", err)
			}
		}
	default:
		return fmt.Errorf("fakeplane: load CA: %w", err)
	}
	switch {
	case cp.saKey != nil:
		// WithServiceAccountSigningKeyFile's, read as Start began.
	case cp.opts.dataDir != "":
		// The tokens issued before a restart verify after it.
		if cp.saKey, err = pki.LoadOrCreateServiceAccountKey(pkiDir); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
	}
	if cp.admin, err = cp.ca.NewClientCert(AdminUser, AdminGroup); err != nil {
		return fmt.Errorf("fakeplane: admin certificate: %w", err)
	}
	return nil
}

// requestHeaderConfig is the effective request-header authentication
// (--requestheader-*): ca verifies the front proxy's certificate (its PEM
// is published, and may be empty), the lists are as used.
type requestHeaderConfig struct {
	ca cafile.Source
	// file is ca when it is a file to follow.
	file                *cafile.File
	allowedNames        []string
	usernameHeaders     []string
	uidHeaders          []string
	groupHeaders        []string
	extraHeaderPrefixes []string
}

// pem is the request-header CA bundle as PEM now: empty when there is none,
// or when it was given as a pool alone.
func (rh requestHeaderConfig) pem() []byte {
	if rh.ca == nil {
		return nil
	}
	return rh.ca.Bundle().PEM
}

// setUpFrontProxy settles the request-header authentication and the
// front-proxy client certificate: the user's (WithRequestHeader,
// WithProxyClientCert), or, given neither, kubeadm's set-up with a
// front-proxy CA of the control plane's own, kept in pkiDir with a data
// directory, and a client certificate front-proxy-client it signs; in
// envtest's shape, given neither, none (as envtest's kube-apiserver).
func (cp *ControlPlane) setUpFrontProxy(pkiDir string) error {
	if pc := cp.opts.proxyClient; pc != nil {
		cp.proxyClient = aggregator.ProxyClientCert{CertPEM: pc.certPEM, KeyPEM: pc.keyPEM}
		if _, err := cp.proxyClient.TLSCertificate(); err != nil {
			return fmt.Errorf("fakeplane: %w", err)
		}
	}
	if rh := cp.opts.requestHeader; rh != nil {
		ca, file, err := requestHeaderSource(rh, cp.opts.logger)
		if err != nil {
			return err
		}
		cfg := requestHeaderConfig{
			ca:                  ca,
			file:                file,
			allowedNames:        rh.AllowedNames,
			usernameHeaders:     orDefault(rh.UsernameHeaders, frontProxyUsernameHeader),
			uidHeaders:          rh.UIDHeaders,
			groupHeaders:        orDefault(rh.GroupHeaders, frontProxyGroupHeader),
			extraHeaderPrefixes: orDefault(rh.ExtraHeaderPrefixes, frontProxyExtraHeadersPrefix),
		}
		if len(cfg.uidHeaders) > 0 && !slices.ContainsFunc(cfg.uidHeaders, func(h string) bool { return strings.EqualFold(h, frontProxyUIDHeader) }) {
			return errors.New("fakeplane: --requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work")
		}
		cp.requestHeader = cfg
		return nil
	}
	if cp.opts.proxyClient != nil {
		return nil
	}
	if cp.opts.envtestShape {
		// envtest starts kube-apiserver without a front proxy: no
		// request-header authentication, no proxy client certificate.
		return nil
	}
	ca, err := pki.LoadCAAs(pkiDir, pki.FrontProxyCAName)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		if ca, err = pki.NewCA(pki.FrontProxyCAName); err != nil {
			return fmt.Errorf("fakeplane: front-proxy CA: %w", err)
		}
		if cp.opts.dataDir != "" {
			if err := cp.privateDir(pkiDir); err != nil {
				return fmt.Errorf("fakeplane: pki dir: %w", err)
			}
			if err := ca.SaveAs(pkiDir, pki.FrontProxyCAName); err != nil {
				return fmt.Errorf("fakeplane: front-proxy CA: %w", err)
			}
		}
	default:
		return fmt.Errorf("fakeplane: load front-proxy CA: %w", err)
	}
	client, err := ca.NewClientCert(FrontProxyClientName)
	if err != nil {
		return fmt.Errorf("fakeplane: front-proxy client certificate: %w", err)
	}
	cp.proxyClient = aggregator.ProxyClientCert{CertPEM: client.CertPEM, KeyPEM: client.KeyPEM}
	bundle, err := cafile.Parse(requestHeaderPurpose, ca.CertPEM)
	if err != nil {
		return fmt.Errorf("fakeplane: front-proxy CA: %w", err)
	}
	cp.requestHeader = requestHeaderConfig{
		ca:                  cafile.Static(bundle),
		allowedNames:        []string{FrontProxyClientName},
		usernameHeaders:     []string{frontProxyUsernameHeader},
		groupHeaders:        []string{frontProxyGroupHeader},
		extraHeaderPrefixes: []string{frontProxyExtraHeadersPrefix},
	}
	return nil
}

// orDefault is v, or def alone when v is empty.
func orDefault(v []string, def string) []string {
	if len(v) > 0 {
		return v
	}
	return []string{def}
}

// ProxyClientCert returns the client certificate and key (PEM) that the
// aggregator presents to every extension API server it proxies to
// (kube-apiserver's --proxy-client-cert-file and --proxy-client-key-file):
// the front-proxy-client certificate the control plane's own front-proxy
// CA signed, or the one WithProxyClientCert gave. Both are nil when there
// is none (WithRequestHeader without WithProxyClientCert). Extension API
// servers verify it with the request-header CA of the ConfigMap
// kube-system/extension-apiserver-authentication; a client presenting it
// to the control plane may name a user in X-Remote-User, X-Remote-Group
// and X-Remote-Extra-* headers. Call it after Start.
func (cp *ControlPlane) ProxyClientCert() (certPEM, keyPEM []byte) {
	if cp.proxyClient.IsZero() {
		return nil, nil
	}
	return slices.Clone(cp.proxyClient.CertPEM), slices.Clone(cp.proxyClient.KeyPEM)
}

// writeKubeconfig writes a kubeconfig for a user's client certificate.
func (cp *ControlPlane) writeKubeconfig(path, user string, kp pki.KeyPair) error {
	b, err := cp.kubeconfigBytes(user, kp)
	if err != nil {
		return err
	}
	return writeKubeconfigFile(path, b)
}

// kubeconfigBytes encodes the kubeconfig of user, with the client
// certificate kp, for this control plane.
func (cp *ControlPlane) kubeconfigBytes(user string, kp pki.KeyPair) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["fakeplane"] = &clientcmdapi.Cluster{Server: cp.url, CertificateAuthorityData: cp.servingTrustPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: kp.CertPEM, ClientKeyData: kp.KeyPEM}
	cfg.Contexts["fakeplane"] = &clientcmdapi.Context{Cluster: "fakeplane", AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = "fakeplane"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("fakeplane: write kubeconfig: %w", err)
	}
	return b, nil
}

// writeKubeconfigFile writes an encoded kubeconfig to path.
func writeKubeconfigFile(path string, b []byte) error {
	// As clientcmd.WriteToFile, but a kubeconfig already there is made
	// 0600 too: it is about to hold a private key.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("fakeplane: write kubeconfig: %w", err)
	}
	if err := pki.WriteSecretFile(path, b); err != nil {
		return fmt.Errorf("fakeplane: write kubeconfig: %w", err)
	}
	return nil
}

// privateDir makes dir 0700, or, when it exists with a looser mode, keeps
// it and warns, as etcd does with its data directory (the keys and
// kubeconfigs written in it are 0600 whatever the directory's mode).
func (cp *ControlPlane) privateDir(dir string) error {
	loose, err := pki.MakePrivateDir(dir)
	if err != nil {
		return err
	}
	if loose {
		if fi, err := os.Stat(dir); err == nil {
			cp.opts.logger.Warn("check file permission: directory exists, but its permission is looser than recommended to prevent possible unprivileged access to the data",
				"directory", dir, "permission", fi.Mode().Perm().String(), "recommended", pki.PrivateDirMode.String())
		}
	}
	return nil
}

// Stop stops serving, ends open watches, closes the store and removes the
// temporary data directory (a --data-dir is kept). It is safe to call more
// than once.
func (cp *ControlPlane) Stop() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.stopLocked()
}

func (cp *ControlPlane) stopLocked() error {
	if cp.stopped {
		return nil
	}
	cp.stopped = true
	var errs []error
	cp.shutDownGracefully()
	cp.closeStoreIfGone()
	// The scheduler and the simulated nodes are clients: they stop while
	// the server still answers.
	if cp.scheduler != nil {
		cp.scheduler.Stop()
	}
	if cp.nodes != nil {
		cp.nodes.Stop()
	}
	if cp.controllerElector != nil {
		cp.controllerElector.stop()
	}
	if cp.endpoints != nil {
		cp.endpoints.close()
	}
	if cp.identity != nil {
		cp.identity.close()
	}
	cp.eventExpiry.close()
	if cp.controllers != nil {
		cp.controllers.Stop()
	}
	if cp.admission != nil {
		cp.admission.Stop()
	}
	if cp.srv != nil {
		cp.srv.Close()
	}
	if cp.cancel != nil {
		cp.cancel()
	}
	cp.debugSocket.close()
	cp.caFilesDone.Wait()
	if cp.httpServer != nil {
		// Close, not Shutdown: clients keep HTTP/2 connections open, and a
		// graceful drain would make every test wait for them.
		_ = cp.httpServer.Close()
		<-cp.serveDone
	} else if cp.listener != nil {
		_ = cp.listener.Close()
	}
	if cp.srv != nil {
		cp.srv.Drain() // http.Server.Close does not wait for its handlers
	}
	if cp.proxy != nil {
		cp.proxy.Close()
	}
	// No request is served any more: the audit backends write what they
	// hold, and the log file closes.
	if err := cp.audit.close(); err != nil {
		errs = append(errs, err)
	}
	cp.audit = nil
	if err := stopTracing(cp.tracer); err != nil {
		errs = append(errs, err)
	}
	cp.egress.close()
	if cp.authWebhookConns != nil {
		cp.authWebhookConns.closeAll()
	}
	if cp.store != nil {
		if err := cp.store.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if cp.tmpDir != "" {
		if err := os.RemoveAll(cp.tmpDir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// shutDownGracefully ends the serving as kube-apiserver does on SIGTERM
// with WithGracefulShutdown's flags: /readyz fails its shutdown check for
// the delay while requests are served, then the server stops listening
// (with SendRetryAfter, new requests are answered 429 instead) while the
// requests in flight are answered and, for the grace period, watches end.
// Without those flags it does nothing: Stop ends requests in flight.
func (cp *ControlPlane) shutDownGracefully() {
	g := cp.opts.shutdown
	if cp.srv == nil || !g.graceful() {
		return
	}
	cp.srv.InitiateShutdown()
	time.Sleep(g.DelayDuration)
	cp.srv.StopAcceptingRequests()
	if !g.SendRetryAfter && cp.listener != nil {
		// kube-apiserver's HTTP server stops listening once the delay
		// has passed (with SendRetryAfter, once the requests drained).
		_ = cp.listener.Close()
	}
	cp.srv.DrainRequests(g.WatchTerminationGracePeriod)
}

// closeStoreIfGone closes a store in etcd that does not answer a probe
// within a second, as Stop begins: the requests under way (the
// controllers', the leases') would otherwise each wait out their timeout
// before Stop could return. Closed, the store answers them at once.
func (cp *ControlPlane) closeStoreIfGone() {
	p, ok := cp.store.(interface{ Probe(context.Context) error })
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.Probe(ctx); err != nil {
		cp.opts.logger.Warn("etcd does not answer: its store is closed first", "error", err)
		_ = cp.store.Close()
	}
}

// URL is the server's base URL, e.g. https://127.0.0.1:41234.
func (cp *ControlPlane) URL() string { return cp.url }

// KubeconfigPath is the admin kubeconfig's path.
func (cp *ControlPlane) KubeconfigPath() string { return cp.kubeconfigPath }

// RESTConfig returns a fresh client configuration for the admin user
// (system:masters).
func (cp *ControlPlane) RESTConfig() *rest.Config {
	return cp.userConfig(cp.admin)
}

// userConfig is a client configuration for a user outside the control
// plane, authenticated by kp: it trusts the serving certificate (the
// cluster CA, or WithSecureServing's files).
func (cp *ControlPlane) userConfig(kp pki.KeyPair) *rest.Config {
	return &rest.Config{
		Host: cp.url,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   cp.servingTrustPEM,
			CertData: kp.CertPEM,
			KeyData:  kp.KeyPEM,
		},
		QPS:   -1, // no client-side throttling against a local fake
		Burst: 0,
	}
}

// configFor is a client configuration for the control plane's own
// components (controllers, scheduler, admission plugins), authenticated
// by kp: it trusts the cluster CA and, when the server is given another
// certificate, asks for the one the CA signs by its server name.
func (cp *ControlPlane) configFor(kp pki.KeyPair) *rest.Config {
	cfg := cp.userConfig(kp)
	cfg.TLSClientConfig.CAData = cp.ca.CertPEM
	cfg.TLSClientConfig.ServerName = cp.loopbackServerName
	return cfg
}

// loopbackConfig is configFor the admin user.
func (cp *ControlPlane) loopbackConfig() *rest.Config { return cp.configFor(cp.admin) }

// AddUser returns a client configuration for a user with the given groups,
// authenticated by a client certificate the control plane's CA signs (CN
// is the user, O the groups). What the user may do is up to RBAC.
func (cp *ControlPlane) AddUser(name string, groups ...string) (*rest.Config, error) {
	kp, err := cp.ca.NewClientCert(name, groups...)
	if err != nil {
		return nil, fmt.Errorf("fakeplane: client certificate for %q: %w", name, err)
	}
	return cp.userConfig(kp), nil
}

// WriteKubeconfig writes a kubeconfig for a user with the given groups.
func (cp *ControlPlane) WriteKubeconfig(path, name string, groups ...string) error {
	kp, err := cp.ca.NewClientCert(name, groups...)
	if err != nil {
		return fmt.Errorf("fakeplane: client certificate for %q: %w", name, err)
	}
	return cp.writeKubeconfig(path, name, kp)
}

// ServiceAccountConfig returns a client configuration that authenticates as
// the ServiceAccount ns/name with a bound token valid for an hour (as a
// controller running in the cluster would). The ServiceAccount must exist.
func (cp *ControlPlane) ServiceAccountConfig(ns, name string) (*rest.Config, error) {
	cfg := cp.RESTConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	exp := int64(3600)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), name, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("fakeplane: token for service account %s/%s: %w", ns, name, err)
	}
	return &rest.Config{
		Host:            cp.url,
		TLSClientConfig: rest.TLSClientConfig{CAData: cp.servingTrustPEM},
		BearerToken:     tr.Status.Token,
		QPS:             -1,
	}, nil
}

// WriteUserKubeconfig writes a kubeconfig for a user of the control plane
// whose data directory is dataDir (it holds the CA and the server's URL).
// The kubeconfig trusts what the control plane's own does: the cluster CA,
// or the certificates of WithSecureServing's certificate file, which the
// control plane copies into dataDir.
func WriteUserKubeconfig(dataDir, path, userName string, groups ...string) error {
	ca, err := pki.LoadCA(filepath.Join(dataDir, "pki"))
	if err != nil {
		return fmt.Errorf("fakeplane: load CA from %s: %w", dataDir, err)
	}
	url, err := os.ReadFile(filepath.Join(dataDir, serverURLFile))
	if err != nil {
		return fmt.Errorf("fakeplane: server URL: %w", err)
	}
	kp, err := ca.NewClientCert(userName, groups...)
	if err != nil {
		return fmt.Errorf("fakeplane: client certificate for %q: %w", userName, err)
	}
	trust, err := os.ReadFile(filepath.Join(dataDir, servingTrustFile))
	if errors.Is(err, fs.ErrNotExist) {
		trust, err = ca.CertPEM, nil
	}
	if err != nil {
		return fmt.Errorf("fakeplane: serving certificate's trust: %w", err)
	}
	cp := &ControlPlane{ca: ca, url: string(url), servingTrustPEM: trust}
	return cp.writeKubeconfig(path, userName, kp)
}

// loadFixtures installs WithCRDs, WithFixtures and WithObjects, and reports
// whether there was any.
func (cp *ControlPlane) loadFixtures() (loaded bool, err error) {
	crdDocs, err := fixtures.LoadPaths(cp.opts.crdPaths...)
	if err != nil {
		return false, fmt.Errorf("fakeplane: %w", err)
	}
	var docs []fixtures.Doc
	for _, d := range crdDocs {
		if d.IsCRD() {
			docs = append(docs, d)
		}
	}
	more, err := fixtures.LoadPaths(cp.opts.fixturePaths...)
	if err != nil {
		return false, fmt.Errorf("fakeplane: %w", err)
	}
	docs = append(docs, more...)
	objects := cp.opts.objects
	for _, ext := range cp.opts.extensionServers {
		objs, err := ext.objects()
		if err != nil {
			return false, fmt.Errorf("fakeplane: %w", err)
		}
		objects = append(objects, objs...)
	}
	for i, obj := range objects {
		b, err := objectJSON(obj)
		if err != nil {
			return false, fmt.Errorf("fakeplane: WithObjects[%d]: %w", i, err)
		}
		var head struct{ Kind string }
		_ = json.Unmarshal(b, &head)
		docs = append(docs, fixtures.Doc{JSON: b, Source: fmt.Sprintf("WithObjects[%d]", i), Kind: head.Kind})
	}
	for _, d := range fixtures.Order(docs) {
		if err := cp.srv.Create(d.JSON); err != nil {
			return false, fmt.Errorf("fakeplane: %s: %w", d.Source, err)
		}
	}
	return len(docs) > 0, nil
}

// objectJSON encodes an object with its apiVersion and kind, taking them
// from client-go's scheme when the object does not carry them.
func objectJSON(obj runtime.Object) ([]byte, error) {
	if obj.GetObjectKind().GroupVersionKind().Kind == "" {
		gvks, _, err := clientgoscheme.Scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			return nil, fmt.Errorf("object of type %T has no apiVersion/kind: %v", obj, err)
		}
		obj = obj.DeepCopyObject()
		obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	}
	return json.Marshal(obj)
}

// kindResources resolves a kind of a group to the resources serving it,
// for the HorizontalPodAutoscaler controller's scale targets.
func kindResources(reg *registry.Registry) controllers.KindResourcesFunc {
	return func(gk schema.GroupKind) []schema.GroupVersionResource {
		var out []schema.GroupVersionResource
		for _, r := range reg.Resources().ForGroupKind(gk) {
			out = append(out, schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource.Resource})
		}
		return out
	}
}

// legacyTokens signs the tokens of service account token Secrets, for the
// token controller (nil: the server has no service account tokens).
func legacyTokens(srv *server.Server) controllers.LegacyTokenFunc {
	if t := srv.ServiceAccountTokens(); t != nil {
		return t.IssueLegacy
	}
	return nil
}

// authWebhookDialer is the dialer of the authentication and authorization
// webhooks, as kube-apiserver's: the "controlplane" egress selection's, or,
// without one, a direct dialer (when needed) whose connections close at
// Stop, so that none outlives the control plane.
func (cp *ControlPlane) authWebhookDialer(needed bool) (utilnet.DialFunc, error) {
	if !needed {
		return nil, nil
	}
	if cp.egress.selector != nil {
		d, err := cp.egress.selector.Lookup(egressselector.ControlPlane.AsNetworkContext())
		if err != nil || d != nil {
			return d, err
		}
	}
	cp.authWebhookConns = newOpenConns()
	direct := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return cp.authWebhookConns.track(direct.DialContext), nil
}

// readAdmissionConfig reads WithAdmissionControlConfigFile's file for the
// admission plugins that run (when there is one, or a plugin needs a
// configuration) into cp.admissionConfig, and builds the plugins that
// keep state: EventRateLimit's buckets and ImagePolicyWebhook's backend
// (dialed with dial), nil when they do not run.
func (cp *ControlPlane) readAdmissionConfig(plugins admission.Plugins, dial utilnet.DialFunc) (*admission.EventRateLimit, *admission.ImagePolicyWebhook, error) {
	path := cp.opts.admissionConfigFile
	needed := plugins.Enabled(admission.EventRateLimitPluginName) || plugins.Enabled(admission.ImagePolicyWebhookPluginName)
	if path == "" && !needed {
		return nil, nil, nil
	}
	ac, err := admission.ReadPluginConfig(path, plugins)
	if err != nil {
		if path != "" {
			return nil, nil, fmt.Errorf("fakeplane: admission-control-config-file: %w", err)
		}
		return nil, nil, fmt.Errorf("fakeplane: %w", err)
	}
	cp.admissionConfig = *ac
	var limit *admission.EventRateLimit
	if ac.EventRateLimit != nil {
		limit = admission.NewEventRateLimit(ac.EventRateLimit, cp.opts.clock)
	}
	var images *admission.ImagePolicyWebhook
	if ac.ImagePolicyWebhook != nil {
		if images, err = admission.NewImagePolicyWebhook(ac.ImagePolicyWebhook, cp.opts.clock, dial); err != nil {
			return nil, nil, fmt.Errorf("fakeplane: couldn't init admission plugin %q: %w", admission.ImagePolicyWebhookPluginName, err)
		}
	}
	return limit, images, nil
}
