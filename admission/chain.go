package admission

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apiserver/pkg/admission"
	mutatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	mutatingwebhook "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	validatingwebhook "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// Config configures a Chain.
type Config struct {
	// Loopback reaches the control plane as a member of system:masters:
	// the plugins' informers and clients use it, as kube-apiserver's use
	// its loopback client. Required.
	Loopback *rest.Config
	// ServiceResolver finds where a webhook given as a Service is served.
	// Nil means upstream's default (the Service's cluster DNS name).
	ServiceResolver webhookutil.ServiceResolver
	// AuthenticationInfoResolverWrapper sets up the webhooks' clients, as
	// kube-apiserver's webhook.NewDefaultAuthenticationInfoResolverWrapper
	// does with its egress selector (the dialer of each connection) and
	// loopback client. Nil means upstream's plain clients.
	AuthenticationInfoResolverWrapper webhookutil.AuthenticationInfoResolverWrapper
	// Authorizer answers the authorizer variable of policies' and match
	// conditions' CEL expressions. Required.
	Authorizer authorizer.Authorizer
	// Logger receives the chain's own messages; nil means slog.Default().
	Logger *slog.Logger
	// MutatingWebhookConfig and ValidatingWebhookConfig configure the
	// webhook plugins as an --admission-control-config-file does (see
	// PluginConfig): a WebhookAdmission whose kubeConfigFile gives the
	// credentials to present to webhook servers. Nil means none.
	MutatingWebhookConfig, ValidatingWebhookConfig []byte
	// Plugins selects which of the chain's four plugins run (the zero
	// value: all four, kube-apiserver's default). A chain none of whose
	// plugins run never starts.
	Plugins Plugins
	// NoPolicyStatus leaves ValidatingAdmissionPolicies' status alone, as
	// a kube-apiserver without kube-controller-manager (whose
	// validatingadmissionpolicy-status-controller writes it) does.
	NoPolicyStatus bool
}

// Chain runs MutatingAdmissionPolicy and MutatingAdmissionWebhook on
// Admit, and ValidatingAdmissionPolicy and ValidatingAdmissionWebhook on
// Validate. It implements registry.Admission. Until Configured is called
// it admits everything without starting the plugins: nothing could match.
type Chain struct {
	cfg Config
	log *slog.Logger

	// configured is set once an admission configuration was stored;
	// serving once the control plane serves (the loopback client works).
	configured atomic.Bool
	serving    atomic.Bool
	// kickMu orders starting the plugins in the background against Stop;
	// kicked says they were; bg counts the background goroutines.
	kickMu sync.Mutex
	kicked bool
	bgDone bool
	bg     sync.WaitGroup

	stopOnce sync.Once
	mu       sync.Mutex
	started  bool
	startErr error
	stop     chan struct{}
	// stopCtx is done once stop is closed; stopCancel does it.
	stopCtx    context.Context
	stopCancel context.CancelFunc
	factory    informers.SharedInformerFactory
	// mutating and validating are the plugins in kube-apiserver's order.
	mutating   []admission.MutationInterface
	validating []admission.ValidationInterface
	ready      atomic.Bool
}

// New builds a Chain; nothing runs until it is configured and a request
// is admitted.
func New(cfg Config) (*Chain, error) {
	if cfg.Loopback == nil {
		return nil, errors.New("admission: Config.Loopback is required")
	}
	if cfg.Authorizer == nil {
		return nil, errors.New("admission: Config.Authorizer is required")
	}
	c := &Chain{cfg: cfg, log: cfg.Logger, stop: make(chan struct{})}
	c.stopCtx, c.stopCancel = context.WithCancel(context.Background())
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// Configured tells the chain that an admission configuration (a webhook
// configuration, a policy or a binding) is stored: the plugins start, in
// the background once the control plane serves, or with the next request
// admitted. It does not block (the registry calls it under the store's
// writer lock).
func (c *Chain) Configured() {
	if !c.anyPlugin() {
		return
	}
	c.configured.Store(true)
	c.kick()
}

// anyPlugin reports whether any of the chain's plugins is selected.
func (c *Chain) anyPlugin() bool {
	for _, name := range chainPlugins {
		if c.cfg.Plugins.Enabled(name) {
			return true
		}
	}
	return false
}

// chainPlugins are the plugins a Chain runs, in kube-apiserver's order.
var chainPlugins = []string{mutatingpolicy.PluginName, mutatingwebhook.PluginName, validatingpolicy.PluginName, validatingwebhook.PluginName}

// Active reports whether the chain has anything to do: whether an
// admission configuration was ever stored.
func (c *Chain) Active() bool { return c.configured.Load() }

// Serving tells the chain that the control plane serves: its loopback
// client can reach it.
func (c *Chain) Serving() {
	c.serving.Store(true)
	c.kick()
}

// kick starts the plugins in the background once the chain is configured
// and the control plane serves, so that what they maintain (policies'
// type-checking status) is there without waiting for a request.
func (c *Chain) kick() {
	if !c.configured.Load() || !c.serving.Load() {
		return
	}
	c.kickMu.Lock()
	defer c.kickMu.Unlock()
	if c.kicked || c.bgDone {
		return
	}
	c.kicked = true
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		_ = c.start()
	}()
}

