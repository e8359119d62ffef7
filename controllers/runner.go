package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// Controller is one control loop.
type Controller interface {
	// Name names the controller, as kube-controller-manager's --controllers
	// does ("clusterrole-aggregation-controller", ...).
	Name() string
	// Resources are the store buckets whose changes feed the controller
	// ("apiextensions.k8s.io/customresourcedefinitions", ...).
	Resources() []string
	// Sync is handed the changes committed to Resources since its previous
	// call, in revision order across all of them, and brings what the
	// controller manages in line with them. The first call has every object
	// present at start as an Added event (there may be none), so that what
	// changed while no controller ran converges. If the runner loses its
	// watch (a slow controller), it lists again and hands Sync the
	// difference from what it had delivered: Added, Modified and Deleted
	// events, the same as if it had seen every change.
	//
	// Sync runs in the controller's goroutine, never concurrently with
	// itself. The events' byte slices are shared: Sync must not modify them.
	// An error (a write that failed) makes the runner call Sync again after
	// a backoff, with the events that came meanwhile or none: a controller
	// keeps the work it has not finished and retries it then. Sync should
	// return soon once ctx is done.
	Sync(ctx context.Context, events []store.Event) error
}

// Requeue is what a Sync returns when it has work left that waits on
// changes it is not fed (objects held by their finalizers, ...): the runner
// calls Sync again after After (with the events that came meanwhile, or
// none), without counting a failure. A Sync that also failed returns its
// failures instead, and is retried after the runner's backoff, unless it
// keeps a retry time per key (keyRetries): then it returns a Requeue at the
// earliest of them, with its failures in Failed, which the runner logs.
type Requeue struct {
	// After is the delay before the next Sync.
	After time.Duration
	// Failed, when not nil, is what failed in the Sync.
	Failed error
}

// Error implements error.
func (r *Requeue) Error() string {
	if r.Failed != nil {
		return fmt.Sprintf("%v (retry in %v)", r.Failed, r.After)
	}
	return fmt.Sprintf("work left: sync again in %v", r.After)
}

// Unwrap returns the Sync's failures, if any.
func (r *Requeue) Unwrap() error { return r.Failed }

// earlierRequeue is a Sync's result err brought forward to the Requeue
// next when that comes first: err when next is nil or err is a failure
// without a retry time (the runner's backoff retries it), else the
// Requeue of the two with the earlier time (err keeps its failures).
func earlierRequeue(err, next error) error {
	var n *Requeue
	if !errors.As(next, &n) {
		return err
	}
	if err == nil {
		return next
	}
	var rq *Requeue
	if !errors.As(err, &rq) {
		return err
	}
	rq.After = min(rq.After, n.After)
	return rq
}

// Waker is a Controller that is also fed from elsewhere than the store's
// watches (the garbage collector's owner index, ...): each value Wake's
// channel receives makes the runner call Sync, with no events if none came.
type Waker interface {
	Controller
	// Wake is the channel that wakes the controller.
	Wake() <-chan struct{}
}

// Filter is a Controller that cares for a few objects of its resources
// only (kube-root-ca.crt among the ConfigMaps, ...): the runner neither
// keeps nor hands it the others, and their changes do not wake it.
type Filter interface {
	Controller
	// Wants reports whether the changes of the object stored at key in
	// resource feed the controller.
	Wants(resource, key string) bool
}

// Backoff bounds between a failed Sync and its retry.
const (
	minRetry = 50 * time.Millisecond
	maxRetry = 10 * time.Second
)

// watchBuffer is the capacity of a controller's watch channels. A controller
// that falls further behind loses its watch and lists again.
const watchBuffer = 1000

// Runner runs controllers, each in a goroutine of its own, until Stop.
type Runner struct {
	ctx    context.Context
	cancel context.CancelFunc
	st     store.Interface
	log    *slog.Logger
	wg     sync.WaitGroup
	// mu guards synced, which Add extends.
	mu sync.Mutex
	// synced has, by controller name, a channel closed once the
	// controller's first Sync returned.
	synced map[string]chan struct{}
	// starting is held by the controller whose first list and Sync run,
	// for turnHold at most (see firstTurn).
	starting chan struct{}
	turnHold time.Duration
}

