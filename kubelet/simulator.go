package kubelet

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// NodeLeaseNamespace is where node heartbeats (Leases) live.
const NodeLeaseNamespace = corev1.NamespaceNodeLease

// Defaults of Config: a kubelet's node lease is valid 40s and renewed every
// quarter of that.
const (
	DefaultLeaseDuration = 40 * time.Second
	DefaultRenewInterval = 10 * time.Second
)

// Config configures a Simulator.
type Config struct {
	// Client talks to the control plane; it needs to manage nodes,
	// nodes/status and leases in kube-node-lease.
	Client kubernetes.Interface
	// Nodes is how many nodes (node-0, node-1, ...) to create at Start
	// when they do not exist yet.
	Nodes int
	// RenewInterval is how often Leases are renewed (default
	// DefaultRenewInterval).
	RenewInterval time.Duration
	// LeaseDuration is the Leases' leaseDurationSeconds (default
	// DefaultLeaseDuration).
	LeaseDuration time.Duration
	// Now is the clock for heartbeat and renew times (default time.Now).
	Now func() time.Time
	// Log receives the simulator's messages (default: discarded).
	Log *slog.Logger
	// DisablePodLifecycle turns the pod lifecycle off: nodes are still
	// Ready with their Leases renewed, but pods bound to them stay as the
	// API server and scheduler left them (Pending, or Terminating once
	// deleted), as on nodes with no kubelet.
	DisablePodLifecycle bool
	// WaitGracePeriod makes terminating pods wait out their grace period
	// (their deletionTimestamp, on the Now clock) before they are removed,
	// as containers that ignore SIGTERM do. By default they are removed at
	// once, as kwok's fast pod-delete stage removes them and as a kubelet
	// removes pods whose containers stop on SIGTERM.
	WaitGracePeriod bool
	// Stages, when set, replace the built-in pod lifecycle (kwok's fast
	// stages) with these kwok Stages, as kwok's --config does: each pod of
	// a managed node is moved on by the stage that selects it.
	Stages []Stage
	// PodWorkers is how many pods are synced at once (default
	// DefaultPodWorkers).
	PodWorkers int
	// API, when set, turns on the kubelet API of the managed nodes (see
	// APIServer): it listens from Start to Stop, and each managed node's
	// InternalIP and kubelet port point at it.
	API *APIConfig
	// GraceCheckInterval is how often waiting pods (terminating ones, ones
	// a delayed Stage selected) are checked for their time having come on
	// the Now clock (default DefaultGraceCheckInterval).
	GraceCheckInterval time.Duration
}

// Simulator keeps the managed nodes Ready and their Leases renewed, and
// runs the pods bound to them (see nextPodStatus): it reports their status
// as a kubelet does and deletes terminating pods once their grace period
// is over.
type Simulator struct {
	cfg     Config
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	nodes   cache.Indexer
	pending chan string
	pods    *podLifecycle // nil when the pod lifecycle is off
	api     *APIServer    // nil when the kubelet API is off

	mu       sync.Mutex
	managed  map[string]*corev1.Node // the managed nodes by name
	podStore cache.Store             // bound pods, for the kubelet API
}

// API returns the kubelet API of the managed nodes, nil when Config.API
// is not set or before Start.
func (s *Simulator) API() *APIServer { return s.api }

// apiAddr is the kubelet API's address, nil when it is off.
func (s *Simulator) apiAddr() *net.TCPAddr {
	if s.api == nil {
		return nil
	}
	return s.api.Addr()
}

