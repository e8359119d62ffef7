package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/util/flowcontrol"
	schedulinghelper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/apps/daemonset"
	"github.com/fakeplane/fakeplane/store"
)

// Store buckets the DaemonSet controller is fed from, besides pods and
// ControllerRevisions.
const (
	daemonSetsBucket = "apps/daemonsets"
	nodesBucket      = "/nodes"
)

var (
	daemonSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	daemonSetKind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")
)

// daemonSetTemplateGenerationLabel is the label daemon pods carry with
// their DaemonSet's template generation.
const daemonSetTemplateGenerationLabel = "pod-template-generation"

// daemonSetBurstReplicas is how many pods one sync of a daemon set creates,
// and deletes, at most (upstream's BurstReplicas).
const daemonSetBurstReplicas = 250

// The failed-pod backoff: kube-controller-manager's daemon set controller
// deletes a node's failed pod at most this often, and forgets a node's
// failures after twice the longest delay.
const (
	failedDaemonPodBackoff    = time.Second
	maxFailedDaemonPodBackoff = 15 * time.Minute
)

// DaemonSet runs one pod of each DaemonSet on every node that should run
// it, as kube-controller-manager's daemonset controller does: a node whose
// labels match the template's node selector and required node affinity
// and whose NoSchedule and NoExecute taints the pod tolerates (with the
// tolerations every daemon pod gets). Each pod is created unbound, with a
// required node affinity to its node's name, for the scheduler to bind.
// Pods on nodes that should no longer run them, finished pods (with a
// FailedDaemonPod or SucceededDaemonPod event) and extra pods are deleted;
// a node whose pod is terminating gets its new one once it is gone; of the
// pods of a deleted node, only those never bound are deleted (the bound ones
// are the pod garbage collector's). A template change rolls the pods node by
// node within maxUnavailable, or, with maxSurge, starts a new pod beside
// the old one and deletes the old one once the new one is available. A
// node's failed pods are deleted at most once per failed-pod backoff. Each
// template is kept as a ControllerRevision. Orphan pods and revisions its
// selector matches are adopted; pods it controls that its selector no
// longer matches are released.
type DaemonSet struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	now  func() time.Time
	// sets, pods, nodes and revisions are what the controller was fed, by
	// store key.
	sets      map[string]*appsv1.DaemonSet
	pods      map[string]*corev1.Pod
	nodes     map[string]*corev1.Node
	revisions map[string]*appsv1.ControllerRevision
	// orphanPods and orphanRevisions have no controller: a set whose
	// selector matches them adopts them.
	orphanPods      map[string]*corev1.Pod
	orphanRevisions map[string]*appsv1.ControllerRevision
	dirty           map[string]bool
	// retries are the failed syncs' retry times.
	retries *keyRetries
	// readyWakeups are when to sync a set again, by set key: a second
	// after its minReadySeconds from when one of its pods turned ready.
	readyWakeups map[string][]time.Time
	// failedPods is the failed-pod backoff, by set, generation and node;
	// nextBackoffGC is when its expired entries are dropped next.
	failedPods    *flowcontrol.Backoff
	nextBackoffGC time.Time
}

// NewDaemonSet returns the daemonset controller, writing through reg with
// now as its clock (nil: time.Now) and logging to log (nil:
// slog.Default()).
func NewDaemonSet(reg registry.Interface, now func() time.Time, log *slog.Logger) *DaemonSet {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	u := controllerUser("daemon-set-controller")
	return &DaemonSet{
		reg: reg, log: log, user: u, now: now,
		rec:          NewRecorder(reg, "daemonset-controller", u, now, log),
		sets:         map[string]*appsv1.DaemonSet{},
		pods:         map[string]*corev1.Pod{},
		nodes:        map[string]*corev1.Node{},
		revisions:    map[string]*appsv1.ControllerRevision{},
		dirty:        map[string]bool{},
		retries:      newKeyRetries(),
		readyWakeups: map[string][]time.Time{},

		orphanPods:      map[string]*corev1.Pod{},
		orphanRevisions: map[string]*appsv1.ControllerRevision{},
		failedPods: flowcontrol.NewFakeBackOff(failedDaemonPodBackoff, maxFailedDaemonPodBackoff,
			nowClock{now: now}),
	}
}