// Start runs each controller in a goroutine of its own, fed by the watches
// of st, until ctx is done or Stop is called. log receives what the
// controllers report (nil: slog.Default()).
func Start(ctx context.Context, st store.Interface, log *slog.Logger, ctrls ...Controller) *Runner {
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Runner{ctx: ctx, cancel: cancel, st: st, log: log, synced: make(map[string]chan struct{}, len(ctrls)), starting: make(chan struct{}, 1), turnHold: firstTurnHold}
	r.Add(ctrls...)
	return r
}

// Add runs more controllers in r, as Start does: a control plane starts
// first the controllers whose first sync it waits for, then the others, so
// that these do not compete with them. After Stop it runs nothing.
func (r *Runner) Add(ctrls ...Controller) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		return
	}
	for _, c := range ctrls {
		synced := make(chan struct{})
		r.synced[c.Name()] = synced
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			run(r.ctx, r.st, r.log.With("controller", c.Name()), c, synced, r.firstTurn)
		}()
	}
}

// WaitForFirstSync waits until the first Sync of each named controller has
// returned, whether it succeeded or not (a failed one is retried as usual):
// what was in the store when the runner started has been acted on once. It
// fails when ctx is done first; a name the runner does not run is not
// waited for.
func (r *Runner) WaitForFirstSync(ctx context.Context, names ...string) error {
	for _, name := range names {
		r.mu.Lock()
		ch, ok := r.synced[name]
		r.mu.Unlock()
		if !ok {
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the first sync of %s: %w", name, context.Cause(ctx))
		}
	}
	return nil
}

// Stop ends the controllers and waits for their goroutines to return. It is
// safe to call more than once.
func (r *Runner) Stop() {
	r.mu.Lock()
	r.cancel()
	r.mu.Unlock()
	r.wg.Wait()
}

// SyncOnce calls c's Sync once, in the calling goroutine, with every
// object of its resources in st as an Added event, in revision order: what
// its first Sync under a Runner gets. A control plane runs it for the
// controllers that give a fresh cluster's namespaces their default objects
// inside its bootstrap transaction (store.Bulk), so that their writes
// commit with the bootstrap objects.
//
// It returns the controller to hand a Runner afterwards: c, marked as
// synced at the revision its Sync saw, so that the Runner watches from
// there and hands it the changes since, instead of listing and handing it
// everything again. A *Requeue from Sync without failures counts as
// success, but then the controller returned is c itself, which a Runner
// syncs anew. On failure it returns c too.
func SyncOnce(ctx context.Context, st store.Interface, c Controller) (Controller, error) {
	f := feedFor(st, c)
	listed, rev, err := listResources(st, f.resources, f.wanted)
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.Name(), err)
	}
	err = c.Sync(ctx, f.changes(listed, rev))
	var rq *Requeue
	switch {
	case errors.As(err, &rq) && rq.Failed == nil:
		return c, nil
	case err != nil:
		return c, fmt.Errorf("%s: %w", c.Name(), err)
	}
	return &syncedController{Controller: c, feed: f, rev: rev}, nil
}

// syncedController is a controller whose first Sync SyncOnce ran, with its feed,
// which remembers what that Sync was handed, listed at revision rev.
type syncedController struct {
	Controller
	feed *feed
	rev  int64
}