// Handles implements admission.Interface: every operation.
func (c *Chain) Handles(admission.Operation) bool { return true }

// Admit implements admission.MutationInterface: the mutating plugins in
// order, and, when one of them changed the object, a second round of those
// that ask to be invoked again (upstream's reinvocation).
func (c *Chain) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if !c.configured.Load() {
		return nil
	}
	if err := c.start(); err != nil {
		return err
	}
	if err := c.admitRound(ctx, a, o); err != nil {
		return err
	}
	if rc := a.GetReinvocationContext(); rc.ShouldReinvoke() {
		rc.SetIsReinvoke()
		return c.admitRound(ctx, a, o)
	}
	return nil
}

// admitRound runs the mutating plugins once.
func (c *Chain) admitRound(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	for _, p := range c.mutating {
		if !p.Handles(a.GetOperation()) {
			continue
		}
		if err := p.Admit(ctx, a, o); err != nil {
			return err
		}
	}
	return nil
}

// Validate implements admission.ValidationInterface: the validating
// plugins in order.
func (c *Chain) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if !c.configured.Load() {
		return nil
	}
	if err := c.start(); err != nil {
		return err
	}
	for _, p := range c.validating {
		if !p.Handles(a.GetOperation()) {
			continue
		}
		if err := p.Validate(ctx, a, o); err != nil {
			return err
		}
	}
	return nil
}

// start builds and starts the plugins the first time it is called.
func (c *Chain) start() error {
	if c.ready.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.stop:
		return errors.New("admission: the control plane is stopping")
	default:
	}
	if c.started {
		return c.startErr
	}
	c.started = true
	c.startErr = c.startLocked()
	if c.startErr != nil {
		c.log.Error("admission: starting the admission plugins", "err", c.startErr)
		return c.startErr
	}
	c.ready.Store(true)
	return nil
}

// informerResync is the informers' resync period: none, as
// kube-apiserver's loopback informers.
const informerResync = 0