// Name implements Controller.
func (c *DaemonSet) Name() string { return DaemonSetName }

// Resources implements Controller.
func (c *DaemonSet) Resources() []string {
	return []string{daemonSetsBucket, podsBucket, nodesBucket, controllerRevisionsBucket}
}

// Sync implements Controller.
func (c *DaemonSet) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if err := c.observe(ev); err != nil {
			c.log.Warn("skipped", "err", err)
		}
	}
	if now := c.now(); !now.Before(c.nextBackoffGC) {
		c.failedPods.GC()
		c.nextBackoffGC = now.Add(time.Minute)
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	return syncKeys(ctx, "daemonset", c.dirty, c.retries, c.sets, c.sync)
}

// observe records one event and marks the sets it concerns dirty.
func (c *DaemonSet) observe(ev store.Event) error {
	switch ev.Resource {
	case daemonSetsBucket:
		if ev.Type == store.Deleted {
			delete(c.sets, ev.Key)
			delete(c.readyWakeups, ev.Key)
			return nil
		}
		ds, err := decodeEvent[appsv1.DaemonSet](ev)
		if err != nil {
			return err
		}
		c.sets[ev.Key] = ds
		c.dirty[ev.Key] = true
	case podsBucket:
		prev := c.pods[ev.Key]
		orphan, err := observeAdoptable(ev, "DaemonSet", c.pods, c.orphanPods, c.dirty)
		if err != nil {
			return err
		}
		if orphan != nil {
			wakeSelecting(orphan, c.sets, daemonSetSelector, c.dirty)
		}
		// A pod that turns ready wakes its set once it can be available
		// (upstream adds a second against clock skew). Each wake-up is
		// kept: upstream's delaying queue drops one later than a wake-up
		// already waiting, and a surging rollout with minReadySeconds then
		// stalls when the earlier one comes before the new pod is
		// available (refplane's did, now and then).
		if cur := c.pods[ev.Key]; prev != nil && cur != nil && cur.DeletionTimestamp == nil && !isPodReady(prev) && isPodReady(cur) {
			key := cur.Namespace + "/" + metav1.GetControllerOfNoCopy(cur).Name
			if ds := c.sets[key]; ds != nil && ds.Spec.MinReadySeconds > 0 {
				c.readyWakeups[key] = append(c.readyWakeups[key], c.now().Add(time.Duration(ds.Spec.MinReadySeconds)*time.Second+time.Second))
			}
		}
	case nodesBucket:
		if ev.Type == store.Deleted {
			delete(c.nodes, ev.Key)
		} else {
			node, err := decodeEvent[corev1.Node](ev)
			if err != nil {
				return err
			}
			if prev := c.nodes[ev.Key]; prev != nil && daemonNodeUnchanged(prev, node) {
				c.nodes[ev.Key] = node
				return nil // a heartbeat: nothing a daemon set looks at
			}
			c.nodes[ev.Key] = node
		}
		for key := range c.sets {
			c.dirty[key] = true
		}
	case controllerRevisionsBucket:
		orphan, err := observeAdoptable(ev, "DaemonSet", c.revisions, c.orphanRevisions, nil)
		if err != nil {
			return err
		}
		if orphan != nil {
			wakeSelecting(orphan, c.sets, daemonSetSelector, c.dirty)
		}
	}
	return nil
}

// daemonSetSelector is a set's selector.
func daemonSetSelector(ds *appsv1.DaemonSet) *metav1.LabelSelector { return ds.Spec.Selector }

// daemonNodeUnchanged reports whether what decides where daemon pods run
// (labels, taints, name) is the same on both.
func daemonNodeUnchanged(a, b *corev1.Node) bool {
	if len(a.Labels) != len(b.Labels) || !slices.EqualFunc(a.Spec.Taints, b.Spec.Taints, func(x, y corev1.Taint) bool {
		return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect
	}) {
		return false
	}
	for k, v := range a.Labels {
		if b.Labels[k] != v {
			return false
		}
	}
	return true
}

