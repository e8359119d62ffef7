// Command fakeplane serves a fake Kubernetes control plane on loopback and
// writes an admin kubeconfig for it.
//
//	go run ./cmd/fakeplane
//	export KUBECONFIG=$PWD/fakeplane.kubeconfig
//	kubectl get ns
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	pluginbuffered "k8s.io/apiserver/plugin/pkg/audit/buffered"
	plugintruncate "k8s.io/apiserver/plugin/pkg/audit/truncate"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/internal/startgc"
	"github.com/fakeplane/fakeplane/server"
	"github.com/fakeplane/fakeplane/store/etcdstore"
)

func main() {
	// The collector is off since startgc's initialisation (see there):
	// run turns it back on once the server serves, or when it starts no
	// server.
	os.Exit(exitCode(run(os.Args[1:]), os.Stderr))
}

// usageError is a mistake in the command line: exit status 2, as Go's flag
// package and most Unix tools give.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode reports err on stderr as one line and returns the exit status:
// 0 for success and --help, 2 for a usage error, 1 for anything else.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	msg := strings.TrimPrefix(err.Error(), "fakeplane: ")
	fmt.Fprintln(stderr, "fakeplane:", msg)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// kubeAPIServerName is the name under which the command runs as
// kube-apiserver alone.
const kubeAPIServerName = "kube-apiserver"

// usage is the command's help text, before its flags. It names the
// kube-apiserver release fakeplane answers as (its /version).
var usage = `Usage:
  fakeplane [flags]              serve a Kubernetes control plane on loopback and write an admin kubeconfig
  fakeplane kubeconfig [flags]   write a kubeconfig for another user of a fakeplane started with --data-dir

fakeplane answers as kube-apiserver ` + server.EmulatedGitVersion + `. Run 'fakeplane kubeconfig --help' for the subcommand's flags.
Run under the name kube-apiserver (a link in envtest's KUBEBUILDER_ASSETS), it is kube-apiserver alone
(--preset envtest) and writes its kubeconfig in its data directory unless --kubeconfig is given.

Flags:
`

