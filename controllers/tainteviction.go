package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// TaintEviction is kube-controller-manager's taint-eviction-controller: a
// pod bound to a node with NoExecute taints it does not all tolerate is
// deleted at once; one that tolerates them all for a while (the least
// tolerationSeconds of the tolerations used) is deleted when that time has
// passed since the taints were seen, unless they are removed or the pod
// goes first. Before the delete the pod gets the DisruptionTarget
// condition (DeletionByTaintManager) and an event TaintManagerEviction
// ("Marking for deletion Pod ns/name"); a scheduled deletion that is called
// off has one too ("Cancelling deletion of Pod ns/name").
type TaintEviction struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	now  func() time.Time
	// taints are the NoExecute taints of the nodes that have some.
	taints map[string][]corev1.Taint
	// pods are the bound pods by store key, and podsOn their keys by node.
	pods   map[string]*taintedPod
	podsOn map[string]map[string]bool
	// evictions are the scheduled deletions by pod key; a fired one stays
	// (fired) until the pod goes, so that it is not deleted twice.
	evictions map[string]*eviction
}

// taintedPod is what the controller keeps of a bound pod.
type taintedPod struct {
	namespace, name, node string
	tolerations           []corev1.Toleration
}

// eviction is a scheduled deletion.
type eviction struct {
	createdAt, fireAt time.Time
	fired             bool
}

// NewTaintEviction returns the controller, writing through reg and
// stamping conditions and events with now (nil: time.Now).
func NewTaintEviction(reg registry.Interface, now func() time.Time, log *slog.Logger) *TaintEviction {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	// Upstream's taint eviction controller has the node lifecycle
	// controller's client.
	u := controllerUser("node-controller")
	return &TaintEviction{
		reg: reg, log: log, user: u, now: now,
		rec:       NewRecorder(reg, TaintEvictionName, u, now, log),
		taints:    map[string][]corev1.Taint{},
		pods:      map[string]*taintedPod{},
		podsOn:    map[string]map[string]bool{},
		evictions: map[string]*eviction{},
	}
}

// Name implements Controller.
func (c *TaintEviction) Name() string { return TaintEvictionName }

// Resources implements Controller.
func (c *TaintEviction) Resources() []string { return []string{nodesBucket, podsBucket} }

// Sync implements Controller.
func (c *TaintEviction) Sync(ctx context.Context, events []store.Event) error {
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	now := time.Now()
	for _, ev := range events {
		switch ev.Resource {
		case nodesBucket:
			c.nodeChanged(ctx, ev, now)
		case podsBucket:
			c.podChanged(ctx, ev, now)
		}
	}
	var errs []error
	var next time.Time
	for _, key := range sortedKeys(c.evictions) {
		e := c.evictions[key]
		if e.fired {
			continue
		}
		if e.fireAt.After(time.Now()) {
			if next.IsZero() || e.fireAt.Before(next) {
				next = e.fireAt
			}
			continue
		}
		if err := c.evict(ctx, key); err != nil {
			// Upstream forgets a deletion that failed; the next change
			// to the pod or node schedules it again.
			delete(c.evictions, key)
			errs = append(errs, err)
			continue
		}
		e.fired = true
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if next.IsZero() {
		return nil
	}
	return &Requeue{After: max(time.Until(next), 0)}
}

// nodeChanged is upstream's handleNodeUpdate for a change of a node's
// NoExecute taints.
func (c *TaintEviction) nodeChanged(ctx context.Context, ev store.Event, now time.Time) {
	node, err := decodeEvent[corev1.Node](ev)
	if err != nil {
		return
	}
	var taints []corev1.Taint
	if ev.Type != store.Deleted {
		for _, t := range node.Spec.Taints {
			if t.Effect == corev1.TaintEffectNoExecute {
				taints = append(taints, t)
			}
		}
	}
	if apiequality.Semantic.DeepEqual(taints, c.taints[node.Name]) {
		return
	}
	if ev.Type == store.Deleted {
		delete(c.taints, node.Name)
		return
	}
	if len(taints) == 0 {
		delete(c.taints, node.Name)
		for _, key := range sortedKeys(c.podsOn[node.Name]) {
			c.cancel(ctx, key)
		}
		return
	}
	c.taints[node.Name] = taints
	for _, key := range sortedKeys(c.podsOn[node.Name]) {
		c.processPod(ctx, key, taints, now)
	}
}

// podChanged is upstream's handlePodUpdate for a pod whose node or
// tolerations changed, or that went.
func (c *TaintEviction) podChanged(ctx context.Context, ev store.Event, now time.Time) {
	old := c.pods[ev.Key]
	if ev.Type == store.Deleted {
		if old != nil {
			delete(c.podsOn[old.node], ev.Key)
		}
		delete(c.pods, ev.Key)
		c.cancel(ctx, ev.Key)
		delete(c.evictions, ev.Key)
		return
	}
	// Only the fields the controller looks at are decoded: it is fed
	// every pod write.
	pod, err := decodeEvent[struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec struct {
			NodeName    string              `json:"nodeName"`
			Tolerations []corev1.Toleration `json:"tolerations"`
		} `json:"spec"`
	}](ev)
	if err != nil {
		return
	}
	cur := &taintedPod{namespace: pod.Metadata.Namespace, name: pod.Metadata.Name, node: pod.Spec.NodeName, tolerations: pod.Spec.Tolerations}
	if old != nil && old.node == cur.node && apiequality.Semantic.DeepEqual(old.tolerations, cur.tolerations) {
		return
	}
	if old != nil {
		delete(c.podsOn[old.node], ev.Key)
	}
	if cur.node == "" {
		delete(c.pods, ev.Key)
		return
	}
	c.pods[ev.Key] = cur
	if c.podsOn[cur.node] == nil {
		c.podsOn[cur.node] = map[string]bool{}
	}
	c.podsOn[cur.node][ev.Key] = true
	if taints, ok := c.taints[cur.node]; ok {
		c.processPod(ctx, ev.Key, taints, now)
	}
}