// daemonPodTolerations are the template's tolerations and those every
// daemon pod gets.
func daemonPodTolerations(spec *corev1.PodSpec) []corev1.Toleration {
	out := slices.Clone(spec.Tolerations)
	add := func(key string, effect corev1.TaintEffect) {
		t := corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
		for i := range out {
			if out[i].Key == key && out[i].Effect == effect && out[i].Operator == t.Operator && out[i].Value == "" {
				out[i] = t
				return
			}
		}
		out = append(out, t)
	}
	add(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)
	if spec.HostNetwork {
		add(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)
	}
	return out
}

// daemonNodeShouldRun reports whether ds should run a pod on node, and
// whether a pod already there may keep running (it tolerates the node's
// NoExecute taints).
func daemonNodeShouldRun(node *corev1.Node, ds *appsv1.DaemonSet, tolerations []corev1.Toleration, affinity nodeaffinity.RequiredNodeAffinity) (shouldRun, shouldContinue bool) {
	if n := ds.Spec.Template.Spec.NodeName; n != "" && n != node.Name {
		return false, false
	}
	if fits, _ := affinity.Match(node); !fits {
		return false, false
	}
	logger := klog.Background()
	_, untolerated := schedulinghelper.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute || t.Effect == corev1.TaintEffectNoSchedule
	}, false)
	if !untolerated {
		return true, true
	}
	_, untoleratedNoExecute := schedulinghelper.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute
	}, false)
	return false, !untoleratedNoExecute
}

// daemonPodNode is the node a daemon pod is for: its nodeName, or the node
// its required affinity names while it is not bound.
func daemonPodNode(pod *corev1.Pod) string {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == metav1.ObjectNameField && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// sync brings one daemon set's pods, revisions and status in line, as
// upstream's syncDaemonSet: the manage pass (a pod on each node that should
// run one, none elsewhere), then, when that pass wrote nothing, the rolling
// update, then the status and the history.
func (c *DaemonSet) sync(ctx context.Context, ds *appsv1.DaemonSet) (time.Duration, error) {
	if ds.DeletionTimestamp != nil {
		return 0, nil
	}
	wait := c.nextReadyWakeup(ds.Namespace + "/" + ds.Name)
	revs, pods, err := c.claim(ctx, ds)
	if err != nil {
		return 0, err
	}
	cur, err := c.currentRevision(ctx, ds, revs)
	if err != nil {
		return 0, err
	}
	s := &daemonSync{
		ds:          ds,
		hash:        cur.Labels[appsv1.ControllerRevisionHashLabelKey],
		gen:         daemonset.TemplateGeneration(ds),
		byNode:      daemonPodsByNode(pods),
		ref:         EventRef("apps/v1", "DaemonSet", ds),
		tolerations: daemonPodTolerations(&ds.Spec.Template.Spec),
		affinity:    nodeaffinity.NewRequiredNodeAffinity(ds.Spec.Template.Spec.NodeSelector, ds.Spec.Template.Spec.Affinity),
		now:         c.now(),
		runs:        map[string]bool{},
	}
	st, create, remove, backoff := c.manage(ctx, s)
	wait = minPositive(wait, backoff)
	wrote, errs := c.syncNodes(ctx, s, create, remove)
	if !wrote && len(errs) == 0 && ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		create, remove, err := s.rollingUpdate(int(st.DesiredNumberScheduled))
		if err != nil {
			errs = append(errs, err)
		} else {
			_, errs = c.syncNodes(ctx, s, create, remove)
		}
	}
	if err := c.writeStatus(ctx, ds, st); err != nil {
		errs = append(errs, err)
	}
	if err := c.truncateHistory(ctx, ds, revs, cur); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	// Upstream resyncs a set whose ready pods are not all available yet
	// after minReadySeconds.
	if m := ds.Spec.MinReadySeconds; m > 0 && st.NumberAvailable != st.NumberReady {
		wait = minPositive(wait, time.Duration(m)*time.Second)
	}
	return wait, nil
}