// parseFlags parses args into fs. --help prints the usage (head, then the
// flags) on stdout and returns flag.ErrHelp; any other mistake, or an
// argument left over, is a usageError.
func parseFlags(fs *flag.FlagSet, head string, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(os.Stdout)
		fmt.Fprint(os.Stdout, head)
		fs.PrintDefaults()
		return err
	}
	if err != nil {
		return usageError{fmt.Errorf("%w (see --help)", err)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))}
	}
	return nil
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "kubeconfig" {
		startgc.Restore()
		return runKubeconfig(args[1:])
	}
	// Run as kube-apiserver (a link of that name, as envtest's
	// KUBEBUILDER_ASSETS hold), the command is kube-apiserver alone
	// (--preset envtest) and writes no kubeconfig but in its data
	// directory unless --kubeconfig says where.
	asAPIServer := filepath.Base(os.Args[0]) == kubeAPIServerName
	defaultPreset, defaultKubeconfig := "cluster", "fakeplane.kubeconfig"
	if asAPIServer {
		defaultPreset, defaultKubeconfig = "envtest", ""
	}
	fs := flag.NewFlagSet("fakeplane", flag.ContinueOnError)
	listen := fs.String("listen", fakeplane.DefaultListenAddress, "host:port to serve HTTPS on (port 0 lets the kernel pick); or --bind-address and --secure-port")
	kubeconfig := fs.String("kubeconfig", defaultKubeconfig, "where to write the admin kubeconfig (run as kube-apiserver: in the data directory unless given)")
	serving := servingFlags(fs)
	advertise := fs.String("advertise-address", "", "the IP address the kubernetes Service's Endpoints and EndpointSlice name, as kube-apiserver's (default: the host's default address when listening on loopback or every interface, else the one listened on)")
	// kube-apiserver's flags whose effect fakeplane has without them.
	fs.Duration("kubelet-timeout", 5*time.Second, "Timeout for kubelet operations: kube-apiserver v1.37 sets it and uses it nowhere, and so does fakeplane")
	fs.Int("delete-collection-workers", 1, "Number of workers spawned for DeleteCollection call, as kube-apiserver's: they change how fast a collection is deleted, not what a client sees of it")
	fs.String("peer-advertise-ip", "", "with --peer-ca-file, the IP peer kube-apiservers proxy to, for requests they cannot serve for version skew: fakeplanes all serve v1.37 and proxy nothing, so it is taken and not used (kube-apiserver v1.37's identity Lease does not name it either)")
	fs.String("peer-advertise-port", "", "with --peer-ca-file, the port peer kube-apiservers proxy to: taken and not used, as --peer-advertise-ip")
	fs.String("peer-ca-file", "", "the CA of peer kube-apiservers' serving certificates, for the proxying --peer-advertise-ip says: taken and not read, as fakeplanes proxy nothing to each other")
	cleLease := fs.Duration("coordinated-leadership-lease-duration", 15*time.Second, "The duration of the lease used for Coordinated Leader Election (with the CoordinatedLeaderElection feature gate, off in v1.37 and in fakeplane: checked as kube-apiserver checks it, not used)")
	cleRenew := fs.Duration("coordinated-leadership-renew-deadline", 10*time.Second, "The deadline for renewing a coordinated leader election lease (checked, not used)")
	cleRetry := fs.Duration("coordinated-leadership-retry-period", 2*time.Second, "The period for retrying to renew a coordinated leader election lease (checked, not used)")
	storageInitTimeout := fs.Duration("storage-initialization-timeout", time.Minute, "Maximum amount of time to wait for storage initialization before declaring apiserver ready, as kube-apiserver's: fakeplane's storage is initialized before it serves")
	fs.Int("lease-reuse-duration-seconds", 60, "The time in seconds that each lease is reused, as kube-apiserver's: an Event lives up to min(5% of --event-ttl, this) past its TTL there; fakeplane removes it at its TTL, within that window")
	var shutdown fakeplane.GracefulShutdown
	fs.DurationVar(&shutdown.DelayDuration, "shutdown-delay-duration", 0, "Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.")
	fs.BoolVar(&shutdown.SendRetryAfter, "shutdown-send-retry-after", false, "If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a 'Retry-After' response header, in addition 'Connection: close' response header is set in order to tear down the TCP connection when idle.")
	fs.DurationVar(&shutdown.WatchTerminationGracePeriod, "shutdown-watch-termination-grace-period", 0, "This option, if set, represents the maximum amount of grace period the apiserver will wait for active watch request(s) to drain during the graceful server shutdown window.")
	livezGrace := fs.Duration("livez-grace-period", 0, "the time /livez assumes unfinished post-start hooks will complete, as kube-apiserver's; fakeplane's have all completed when it serves, so /livez is as kube-apiserver's after the grace period")
	logging := loggingFlags(fs)
	compat := compatibilityFlags(fs)
	metrics := metricsFlags(fs)
	watchCache := watchCacheFlags(fs)
	deprecated := deprecatedFlagsOn(fs)
	tracingConfig := fs.String("tracing-config-file", "", "File with apiserver tracing configuration, as kube-apiserver's: a TracingConfiguration (apiserver.config.k8s.io) naming the OpenTelemetry collector the requests' spans are sent to over OTLP gRPC, and the sampling rate")
	fs.Bool("enable-aggregator-routing", false, "Turns on aggregator routing requests to endpoints IP rather than cluster IP, as kube-apiserver's: fakeplane has no service proxy behind cluster IPs, so it reaches an extension server at its Service's endpoints either way")
	externalHostname := fs.String("external-hostname", "", "The hostname to use when generating externalized URLs for this master (e.g. Swagger API Docs or OpenID Discovery): /api's serverAddressByClientCIDRs and the default jwks_uri (default: --advertise-address, else the address listened on)")
	endpointReconciler := fs.String("endpoint-reconciler-type", fakeplane.EndpointReconcilerLease, "lease (keep the kubernetes Service's endpoints), master-count (the same, for one server) or none, as kube-apiserver's")
	var featureGates multiFlag
	fs.Var(&featureGates, "feature-gates", "kube-apiserver's feature gates, comma-separated [kube:]Name=true|false (repeatable): v1.37's defaults are accepted; a gate set away from its default is refused, not built")
	var runtimeConfig multiFlag
	fs.Var(&runtimeConfig, "runtime-config", "kube-apiserver's API enablement, comma-separated key[=true|false] with keys api/all, api/ga, api/beta, api/alpha, v1, group/version, group/version/resource (repeatable): values that leave v1.37's default APIs served are accepted; turning a served version or resource on or off is refused, not built")
	allowPrivileged := fs.Bool("allow-privileged", true, "allow containers to request privileged mode, as kube-apiserver's; on by default, as kubeadm and envtest run it")
	dataDir := fs.String("data-dir", "", "keep state in this directory across restarts (default: a temporary directory removed at exit)")
	corsOrigins := fs.String("cors-allowed-origins", "", "regular expressions of the origins answered with CORS headers, comma-separated, as kube-apiserver's (each pinned to the host's start with ^ or // and end with $ or :)")
	hsts := fs.String("strict-transport-security-directives", "", "the directives of a Strict-Transport-Security header on every answer, comma-separated (max-age=N, includeSubDomains, preload), as kube-apiserver's")
	var showVersion versionFlag
	fs.Var(&showVersion, "version", "print the version fakeplane answers as and quit, as kube-apiserver's: --version (Kubernetes vX.Y.Z) or --version=raw (the version.Info)")
	var verbose verbosity
	fs.Var(&verbose, "v", "log requests' errors and controller messages to stderr: -v, or kube-apiserver's --v=N with N of 1 or more")
	authzMode := fs.String("authorization-mode", fakeplane.AuthorizationRBAC, "the authorizers, comma-separated, asked in order: RBAC, AlwaysAllow, AlwaysDeny, Webhook, Node, ABAC (exclusive with --authorization-config)")
	authzPolicy := fs.String("authorization-policy-file", "", "mode ABAC's policy file: a JSON policy a line (abac.authorization.kubernetes.io/v1beta1, or v0's unversioned lines)")
	var authzWebhook fakeplane.AuthorizationWebhookConfig
	fs.StringVar(&authzWebhook.ConfigFile, "authorization-webhook-config-file", "", "a kubeconfig naming the SubjectAccessReview webhook of mode Webhook, as kube-apiserver's")
	fs.StringVar(&authzWebhook.Version, "authorization-webhook-version", auth.DefaultAuthorizationWebhookVersion, "the SubjectAccessReview version sent to the webhook: v1beta1 or v1")
	authzAllowedTTL := fs.Duration("authorization-webhook-cache-authorized-ttl", auth.DefaultAuthorizationWebhookAuthorizedTTL, "how long the webhook's allowals are kept (0: not kept)")
	authzDeniedTTL := fs.Duration("authorization-webhook-cache-unauthorized-ttl", auth.DefaultAuthorizationWebhookUnauthorizedTTL, "how long the webhook's other answers are kept (0: not kept)")
	authzConfig := fs.String("authorization-config", "", "an AuthorizationConfiguration (apiserver.config.k8s.io/v1) file, as kube-apiserver's: the authorizers (RBAC, AlwaysAllow, AlwaysDeny, Webhook, Node, ABAC) in order; exclusive with --authorization-mode and --authorization-webhook-*; read once, at start")
	apf := fs.Bool("enable-priority-and-fairness", true, "classify requests by FlowSchema, as kube-apiserver's: X-Kubernetes-PF-* headers, FlowSchemas' Dangling condition (false: none; the health checks name the max-in-flight filter)")
	logsHandler := fs.Bool("enable-logs-handler", false, "If true, install a /logs handler for the apiserver logs: the host's /var/log, as kube-apiserver's")
	maxConnBytes := fs.Int64("max-connection-bytes-per-sec", 0, "If non-zero, throttle each user connection to this number of bytes/sec. Currently only applies to long-running requests (exec, attach, port-forward and the proxies' upgraded connections), as kube-apiserver's.")
	rejectRedirects := fs.Bool("aggregator-reject-forwarding-redirect", true, "Aggregator reject forwarding redirect response back to client: an extension API server's redirect is answered 502, as kube-apiserver's")
	gc := fs.Bool("enable-garbage-collector", true, "Enables the generic garbage collector, as kube-apiserver's and kube-controller-manager's flag: false adds no orphan or foregroundDeletion finalizer on delete (but to namespaces) and runs no garbage collector controller")
	debugSocket := fs.String("debug-socket-path", "", "Use an unprotected (no authn/authz) unix-domain socket for profiling with the given path: Go's profiles under /debug/pprof/ and klog's verbosity at /debug/flags/v, as kube-apiserver's")
	profiling := fs.Bool("profiling", true, "serve Go's profiles under /debug/pprof/ and klog's verbosity at /debug/flags/v, and let a DELETE reset /metrics, as kube-apiserver's")
	contentionProfiling := fs.Bool("contention-profiling", false, "with --profiling, record blocking events for /debug/pprof/block (runtime.SetBlockProfileRate(1))")
	bootstrapTokenAuth := fs.Bool("enable-bootstrap-token-auth", false, "authenticate bootstrap tokens (id.secret) by their Secrets of type bootstrap.kubernetes.io/token in kube-system, as kubeadm's clusters do")
	anonymous := fs.Bool("anonymous-auth", true, "treat requests without credentials as system:anonymous (false: answer 401)")
	admissionConfig := fs.String("admission-control-config-file", "", "an AdmissionConfiguration (apiserver.config.k8s.io/v1) file, as kube-apiserver's: PodSecurity's defaults and exemptions, the admission webhooks' kubeConfigFile")
	var enablePlugins, disablePlugins, admissionControl multiFlag
	fs.Var(&enablePlugins, "enable-admission-plugins", "admission plugins to run besides the default ones, comma-separated (repeatable; order does not matter)")
	fs.Var(&disablePlugins, "disable-admission-plugins", "default admission plugins not to run, comma-separated (repeatable)")
	fs.Var(&admissionControl, "admission-control", "the admission plugins to run, and no others, comma-separated (deprecated: use --enable-admission-plugins or --disable-admission-plugins)")
	notReadySeconds := fs.Int64("default-not-ready-toleration-seconds", 300, "the tolerationSeconds of the not-ready:NoExecute toleration DefaultTolerationSeconds adds to pods without one")
	unreachableSeconds := fs.Int64("default-unreachable-toleration-seconds", 300, "the tolerationSeconds of the unreachable:NoExecute toleration DefaultTolerationSeconds adds to pods without one")
	saSigningKey := fs.String("service-account-signing-key-file", "", "the PEM private key (RSA or ECDSA) that signs service-account tokens, as kube-apiserver's (default: one made at start, kept in --data-dir's pki/sa.key)")
	var saKeyFiles multiFlag
	fs.Var(&saKeyFiles, "service-account-key-file", "a PEM file of public (or private) keys that verify service-account tokens instead of the signing key alone (repeatable)")
	var saIssuers multiFlag
	fs.Var(&saIssuers, "service-account-issuer", "the issuer of service-account tokens, as kube-apiserver's: the first issues them, every one is accepted (repeatable; default https://kubernetes.default.svc.cluster.local)")
	var apiAudiences multiFlag
	fs.Var(&apiAudiences, "api-audiences", "the API server's audiences, comma-separated (repeatable; default: the service-account issuers)")
	saJWKSURI := fs.String("service-account-jwks-uri", "", "the key set's https URL the service-account issuer's discovery document names (default: this server's /openid/v1/jwks)")
	saMaxExpiration := fs.Duration("service-account-max-token-expiration", 0, "the longest service-account token a TokenRequest gets (between 1h and 2^32s; 0: no limit)")
	saLookup := fs.Bool("service-account-lookup", true, "accept a Secret-based service-account token only while its Secret and ServiceAccount exist, as kube-apiserver's")
	saExtendExpiration := fs.Bool("service-account-extend-token-expiration", true, "give the pod-bound tokens kubelets request for 3607s a year's validity, as kube-apiserver's (ignoring --service-account-max-token-expiration)")
	var tokenWebhook fakeplane.TokenWebhook
	fs.StringVar(&tokenWebhook.ConfigFile, "authentication-token-webhook-config-file", "", "a kubeconfig naming a TokenReview webhook that authenticates bearer tokens, as kube-apiserver's")
	fs.StringVar(&tokenWebhook.Version, "authentication-token-webhook-version", auth.DefaultTokenWebhookVersion, "the TokenReview version sent to the webhook: v1beta1 or v1")
	tokenWebhookTTL := fs.Duration("authentication-token-webhook-cache-ttl", auth.DefaultTokenWebhookCacheTTL, "how long the webhook's answers are kept (0: not kept)")
	var oidc auth.OIDCFlags
	var oidcRequired multiFlag
	fs.StringVar(&oidc.IssuerURL, "oidc-issuer-url", "", "the URL of the OpenID issuer whose ID tokens authenticate (https only), as kube-apiserver's")
	fs.StringVar(&oidc.ClientID, "oidc-client-id", "", "the client ID the ID tokens must be for; required with --oidc-issuer-url")
	fs.StringVar(&oidc.CAFile, "oidc-ca-file", "", "the CA that verifies the OpenID issuer (default: the host's roots)")
	fs.StringVar(&oidc.UsernameClaim, "oidc-username-claim", "sub", "the ID token claim of the user name")
	fs.StringVar(&oidc.UsernamePrefix, "oidc-username-prefix", "", "prefix of the user names (default: the issuer URL and '#', unless the claim is 'email'; '-' for none)")
	fs.StringVar(&oidc.GroupsClaim, "oidc-groups-claim", "", "the ID token claim of the groups")
	fs.StringVar(&oidc.GroupsPrefix, "oidc-groups-prefix", "", "prefix of the groups")
	oidcAlgs := fs.String("oidc-signing-algs", "RS256", "the accepted signing algorithms, comma-separated")
	fs.Var(&oidcRequired, "oidc-required-claim", "a key=value claim the ID token must have (repeatable)")
	authnConfig := fs.String("authentication-config", "", "an AuthenticationConfiguration (apiserver.config.k8s.io/v1) file, as kube-apiserver's: JWT authenticators (OIDC issuers) for bearer tokens, and who may be anonymous")
	tokenFile := fs.String("token-auth-file", "", "CSV of static bearer tokens: token,user,uid,\"group1,group2\"")
	clientCA := fs.String("client-ca-file", "", "also accept client certificates signed by the CAs in this PEM file (read again when it changes)")
	rhCA := fs.String("requestheader-client-ca-file", "", "trust X-Remote-* headers from client certificates signed by the CAs in this PEM file, read again when it changes (default: a front-proxy CA of fakeplane's own, kept in --data-dir, with allowed name front-proxy-client)")
	rhNames := fs.String("requestheader-allowed-names", "", "comma-separated CNs the front proxy's certificate may have (empty: any)")
	rhUser := fs.String("requestheader-username-headers", "X-Remote-User", "comma-separated headers naming the user")
	rhGroup := fs.String("requestheader-group-headers", "X-Remote-Group", "comma-separated headers naming the groups")
	rhExtra := fs.String("requestheader-extra-headers-prefix", "X-Remote-Extra-", "comma-separated prefixes of extra-info headers")
	rhUID := fs.String("requestheader-uid-headers", "", "comma-separated headers naming the user's UID; must include X-Remote-Uid (default: none)")
	proxyCert := fs.String("proxy-client-cert-file", "", "client certificate the aggregator presents to extension API servers (with --proxy-client-key-file; default: the front-proxy-client certificate fakeplane signs)")
	proxyKey := fs.String("proxy-client-key-file", "", "private key of --proxy-client-cert-file")
	var fixtureDirs multiFlag
	compaction := fs.Duration("etcd-compaction-interval", 5*time.Minute, "how often the history that lists at past revisions (continue tokens) read is compacted; 0 disables compaction")
	etcdServers := fs.String("etcd-servers", "", "List of etcd servers to connect with (scheme://ip:port), comma separated. The objects are kept there instead of in a bbolt file in --data-dir; several fakeplanes on one --etcd-prefix (and one --data-dir, for one CA) serve one cluster, the controllers running in the holder of the kube-system/kube-controller-manager Lease")
	etcdPrefix := fs.String("etcd-prefix", etcdstore.DefaultPrefix, "The prefix to prepend to all resource paths in etcd.")
	etcdHealthTimeout := fs.Duration("etcd-healthcheck-timeout", 2*time.Second, "The timeout to use when checking etcd health.")
	etcdReadyTimeout := fs.Duration("etcd-readycheck-timeout", 2*time.Second, "The timeout to use when checking etcd readiness")
	storageMediaType := fs.String("storage-media-type", "application/vnd.kubernetes.protobuf", "The media type to use to store objects in storage, as kube-apiserver's: checked as there; fakeplane's storage (bbolt, or its own layout in etcd) keeps JSON whatever it says")
	storageBackend := fs.String("storage-backend", "", "The storage backend for persistence. Options: 'etcd3' (default): with --etcd-servers, etcd; without, fakeplane's bbolt file in --data-dir, which answers as etcd does.")
	var etcdTLS fakeplane.EtcdTLS
	fs.StringVar(&etcdTLS.CAFile, "etcd-cafile", "", "SSL Certificate Authority file used to secure etcd communication.")
	fs.StringVar(&etcdTLS.CertFile, "etcd-certfile", "", "SSL certification file used to secure etcd communication.")
	fs.StringVar(&etcdTLS.KeyFile, "etcd-keyfile", "", "SSL key file used to secure etcd communication.")
	requestTimeout := fs.Duration("request-timeout", time.Minute, "how long a request that is not long-running (a watch, proxy, exec, attach, port-forward or log) may take before it is answered 504")
	goawayChance := fs.Float64("goaway-chance", 0, "the probability (0 to 0.02) that an HTTP/2 request other than a watch is answered with GOAWAY, so that clients reconnect (behind a load balancer, to other servers)")
	eventTTL := fs.Duration("event-ttl", time.Hour, "how long an Event is kept after its last write, in whole seconds (under 1s: for ever; etcd's shortest lease, 2s, at least)")
	minRequestTimeout := fs.Int("min-request-timeout", 1800, "seconds a watch that names no timeoutSeconds runs at least (it ends after a random time between this and twice this); 0 for until its client ends it")
	maxInFlight := fs.Int("max-requests-inflight", 400, "how many read-only requests may be served at once (long-running ones and system:masters aside) before more are answered 429; 0 or less for no limit")
	maxMutatingInFlight := fs.Int("max-mutating-requests-inflight", 200, "how many mutating requests may be served at once (system:masters aside) before more are answered 429; 0 or less for no limit")
	nodePortRange := fs.String("service-node-port-range", "30000-32767", "the range node ports are allocated from, as kube-apiserver's: low-high or base+size")
	kubernetesNodePort := fs.Int("kubernetes-service-node-port", 0, "If non-zero, the Kubernetes master service (which apiserver creates/maintains) will be of type NodePort, using this as the value of the port. If zero, the Kubernetes master service will be of type ClusterIP.")
	serviceRange := fs.String("service-cluster-ip-range", "10.0.0.0/24", "the CIDR ClusterIPs are allocated from; the kubernetes Service gets its first address")
	fs.Var(&fixtureDirs, "fixtures", "load the objects in this YAML file or directory at start, CRDs first (repeatable)")
	nodes := fs.Int("nodes", 0, "create this many simulated Ready nodes (node-0, node-1, ...) with Leases, and run the built-in scheduler")
	schedulerConfig := fs.String("scheduler-config", "", "run the built-in scheduler with the KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) in this file, as kube-scheduler's --config")
	var podStages multiFlag
	fs.Var(&podStages, "pod-stages", "run the pods of simulated nodes by the kwok Stages (kwok.x-k8s.io/v1alpha1) in this YAML file instead of kwok's default fast stages (repeatable)")
	var kubeletConfigs multiFlag
	fs.Var(&kubeletConfigs, "kubelet-config", "configure the simulated nodes' kubelet API (logs, exec, attach, port-forward) with the kwok ClusterLogs/Logs, ClusterExec/Exec, ClusterAttach/Attach, ClusterPortForward/PortForward (kwok.x-k8s.io/v1alpha1) in this YAML file (repeatable)")
	ctrls := fs.String("controllers", "*", "the controllers to run, as kube-controller-manager's --controllers: '*' for all, 'name' to turn one on, '-name' to turn one off (upstream's names, e.g. deployment-controller); empty for none")
	signingDuration := fs.Duration("cluster-signing-duration", controllers.DefaultCSRSigningDuration, "the longest certificate the certificatesigningrequest-signing-controller issues, as kube-controller-manager's flag")
	legacyTokenCleanUp := fs.Duration("legacy-service-account-token-clean-up-period", controllers.DefaultLegacyTokenCleanUpPeriod, "how long an auto-generated service account token goes unused before the legacy-serviceaccount-token-cleaner-controller marks it invalid, and stays invalid before it is deleted, as kube-controller-manager's flag")
	hpaSyncPeriod := fs.Duration("horizontal-pod-autoscaler-sync-period", controllers.DefaultHPASyncPeriod, "how often the horizontal-pod-autoscaler-controller reconciles each HorizontalPodAutoscaler, as kube-controller-manager's flag")
	preset := fs.String("preset", defaultPreset, "cluster (the controllers --controllers selects) or envtest (kube-apiserver alone, as envtest runs it: no controllers, nodes or scheduler)")
	egressConfig := fs.String("egress-selector-config-file", "", "an EgressSelectorConfiguration (apiserver.k8s.io/v1beta1), as kube-apiserver's: the connections toward the cluster (selection cluster) and to webhooks by URL (controlplane) go through the Konnectivity server or HTTP CONNECT proxy it names")
	kubeletCert := fs.String("kubelet-client-certificate", "", "client certificate presented to kubelets (with --kubelet-client-key; default: one the cluster CA signs for kube-apiserver-kubelet-client)")
	kubeletKey := fs.String("kubelet-client-key", "", "private key of --kubelet-client-certificate")
	kubeletCA := fs.String("kubelet-certificate-authority", "", "CA file kubelets' serving certificates are verified against (default: not verified, as kube-apiserver)")
	kubeletTypes := fs.String("kubelet-preferred-address-types", "InternalIP,ExternalIP,Hostname", "comma-separated node address types tried, in order, to reach a kubelet (kubeadm's order)")
	auditOpts := auditFlags(fs)
	if err := parseFlags(fs, usage, args); err != nil {
		return err
	}
	warnDeprecated(fs, os.Stderr)
	if showVersion != "" {
		startgc.Restore()
		fmt.Println(showVersion.text())
		return nil
	}
	if (*kubeletCert == "") != (*kubeletKey == "") {
		return usageError{errors.New("--kubelet-client-certificate and --kubelet-client-key go together")}
	}
	var kubeletOpts []fakeplane.Option
	if *kubeletCert != "" {
		kubeletOpts = append(kubeletOpts, fakeplane.WithKubeletClientCertificate(*kubeletCert, *kubeletKey))
	}
	if *kubeletCA != "" {
		kubeletOpts = append(kubeletOpts, fakeplane.WithKubeletCertificateAuthority(*kubeletCA))
	}
	var addressTypes []corev1.NodeAddressType
	for _, t := range strings.Split(*kubeletTypes, ",") {
		switch corev1.NodeAddressType(strings.TrimSpace(t)) {
		case corev1.NodeHostName, corev1.NodeInternalIP, corev1.NodeExternalIP, corev1.NodeInternalDNS, corev1.NodeExternalDNS:
			addressTypes = append(addressTypes, corev1.NodeAddressType(strings.TrimSpace(t)))
		default:
			return usageError{fmt.Errorf("--kubelet-preferred-address-types: unknown address type %q (Hostname, InternalIP, ExternalIP, InternalDNS, ExternalDNS)", t)}
		}
	}
	kubeletOpts = append(kubeletOpts, fakeplane.WithKubeletPreferredAddressTypes(addressTypes...))
	var selection controllers.Selection
	switch *preset {
	case "cluster":
		selection = append(controllers.Selection{}, splitList(*ctrls)...)
	case "envtest":
		if *nodes > 0 || *schedulerConfig != "" || flagSet(fs, "controllers") {
			return usageError{errors.New("--preset envtest runs no controllers, nodes or scheduler: it goes with none of --controllers, --nodes and --scheduler-config (see --help)")}
		}
	default:
		return usageError{fmt.Errorf("--preset must be cluster or envtest, not %q (see --help)", *preset)}
	}
	if err := selection.Validate(); err != nil {
		return usageError{fmt.Errorf("--controllers: %w", err)}
	}
	if *nodes < 0 {
		return usageError{fmt.Errorf("--nodes must be 0 or more, not %d", *nodes)}
	}
	listenAddr, err := serving.listenAddress(*listen)
	if err != nil {
		return err
	}
	var path string
	if *kubeconfig != "" {
		if path, err = filepath.Abs(*kubeconfig); err != nil {
			return err
		}
		// Two instances started in one directory would overwrite one
		// kubeconfig: the second is refused while the first runs.
		unlock, err := lockKubeconfig(path)
		if err != nil {
			return err
		}
		defer unlock()
	}
	level := slog.LevelWarn
	if verbose > 0 {
		level = slog.LevelDebug
	}
	var cleErrs []error
	if *cleLease <= *cleRenew {
		cleErrs = append(cleErrs, errors.New("--coordinated-leadership-lease-duration must be greater than --coordinated-leadership-renew-deadline"))
	}
	if *cleRenew <= *cleRetry {
		cleErrs = append(cleErrs, errors.New("--coordinated-leadership-renew-deadline must be greater than --coordinated-leadership-retry-period"))
	}
	if err := utilerrors.NewAggregate(cleErrs); err != nil {
		return err
	}
	if *storageInitTimeout < 0 {
		return errors.New("--storage-initialization-timeout can not be negative value")
	}
	if *livezGrace < 0 {
		return errors.New("--livez-grace-period can not be a negative value")
	}
	handler, err := logging.handler(os.Stderr, level)
	if err != nil {
		return err
	}
	compatOpt, err := compat.option()
	if err != nil {
		return err
	}
	if err := watchCache.check(); err != nil {
		return err
	}
	if err := deprecated.check(); err != nil {
		return err
	}
	logger := slog.New(handler)
	opts := []fakeplane.Option{fakeplane.WithListenAddress(listenAddr), fakeplane.WithKubeconfigPath(path), fakeplane.WithLogger(logger),
		fakeplane.WithFlagz(flagzValues(fs)), compatOpt}
	opts = append(opts, metrics.options()...)
	if *tracingConfig != "" {
		opts = append(opts, fakeplane.WithTracingConfigFile(*tracingConfig))
	}
	if o := serving.option(); o != nil {
		opts = append(opts, o)
	}
	if *advertise != "" {
		ip := net.ParseIP(*advertise)
		if ip == nil {
			return usageError{fmt.Errorf("invalid argument %q for \"--advertise-address\" flag: failed to parse IP: %q", *advertise, *advertise)}
		}
		opts = append(opts, fakeplane.WithAdvertiseAddress(ip))
	}
	if shutdown != (fakeplane.GracefulShutdown{}) {
		opts = append(opts, fakeplane.WithGracefulShutdown(shutdown))
	}
	if *externalHostname != "" {
		opts = append(opts, fakeplane.WithExternalHostname(*externalHostname))
	}
	opts = append(opts, fakeplane.WithEndpointReconcilerType(*endpointReconciler), fakeplane.WithFeatureGates(featureGates...), fakeplane.WithRuntimeConfig(runtimeConfig...))
	if !*allowPrivileged {
		opts = append(opts, fakeplane.WithAllowPrivileged(false))
	}
	opts = append(opts, kubeletOpts...)
	opts = append(opts, fakeplane.WithKubeletPort(int(*deprecated.kubeletPort)))
	if *hpaSyncPeriod <= 0 {
		return usageError{fmt.Errorf("--horizontal-pod-autoscaler-sync-period must be positive, not %v (see --help)", *hpaSyncPeriod)}
	}
	opts = append(opts, fakeplane.WithHorizontalPodAutoscalerSyncPeriod(*hpaSyncPeriod))
	if *signingDuration <= 0 {
		return usageError{fmt.Errorf("--cluster-signing-duration must be positive, not %v (see --help)", *signingDuration)}
	}
	opts = append(opts, fakeplane.WithClusterSigningDuration(*signingDuration))
	if *legacyTokenCleanUp <= 0 {
		return usageError{fmt.Errorf("--legacy-service-account-token-clean-up-period must be positive, not %v (see --help)", *legacyTokenCleanUp)}
	}
	opts = append(opts, fakeplane.WithLegacyServiceAccountTokenCleanUpPeriod(*legacyTokenCleanUp))
	if *dataDir != "" {
		opts = append(opts, fakeplane.WithDataDir(*dataDir))
	}
	if flagSet(fs, "authorization-mode") {
		opts = append(opts, fakeplane.WithAuthorizationMode(*authzMode))
	}
	if *corsOrigins != "" {
		opts = append(opts, fakeplane.WithCORSAllowedOrigins(strings.Split(*corsOrigins, ",")...))
	}
	if *hsts != "" {
		opts = append(opts, fakeplane.WithStrictTransportSecurityDirectives(strings.Split(*hsts, ",")...))
	}
	if *authzPolicy != "" {
		opts = append(opts, fakeplane.WithAuthorizationPolicyFile(*authzPolicy))
	}
	opts = append(opts, fakeplane.WithFixtures(fixtureDirs...),
		fakeplane.WithServiceClusterIPRange(*serviceRange), fakeplane.WithServiceNodePortRange(*nodePortRange), fakeplane.WithKubernetesServiceNodePort(*kubernetesNodePort),
		fakeplane.WithCompactionInterval(*compaction),
		fakeplane.WithRequestTimeout(*requestTimeout), fakeplane.WithMaxRequestsInFlight(noLimit(*maxInFlight), noLimit(*maxMutatingInFlight)),
		fakeplane.WithMinRequestTimeout(*minRequestTimeout), fakeplane.WithEventTTL(*eventTTL),
		fakeplane.WithGoawayChance(*goawayChance))
	if servers := splitList(*etcdServers); len(servers) > 0 {
		opts = append(opts, fakeplane.WithEtcdServers(servers), fakeplane.WithEtcdPrefix(*etcdPrefix))
	}
	switch *storageMediaType {
	case "application/json", "application/yaml", "application/vnd.kubernetes.protobuf":
	default:
		return fmt.Errorf("--storage-media-type %q invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml", *storageMediaType)
	}
	if *storageBackend != "" && *storageBackend != "etcd3" {
		return errors.New("--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'")
	}
	opts = append(opts, fakeplane.WithEtcdHealthcheckTimeout(*etcdHealthTimeout), fakeplane.WithEtcdReadycheckTimeout(*etcdReadyTimeout))
	if etcdTLS != (fakeplane.EtcdTLS{}) {
		opts = append(opts, fakeplane.WithEtcdTLS(etcdTLS))
	}
	if *preset == "envtest" {
		opts = append(opts, fakeplane.WithEnvtestShape())
	} else {
		opts = append(opts, fakeplane.WithControllers(selection...))
	}
	if len(podStages) > 0 {
		opts = append(opts, fakeplane.WithPodStages(podStages...))
	}
	if len(kubeletConfigs) > 0 {
		opts = append(opts, fakeplane.WithKubeletConfig(kubeletConfigs...))
	}
	if *nodes > 0 {
		opts = append(opts, fakeplane.WithNodes(*nodes))
	}
	if *schedulerConfig != "" {
		opts = append(opts, fakeplane.WithSchedulerConfigFile(*schedulerConfig))
	}
	if !*anonymous {
		opts = append(opts, fakeplane.WithoutAnonymous())
	}
	if !*apf {
		opts = append(opts, fakeplane.WithPriorityAndFairness(false))
	}
	if *logsHandler {
		opts = append(opts, fakeplane.WithLogsHandler())
	}
	if *maxConnBytes != 0 {
		opts = append(opts, fakeplane.WithMaxConnectionBytesPerSec(*maxConnBytes))
	}
	if !*rejectRedirects {
		opts = append(opts, fakeplane.WithAggregatorRejectForwardingRedirect(false))
	}
	if !*gc {
		opts = append(opts, fakeplane.WithGarbageCollector(false))
	}
	if *debugSocket != "" {
		opts = append(opts, fakeplane.WithDebugSocketPath(*debugSocket))
	}
	if !*profiling {
		opts = append(opts, fakeplane.WithProfiling(false))
	} else if *contentionProfiling {
		// The process's rate, as kube-apiserver sets it.
		runtime.SetBlockProfileRate(1)
	}
	if *bootstrapTokenAuth {
		opts = append(opts, fakeplane.WithBootstrapTokenAuth())
	}
	if *saSigningKey != "" {
		opts = append(opts, fakeplane.WithServiceAccountSigningKeyFile(*saSigningKey))
	}
	if len(saKeyFiles) > 0 {
		opts = append(opts, fakeplane.WithServiceAccountKeyFiles(saKeyFiles...))
	}
	if len(saIssuers) > 0 {
		opts = append(opts, fakeplane.WithServiceAccountIssuers(saIssuers...))
	}
	if auds := splitList(strings.Join(apiAudiences, ",")); len(auds) > 0 {
		opts = append(opts, fakeplane.WithAPIAudiences(auds...))
	}
	if *saJWKSURI != "" {
		opts = append(opts, fakeplane.WithServiceAccountJWKSURI(*saJWKSURI))
	}
	if *saMaxExpiration != 0 {
		opts = append(opts, fakeplane.WithServiceAccountMaxTokenExpiration(*saMaxExpiration))
	}
	if !*saLookup {
		opts = append(opts, fakeplane.WithServiceAccountLookup(false))
	}
	if !*saExtendExpiration {
		opts = append(opts, fakeplane.WithServiceAccountExtendTokenExpiration(false))
	}
	// As kube-apiserver: any of these flags given, even at its default,
	// excludes --authorization-config.
	if slices.ContainsFunc([]string{"authorization-webhook-config-file", "authorization-webhook-version",
		"authorization-webhook-cache-authorized-ttl", "authorization-webhook-cache-unauthorized-ttl"}, func(name string) bool { return flagSet(fs, name) }) {
		authzWebhook.CacheAuthorizedTTL, authzWebhook.CacheUnauthorizedTTL = authzAllowedTTL, authzDeniedTTL
		opts = append(opts, fakeplane.WithAuthorizationWebhook(authzWebhook))
	}
	if *authzConfig != "" {
		opts = append(opts, fakeplane.WithAuthorizationConfigFile(*authzConfig))
	}
	if tokenWebhook.ConfigFile != "" {
		tokenWebhook.CacheTTL = tokenWebhookTTL
		opts = append(opts, fakeplane.WithAuthenticationTokenWebhook(tokenWebhook))
	}
	oidcSet := false
	fs.Visit(func(f *flag.Flag) { oidcSet = oidcSet || strings.HasPrefix(f.Name, "oidc-") })
	if oidcSet {
		oidc.SigningAlgs = strings.Split(*oidcAlgs, ",")
		for _, kv := range oidcRequired {
			k, v, _ := strings.Cut(kv, "=")
			if oidc.RequiredClaims == nil {
				oidc.RequiredClaims = map[string]string{}
			}
			oidc.RequiredClaims[k] = v
		}
		opts = append(opts, fakeplane.WithOIDC(oidc))
	}
	if flagSet(fs, "default-not-ready-toleration-seconds") || flagSet(fs, "default-unreachable-toleration-seconds") {
		opts = append(opts, fakeplane.WithDefaultTolerationSeconds(*notReadySeconds, *unreachableSeconds))
	}
	if len(admissionControl) > 0 {
		fmt.Fprintln(os.Stderr, "Flag --admission-control has been deprecated, Use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.")
		opts = append(opts, fakeplane.WithAdmissionControl(splitList(strings.Join(admissionControl, ","))...))
	}
	if len(enablePlugins) > 0 {
		opts = append(opts, fakeplane.WithEnableAdmissionPlugins(splitList(strings.Join(enablePlugins, ","))...))
	}
	if len(disablePlugins) > 0 {
		opts = append(opts, fakeplane.WithDisableAdmissionPlugins(splitList(strings.Join(disablePlugins, ","))...))
	}
	if *admissionConfig != "" {
		opts = append(opts, fakeplane.WithAdmissionControlConfigFile(*admissionConfig))
	}
	if *authnConfig != "" {
		if flagSet(fs, "anonymous-auth") {
			// As kube-apiserver: the flag, even true, excludes the file's
			// anonymous section.
			cfg, err := auth.LoadAuthenticationConfiguration(*authnConfig)
			if err != nil {
				return err
			}
			if cfg.Anonymous != nil {
				return errors.New(`anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file`)
			}
		}
		opts = append(opts, fakeplane.WithAuthenticationConfigFile(*authnConfig))
	}
	if *egressConfig != "" {
		opts = append(opts, fakeplane.WithEgressSelectorConfigFile(*egressConfig))
	}
	if a := auditOpts(); a.PolicyFile != "" || a.Log.Path != "" || a.Webhook.ConfigFile != "" {
		opts = append(opts, fakeplane.WithAudit(a))
	}
	if *tokenFile != "" {
		toks, err := readTokenFile(*tokenFile)
		if err != nil {
			return err
		}
		opts = append(opts, toks...)
	}
	if *clientCA != "" {
		opts = append(opts, fakeplane.WithClientCAFile(*clientCA))
	}
	if *rhCA != "" {
		opts = append(opts, fakeplane.WithRequestHeader(fakeplane.RequestHeader{
			CAFile: *rhCA, AllowedNames: splitList(*rhNames), UsernameHeaders: splitList(*rhUser),
			GroupHeaders: splitList(*rhGroup), ExtraHeaderPrefixes: splitList(*rhExtra), UIDHeaders: splitList(*rhUID),
		}))
	}
	if (*proxyCert == "") != (*proxyKey == "") {
		return usageError{errors.New("--proxy-client-cert-file and --proxy-client-key-file go together (see --help)")}
	}
	if *proxyCert != "" {
		certPEM, err := os.ReadFile(*proxyCert)
		if err != nil {
			return err
		}
		keyPEM, err := os.ReadFile(*proxyKey)
		if err != nil {
			return err
		}
		opts = append(opts, fakeplane.WithProxyClientCert(certPEM, keyPEM))
	}
	cp, err := fakeplane.New(opts...)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = cp.Start(ctx)
	startgc.Restore()
	if err != nil {
		return err
	}
	fmt.Printf("fakeplane is serving %s; use it with: export KUBECONFIG=%s\n", cp.URL(), cp.KubeconfigPath())
	<-ctx.Done()
	if err := cp.Stop(); err != nil {
		return err
	}
	fmt.Printf("fakeplane stopped serving %s\n", cp.URL())
	return nil
}

