package fakeplane

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/fakeplane/fakeplane/controllers"
)

// Several control planes on one etcd (WithEtcdServers with the same prefix)
// are one cluster's kube-apiservers, and each also runs what
// kube-controller-manager runs. As on a real cluster, only one runs those
// controllers at a time: the holder of the Lease
// kube-system/kube-controller-manager, won and renewed through the API with
// client-go's leader election, as kube-controller-manager does. The
// controllers that are kube-apiserver's own (the CRD finalizer, the
// cluster-authentication-trust, APIService availability and CRD
// auto-registration controllers) run in every process, as they run in
// every kube-apiserver.

// LeaderElection sets the timing of the Lease that elects which of several
// control planes sharing one etcd runs the controllers, as
// kube-controller-manager's
// --leader-elect-lease-duration, --leader-elect-renew-deadline and
// --leader-elect-retry-period do. Zero fields take upstream's defaults:
// 15s, 10s and 2s. (The scheduler's Lease is timed by its configuration's
// leaderElection.)
type LeaderElection struct {
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
}

// WithLeaderElection sets the timing of the leader election of control
// planes that share one etcd (see LeaderElection). A control plane on its
// own store (bbolt) elects nothing: it runs its controllers itself.
func WithLeaderElection(le LeaderElection) Option {
	return func(o *options) { o.leaderElection = le }
}

// withDefaults fills in upstream's defaults.
func (le LeaderElection) withDefaults() LeaderElection {
	if le.LeaseDuration <= 0 {
		le.LeaseDuration = 15 * time.Second
	}
	if le.RenewDeadline <= 0 {
		le.RenewDeadline = 10 * time.Second
	}
	if le.RetryPeriod <= 0 {
		le.RetryPeriod = 2 * time.Second
	}
	return le
}

// The controllers' Lease, as kube-controller-manager's. (The scheduler takes
// kube-system/kube-scheduler itself: see scheduler.Configuration's
// leaderElection.)
const (
	controllerManagerLease = "kube-controller-manager"
	leaseNamespace         = "kube-system"
)

// isAPIServerController reports whether a controller of controllers.Default
// is kube-apiserver's own (apiextensions-apiserver's CRD finalizer, the
// FlowSchema and default ServiceCIDR status writers), which every control
// plane runs.
func isAPIServerController(name string) bool {
	switch name {
	case "crd-finalizer", "priority-and-fairness-config-consumer", "kubernetes-service-cidr-controller":
		return true
	}
	return false
}

// elector runs a piece of work (the controllers) only while this process
// holds its Lease, starting it again for each term it wins.
type elector struct {
	lock   *resourcelock.LeaseLock
	timing LeaderElection
	run    func(ctx context.Context) // one term's work; returns when ctx is done
	log    *slog.Logger

	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	decided chan struct{}  // closed once this process has run a term's first part, or another process leads
	stopped bool           // no term starts any more
	terms   sync.WaitGroup // the terms' work under way
}

// newElector builds an elector for the Lease kube-system/name, which
// client writes as identity; log receives client-go's elector's logs. Set
// run before start.
func newElector(client kubernetes.Interface, name, identity string, timing LeaderElection, log *slog.Logger) *elector {
	return &elector{
		lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: leaseNamespace, Name: name},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
		},
		timing:  timing.withDefaults(),
		log:     log,
		decided: make(chan struct{}),
	}
}

// leaderIdentity is this process's identity in the Leases it takes,
// kube-controller-manager's shape: the host name, an underscore and a
// UUID.
func leaderIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "fakeplane"
	}
	return host + "_" + uuid.NewString()
}