// New returns a simulator; nothing runs until Start.
func New(cfg Config) *Simulator {
	if cfg.RenewInterval <= 0 {
		cfg.RenewInterval = DefaultRenewInterval
	}
	if cfg.LeaseDuration <= 0 {
		cfg.LeaseDuration = DefaultLeaseDuration
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.PodWorkers <= 0 {
		cfg.PodWorkers = DefaultPodWorkers
	}
	if cfg.GraceCheckInterval <= 0 {
		cfg.GraceCheckInterval = DefaultGraceCheckInterval
	}
	return &Simulator{cfg: cfg, pending: make(chan string, 1024), managed: map[string]*corev1.Node{}}
}

// Start creates the configured nodes that are missing, then keeps every
// managed node's status and Lease up to date, and runs the pods bound to
// managed nodes, until Stop. It returns once the created nodes report Ready
// and have a Lease.
func (s *Simulator) Start(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	if s.cfg.API != nil {
		api := *s.cfg.API
		api.Now = s.cfg.Now
		api.Log = s.cfg.Log
		var err error
		if s.api, err = newAPIServer(api, simPods{s}); err != nil {
			cancel()
			return err
		}
	}
	for i := 0; i < s.cfg.Nodes; i++ {
		node := NewNode(i)
		if addr := s.apiAddr(); addr != nil {
			node.Status.Addresses = desiredStatus(node, metav1.Time{}, addr).Addresses
		}
		created, err := s.cfg.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{FieldManager: "kubelet"})
		if apierrors.IsAlreadyExists(err) {
			continue
		}
		if err != nil {
			s.Stop()
			return errorf("create node %s: %w", NodeName(i), err)
		}
		if err := s.sync(ctx, created); err != nil {
			s.Stop()
			return err
		}
	}
	factory := informers.NewSharedInformerFactory(s.cfg.Client, 0)
	inf := factory.Core().V1().Nodes().Informer()
	s.nodes = inf.GetIndexer()
	enqueue := func(obj any) {
		if n, ok := obj.(*corev1.Node); ok && IsManaged(n) {
			select {
			case s.pending <- n.Name:
			case <-runCtx.Done():
			}
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				s.mu.Lock()
				delete(s.managed, n.Name)
				if s.pods != nil {
					s.pods.ips.forgetNode(n.Name)
				}
				s.mu.Unlock()
			}
		},
	})
	s.wg.Add(3)
	go func() {
		defer s.wg.Done()
		factory.Start(runCtx.Done())
		<-runCtx.Done()
		factory.Shutdown()
	}()
	go func() { defer s.wg.Done(); s.worker(runCtx) }()
	go func() { defer s.wg.Done(); s.renewLoop(runCtx) }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		s.Stop()
		return errorf("node informer did not sync: %w", ctx.Err())
	}
	if !s.cfg.DisablePodLifecycle {
		s.mu.Lock()
		s.pods = newPodLifecycle(s)
		s.mu.Unlock()
		if err := s.pods.start(ctx, runCtx); err != nil {
			s.Stop()
			return err
		}
		s.mu.Lock()
		for name := range s.managed {
			s.pods.nodeReady(name)
		}
		s.podStore = s.pods.pods.GetStore()
		s.mu.Unlock()
	} else if s.api != nil {
		if err := s.startAPIPods(ctx, runCtx); err != nil {
			s.Stop()
			return err
		}
	}
	return nil
}

// startAPIPods runs an informer of the bound pods for the kubelet API when
// the pod lifecycle, whose informer it otherwise shares, is off.
func (s *Simulator) startAPIPods(ctx, runCtx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(s.cfg.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName!=" }))
	inf := factory.Core().V1().Pods().Informer()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		factory.Start(runCtx.Done())
		<-runCtx.Done()
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return errorf("pod informer did not sync: %w", ctx.Err())
	}
	s.mu.Lock()
	s.podStore = inf.GetStore()
	s.mu.Unlock()
	return nil
}

// simPods are the pods of the managed nodes, for the kubelet API.
type simPods struct{ s *Simulator }

// pod is the pod as the API serves it now, as a kubelet knows the status
// it just reported: the informer's copy may not have caught up with the
// status the simulator wrote (a client that saw the pod Running would then
// be told its container is not available). The informer's copy serves
// when the API cannot be read.
func (p simPods) pod(namespace, name string) (*corev1.Pod, bool) {
	p.s.mu.Lock()
	store := p.s.podStore
	p.s.mu.Unlock()
	if store == nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pod, err := p.s.cfg.Client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		obj, ok, _ := store.GetByKey(namespace + "/" + name)
		if !ok {
			return nil, false
		}
		pod = obj.(*corev1.Pod)
	}
	p.s.mu.Lock()
	_, managed := p.s.managed[pod.Spec.NodeName]
	p.s.mu.Unlock()
	return pod, managed
}

func (p simPods) list() []*corev1.Pod {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	if p.s.podStore == nil {
		return nil
	}
	var out []*corev1.Pod
	for _, obj := range p.s.podStore.List() {
		if pod := obj.(*corev1.Pod); p.s.managed[pod.Spec.NodeName] != nil {
			out = append(out, pod)
		}
	}
	return out
}