// auditFlags defines kube-apiserver's --audit-* flags on fs, with its
// defaults; the function it returns gives their options once fs is parsed.
func auditFlags(fs *flag.FlagSet) func() fakeplane.AuditOptions {
	var a fakeplane.AuditOptions
	fs.StringVar(&a.PolicyFile, "audit-policy-file", "", "an audit Policy (audit.k8s.io/v1) file, as kube-apiserver's: the level and stages each request is audited at; without it nothing is audited")
	fs.StringVar(&a.Log.Path, "audit-log-path", "", "append audit events to this file ('-' for standard output)")
	fs.StringVar(&a.Log.Format, "audit-log-format", fakeplane.AuditLogFormatJSON, "the format of audit log lines: json or legacy (one line of text)")
	maxAge := fs.Int("audit-log-maxage", 366, "the number of days rotated audit log files are kept (0: any age)")
	maxBackups := fs.Int("audit-log-maxbackup", 100, "the number of rotated audit log files kept (0: any number)")
	maxSize := fs.Int("audit-log-maxsize", 100, "the size in megabytes at which the audit log file is rotated (0: never)")
	fs.BoolVar(&a.Log.Compress, "audit-log-compress", false, "gzip the rotated audit log files")
	fs.StringVar(&a.Log.Version, "audit-log-version", "audit.k8s.io/v1", "the API version audit events are written in")
	logBatch, logTruncate := auditBackendFlags(fs, "log", fakeplane.AuditModeBlocking, fakeplane.DefaultAuditLogBatchConfig(), &a.Log.Mode)
	fs.StringVar(&a.Webhook.ConfigFile, "audit-webhook-config-file", "", "a kubeconfig naming the webhook audit events are sent to, as EventLists, and the credentials presented to it")
	fs.DurationVar(&a.Webhook.InitialBackoff, "audit-webhook-initial-backoff", 10*time.Second, "how long the first retry of a failed audit webhook call waits")
	fs.DurationVar(&a.Webhook.InitialBackoff, "audit-webhook-batch-initial-backoff", 10*time.Second, deprecatedUsage("audit-webhook-batch-initial-backoff", "--audit-webhook-initial-backoff under its old name"))
	fs.StringVar(&a.Webhook.Version, "audit-webhook-version", "audit.k8s.io/v1", "the API version audit events are sent to the webhook in")
	webhookBatch, webhookTruncate := auditBackendFlags(fs, "webhook", fakeplane.AuditModeBatch, fakeplane.DefaultAuditWebhookBatchConfig(), &a.Webhook.Mode)
	return func() fakeplane.AuditOptions {
		a.Log.MaxAge, a.Log.MaxBackups, a.Log.MaxSize = maxAge, maxBackups, maxSize
		a.Log.Batch, a.Log.Truncate = logBatch(), logTruncate()
		a.Webhook.Batch, a.Webhook.Truncate = webhookBatch(), webhookTruncate()
		return a
	}
}