// nextReadyWakeup forgets the set's ready wake-ups that have come and
// returns how long until the next one (0: none).
func (c *DaemonSet) nextReadyWakeup(key string) time.Duration {
	now := c.now()
	left := slices.DeleteFunc(c.readyWakeups[key], func(at time.Time) bool { return !at.After(now) })
	if len(left) == 0 {
		delete(c.readyWakeups, key)
		return 0
	}
	c.readyWakeups[key] = left
	return slices.MinFunc(left, func(a, b time.Time) int { return a.Compare(b) }).Sub(now)
}

// daemonSync is what one sync of a daemon set works from.
type daemonSync struct {
	ds   *appsv1.DaemonSet
	hash string
	gen  int64
	// byNode are the set's pods by the node they are for, bound ones
	// first, then oldest first.
	byNode      map[string][]*corev1.Pod
	ref         corev1.ObjectReference
	tolerations []corev1.Toleration
	affinity    nodeaffinity.RequiredNodeAffinity
	now         time.Time
	// runs is, for each node, whether it should run the set's pod (the
	// manage pass fills it; the rolling update reads it).
	runs map[string]bool
}

// updated reports whether p runs the set's current template: its hash
// label or its template generation label says so (upstream's
// IsPodUpdated).
func (s *daemonSync) updated(p *corev1.Pod) bool {
	return s.hash != "" && p.Labels[appsv1.ControllerRevisionHashLabelKey] == s.hash ||
		s.gen > 0 && p.Labels[daemonSetTemplateGenerationLabel] == strconv.FormatInt(s.gen, 10)
}

// available reports whether p has been ready for the set's minReadySeconds.
func (s *daemonSync) available(p *corev1.Pod) bool {
	return isPodAvailable(p, s.ds.Spec.MinReadySeconds, s.now)
}

// claim returns the set's revisions (by revision number) and pods, once
// it adopted the orphans its selector matches and released those it
// controls that it no longer matches, as upstream's ControllerRefManager.
func (c *DaemonSet) claim(ctx context.Context, ds *appsv1.DaemonSet) ([]*appsv1.ControllerRevision, []*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid label selector: %w", err)
	}
	o := newOwnerRefs(c.reg, ds, daemonSetsGVR, daemonSetKind)
	revs, rerr := releaseUnmatched(ctx, o, controllerRevisionsGVR, controlledIn(c.revisions, ds), sel, nil)
	adopted, aerr := adopt(ctx, o, controllerRevisionsGVR, c.orphanRevisions, sel, nil)
	revs = append(revs, adopted...)
	slices.SortFunc(revs, func(a, b *appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
	pods, perr := releaseUnmatched(ctx, o, podsGVR, controlledIn(c.pods, ds), sel, nil)
	adoptedPods, aperr := adopt(ctx, o, podsGVR, c.orphanPods, sel, nil)
	return revs, append(pods, adoptedPods...), errors.Join(rerr, aerr, perr, aperr)
}

// daemonPodsByNode are a set's pods by the node they are for, bound ones
// first, then oldest first. A pod on its way out still holds its node (no
// other is created there until it is gone), unless it has finished: then it
// is the kubelet's or the pod garbage collector's.
func daemonPodsByNode(pods []*corev1.Pod) map[string][]*corev1.Pod {
	byNode := map[string][]*corev1.Pod{}
	for _, p := range pods {
		if !(p.DeletionTimestamp != nil && podTerminal(p)) {
			n := daemonPodNode(p)
			byNode[n] = append(byNode[n], p)
		}
	}
	for _, pods := range byNode {
		slices.SortFunc(pods, func(a, b *corev1.Pod) int {
			if ba, bb := a.Spec.NodeName != "", b.Spec.NodeName != ""; ba != bb {
				if ba {
					return -1
				}
				return 1
			}
			if d := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); d != 0 {
				return d
			}
			return strings.Compare(a.Name, b.Name)
		})
	}
	return byNode
}