// Stop stops the simulator and its kubelet API, and waits for their
// goroutines.
func (s *Simulator) Stop() {
	if s.cancel != nil {
		s.cancel()
	}
	if s.api != nil {
		s.api.stop()
	}
	s.wg.Wait()
}

// worker syncs the nodes the informer reported.
func (s *Simulator) worker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case name := <-s.pending:
			obj, ok, _ := s.nodes.GetByKey(name)
			if !ok {
				continue
			}
			if err := s.sync(ctx, obj.(*corev1.Node)); err != nil && ctx.Err() == nil {
				s.cfg.Log.Warn("kubelet: sync node", "node", name, "err", err)
			}
		}
	}
}

// renewLoop renews every managed node's Lease each RenewInterval.
func (s *Simulator) renewLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.RenewInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		nodes := make([]*corev1.Node, 0, len(s.managed))
		for _, n := range s.managed {
			nodes = append(nodes, n)
		}
		s.mu.Unlock()
		for _, n := range nodes {
			if err := s.renewLease(ctx, n); err != nil && ctx.Err() == nil {
				s.cfg.Log.Warn("kubelet: renew lease", "node", n.Name, "err", err)
			}
		}
	}
}

// sync gives a managed node a pod CIDR when it has none, reports its
// status and makes sure its Lease exists.
func (s *Simulator) sync(ctx context.Context, node *corev1.Node) error {
	if node.Spec.PodCIDR == "" && len(node.Spec.PodCIDRs) == 0 {
		n := node.DeepCopy()
		n.Spec.PodCIDR = freePodCIDR(s.knownNodes())
		n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
		updated, err := s.cfg.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{FieldManager: "kubelet"})
		if err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				return nil // the informer brings the newer object (or its deletion)
			}
			return errorf("set pod CIDR of node %s: %w", node.Name, err)
		}
		node = updated
	}
	now := metav1.NewTime(s.cfg.Now())
	if !statusUpToDate(node, now, s.apiAddr()) {
		n := node.DeepCopy()
		n.Status = desiredStatus(node, now, s.apiAddr())
		updated, err := s.cfg.Client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{FieldManager: "kubelet"})
		if err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				return nil // the informer brings the newer object (or its deletion)
			}
			return errorf("update status of node %s: %w", node.Name, err)
		}
		node = updated
	}
	s.mu.Lock()
	_, known := s.managed[node.Name]
	s.managed[node.Name] = node
	pods := s.pods
	s.mu.Unlock()
	if !known {
		if pods != nil {
			pods.nodeReady(node.Name)
		}
		return s.renewLease(ctx, node)
	}
	return nil
}

// knownNodes are the nodes in the informer's cache and those synced.
func (s *Simulator) knownNodes() []*corev1.Node {
	var out []*corev1.Node
	if s.nodes != nil {
		for _, obj := range s.nodes.List() {
			out = append(out, obj.(*corev1.Node))
		}
	}
	s.mu.Lock()
	for _, n := range s.managed {
		out = append(out, n)
	}
	s.mu.Unlock()
	return out
}

// renewLease creates or renews the node's Lease, owned by the node as a
// kubelet's is.
func (s *Simulator) renewLease(ctx context.Context, node *corev1.Node) error {
	leases := s.cfg.Client.CoordinationV1().Leases(NodeLeaseNamespace)
	now := metav1.NewMicroTime(s.cfg.Now())
	lease, err := leases.Get(ctx, node.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{
				Name:      node.Name,
				Namespace: NodeLeaseNamespace,
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
				}},
			},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To(node.Name),
				LeaseDurationSeconds: ptr.To(int32(s.cfg.LeaseDuration / time.Second)),
				RenewTime:            &now,
			},
		}
		_, err = leases.Create(ctx, lease, metav1.CreateOptions{FieldManager: "kubelet"})
		if apierrors.IsAlreadyExists(err) {
			return nil // renewed next time
		}
		if err != nil {
			return errorf("create lease of node %s: %w", node.Name, err)
		}
		return nil
	}
	if err != nil {
		return errorf("get lease of node %s: %w", node.Name, err)
	}
	lease.Spec.HolderIdentity = ptr.To(node.Name)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32(s.cfg.LeaseDuration / time.Second))
	lease.Spec.RenewTime = &now
	if _, err := leases.Update(ctx, lease, metav1.UpdateOptions{FieldManager: "kubelet"}); err != nil && !apierrors.IsConflict(err) {
		return errorf("renew lease of node %s: %w", node.Name, err)
	}
	return nil
}
