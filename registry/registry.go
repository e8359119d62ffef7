package registry

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	psconfig "k8s.io/pod-security-admission/admission/api"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/crd"
	"github.com/fakeplane/fakeplane/store"
)

// Config configures a Registry.
type Config struct {
	// Store holds the objects. Required.
	Store store.Interface
	// Logger receives warnings of the registry's own work; nil means
	// slog.Default().
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// ServiceClusterIPRange is where ClusterIPs come from (kube-apiserver's
	// --service-cluster-ip-range); the zero value means
	// DefaultServiceClusterIPRange.
	ServiceClusterIPRange netip.Prefix
	// ServiceNodePortRange is where node ports come from
	// (--service-node-port-range); the zero value means kube-apiserver's
	// default, 30000-32767.
	ServiceNodePortRange utilnet.PortRange
	// AdmissionPlugins are the compiled-in admission plugins that run
	// (kube-apiserver's --enable-admission-plugins and
	// --disable-admission-plugins); the zero value is kube-apiserver's
	// default selection.
	AdmissionPlugins admissionplugins.Plugins
	// PodNodeSelector and PodTolerationRestriction configure those
	// admission plugins, as an --admission-control-config-file does (nil:
	// their defaults).
	PodNodeSelector          *admissionplugins.PodNodeSelectorConfig
	PodTolerationRestriction *admissionplugins.PodTolerationRestrictionConfig
	// EventRateLimit and ImagePolicyWebhook are those plugins, when they
	// run.
	EventRateLimit     *admissionplugins.EventRateLimit
	ImagePolicyWebhook *admissionplugins.ImagePolicyWebhook
	// TolerationSeconds are DefaultTolerationSeconds' (nil: its
	// defaults, 300 s each).
	TolerationSeconds *TolerationSeconds
	// NoResourceQuotaController says kube-controller-manager's resource
	// quota controller does not run (envtest's shape): a quota's status is
	// then what clients write to it, and the ResourceQuota admission plugin
	// limits what its status.hard names and charges its status.used, as
	// kube-apiserver's alone does.
	NoResourceQuotaController bool
	// NoGarbageCollection is kube-apiserver's
	// --enable-garbage-collector=false: a delete adds neither the orphan
	// nor the foregroundDeletion finalizer (but to a namespace).
	NoGarbageCollection bool
	// DisallowPrivileged is kube-apiserver's --allow-privileged=false:
	// privileged and host process containers are refused in pods and pod
	// templates.
	DisallowPrivileged bool
	// SharedStore says other control planes write to Store too (an etcd
	// shared between processes): the views that follow commits are then
	// fed by ObserveStoreEvent, from the store's watch, with every
	// process's writes, instead of by this process's write path.
	SharedStore bool
	// PrivateCreateMemo gives the registry a memo of the control plane's
	// own creates of its own, empty, instead of the one every registry of
	// the process shares (and the bootstrap seeds): what it holds is then
	// what this registry's creates computed, which is how the seeds are
	// recorded and checked (RecordCreateSeeds).
	PrivateCreateMemo bool
	// PodSecurity configures the PodSecurity admission plugin (defaults
	// and exemptions) as an --admission-control-config-file does; nil
	// means kube-apiserver's default configuration.
	PodSecurity *psconfig.PodSecurityConfiguration
}

// Hooks are what the registry calls in parts of the control plane outside
// it. Each may be nil.
type Hooks struct {
	// RBACWriteCheck runs upstream's RBAC escalation and bind checks on a
	// write to roles, clusterroles and their bindings.
	RBACWriteCheck func(ctx context.Context, gr schema.GroupResource, w auth.RBACWrite) error
	// CommitObserver is told of every commit, under the store's writer lock
	// and in revision order, with the committed object (its Go type) and its
	// stored bytes: views that must follow the store (the RBAC cache, the
	// garbage collector's owner index) keep up through it.
	CommitObserver func(bucket, key string, obj runtime.Object, data []byte, deleted bool)
	// Authorizer is the server's authorizer, which the certificate
	// admission plugins (CertificateApproval, CertificateSigning,
	// ClusterTrustBundleAttest) ask about verbs on signers. Nil skips
	// their checks, as there is then no authorization at all.
	Authorizer authorizer.Authorizer
}

