package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// Options are a Scheduler's settings besides its configuration.
type Options struct {
	// Log receives the scheduler's messages (default: discarded).
	Log *slog.Logger
	// Identity is the leader-election holder identity (default: the
	// hostname, "_" and a random UUID, as kube-scheduler's).
	Identity string
}

// Scheduler schedules the pods of its profiles. Make one with New, run it
// with Start and end it with Stop.
type Scheduler struct {
	cfg      *Configuration
	client   kubernetes.Interface
	log      *slog.Logger
	identity string

	profiles map[string]*profile
	queue    *podQueue
	cache    *nodeCache
	handle   *handle
	podsList corelisters.PodLister
	// draSlices is upstream's ResourceSlice tracker when a profile
	// enables DynamicResources (stopped by Stop).
	draSlices *resourceslicetracker.Tracker

	// eventsV1 records the profiles' events (events.k8s.io/v1), legacy
	// the leader election's (core/v1), as kube-scheduler's broadcaster
	// adapter does; both outlive the scheduling loop until Stop.
	eventsV1     events.EventBroadcaster
	legacy       record.EventBroadcaster
	cancelEvents context.CancelFunc
	recorders    map[string]events.EventRecorder
	logger       logr.Logger

	// rnd breaks ties between equally scored nodes; used by the scheduling
	// goroutine only.
	rnd            *rand.Rand
	nextStartIndex int

	cancel  context.CancelFunc
	wg      sync.WaitGroup
	binding sync.WaitGroup

	leading   chan struct{} // closed once this scheduler leads
	startOnce sync.Once
	stopOnce  sync.Once
}