// auditBackendFlags defines the --audit-<backend>-mode, -batch-* and
// -truncate-* flags of an audit backend, with its defaults; the functions
// it returns give the batch configuration and the truncation (nil when
// off) once fs is parsed.
func auditBackendFlags(fs *flag.FlagSet, backend, mode string, batch pluginbuffered.BatchConfig, modeVar *string) (func() *pluginbuffered.BatchConfig, func() *plugintruncate.Config) {
	name := func(s string) string { return "audit-" + backend + "-" + s }
	fs.StringVar(modeVar, name("mode"), mode, "how audit events reach the "+backend+": blocking (each before the request goes on), batch (buffered, written apart) or blocking-strict (blocking, and a request whose first event fails is refused)")
	fs.IntVar(&batch.BufferSize, name("batch-buffer-size"), batch.BufferSize, "in batch mode, how many events are buffered")
	fs.IntVar(&batch.MaxBatchSize, name("batch-max-size"), batch.MaxBatchSize, "in batch mode, the most events in a batch")
	fs.DurationVar(&batch.MaxBatchWait, name("batch-max-wait"), batch.MaxBatchWait, "in batch mode, how long a batch short of its maximum size waits")
	fs.BoolVar(&batch.ThrottleEnable, name("batch-throttle-enable"), batch.ThrottleEnable, "in batch mode, throttle the batches")
	qps := fs.Float64("audit-"+backend+"-batch-throttle-qps", float64(batch.ThrottleQPS), "in batch mode, the most batches a second, on average")
	fs.IntVar(&batch.ThrottleBurst, name("batch-throttle-burst"), batch.ThrottleBurst, "in batch mode, the most batches sent at once when the QPS was not used")
	truncate := fakeplane.DefaultAuditTruncateConfig()
	enabled := fs.Bool(name("truncate-enabled"), false, "truncate audit events and batches")
	fs.Int64Var(&truncate.MaxBatchSize, name("truncate-max-batch-size"), truncate.MaxBatchSize, "the largest batch in bytes; a larger one is split")
	fs.Int64Var(&truncate.MaxEventSize, name("truncate-max-event-size"), truncate.MaxEventSize, "the largest event in bytes; a larger one loses its request and response objects, or is dropped")
	return func() *pluginbuffered.BatchConfig {
			batch.ThrottleQPS = float32(*qps)
			return &batch
		}, func() *plugintruncate.Config {
			if !*enabled {
				return nil
			}
			return &truncate
		}
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// readTokenFile reads kube-apiserver's --token-auth-file format.
func readTokenFile(path string) ([]fakeplane.Option, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.Comment = '#'
	var out []fakeplane.Option
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) < 3 {
			return nil, fmt.Errorf("%s: a line needs at least token,user,uid", path)
		}
		var groups []string
		if len(rec) > 3 {
			groups = splitList(rec[3])
		}
		out = append(out, fakeplane.WithTokens(fakeplane.StaticToken{Token: rec[0], User: rec[1], UID: rec[2], Groups: groups}))
	}
}

