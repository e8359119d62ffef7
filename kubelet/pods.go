package kubelet

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
)

// Defaults of the pod lifecycle.
const (
	// DefaultPodWorkers is how many pods are synced at once.
	DefaultPodWorkers = 8
	// DefaultGraceCheckInterval is how often waiting pods (terminating
	// ones, ones a delayed Stage selected) are checked for their time.
	DefaultGraceCheckInterval = time.Second
	// podNodeIndex indexes pods by spec.nodeName.
	podNodeIndex = "spec.nodeName"
	// defaultRuntime is the containerID scheme when a node names no runtime.
	defaultRuntime = "containerd"
)

// podLifecycle runs the pods bound to managed nodes.
type podLifecycle struct {
	s       *Simulator
	factory informers.SharedInformerFactory
	pods    cache.SharedIndexInformer
	queue   workqueue.TypedRateLimitingInterface[string]
	ips     *podIPs // guarded by s.mu
	// due holds when each waiting pod is to be synced again: a terminating
	// pod at the end of its grace period, a pod a delayed stage selected
	// once the delay is over; guarded by s.mu.
	due map[string]time.Time
	// stageWaits are the delayed stages pods wait for, by pod key;
	// guarded by s.mu.
	stageWaits map[string]stageWait
	// lastEvent makes event names unique; guarded by s.mu.
	lastEvent int64
}

// stageWait is a pod waiting for a delayed stage.
type stageWait struct {
	stage string
	due   time.Time
}

// newPodLifecycle makes the pod informer (bound pods only) and the queue.
func newPodLifecycle(s *Simulator) *podLifecycle {
	factory := informers.NewSharedInformerFactoryWithOptions(s.cfg.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName!=" }))
	l := &podLifecycle{
		s:          s,
		factory:    factory,
		pods:       factory.Core().V1().Pods().Informer(),
		queue:      workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		ips:        newPodIPs(),
		due:        map[string]time.Time{},
		stageWaits: map[string]stageWait{},
	}
	_ = l.pods.AddIndexers(cache.Indexers{podNodeIndex: func(obj any) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok {
			return []string{p.Spec.NodeName}, nil
		}
		return nil, nil
	}})
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			l.queue.Add(key)
		}
	}
	_, _ = l.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			p, ok := obj.(*corev1.Pod)
			if !ok {
				return
			}
			key, _ := cache.MetaNamespaceKeyFunc(p)
			s.mu.Lock()
			l.ips.release(p.Spec.NodeName, p.UID)
			delete(l.due, key)
			delete(l.stageWaits, key)
			s.mu.Unlock()
		},
	})
	return l
}

// start runs the informer, waits for its cache, takes note of the pod IPs
// already in use, then starts the workers and the grace-period check.
func (l *podLifecycle) start(ctx, runCtx context.Context) error {
	l.s.wg.Add(1)
	go func() {
		defer l.s.wg.Done()
		l.factory.Start(runCtx.Done())
		<-runCtx.Done()
		l.queue.ShutDown()
		l.factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), l.pods.HasSynced) {
		return errorf("pod informer did not sync: %w", ctx.Err())
	}
	l.s.mu.Lock()
	for _, obj := range l.pods.GetStore().List() {
		p := obj.(*corev1.Pod)
		if !p.Spec.HostNetwork {
			for _, ip := range p.Status.PodIPs {
				l.ips.reserve(p.Spec.NodeName, p.UID, ip.IP)
			}
		}
	}
	l.s.mu.Unlock()
	workers := l.s.cfg.PodWorkers
	l.s.wg.Add(workers + 1)
	for range workers {
		go func() {
			defer l.s.wg.Done()
			for l.processNext(runCtx) {
			}
		}()
	}
	go func() { defer l.s.wg.Done(); l.graceLoop(runCtx) }()
	return nil
}

// nodeReady queues the pods bound to a node that just became managed.
func (l *podLifecycle) nodeReady(node string) {
	objs, _ := l.pods.GetIndexer().ByIndex(podNodeIndex, node)
	for _, obj := range objs {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			l.queue.Add(key)
		}
	}
}

// processNext syncs one queued pod; false once the queue is shut down.
func (l *podLifecycle) processNext(ctx context.Context) bool {
	key, quit := l.queue.Get()
	if quit {
		return false
	}
	defer l.queue.Done(key)
	if err := l.sync(ctx, key); err != nil {
		if ctx.Err() == nil {
			l.s.cfg.Log.Debug("kubelet: sync pod, retrying", "pod", key, "err", err)
			l.queue.AddRateLimited(key)
		}
		return true
	}
	l.queue.Forget(key)
	return true
}