// manage is upstream's manage pass: the nodes that need a pod, the pods to
// delete (finished ones, extra ones, those on nodes that should not run
// them, the unbound ones of nodes that are gone), and the status. A failed
// pod is deleted at most once per failed-pod backoff (1 s, doubling to 15
// min, for each node and generation); wait is when to look again at one
// still waiting.
func (c *DaemonSet) manage(ctx context.Context, s *daemonSync) (st appsv1.DaemonSetStatus, create []string, remove []*corev1.Pod, wait time.Duration) {
	ds := s.ds
	surge := daemonSetAllowsSurge(ds)
	for _, name := range slices.Sorted(maps.Keys(c.nodes)) {
		node := c.nodes[name]
		shouldRun, shouldContinue := daemonNodeShouldRun(node, ds, s.tolerations, s.affinity)
		s.runs[name] = shouldRun
		pods := s.byNode[name]
		switch {
		case shouldRun && len(pods) > 0:
			// The status counts the node's first pod, whatever its state.
			st.DesiredNumberScheduled++
			st.CurrentNumberScheduled++
			if isPodReady(pods[0]) {
				st.NumberReady++
			}
			if s.available(pods[0]) {
				st.NumberAvailable++
			}
			if s.updated(pods[0]) {
				st.UpdatedNumberScheduled++
			}
		case shouldRun:
			st.DesiredNumberScheduled++
		case len(pods) > 0:
			st.NumberMisscheduled++
		}
		switch {
		case shouldRun && len(pods) == 0:
			create = append(create, name)
		case shouldContinue:
			var running []*corev1.Pod
			for _, p := range pods {
				switch {
				case p.DeletionTimestamp != nil:
				case p.Status.Phase == corev1.PodFailed:
					key := fmt.Sprintf("%s/%d/%s", ds.UID, ds.Status.ObservedGeneration, name)
					if c.failedPods.IsInBackOffSinceUpdate(key, s.now) {
						wait = minPositive(wait, c.failedPods.Get(key))
						continue
					}
					c.failedPods.Next(key, s.now)
					c.rec.Eventf(ctx, s.ref, corev1.EventTypeWarning, "FailedDaemonPod", "Found failed daemon pod %s/%s on node %s, will try to kill it", p.Namespace, p.Name, name)
					remove = append(remove, p)
				case p.Status.Phase == corev1.PodSucceeded:
					c.rec.Eventf(ctx, s.ref, corev1.EventTypeNormal, "SucceededDaemonPod", "Found succeeded daemon pod %s/%s on node %s, will try to delete it", p.Namespace, p.Name, name)
					remove = append(remove, p)
				default:
					running = append(running, p)
				}
			}
			switch {
			case !surge:
				// Of the running pods the oldest stays.
				if len(running) > 1 {
					remove = append(remove, running[1:]...)
				}
			case len(running) == 0 && shouldRun:
				// Surging, a node needs a pod that is not going.
				create = append(create, name)
			case len(running) > 1:
				// Surging, a node keeps its oldest new pod and its
				// oldest old one, the old one until it is not ready or
				// the new one is available.
				var oldestNew, oldestOld *corev1.Pod
				for _, p := range running {
					switch {
					case p.Labels[appsv1.ControllerRevisionHashLabelKey] == s.hash && oldestNew == nil:
						oldestNew = p
					case p.Labels[appsv1.ControllerRevisionHashLabelKey] != s.hash && oldestOld == nil:
						oldestOld = p
					default:
						remove = append(remove, p)
					}
				}
				if oldestNew != nil && oldestOld != nil && (!isPodReady(oldestOld) || s.available(oldestNew)) {
					remove = append(remove, oldestOld)
				}
			}
		case len(pods) > 0:
			for _, p := range pods {
				if p.DeletionTimestamp == nil {
					remove = append(remove, p)
				}
			}
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	// Of the pods of nodes that are gone, those never bound are deleted;
	// the bound ones are the pod garbage collector's.
	for _, name := range slices.Sorted(maps.Keys(s.byNode)) {
		if _, ok := c.nodes[name]; ok {
			continue
		}
		for _, p := range s.byNode[name] {
			if p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
				remove = append(remove, p)
			}
		}
	}
	return st, create, remove, wait
}

// rollingUpdate is upstream's rolling update, run when the manage pass
// wrote nothing. Without maxSurge it deletes old pods within
// maxUnavailable: every unavailable one, and available ones while the
// budget lasts. With maxSurge it creates a new pod beside an old one on up
// to maxSurge nodes (and on every node whose old pod is unavailable), and
// deletes an old pod once its node's new one is available; the manage pass
// then keeps both until then.
func (s *daemonSync) rollingUpdate(desired int) (create []string, remove []*corev1.Pod, err error) {
	maxSurge, maxUnavailable, err := daemonSetRollingLimits(s.ds, desired)
	if err != nil {
		return nil, nil, err
	}
	// The nodes of the set's pods, and every node that should run one.
	nodes := map[string]bool{}
	for name := range s.byNode {
		if name != "" {
			nodes[name] = true
		}
	}
	for name, run := range s.runs {
		if run {
			nodes[name] = true
		}
	}
	names := slices.Sorted(maps.Keys(nodes))
	if maxSurge == 0 {
		var numUnavailable int
		var replace, candidates []*corev1.Pod
		for _, name := range names {
			newPod, oldPod, ok := s.splitUpdated(s.byNode[name])
			switch {
			case !ok, oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
				// The manage pass creates or deletes here.
				numUnavailable++
			case newPod != nil:
				if !s.available(newPod) {
					numUnavailable++
				}
			case !s.available(oldPod):
				replace = append(replace, oldPod)
				numUnavailable++
			case numUnavailable < maxUnavailable:
				candidates = append(candidates, oldPod)
			}
		}
		n := min(max(maxUnavailable-numUnavailable, 0), len(candidates))
		return nil, append(replace, candidates[:n]...), nil
	}
	var shouldNotRun []*corev1.Pod
	var allowed, candidates []string
	var numSurge, numAvailable int
	for _, name := range names {
		newPod, oldPod, ok := s.splitUpdated(s.byNode[name])
		if !ok {
			numSurge++
			continue
		}
		switch {
		case oldPod != nil && s.available(oldPod), oldPod == nil && newPod != nil && s.available(newPod):
			numAvailable++
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			run, known := s.runs[name]
			if !known {
				return nil, nil, fmt.Errorf("couldn't get node for nodeName %q: node %q not found", name, name)
			}
			switch {
			case !s.available(oldPod) && !run:
				remove = append(remove, oldPod)
			case !s.available(oldPod):
				allowed = append(allowed, name)
			case !run:
				shouldNotRun = append(shouldNotRun, oldPod)
			case numSurge < maxSurge:
				candidates = append(candidates, name)
			}
		case !s.available(newPod):
			numSurge++
		default:
			remove = append(remove, oldPod)
		}
	}
	// An old pod on a node that should no longer run one goes only while
	// as many pods as the set wants stay available.
	if n := numAvailable - desired; n > 0 {
		remove = append(remove, shouldNotRun[:min(n, len(shouldNotRun))]...)
	}
	n := min(max(maxSurge-numSurge, 0), len(candidates))
	return append(allowed, candidates[:n]...), remove, nil
}

// splitUpdated is the node's new pod and old pod, of those not being
// deleted; false when it has more than one of either (the manage pass
// prunes them first).
func (s *daemonSync) splitUpdated(pods []*corev1.Pod) (newPod, oldPod *corev1.Pod, ok bool) {
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if s.updated(p) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// daemonSetAllowsSurge reports whether ds's rolling update surges.
func daemonSetAllowsSurge(ds *appsv1.DaemonSet) bool {
	s, _, err := daemonSetRollingLimits(ds, 1)
	return err == nil && s > 0
}

// daemonSetRollingLimits are ds's maxSurge and maxUnavailable for desired
// pods; maxUnavailable is 1 when both would be 0.
func daemonSetRollingLimits(ds *appsv1.DaemonSet, desired int) (maxSurge, maxUnavailable int, err error) {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || ru == nil {
		return 0, 1, nil
	}
	if ru.MaxUnavailable != nil {
		if maxUnavailable, err = intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, desired, true); err != nil {
			return 0, 0, fmt.Errorf("invalid value for MaxUnavailable: %w", err)
		}
	}
	if ru.MaxSurge != nil {
		if maxSurge, err = intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, desired, true); err != nil {
			return 0, 0, fmt.Errorf("invalid value for MaxSurge: %w", err)
		}
	}
	if maxSurge == 0 && maxUnavailable == 0 {
		maxUnavailable = 1
	}
	return maxSurge, maxUnavailable, nil
}