// processPod is upstream's processPodOnNode.
func (c *TaintEviction) processPod(ctx context.Context, key string, taints []corev1.Taint, now time.Time) {
	p := c.pods[key]
	if p == nil {
		return
	}
	var used []corev1.Toleration
	for i := range taints {
		matched := false
		for j := range p.tolerations {
			if p.tolerations[j].ToleratesTaint(klog.Background(), &taints[i], false) {
				used = append(used, p.tolerations[j])
				matched = true
				break
			}
		}
		if !matched {
			// Not tolerated: deleted at once.
			c.cancel(ctx, key)
			c.schedule(key, now, now)
			return
		}
	}
	least := minTolerationTime(used)
	if least < 0 {
		c.cancel(ctx, key)
		return
	}
	// A deletion already scheduled keeps its time, as upstream's (which
	// compares its start, always earlier, with now).
	if e := c.evictions[key]; e != nil && !e.fired {
		return
	}
	c.schedule(key, now, now.Add(least))
}

// schedule adds a deletion unless one is there (scheduled or fired).
func (c *TaintEviction) schedule(key string, createdAt, fireAt time.Time) {
	if _, ok := c.evictions[key]; ok {
		return
	}
	c.evictions[key] = &eviction{createdAt: createdAt, fireAt: fireAt}
}

// cancel calls off a deletion, with an event if it had not fired.
func (c *TaintEviction) cancel(ctx context.Context, key string) {
	e, ok := c.evictions[key]
	if !ok {
		return
	}
	delete(c.evictions, key)
	if p := c.pods[key]; p != nil && !e.fired {
		c.rec.Eventf(ctx, corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: p.namespace, Name: p.name},
			corev1.EventTypeNormal, "TaintManagerEviction", "Cancelling deletion of Pod %s/%s", p.namespace, p.name)
	}
}

// minTolerationTime is upstream's getMinTolerationTime: the least
// tolerationSeconds (0 when none are used or one is not positive, -1 when
// every one tolerates forever).
func minTolerationTime(tolerations []corev1.Toleration) time.Duration {
	if len(tolerations) == 0 {
		return 0
	}
	least := int64(math.MaxInt64)
	for _, t := range tolerations {
		if t.TolerationSeconds != nil {
			if *t.TolerationSeconds <= 0 {
				return 0
			}
			least = min(least, *t.TolerationSeconds)
		}
	}
	if least == math.MaxInt64 {
		return -1
	}
	return time.Duration(least) * time.Second
}

// evict is upstream's deletePodHandler: the event, the DisruptionTarget
// condition, then the delete.
func (c *TaintEviction) evict(ctx context.Context, key string) error {
	p := c.pods[key]
	if p == nil {
		return nil
	}
	c.rec.Eventf(ctx, corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: p.namespace, Name: p.name},
		corev1.EventTypeNormal, "TaintManagerEviction", "Marking for deletion Pod %s/%s", p.namespace, p.name)
	_, err := c.reg.UpdateSubresource(ctx, podsGVR, "status", p.namespace, p.name, func(cur runtime.Object) (runtime.Object, error) {
		pod := cur.(*corev1.Pod)
		cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, ObservedGeneration: pod.Generation,
			Reason: "DeletionByTaintManager", Message: "Taint manager: deleting due to NoExecute taint"}
		if !updatePodCondition(&pod.Status, cond, metav1.NewTime(c.now())) {
			return nil, errNoChange
		}
		return pod, nil
	})
	if err != nil && !errors.Is(err, errNoChange) {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("mark pod %s for deletion: %w", key, err)
	}
	if _, err := c.reg.Delete(ctx, podsGVR, p.namespace, p.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s: %w", key, err)
	}
	return nil
}