// New returns a scheduler for cfg (as LoadConfig or NewConfig return it;
// one built by hand is completed first, see Complete; nil is the default
// configuration) that talks to the API server through client.
func New(client kubernetes.Interface, cfg *Configuration, opts Options) (*Scheduler, error) {
	switch {
	case cfg == nil:
		var err error
		if cfg, err = NewConfig(); err != nil {
			return nil, err
		}
	case cfg.Parallelism == nil:
		// Not completed (Complete sets it): default and validate a copy.
		cfg = cfg.DeepCopy()
		if err := Complete(cfg); err != nil {
			return nil, err
		}
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Identity == "" {
		host, _ := os.Hostname()
		opts.Identity = host + "_" + string(uuid.NewUUID())
	}
	s := &Scheduler{
		cfg: cfg, client: client, log: opts.Log, identity: opts.Identity,
		profiles: map[string]*profile{}, cache: newNodeCache(), handle: &handle{log: opts.Log},
		recorders: map[string]events.EventRecorder{}, rnd: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		leading: make(chan struct{}),
	}
	for _, pc := range cfg.Profiles {
		p, err := newProfile(pc, s.handle)
		if err != nil {
			return nil, fmt.Errorf("couldn't create scheduler: initializing profiles: creating profile for scheduler name %s: %w", ptr.Deref(pc.SchedulerName, ""), err)
		}
		if p.percentageOfNodesToScore == nil {
			p.percentageOfNodesToScore = cfg.PercentageOfNodesToScore
		}
		s.profiles[p.name] = p
	}
	hints := map[string]map[string][]eventHint{}
	for name, p := range s.profiles {
		hints[name] = p.hints
	}
	s.queue = newPodQueue(time.Duration(*cfg.PodInitialBackoffSeconds)*time.Second, time.Duration(*cfg.PodMaxBackoffSeconds)*time.Second, s.preEnqueue, hints)
	return s, nil
}

// ProfileNames lists the scheduler names the scheduler is responsible for.
func (s *Scheduler) ProfileNames() []string {
	var out []string
	for _, pc := range s.cfg.Profiles {
		out = append(out, ptr.Deref(pc.SchedulerName, ""))
	}
	return out
}

// preEnqueue runs the pod's profile's PreEnqueue plugins and returns the
// one that holds the pod back ("" when all let it through).
func (s *Scheduler) preEnqueue(pod *corev1.Pod) string {
	p := s.profiles[pod.Spec.SchedulerName]
	if p == nil {
		return "unknown profile"
	}
	for _, pl := range p.preEnqueue {
		if !pl.PreEnqueue(pod).ok() {
			return pl.Name()
		}
	}
	return ""
}

// responsible reports whether one of the profiles schedules pod.
func (s *Scheduler) responsible(pod *corev1.Pod) bool {
	_, ok := s.profiles[pod.Spec.SchedulerName]
	return ok
}

// Start watches pods, nodes and what the plugins read, and once the caches
// are synced (and, with leader election, once it leads) schedules pods
// until Stop. It returns once the caches are synced; ctx bounds that wait.
// A Scheduler starts once.
func (s *Scheduler) Start(ctx context.Context) error {
	if s.cancel != nil {
		return errors.New("scheduler: already started")
	}
	// client-go's leader election, events and informers log through klog:
	// their messages go to the scheduler's log.
	s.logger = logr.FromSlogHandler(s.log.Handler())
	logCtx := klog.NewContext(context.Background(), s.logger)
	runCtx, cancel := context.WithCancel(logCtx)
	s.cancel = cancel

	// As kube-scheduler: the profiles' events in events.k8s.io/v1, named
	// by their scheduler names; leader election's in core/v1.
	eventsCtx, cancelEvents := context.WithCancel(logCtx)
	s.cancelEvents = cancelEvents
	s.eventsV1 = events.NewBroadcaster(&events.EventSinkImpl{Interface: s.client.EventsV1()})
	for name := range s.profiles {
		s.recorders[name] = s.eventsV1.NewRecorder(scheme.Scheme, name).WithLogger(s.logger)
	}
	if err := s.eventsV1.StartRecordingToSinkWithContext(eventsCtx); err != nil {
		cancel()
		cancelEvents()
		return fmt.Errorf("scheduler: events: %w", err)
	}
	s.legacy = record.NewBroadcaster(record.WithContext(eventsCtx))
	s.legacy.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: s.client.CoreV1().Events("")})

	factory := informers.NewSharedInformerFactory(s.client, 0)
	// As kube-scheduler, pods that finished are not watched.
	podFactory := informers.NewSharedInformerFactoryWithOptions(s.client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "status.phase!=" + string(corev1.PodSucceeded) + ",status.phase!=" + string(corev1.PodFailed)
	}))
	podInformer := podFactory.Core().V1().Pods()
	pods := podInformer.Informer()
	nodes := factory.Core().V1().Nodes().Informer()
	namespaces := factory.Core().V1().Namespaces()
	nsInformer := namespaces.Informer()
	s.handle.namespaces = namespaces.Lister()
	// What default topology spread constraints select pods by.
	services := factory.Core().V1().Services()
	rcs := factory.Core().V1().ReplicationControllers()
	replicaSets := factory.Apps().V1().ReplicaSets()
	statefulSets := factory.Apps().V1().StatefulSets()
	s.handle.services, s.handle.rcs = services.Lister(), rcs.Lister()
	s.handle.replicaSets, s.handle.statefulSets = replicaSets.Lister(), statefulSets.Lister()
	claims := factory.Core().V1().PersistentVolumeClaims()
	volumes := factory.Core().V1().PersistentVolumes()
	storageClasses := factory.Storage().V1().StorageClasses()
	s.handle.claims, s.handle.volumes, s.handle.storageClasses = claims.Lister(), volumes.Lister(), storageClasses.Lister()
	// A claim, volume or class that appears or changes may help pods
	// VolumeBinding turned down (as kube-scheduler, their deletions are no
	// events: no plugin registers them).
	for res, inf := range map[eventResource]cache.SharedIndexInformer{
		resPersistentVolumeClaim: claims.Informer(), resPersistentVolume: volumes.Informer(), resStorageClass: storageClasses.Informer(),
	} {
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) { s.queue.Move(clusterEvent{resource: res, action: actAdd, newObj: obj}) },
			UpdateFunc: func(old, obj any) {
				s.queue.Move(clusterEvent{resource: res, action: actUpdate, oldObj: old, newObj: obj})
			},
		})
	}
	synced := []cache.InformerSynced{services.Informer().HasSynced, rcs.Informer().HasSynced, replicaSets.Informer().HasSynced, statefulSets.Informer().HasSynced,
		claims.Informer().HasSynced, volumes.Informer().HasSynced, storageClasses.Informer().HasSynced}
	// As kube-scheduler, PodDisruptionBudgets are watched when a profile
	// enables DefaultPreemption (they are no cluster event: nothing is
	// retried when one changes).
	for _, p := range s.profiles {
		if p.preemption != nil {
			pdbs := factory.Policy().V1().PodDisruptionBudgets()
			s.handle.pdbs = pdbs.Lister()
			synced = append(synced, pdbs.Informer().HasSynced)
			break
		}
	}
	// As kube-scheduler, the DRA objects are watched when a profile
	// enables DynamicResources.
	for _, p := range s.profiles {
		if p.dra != nil {
			draSynced, err := s.watchDRA(runCtx, factory)
			if err != nil {
				cancel()
				cancelEvents()
				return err
			}
			synced = append(synced, draSynced...)
			break
		}
	}
	s.podsList = podInformer.Lister()
	_, _ = pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.onPodAdd(obj.(*corev1.Pod)) },
		UpdateFunc: func(old, obj any) { s.onPodUpdate(old.(*corev1.Pod), obj.(*corev1.Pod)) },
		DeleteFunc: func(obj any) { s.onPodDelete(obj) },
	})
	_, _ = nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			s.cache.setNode(obj.(*corev1.Node))
			s.queue.Move(clusterEvent{resource: resNode, action: actAdd, newObj: obj})
		},
		UpdateFunc: func(old, obj any) {
			s.cache.setNode(obj.(*corev1.Node))
			for _, e := range nodeUpdateEvents(old.(*corev1.Node), obj.(*corev1.Node)) {
				s.queue.Move(e)
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				s.queue.Move(clusterEvent{resource: resNode, action: actDelete, oldObj: n})
				s.cache.deleteNode(n.Name)
			}
		},
	})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		factory.Start(runCtx.Done())
		podFactory.Start(runCtx.Done())
		<-runCtx.Done()
		factory.Shutdown()
		podFactory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), append(synced, pods.HasSynced, nodes.HasSynced, nsInformer.HasSynced)...) {
		s.Stop()
		return fmt.Errorf("scheduler: caches did not sync: %w", ctx.Err())
	}

	if ptr.Deref(s.cfg.LeaderElection.LeaderElect, false) {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.runLeaderElection(runCtx) }()
	} else {
		close(s.leading)
	}
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.flushLoop(runCtx) }()
	go func() {
		defer s.wg.Done()
		select {
		case <-s.leading:
		case <-runCtx.Done():
			return
		}
		s.loop(runCtx)
	}()
	s.wg.Add(1)
	go func() { defer s.wg.Done(); <-runCtx.Done(); s.queue.Close() }()
	return nil
}