// start campaigns until stop: each term won runs e.run until the Lease is
// lost or stop is called, which releases it at once, so that another
// control plane takes over without waiting for the Lease to expire.
func (e *elector) start() error {
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            e.lock,
		LeaseDuration:   e.timing.LeaseDuration,
		RenewDeadline:   e.timing.RenewDeadline,
		RetryPeriod:     e.timing.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            e.lock.LeaseMeta.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				// client-go calls this in a goroutine of its own, which
				// Run does not wait for: stop does.
				e.mu.Lock()
				if e.stopped {
					e.mu.Unlock()
					return
				}
				e.terms.Add(1)
				e.mu.Unlock()
				defer e.terms.Done()
				e.run(ctx)
			},
			OnStoppedLeading: func() {}, // the term's context ends its work
			OnNewLeader: func(id string) {
				if id != e.lock.Identity() {
					e.markDecided()
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election %s: %w", e.lock.LeaseMeta.Name, err)
	}
	// client-go's elector logs through the context's logger.
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.FromSlogHandler(e.log.Handler())))
	e.cancel, e.done = cancel, make(chan struct{})
	go func() {
		defer close(e.done)
		for ctx.Err() == nil {
			le.Run(ctx) // returns when the term ends or ctx is done
		}
	}()
	return nil
}

// markDecided records that a leader is known: another process, or this
// one once its term's work is under way (see runControllersTerm).
func (e *elector) markDecided() {
	e.mu.Lock()
	defer e.mu.Unlock()
	select {
	case <-e.decided:
	default:
		close(e.decided)
	}
}

// waitDecided waits until another process is known to lead, or this one
// leads and has called markDecided.
func (e *elector) waitDecided(ctx context.Context) error {
	select {
	case <-e.decided:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for a leader of %s: %w", e.lock.LeaseMeta.Name, context.Cause(ctx))
	}
}

// stop ends the campaign, and the term's work with it, releasing the Lease
// if this process holds it.
func (e *elector) stop() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	<-e.done
	e.mu.Lock()
	e.stopped = true
	e.mu.Unlock()
	e.terms.Wait()
}

// runControllersTerm is one term of the controllers' Lease: it starts
// fresh controllers (their state is rebuilt from the store, as
// kube-controller-manager's is when it takes over), waits for the first
// sync of those a new cluster's clients rely on, and stops them when the
// term ends.
func (cp *ControlPlane) runControllersTerm(ctx context.Context, e *elector, build func() []controllers.Controller, awaited []string) {
	runner := controllers.Start(ctx, cp.store, cp.opts.logger, build()...)
	_ = runner.WaitForFirstSync(ctx, awaited...)
	e.markDecided()
	<-ctx.Done()
	runner.Stop()
}

// KubeControllerManagerUser is the user the controllers of a control plane
// sharing an etcd take their Lease as, the one the bootstrap ClusterRole
// system:kube-controller-manager is bound to.
const KubeControllerManagerUser = "system:kube-controller-manager"

// startElectedControllers campaigns for the controllers' Lease and returns
// once a leader is known: this process, with the first sync of the awaited
// controllers done, or another one.
func (cp *ControlPlane) startElectedControllers(ctx context.Context, cfg controllers.Config, awaited []string) error {
	kp, err := cp.ca.NewClientCert(KubeControllerManagerUser)
	if err != nil {
		return fmt.Errorf("fakeplane: controller manager certificate: %w", err)
	}
	rc := cp.configFor(kp)
	rc.UserAgent = "kube-controller-manager (fakeplane)"
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("fakeplane: controller manager client: %w", err)
	}
	build := func() []controllers.Controller {
		return slices.DeleteFunc(controllers.Default(cfg), func(c controllers.Controller) bool { return isAPIServerController(c.Name()) })
	}
	e := newElector(client, controllerManagerLease, leaderIdentity(), cp.opts.leaderElection, cp.opts.logger.With("component", "leader-election"))
	e.run = func(ctx context.Context) { cp.runControllersTerm(ctx, e, build, awaited) }
	if err := e.start(); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	cp.controllerElector = e
	if err := e.waitDecided(ctx); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	return nil
}