// syncNodes creates a pod on each of create, in upstream's slow-start
// batches (stopping after a batch with a failure), then deletes remove. It
// reports whether any write succeeded.
func (c *DaemonSet) syncNodes(ctx context.Context, s *daemonSync, create []string, remove []*corev1.Pod) (wrote bool, errs []error) {
	next := make(chan string, len(create))
	for _, node := range create {
		next <- node
	}
	created, err := slowStartBatch(min(len(create), daemonSetBurstReplicas), slowStartInitialBatchSize, func() error {
		node := <-next
		got, err := c.reg.Create(ctx, podsGVR, daemonPod(s.ds, node, s.hash, s.gen))
		switch {
		case err == nil:
			c.rec.Eventf(ctx, s.ref, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", got.(*corev1.Pod).Name)
			return nil
		case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
			return nil
		}
		c.rec.Eventf(ctx, s.ref, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
		return fmt.Errorf("create pod for node %s: %w", node, err)
	})
	if err != nil {
		errs = append(errs, err)
	}
	wrote = created > 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range remove[:min(len(remove), daemonSetBurstReplicas)] {
		wg.Go(func() {
			uid := p.UID
			_, err := c.reg.Delete(ctx, podsGVR, p.Namespace, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wrote = true
				c.rec.Eventf(ctx, s.ref, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
			case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			default:
				c.rec.Eventf(ctx, s.ref, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
				errs = append(errs, fmt.Errorf("delete pod %s: %w", p.Name, err))
			}
		})
	}
	wg.Wait()
	return wrote, errs
}

// daemonPod is the pod of ds for node: unbound, with a required affinity
// to the node's name and the tolerations of every daemon pod.
func daemonPod(ds *appsv1.DaemonSet, node, hash string, gen int64) *corev1.Pod {
	tmpl := ds.Spec.Template.DeepCopy()
	labels := copyStringMap(tmpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[daemonSetTemplateGenerationLabel] = strconv.FormatInt(gen, 10)
	labels[appsv1.ControllerRevisionHashLabelKey] = hash
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    ds.Name + "-",
			Namespace:       ds.Namespace,
			Labels:          labels,
			Annotations:     tmpl.Annotations,
			Finalizers:      tmpl.Finalizers,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, daemonSetKind)},
		},
		Spec: tmpl.Spec,
	}
	pod.Spec.Tolerations = daemonPodTolerations(&pod.Spec)
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &corev1.Affinity{}
	}
	if pod.Spec.Affinity.NodeAffinity == nil {
		pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{
			Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node},
		}}}},
	}
	return pod
}