// Stop stops scheduling and watching and waits for the scheduler's
// goroutines (bindings under way finish first). It may be called more than
// once.
func (s *Scheduler) Stop() {
	if s.cancel == nil {
		return
	}
	s.stopOnce.Do(func() {
		s.cancel()
		s.queue.Close()
		s.wg.Wait()
		s.binding.Wait()
		if s.draSlices != nil {
			s.draSlices.Stop()
		}
		if s.eventsV1 != nil {
			s.eventsV1.Shutdown()
			s.legacy.Shutdown()
			s.cancelEvents()
		}
	})
}

// flushLoop moves pods whose backoff ended back to the active queue.
func (s *Scheduler) flushLoop(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.queue.Flush()
		}
	}
}

// loop schedules one pod at a time until the queue closes.
func (s *Scheduler) loop(ctx context.Context) {
	for {
		qp := s.queue.Pop()
		if qp == nil || ctx.Err() != nil {
			return
		}
		s.scheduleOne(ctx, qp)
	}
}

// onPodAdd files a new pod: a bound one in the cache (an event for the
// pending pods), a pending one of ours in the queue.
func (s *Scheduler) onPodAdd(pod *corev1.Pod) {
	if pod.Spec.NodeName != "" {
		s.cache.setPod(pod)
		s.queue.Move(clusterEvent{resource: resAssignedPod, action: actAdd, newObj: pod})
		return
	}
	if s.responsible(pod) {
		s.queue.Add(pod)
	}
}

// onPodUpdate follows a pod as kube-scheduler's updatePod: a bound pod's
// update is classified into events; a binding is an assigned pod's
// addition; a pending pod's update goes to the queue, whose hints decide.
func (s *Scheduler) onPodUpdate(old, pod *corev1.Pod) {
	switch {
	case old.Spec.NodeName != "":
		s.cache.setPod(pod)
		for _, e := range podUpdateEvents(old, pod) {
			s.queue.Move(e)
		}
	case pod.Spec.NodeName != "":
		s.queue.Delete(pod.UID)
		s.cache.setPod(pod)
		s.queue.Move(clusterEvent{resource: resAssignedPod, action: actAdd, newObj: pod})
	case s.responsible(old):
		if old.ResourceVersion == pod.ResourceVersion {
			return
		}
		if _, assumed := s.cache.nodeOf(pod.UID); assumed {
			return // being bound: its binding decides
		}
		s.queue.Update(old, pod)
		if nn := old.Status.NominatedNodeName; nn != "" && nn != pod.Status.NominatedNodeName {
			// The pod no longer holds room on its nominated node, as
			// kube-scheduler treats it: pods of no higher priority may
			// fit there now.
			s.queue.Move(clusterEvent{resource: resAssignedPod, action: actDelete, oldObj: old, only: upToPriority(old)})
		}
	}
}

// onPodDelete forgets a pod: a bound or assumed one frees its node (an
// event), a pending one leaves the queue, and a pending one nominated to a
// node frees the room it held there for pods of no higher priority.
func (s *Scheduler) onPodDelete(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	s.queue.Delete(pod.UID)
	if node, cached := s.cache.nodeOf(pod.UID); cached {
		s.cache.removePod(pod)
		gone := pod
		if gone.Spec.NodeName == "" {
			// An assumed pod: the event carries it as placed.
			gone = pod.DeepCopy()
			gone.Spec.NodeName = node
		}
		s.queue.Move(clusterEvent{resource: resAssignedPod, action: actDelete, oldObj: gone})
		return
	}
	if pod.Spec.NodeName == "" && pod.Status.NominatedNodeName != "" {
		s.queue.Move(clusterEvent{resource: resAssignedPod, action: actDelete, oldObj: pod, only: upToPriority(pod)})
	}
}

// upToPriority selects the pods of at most pod's priority.
func upToPriority(pod *corev1.Pod) func(*corev1.Pod) bool {
	prio := corev1helpers.PodPriority(pod)
	return func(p *corev1.Pod) bool { return corev1helpers.PodPriority(p) <= prio }
}

// errNoNodesAvailable is kube-scheduler's error for a cluster without
// nodes.
var errNoNodesAvailable = errors.New("no nodes available to schedule pods")