// graceLoop queues the waiting pods whose time has come on the simulator's
// clock: terminating pods at the end of their grace period, pods a delayed
// stage selected.
func (l *podLifecycle) graceLoop(ctx context.Context) {
	t := time.NewTicker(l.s.cfg.GraceCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := l.s.cfg.Now()
		l.s.mu.Lock()
		for key, deadline := range l.due {
			if !now.Before(deadline) {
				l.queue.Add(key)
			}
		}
		l.s.mu.Unlock()
	}
}

// sync moves one pod of a managed node on: it deletes a terminating pod
// whose grace period is over and reports the next status of the others.
func (l *podLifecycle) sync(ctx context.Context, key string) error {
	obj, exists, err := l.pods.GetIndexer().GetByKey(key)
	if err != nil || !exists {
		return err
	}
	pod := obj.(*corev1.Pod)
	l.s.mu.Lock()
	node := l.s.managed[pod.Spec.NodeName]
	l.s.mu.Unlock()
	if node == nil {
		return nil // not ours; nodeReady queues it if its node becomes so
	}
	if len(l.s.cfg.Stages) > 0 {
		return l.syncStages(ctx, key, pod, node)
	}
	if pod.DeletionTimestamp != nil {
		return l.terminate(ctx, key, pod)
	}
	at, err := l.placement(node, pod)
	if err != nil {
		return err
	}
	now := metav1.NewTime(l.s.cfg.Now().Truncate(time.Second))
	next := nextPodStatus(pod, at, now)
	if equality.Semantic.DeepEqual(next, pod.Status) {
		return nil
	}
	p := pod.DeepCopy()
	p.Status = next
	if _, err := l.s.cfg.Client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{FieldManager: "kubelet"}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return errorf("update status of pod %s: %w", key, err)
	}
	return nil
}

// syncStages moves a pod on by the configured Stage that selects it, if
// any, once the stage's delay is over: it deletes the pod or writes the
// status the stage renders, and records the stage's event.
func (l *podLifecycle) syncStages(ctx context.Context, key string, pod *corev1.Pod, node *corev1.Node) error {
	data, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return errorf("pod %s: %w", key, err)
	}
	st := matchStage(l.s.cfg.Stages, data, pod.Labels, pod.Annotations)
	if st == nil {
		l.s.mu.Lock()
		delete(l.stageWaits, key) // a wait for a stage that no longer applies
		delete(l.due, key)
		l.s.mu.Unlock()
		return nil
	}
	if !l.stageDue(key, st, data) {
		return nil
	}
	switch {
	case st.Spec.Next.Delete:
		if err := l.remove(ctx, key, pod); err != nil {
			return err
		}
		return l.recordEvent(ctx, st, pod)
	case st.Spec.Next.StatusTemplate == "":
		return l.recordEvent(ctx, st, pod)
	}
	at, err := l.placement(node, pod)
	if err != nil {
		return err
	}
	next, err := renderStatus(st, pod, data, templateFuncs(&at, l.s.cfg.Now))
	if err != nil {
		return errorf("pod %s: %w", key, err)
	}
	if equality.Semantic.DeepEqual(next, pod.Status) {
		return nil
	}
	p := pod.DeepCopy()
	p.Status = next
	if _, err := l.s.cfg.Client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{FieldManager: "kubelet"}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return errorf("update status of pod %s: %w", key, err)
	}
	return l.recordEvent(ctx, st, pod)
}

// stageDue reports whether the delay of the stage that selects a pod is
// over, starting it when the stage first selects the pod.
func (l *podLifecycle) stageDue(key string, st *Stage, data map[string]any) bool {
	if st.Spec.Delay == nil {
		return true
	}
	now := l.s.cfg.Now()
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	w, ok := l.stageWaits[key]
	if !ok || w.stage != st.Metadata.Name {
		w = stageWait{stage: st.Metadata.Name, due: now.Add(st.delay(data, now, randomDuration))}
		l.stageWaits[key] = w
	}
	if now.Before(w.due) {
		l.due[key] = w.due
		return false
	}
	delete(l.stageWaits, key)
	delete(l.due, key)
	return true
}

// randomDuration is a random duration in [0, d).
func randomDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d)))
}