// runKubeconfig writes a kubeconfig for a user of a fakeplane that keeps its
// state in --data-dir:
//
//	fakeplane kubeconfig --data-dir DIR --user alice --group devs --out alice.kubeconfig
func runKubeconfig(args []string) error {
	fs := flag.NewFlagSet("fakeplane kubeconfig", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "the --data-dir of the running fakeplane (required: it holds the CA)")
	userName := fs.String("user", "", "user name (the certificate's CN)")
	var groups multiFlag
	fs.Var(&groups, "group", "a group of the user (repeatable)")
	out := fs.String("out", "", "where to write it (default: USER.kubeconfig)")
	const head = "Usage:\n  fakeplane kubeconfig --data-dir DIR --user NAME [--group GROUP]... [--out FILE]\n\nFlags:\n"
	if err := parseFlags(fs, head, args); err != nil {
		return err
	}
	if *dataDir == "" || *userName == "" {
		return usageError{fmt.Errorf("kubeconfig: --data-dir and --user are required (see --help)")}
	}
	path := *out
	if path == "" {
		path = *userName + ".kubeconfig"
	}
	if err := fakeplane.WriteUserKubeconfig(*dataDir, path, *userName, groups...); err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	fmt.Printf("wrote %s for user %q; use it with: export KUBECONFIG=%s\n", path, *userName, abs)
	return nil
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// listFlags are the comma-separated flags whose kube-apiserver namesakes
// are lists: /flagz shows their values in brackets, as pflag's string
// slices show theirs.
var listFlags = []string{"api-audiences", "authorization-mode", "cors-allowed-origins", "etcd-servers", "kubelet-preferred-address-types", "oidc-signing-algs",
	"requestheader-allowed-names", "requestheader-extra-headers-prefix", "requestheader-group-headers",
	"requestheader-uid-headers", "requestheader-username-headers", "strict-transport-security-directives"}

// flagzValues are the values /flagz lists: every flag's, given or default,
// lists (listFlags, the repeatable flags) as "[a,b]".
func flagzValues(fs *flag.FlagSet) map[string]string {
	values := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		v := f.Value.String()
		if _, repeatable := f.Value.(*multiFlag); repeatable || slices.Contains(listFlags, f.Name) {
			v = "[" + strings.Join(splitList(v), ",") + "]"
		}
		values[f.Name] = v
	})
	return values
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// noLimit maps kube-apiserver's "0 means no limit" of the in-flight flags
// onto fakeplane.WithMaxRequestsInFlight's negative values.
func noLimit(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// verbosity is -v: a switch (-v, -v=false) that also takes
// kube-apiserver's log level (--v=2), 0 being quiet.
type verbosity int

func (v *verbosity) String() string { return strconv.Itoa(int(*v)) }

// IsBoolFlag lets -v stand alone.
func (v *verbosity) IsBoolFlag() bool { return true }

// Set takes a boolean or a level of 0 or more.
func (v *verbosity) Set(s string) error {
	if b, err := strconv.ParseBool(s); err == nil && s != "0" && s != "1" {
		*v = 0
		if b {
			*v = 1
		}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want true, false or a level of 0 or more, not %q", s)
	}
	*v = verbosity(n)
	return nil
}