// run is one controller's goroutine: list and watch, then Sync each batch
// of changes, retrying a failed Sync with a growing backoff. synced is
// closed once the first Sync returned.
func run(ctx context.Context, st store.Interface, log *slog.Logger, c Controller, synced chan struct{}, turn func(context.Context) func()) {
	first := true
	done := func() {}
	defer func() {
		if first {
			close(synced)
		}
		done()
	}()
	var f *feed
	if s, ok := c.(*syncedController); ok {
		// Its first Sync ran already: it is fed the changes since. If the
		// store no longer has them, the feed lists again, as after a lost
		// watch, and the Sync of the difference counts as the first.
		c, f = s.Controller, s.feed
		if f.watch(ctx, s.rev) == nil {
			first = false
			close(synced)
		}
	} else {
		f = feedFor(st, c)
	}
	if first {
		done = turn(ctx)
	}
	defer f.close()
	var (
		retry   *time.Timer // set while a failed Sync waits for its retry
		backoff time.Duration
	)
	defer func() {
		if retry != nil {
			retry.Stop()
		}
	}()
	for ctx.Err() == nil {
		var events []store.Event
		if !f.open {
			var err error
			if events, err = f.start(ctx); err != nil {
				if ctx.Err() != nil || errors.Is(err, store.ErrClosed) {
					return
				}
				backoff = nextBackoff(backoff)
				log.Warn("list and watch", "err", err, "retry", backoff)
				if !sleep(ctx, backoff) {
					return
				}
				continue
			}
		} else {
			var wake <-chan time.Time
			if retry != nil {
				wake = retry.C
			}
			var woken, kicked bool
			var err error
			events, woken, kicked, err = f.next(ctx, wake)
			switch {
			case ctx.Err() != nil:
				return
			case errors.Is(err, store.ErrClosed):
				return
			case err != nil:
				log.Info("watch lost; listing again", "err", err)
				f.close()
				continue
			case woken:
				retry = nil
			case kicked:
			case len(events) == 0:
				continue
			}
		}
		err := c.Sync(ctx, events)
		if first {
			first = false
			close(synced)
			done()
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			var (
				rq    *Requeue
				delay time.Duration
			)
			if errors.As(err, &rq) {
				delay, backoff = rq.After, 0
				if rq.Failed != nil {
					log.Warn("sync failed", "err", rq.Failed, "retry", delay)
				}
			} else {
				backoff = nextBackoff(backoff)
				delay = backoff
				log.Warn("sync failed", "err", err, "retry", backoff)
			}
			if retry != nil {
				retry.Stop()
			}
			retry = time.NewTimer(delay)
			continue
		}
		backoff = 0
		if retry != nil {
			retry.Stop()
			retry = nil
		}
	}
}

// firstTurnHold bounds how long one controller's first list and Sync keep
// the others from starting theirs.
const firstTurnHold = 5 * time.Millisecond

// firstTurn waits until no other controller of r runs its first list and
// Sync, or r.turnHold passed since one began, and returns the call that
// ends the caller's turn (idempotent). The controllers of a start take
// their first turns one after another, so that a start's dozens of lists
// and first Syncs take one core, not all of them, while the server answers
// its first requests.
func (r *Runner) firstTurn(ctx context.Context) func() {
	select {
	case r.starting <- struct{}{}:
	case <-ctx.Done():
		return func() {}
	}
	var once sync.Once
	release := func() { once.Do(func() { <-r.starting }) }
	t := time.AfterFunc(r.turnHold, release)
	return func() {
		t.Stop()
		release()
	}
}

// nextBackoff doubles d within [minRetry, maxRetry].
func nextBackoff(d time.Duration) time.Duration {
	return min(max(2*d, minRetry), maxRetry)
}

// sleep waits for d or for ctx, reporting whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// feed is the stream of changes of a controller's resources: a list, then
// watches from the list's revision, merged in revision order. It remembers
// the last delivered state of every object (an informer's store), so that
// after a lost watch a new list can be handed over as the changes it makes.
type feed struct {
	st        store.Interface
	resources []string
	// open says the watches are running.
	open     bool
	watchers []store.Watcher
	// received is, for each watcher, the revision of the last event
	// received from it.
	received []int64
	// wants, when not nil, selects the objects fed (Filter.Wants).
	wants func(resource, key string) bool
	// kick, when not nil, wakes next as Waker.Wake does.
	kick <-chan struct{}
	// cases are the select cases of next: ctx, the retry wake-up, kick,
	// then one per watcher.
	cases []reflect.SelectCase
	// known is the last delivered state: resource -> key -> object.
	known map[string]map[string]store.Object
	// held are received events above the revision next could vouch for;
	// they go out with the next batch.
	held []store.Event
}