// Registry is the read and write pipeline between the API and the store:
// the resources served (built-in ones and CRDs'), their decoding, defaults,
// admission, validation (the strategies of For, and package crd), the
// optimistic commit, and the views that follow commits. Package server
// serves it over HTTP; Go callers use it through Interface (Registry.API).
type Registry struct {
	// podSecurityConfig is Config.PodSecurity.
	podSecurityConfig *psconfig.PodSecurityConfiguration
	// plugins is Config.AdmissionPlugins; builtinOn says, for each of
	// builtinPlugins, whether it is among them.
	plugins   admissionplugins.Plugins
	builtinOn []bool
	// podNodeSelector and podTolerationRestriction are Config's.
	podNodeSelector          *admissionplugins.PodNodeSelectorConfig
	podTolerationRestriction *admissionplugins.PodTolerationRestrictionConfig
	// eventRateLimit and imagePolicy are Config's EventRateLimit and
	// ImagePolicyWebhook.
	eventRateLimit *admissionplugins.EventRateLimit
	imagePolicy    *admissionplugins.ImagePolicyWebhook
	// tolerationSeconds is Config.TolerationSeconds, or the default.
	tolerationSeconds TolerationSeconds
	// disallowPrivileged is Config.DisallowPrivileged.
	disallowPrivileged bool
	// noGC is Config.NoGarbageCollection.
	noGC bool
	// noQuotaController is Config.NoResourceQuotaController.
	noQuotaController bool
	// shared is Config.SharedStore.
	shared bool
	// creates is the memo of the control plane's own creates: the
	// process's, or its own with Config.PrivateCreateMemo.
	creates *createMemo
	store   store.Interface
	log     *slog.Logger
	now     func() time.Time
	served  *ServedResources
	enc     *EncCache
	alloc   *ServiceAllocator
	hooks   Hooks
	// admission holds the admission plugins outside the registry
	// (SetAdmission).
	admission admissionPointer
	// podSecurityPlugin is the PodSecurity admission plugin, built at its
	// first use (registry/podsecurity.go).
	podSecurityPlugin podSecurityPlugin
	// crdMu orders serving a CRD against forgetting a deleted one.
	crdMu sync.Mutex
	// quotaLocks serialize quota-charged writes per namespace.
	quotaLocks namespaceLocks
	// noQuotas are the namespaces last found without ResourceQuotas.
	noQuotas noQuotaNamespaces
}

// New builds a Registry over cfg.Store: it loads the ClusterIPs and node
// ports in use and serves the CRDs stored there.
func New(cfg Config) (*Registry, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("registry: Config.Store is required")
	}
	r := &Registry{store: cfg.Store, log: cfg.Logger, now: cfg.Now, enc: newEncCache(cfg.Store), plugins: cfg.AdmissionPlugins,
		podNodeSelector: cfg.PodNodeSelector, podTolerationRestriction: cfg.PodTolerationRestriction, podSecurityConfig: cfg.PodSecurity, noQuotaController: cfg.NoResourceQuotaController, noGC: cfg.NoGarbageCollection, disallowPrivileged: cfg.DisallowPrivileged, shared: cfg.SharedStore,
		creates: &processCreates}
	if cfg.PrivateCreateMemo {
		r.creates = &createMemo{}
	}
	r.eventRateLimit, r.imagePolicy = cfg.EventRateLimit, cfg.ImagePolicyWebhook
	r.tolerationSeconds = DefaultTolerationSeconds
	if cfg.TolerationSeconds != nil {
		r.tolerationSeconds = *cfg.TolerationSeconds
	}
	r.builtinOn = make([]bool, len(builtinPlugins))
	for i, p := range builtinPlugins {
		r.builtinOn[i] = r.plugins.Enabled(p.name)
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.now == nil {
		r.now = time.Now
	}
	ipRange := cfg.ServiceClusterIPRange
	if !ipRange.IsValid() {
		ipRange = DefaultServiceClusterIPRange
	}
	nodePorts := cfg.ServiceNodePortRange
	if nodePorts.Size == 0 {
		nodePorts = DefaultServiceNodePortRange()
	}
	r.alloc = newServiceAllocator(ipRange, nodePorts)
	if err := r.alloc.Load(r.store); err != nil {
		return nil, fmt.Errorf("registry: load allocated ClusterIPs and node ports: %w", err)
	}
	served, err := newServedResources()
	if err != nil {
		return nil, err
	}
	r.served = served
	served.WebhookConverter = crd.NewWebhookConverters(endpointResolver{r}, nil).For
	if err := r.loadCRDs(); err != nil {
		return nil, fmt.Errorf("registry: load CustomResourceDefinitions: %w", err)
	}
	return r, nil
}

// SetHooks sets what the registry calls outside itself. Call it before the
// first write.
func (r *Registry) SetHooks(h Hooks) { r.hooks = h }

// Store is the store the registry reads and writes.
func (r *Registry) Store() store.Interface { return r.store }

// Resources are the served resources.
func (r *Registry) Resources() *ServedResources { return r.served }

// Encodings is the cache of stored objects' labels and encodings.
func (r *Registry) Encodings() *EncCache { return r.enc }