// startLocked builds the plugins over a loopback client and starts their
// informers.
func (c *Chain) startLocked() error {
	cfg := rest.CopyConfig(c.cfg.Loopback)
	cfg.UserAgent = "fakeplane-admission"
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return stopTransport{next: rt, stop: c.stopCtx} })
	if cfg.QPS == 0 {
		cfg.QPS = -1
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("admission: loopback client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("admission: loopback dynamic client: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	c.factory = informers.NewSharedInformerFactory(client, informerResync)

	mw, err := mutatingwebhook.NewMutatingWebhook(configReader(c.cfg.MutatingWebhookConfig))
	if err != nil {
		return fmt.Errorf("admission: %s: %w", mutatingwebhook.PluginName, err)
	}
	vw, err := validatingwebhook.NewValidatingAdmissionWebhook(configReader(c.cfg.ValidatingWebhookConfig))
	if err != nil {
		return fmt.Errorf("admission: %s: %w", validatingwebhook.PluginName, err)
	}
	for _, w := range []interface {
		SetExternalKubeClientSet(kubernetes.Interface)
		SetExternalKubeInformerFactory(informers.SharedInformerFactory)
		SetServiceResolver(webhookutil.ServiceResolver)
		SetAuthenticationInfoResolverWrapper(webhookutil.AuthenticationInfoResolverWrapper)
		SetUnconditionalAuthorizer(authorizer.UnconditionalAuthorizer)
		SetDrainedNotification(<-chan struct{})
		ValidateInitialization() error
	}{mw, vw} {
		w.SetExternalKubeClientSet(client)
		w.SetExternalKubeInformerFactory(c.factory)
		if c.cfg.ServiceResolver != nil {
			w.SetServiceResolver(c.cfg.ServiceResolver)
		}
		if c.cfg.AuthenticationInfoResolverWrapper != nil {
			w.SetAuthenticationInfoResolverWrapper(c.cfg.AuthenticationInfoResolverWrapper)
		}
		w.SetUnconditionalAuthorizer(c.cfg.Authorizer)
		w.SetDrainedNotification(c.stop)
	}
	mw.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	vw.InspectFeatureGates(utilfeature.DefaultFeatureGate)

	mp, err := mutatingpolicy.NewPlugin(nil)
	if err != nil {
		return fmt.Errorf("admission: %s: %w", mutatingpolicy.PluginName, err)
	}
	vp, err := validatingpolicy.NewPlugin(nil)
	if err != nil {
		return fmt.Errorf("admission: %s: %w", validatingpolicy.PluginName, err)
	}
	// MutatingAdmissionPolicy is GA and on by default in v1.37.
	mp.SetEnabled(true)
	mp.SetExternalKubeInformerFactory(c.factory)
	mp.SetExternalKubeClientSet(client)
	mp.SetRESTMapper(mapper)
	mp.SetDynamicClient(dyn)
	mp.SetDrainedNotification(c.stop)
	mp.SetUnconditionalAuthorizer(c.cfg.Authorizer)
	vp.SetExternalKubeInformerFactory(c.factory)
	vp.SetExternalKubeClientSet(client)
	vp.SetRESTMapper(mapper)
	vp.SetDynamicClient(dyn)
	vp.SetDrainedNotification(c.stop)
	vp.SetUnconditionalAuthorizer(c.cfg.Authorizer)

	for name, p := range map[string]admission.InitializationValidator{
		mutatingwebhook.PluginName:   mw,
		validatingwebhook.PluginName: vw,
		mutatingpolicy.PluginName:    mp,
		validatingpolicy.PluginName:  vp,
	} {
		if err := p.ValidateInitialization(); err != nil {
			return fmt.Errorf("admission: %s: %w", name, err)
		}
	}
	// The plugins not selected are built all the same (their informers
	// feed the policy status controller, kube-controller-manager's) but
	// not called.
	c.mutating, c.validating = nil, nil
	for _, p := range []struct {
		name string
		m    admission.MutationInterface
		v    admission.ValidationInterface
	}{{name: mutatingpolicy.PluginName, m: mp}, {name: mutatingwebhook.PluginName, m: mw}, {name: validatingpolicy.PluginName, v: vp}, {name: validatingwebhook.PluginName, v: vw}} {
		switch {
		case !c.cfg.Plugins.Enabled(p.name):
		case p.m != nil:
			c.mutating = append(c.mutating, p.m)
		default:
			c.validating = append(c.validating, p.v)
		}
	}
	status := newPolicyStatusController(c.factory, client, mapper, c.log)
	c.factory.Start(c.stop)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for typ, ok := range c.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("admission: informer for %v did not sync", typ)
		}
	}
	c.kickMu.Lock()
	defer c.kickMu.Unlock()
	if !c.bgDone && !c.cfg.NoPolicyStatus {
		c.bg.Add(1)
		go func() {
			defer c.bg.Done()
			status.run(c.stop)
		}()
	}
	return nil
}

// startTimeout bounds the first sync of the plugins' informers.
const startTimeout = 30 * time.Second

// Stop stops the plugins and their informers and waits for the chain's
// goroutines to end. The chain admits nothing afterwards.
func (c *Chain) Stop() {
	c.stopOnce.Do(func() {
		close(c.stop)
		c.stopCancel()
		c.kickMu.Lock()
		c.bgDone = true
		c.kickMu.Unlock()
		c.bg.Wait()
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.factory != nil {
			c.factory.Shutdown()
		}
	})
}

// configReader is a plugin's configuration as its factory takes it: nil
// when there is none.
func configReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}