// feedFor is the feed of controller c: of its resources, selected by its
// Wants (Filter) and woken by its Wake (Waker).
func feedFor(st store.Interface, c Controller) *feed {
	f := newFeed(st, c.Resources())
	if flt, ok := c.(Filter); ok {
		f.wants = flt.Wants
	}
	if w, ok := c.(Waker); ok {
		f.kick = w.Wake()
	}
	return f
}

func newFeed(st store.Interface, resources []string) *feed {
	f := &feed{st: st, resources: resources, known: make(map[string]map[string]store.Object, len(resources))}
	for _, r := range resources {
		f.known[r] = map[string]store.Object{}
	}
	return f
}

// start lists every resource at one revision, starts watching them from
// there, and returns how the lists differ from what was delivered before
// (everything, as Added events, the first time), in revision order.
func (f *feed) start(ctx context.Context) ([]store.Event, error) {
	listed, rev, err := listResources(f.st, f.resources, f.wanted)
	if err != nil {
		return nil, err
	}
	if err := f.watch(ctx, rev); err != nil {
		return nil, err
	}
	return f.changes(listed, rev), nil
}

// watch stops the feed's watches, if any, and watches every resource
// from revision rev.
func (f *feed) watch(ctx context.Context, rev int64) error {
	f.close()
	for _, res := range f.resources {
		w, err := f.st.Watch(ctx, res, store.WatchOptions{FromRevision: rev, Buffer: watchBuffer})
		if err != nil {
			f.close()
			return fmt.Errorf("watch %s from revision %d: %w", res, rev, err)
		}
		f.watchers = append(f.watchers, w)
		f.received = append(f.received, 0)
	}
	f.cases = []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}, {Dir: reflect.SelectRecv}, {Dir: reflect.SelectRecv}}
	if f.kick != nil {
		f.cases[2].Chan = reflect.ValueOf(f.kick)
	}
	for _, w := range f.watchers {
		f.cases = append(f.cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w.Events())})
	}
	f.open = true
	return nil
}

// changes returns how listed (the lists at revision rev, listResources')
// differ from what was delivered before (everything, as Added events, the
// first time), in revision order, and remembers them as delivered.
func (f *feed) changes(listed map[string]map[string]store.Object, rev int64) []store.Event {
	var events []store.Event
	for _, res := range f.resources {
		known, items := f.known[res], listed[res]
		for key, it := range items {
			old, ok := known[key]
			switch {
			case !ok:
				events = append(events, store.Event{Type: store.Added, Resource: res, Key: key, Value: it.Value, Revision: it.Revision})
			case old.Revision != it.Revision:
				events = append(events, store.Event{Type: store.Modified, Resource: res, Key: key, Value: it.Value, Prev: old.Value, Revision: it.Revision, PrevRevision: old.Revision})
			}
		}
		for key, old := range known {
			if _, ok := items[key]; !ok {
				// Gone at some revision up to rev; its final state is
				// unknown, its last delivered one stands in.
				events = append(events, store.Event{Type: store.Deleted, Resource: res, Key: key, Value: old.Value, Prev: old.Value, Revision: rev, PrevRevision: old.Revision})
			}
		}
	}
	slices.SortStableFunc(events, func(a, b store.Event) int { return cmpRevision(a.Revision, b.Revision) })
	f.remember(events)
	return events
}

// listResources lists every resource in st at one revision (the first
// list's, the current one), keeping the objects wanted selects, and
// returns them by resource and key, with that revision.
func listResources(st store.Interface, resources []string, wanted func(resource, key string) bool) (map[string]map[string]store.Object, int64, error) {
	var rev int64
	listed := make(map[string]map[string]store.Object, len(resources))
	for _, res := range resources {
		lst, err := st.List(res, store.ListOptions{Revision: rev})
		if err != nil {
			return nil, 0, fmt.Errorf("list %s at revision %d: %w", res, rev, err)
		}
		rev = lst.Revision
		items := make(map[string]store.Object, len(lst.Items))
		for _, it := range lst.Items {
			if wanted(res, it.Key) {
				items[it.Key] = it
			}
		}
		listed[res] = items
	}
	return listed, rev, nil
}