// currentRevision finds or creates the revision of the set's template.
func (c *DaemonSet) currentRevision(ctx context.Context, ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	data, err := templatePatch(ds)
	if err != nil {
		return nil, fmt.Errorf("revision: %w", err)
	}
	next := int64(1)
	if len(revs) > 0 {
		next = revs[len(revs)-1].Revision + 1
	}
	for i, r := range revs {
		if !sameRevisionData(r.Data.Raw, data) {
			continue
		}
		if i == len(revs)-1 {
			return r, nil
		}
		got, err := c.reg.Update(ctx, controllerRevisionsGVR, r.Namespace, r.Name, func(cur runtime.Object) (runtime.Object, error) {
			cr := cur.(*appsv1.ControllerRevision)
			cr.Revision = next
			return cr, nil
		})
		if err != nil {
			return nil, fmt.Errorf("update revision %s: %w", r.Name, err)
		}
		return got.(*appsv1.ControllerRevision), nil
	}
	// Named by the pod template's hash, as a Deployment's ReplicaSets are.
	hash := podTemplateHash(&ds.Spec.Template, ds.Status.CollisionCount)
	cr := newControllerRevision(ds, daemonSetKind, ds.Spec.Template.Labels, data, next, hash, appsv1.ControllerRevisionHashLabelKey)
	got, err := c.reg.Create(ctx, controllerRevisionsGVR, cr)
	if apierrors.IsAlreadyExists(err) {
		existing, gerr := c.reg.Get(ctx, controllerRevisionsGVR, cr.Namespace, cr.Name)
		if gerr == nil && controlledBy(existing.(*appsv1.ControllerRevision), ds.UID) {
			return existing.(*appsv1.ControllerRevision), nil
		}
		return nil, fmt.Errorf("create revision %s: %w", cr.Name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("create revision %s: %w", cr.Name, err)
	}
	return got.(*appsv1.ControllerRevision), nil
}

// writeStatus writes the counts when they differ from the set's.
func (c *DaemonSet) writeStatus(ctx context.Context, ds *appsv1.DaemonSet, st appsv1.DaemonSetStatus) error {
	st.ObservedGeneration = ds.Generation
	st.CollisionCount = ds.Status.CollisionCount
	st.Conditions = ds.Status.Conditions
	old := ds.Status
	if old.ObservedGeneration == st.ObservedGeneration && old.DesiredNumberScheduled == st.DesiredNumberScheduled &&
		old.CurrentNumberScheduled == st.CurrentNumberScheduled && old.NumberMisscheduled == st.NumberMisscheduled &&
		old.NumberReady == st.NumberReady && old.UpdatedNumberScheduled == st.UpdatedNumberScheduled &&
		old.NumberAvailable == st.NumberAvailable && old.NumberUnavailable == st.NumberUnavailable {
		return nil
	}
	_, err := c.reg.UpdateSubresource(ctx, daemonSetsGVR, "status", ds.Namespace, ds.Name, func(cur runtime.Object) (runtime.Object, error) {
		s := cur.(*appsv1.DaemonSet)
		if s.UID != ds.UID {
			return nil, apierrors.NewNotFound(daemonSetsGVR.GroupResource(), ds.Name)
		}
		s.Status = st
		return s, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update status: %w", err)
	}
	return nil
}

// truncateHistory deletes the oldest revisions beyond
// revisionHistoryLimit (default 10) that no pod uses.
func (c *DaemonSet) truncateHistory(ctx context.Context, ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision, cur *appsv1.ControllerRevision) error {
	limit := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = int(*ds.Spec.RevisionHistoryLimit)
	}
	live := map[string]bool{cur.Labels[appsv1.ControllerRevisionHashLabelKey]: true}
	for _, p := range c.pods {
		if p.Namespace == ds.Namespace && controlledBy(p, ds.UID) {
			live[p.Labels[appsv1.ControllerRevisionHashLabelKey]] = true
		}
	}
	var old []*appsv1.ControllerRevision
	for _, r := range revs {
		if r.Name != cur.Name && !live[r.Labels[appsv1.ControllerRevisionHashLabelKey]] {
			old = append(old, r)
		}
	}
	var errs []error
	for i := 0; i < len(old)-limit; i++ {
		_, err := c.reg.Delete(ctx, controllerRevisionsGVR, old[i].Namespace, old[i].Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete revision %s: %w", old[i].Name, err))
		}
	}
	return errors.Join(errs...)
}

// nowClock is the system clock but for Now and Since, which read now: the
// clock upstream's flowcontrol.Backoff is given.
type nowClock struct {
	clock.RealClock
	now func() time.Time
}

// Now implements clock.PassiveClock.
func (c nowClock) Now() time.Time { return c.now() }

// Since implements clock.PassiveClock.
func (c nowClock) Since(t time.Time) time.Duration { return c.now().Sub(t) }

// minPositive is the smaller of a and b, where 0 means none.
func minPositive(a, b time.Duration) time.Duration {
	if a == 0 || b > 0 && b < a {
		return b
	}
	return a
}