// recordEvent records the Event a stage gives about a pod, as the pod's
// node's kubelet.
func (l *podLifecycle) recordEvent(ctx context.Context, st *Stage, pod *corev1.Pod) error {
	ev := st.Spec.Next.Event
	if ev == nil {
		return nil
	}
	now := l.s.cfg.Now()
	l.s.mu.Lock()
	stamp := max(now.UnixNano(), l.lastEvent+1)
	l.lastEvent = stamp
	l.s.mu.Unlock()
	t := metav1.NewTime(now)
	_, err := l.s.cfg.Client.CoreV1().Events(pod.Namespace).Create(ctx, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", pod.Name, stamp), Namespace: pod.Namespace},
		InvolvedObject: corev1.ObjectReference{
			Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
		},
		Reason: ev.Reason, Message: ev.Message, Type: ev.Type,
		Source:         corev1.EventSource{Component: "kubelet", Host: pod.Spec.NodeName},
		FirstTimestamp: t, LastTimestamp: t, Count: 1,
		ReportingController: "kubelet", ReportingInstance: pod.Spec.NodeName,
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return errorf("record event %s for pod %s/%s: %w", ev.Reason, pod.Namespace, pod.Name, err)
	}
	return nil
}

// terminate deletes a terminating pod for good (grace period 0, for this
// pod's UID): at once, or with Config.WaitGracePeriod once its
// deletionTimestamp has passed.
func (l *podLifecycle) terminate(ctx context.Context, key string, pod *corev1.Pod) error {
	if deadline := pod.DeletionTimestamp.Time; l.s.cfg.WaitGracePeriod && l.s.cfg.Now().Before(deadline) {
		l.s.mu.Lock()
		l.due[key] = deadline
		l.s.mu.Unlock()
		return nil
	}
	l.s.mu.Lock()
	delete(l.due, key)
	l.s.mu.Unlock()
	return l.remove(ctx, key, pod)
}

// remove deletes a pod for good: grace period 0, for this pod's UID.
func (l *podLifecycle) remove(ctx context.Context, key string, pod *corev1.Pod) error {
	err := l.s.cfg.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0),
		Preconditions:      metav1.NewUIDPreconditions(string(pod.UID)),
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return errorf("delete pod %s: %w", key, err)
	}
	return nil
}

// placement is where pod runs on node: the node's InternalIPs, the pod's
// IPs (the node's for host-network pods, else one from the node's pod
// CIDR, kept once given) and the node's container runtime.
func (l *podLifecycle) placement(node *corev1.Node, pod *corev1.Pod) (placement, error) {
	var at placement
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			at.hostIPs = append(at.hostIPs, a.Address)
		}
	}
	at.runtime, _, _ = strings.Cut(node.Status.NodeInfo.ContainerRuntimeVersion, "://")
	if at.runtime == "" || !strings.Contains(node.Status.NodeInfo.ContainerRuntimeVersion, "://") {
		at.runtime = defaultRuntime
	}
	switch {
	case pod.Spec.HostNetwork:
		at.podIPs = at.hostIPs
	case len(pod.Status.PodIPs) > 0:
		l.s.mu.Lock()
		defer l.s.mu.Unlock()
		for _, ip := range pod.Status.PodIPs {
			at.podIPs = append(at.podIPs, ip.IP)
			l.ips.reserve(node.Name, pod.UID, ip.IP) // written by another client
		}
	default:
		cidrs := node.Spec.PodCIDRs
		if len(cidrs) == 0 && node.Spec.PodCIDR != "" {
			cidrs = []string{node.Spec.PodCIDR}
		}
		l.s.mu.Lock()
		defer l.s.mu.Unlock()
		for _, cidr := range cidrs {
			ip, ok := l.ips.allocate(node.Name, pod.UID, cidr)
			if !ok {
				return at, errorf("node %s has no free IP in pod CIDR %s for pod %s/%s", node.Name, cidr, pod.Namespace, pod.Name)
			}
			at.podIPs = append(at.podIPs, ip)
			break // one family: the node's first pod CIDR
		}
	}
	return at, nil
}

// freePodCIDR returns the first /24 of the created nodes' pod CIDR range
// that no node in nodes uses.
func freePodCIDR(nodes []*corev1.Node) string {
	used := map[string]bool{}
	for _, n := range nodes {
		for _, c := range append([]string{n.Spec.PodCIDR}, n.Spec.PodCIDRs...) {
			used[c] = true
		}
	}
	for i := uint32(0); ; i++ {
		c := netip.PrefixFrom(addOffset(podCIDRBase, i<<8), 24).String()
		if !used[c] {
			return c
		}
	}
}