func cmpRevision(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// next waits for changes, ctx, wake or kick, and returns the changes that
// came, in revision order across the resources, and whether wake or kick
// fired. An error
// says a watch ended (the controller was too slow, or the store closed):
// start must list again.
func (f *feed) next(ctx context.Context, wake <-chan time.Time) (events []store.Event, woken, kicked bool, err error) {
	if len(f.held) == 0 {
		f.cases[1].Chan = reflect.Value{}
		if wake != nil {
			f.cases[1].Chan = reflect.ValueOf(wake)
		}
		chosen, v, ok := reflect.Select(f.cases)
		switch {
		case chosen == 0:
			return nil, false, false, ctx.Err()
		case chosen == 1:
			woken = true
		case chosen == 2:
			kicked = true
		case !ok:
			return nil, false, false, f.lost(chosen - 3)
		default:
			ev := v.Interface().(store.Event)
			f.received[chosen-3] = ev.Revision
			if f.wanted(ev.Resource, ev.Key) {
				f.held = append(f.held, ev)
			}
		}
	}
	// Every event up to the current revision is queued for the watchers by
	// now (store.Store.Watch's progress guarantee): take them, up to the
	// last queued, and deliver up to that revision only, so that an event
	// of one resource never overtakes an older one of another.
	upTo := f.st.CurrentRevision()
	for i, w := range f.watchers {
		ch := w.Events()
		for sent := w.Sent(); f.received[i] < sent; {
			ev, ok := <-ch
			if !ok {
				return nil, false, false, f.lost(i)
			}
			f.received[i] = ev.Revision
			if f.wanted(ev.Resource, ev.Key) {
				f.held = append(f.held, ev)
			}
		}
	}
	slices.SortStableFunc(f.held, func(a, b store.Event) int { return cmpRevision(a.Revision, b.Revision) })
	n := 0
	for n < len(f.held) && f.held[n].Revision <= upTo {
		n++
	}
	events = slices.Clone(f.held[:n])
	f.held = slices.Delete(f.held, 0, n)
	f.remember(events)
	return events, woken, kicked, nil
}

// wanted reports whether the object at key in resource is fed.
func (f *feed) wanted(resource, key string) bool {
	return f.wants == nil || f.wants(resource, key)
}

// lost is the error of watcher i, whose channel closed.
func (f *feed) lost(i int) error {
	if err := f.watchers[i].Err(); err != nil {
		return fmt.Errorf("watch %s: %w", f.resources[i], err)
	}
	return fmt.Errorf("watch %s ended", f.resources[i])
}

// remember records delivered events as the known state.
func (f *feed) remember(events []store.Event) {
	for _, ev := range events {
		known := f.known[ev.Resource]
		if ev.Type == store.Deleted {
			delete(known, ev.Key)
		} else {
			known[ev.Key] = store.Object{Key: ev.Key, Value: ev.Value, Revision: ev.Revision}
		}
	}
}

// close stops the watches; held events are dropped, the next start lists
// them again.
func (f *feed) close() {
	for _, w := range f.watchers {
		w.Stop()
	}
	f.watchers, f.received, f.cases, f.held, f.open = nil, nil, nil, nil, false
}

// Config is what the default controllers need from the control plane.
type Config struct {
	// Registry is what they write through.
	Registry registry.Interface
	// NamespacedResources lists the namespaced resources a namespace's
	// deletion empties (nil: no namespace lifecycle).
	NamespacedResources NamespacedResourcesFunc
	// Owners is the garbage collector's owner index (nil: no garbage
	// collector).
	Owners OwnerIndex
	// RootCA is the PEM of the cluster CA, published in every namespace as
	// kube-root-ca.crt (nil: not published).
	RootCA []byte
	// Log receives what they report (nil: slog.Default()).
	Log *slog.Logger
	// NoPriorityAndFairness leaves out the FlowSchema status writer, as
	// kube-apiserver's --enable-priority-and-fairness=false does.
	NoPriorityAndFairness bool
	// Now is the clock of the controllers that act on time (CronJob
	// schedules, Job deadlines, TTLs, ...; nil: time.Now).
	Now func() time.Time
	// Controllers selects the controllers that run, as
	// kube-controller-manager's --controllers (nil: DefaultSelection).
	Controllers Selection
	// KindResources resolves the kinds HorizontalPodAutoscalers target
	// (nil: none resolves).
	KindResources KindResourcesFunc
	// LegacyToken signs the tokens of kubernetes.io/service-account-token
	// Secrets (nil: the token controller does not run).
	LegacyToken LegacyTokenFunc
	// HPASyncPeriod is how often each HorizontalPodAutoscaler is
	// reconciled (0: DefaultHPASyncPeriod).
	HPASyncPeriod time.Duration
	// CSRSigningCA signs the CertificateSigningRequests of the kubernetes.io
	// signers once they are approved (nil: the signing controller does not
	// run, as kube-controller-manager's without --cluster-signing-cert-file).
	CSRSigningCA *CSRSigningCA
	// CSRSigningDuration is the longest certificate it issues, as
	// --cluster-signing-duration (0: DefaultCSRSigningDuration).
	CSRSigningDuration time.Duration
	// Authorizer answers the approving controller's questions about
	// requesters (nil: that controller does not run).
	Authorizer authorizer.Authorizer
	// LegacyTokenCleanUpPeriod is how long an auto-generated token Secret
	// goes unused before the legacy token cleaner marks it invalid, and
	// then stays invalid before it deletes it, as
	// --legacy-service-account-token-clean-up-period (0:
	// DefaultLegacyTokenCleanUpPeriod).
	LegacyTokenCleanUpPeriod time.Duration
}

// Default returns the controllers of this package a control plane runs, as
// cfg sets them up (the aggregator's come from package aggregator).
func Default(cfg Config) []Controller {
	log, reg := cfg.Log, cfg.Registry
	if log == nil {
		log = slog.Default()
	}
	sel := cfg.Controllers
	if sel == nil {
		sel = DefaultSelection
	}
	// The CRD finalizer (apiextensions-apiserver's), the FlowSchema status
	// writer (priority and fairness's, unless it is off) and the default
	// ServiceCIDR's are kube-apiserver's, not kube-controller-manager's:
	// they always run.
	ctrls := []Controller{NewCRDFinalizer(reg, log.With("controller", "crd-finalizer"))}
	if !cfg.NoPriorityAndFairness {
		ctrls = append(ctrls, NewFlowSchemaStatus(reg, cfg.Now, log.With("controller", "priority-and-fairness-config-consumer")))
	}
	ctrls = append(ctrls, NewDefaultServiceCIDRStatus(reg, cfg.Now, log.With("controller", serviceCIDRManager)))
	add := func(name string, ok bool, c func(log *slog.Logger) Controller) {
		if ok && sel.Enabled(name) {
			ctrls = append(ctrls, c(log.With("controller", name)))
		}
	}
	add(ClusterRoleAggregationName, true, func(l *slog.Logger) Controller { return NewClusterRoleAggregation(reg, l) })
	add(ServiceAccountName, true, func(l *slog.Logger) Controller { return NewServiceAccount(reg, l) })
	add(RootCACertificatePublisherName, cfg.RootCA != nil, func(l *slog.Logger) Controller {
		return NewRootCACertPublisher(reg, cfg.RootCA, l)
	})
	add(ClusterTrustBundlePublisherName, cfg.RootCA != nil, func(l *slog.Logger) Controller {
		return NewClusterTrustBundlePublisher(reg, cfg.RootCA, l)
	})
	add(NamespaceName, cfg.NamespacedResources != nil, func(l *slog.Logger) Controller {
		return NewNamespaceLifecycle(reg, cfg.NamespacedResources, l)
	})
	add(GarbageCollectorName, cfg.Owners != nil, func(l *slog.Logger) Controller { return NewGarbageCollector(reg, cfg.Owners, l) })
	// The workload controllers, one line each.
	add(ReplicaSetName, true, func(l *slog.Logger) Controller { return NewReplicaSet(reg, cfg.Now, l) })
	add(ReplicationControllerName, true, func(l *slog.Logger) Controller { return NewReplicationController(reg, cfg.Now, l) })
	add(DeploymentName, true, func(l *slog.Logger) Controller { return NewDeployment(reg, cfg.Now, l) })
	add(JobName, true, func(l *slog.Logger) Controller { return NewJob(reg, cfg.Now, l) })
	add(EndpointsName, true, func(l *slog.Logger) Controller { return NewEndpoints(reg, l) })
	add(EndpointSliceName, true, func(l *slog.Logger) Controller { return NewEndpointSlice(reg, l) })
	add(EndpointSliceMirroringName, true, func(l *slog.Logger) Controller { return NewEndpointSliceMirroring(reg, l) })
	add(CronJobName, true, func(l *slog.Logger) Controller { return NewCronJob(reg, cfg.Now, l) })
	add(TTLAfterFinishedName, true, func(l *slog.Logger) Controller { return NewTTLAfterFinished(reg, cfg.Now, l) })
	add(StatefulSetName, true, func(l *slog.Logger) Controller { return NewStatefulSet(reg, cfg.Now, l) })
	add(DaemonSetName, true, func(l *slog.Logger) Controller { return NewDaemonSet(reg, cfg.Now, l) })
	add(DisruptionName, true, func(l *slog.Logger) Controller { return NewDisruption(reg, cfg.Now, l) })
	add(NodeLifecycleName, true, func(l *slog.Logger) Controller { return NewNodeLifecycle(reg, cfg.Now, l) })
	add(TaintEvictionName, true, func(l *slog.Logger) Controller { return NewTaintEviction(reg, cfg.Now, l) })
	add(PersistentVolumeBinderName, true, func(l *slog.Logger) Controller { return NewPersistentVolumeBinder(reg, cfg.Now, l) })
	add(PVCProtectionName, true, func(l *slog.Logger) Controller { return NewPVCProtection(reg, l) })
	add(EphemeralVolumeName, true, func(l *slog.Logger) Controller { return NewEphemeralVolume(reg, l) })
	add(ResourceClaimName, true, func(l *slog.Logger) Controller { return NewResourceClaims(reg, cfg.Now, l) })
	add(DeviceTaintEvictionName, true, func(l *slog.Logger) Controller { return NewDeviceTaintEviction(reg, cfg.Now, l) })
	add(PVProtectionName, true, func(l *slog.Logger) Controller { return NewPVProtection(reg, l) })
	add(VACProtectionName, true, func(l *slog.Logger) Controller { return NewVACProtection(reg, l) })
	add(TTLName, true, func(l *slog.Logger) Controller { return NewTTL(reg, l) })
	add(PodGarbageCollectorName, true, func(l *slog.Logger) Controller { return NewPodGC(reg, cfg.Now, l) })
	add(ServiceCIDRName, true, func(l *slog.Logger) Controller { return NewServiceCIDRs(reg, cfg.Now, l) })
	add(ServiceAccountTokenName, cfg.LegacyToken != nil, func(l *slog.Logger) Controller {
		return NewServiceAccountTokens(reg, cfg.RootCA, cfg.LegacyToken, l)
	})
	add(HorizontalPodAutoscalerName, true, func(l *slog.Logger) Controller {
		return NewHorizontalPodAutoscaler(reg, cfg.KindResources, cfg.HPASyncPeriod, cfg.Now, l)
	})
	add(CSRApprovingName, cfg.Authorizer != nil, func(l *slog.Logger) Controller { return NewCSRApproving(reg, cfg.Authorizer, l) })
	add(CSRSigningName, cfg.CSRSigningCA != nil, func(l *slog.Logger) Controller {
		return NewCSRSigning(reg, *cfg.CSRSigningCA, cfg.CSRSigningDuration, cfg.Now, l)
	})
	add(CSRCleanerName, true, func(l *slog.Logger) Controller { return NewCSRCleaner(reg, cfg.Now, l) })
	add(PCRCleanerName, true, func(l *slog.Logger) Controller { return NewPCRCleaner(reg, cfg.Now, l) })
	add(LegacyTokenCleanerName, true, func(l *slog.Logger) Controller {
		c := NewLegacyTokenCleaner(reg, cfg.Now, l)
		c.CleanUpPeriod = cfg.LegacyTokenCleanUpPeriod
		return c
	})
	return ctrls
}
