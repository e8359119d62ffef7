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
	schedulinghelper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

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
// node within maxUnavailable. Each template is kept as a ControllerRevision.
//
// Not built: maxSurge (a surge deletes the old pod only once the new one
// is available upstream; here maxSurge is ignored) and the failed-pod
// backoff.
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
	dirty     map[string]bool
	// retries are the failed syncs' retry times.
	retries *keyRetries
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
		rec:       NewRecorder(reg, "daemonset-controller", u, now, log),
		sets:      map[string]*appsv1.DaemonSet{},
		pods:      map[string]*corev1.Pod{},
		nodes:     map[string]*corev1.Node{},
		revisions: map[string]*appsv1.ControllerRevision{},
		dirty:     map[string]bool{},
		retries:   newKeyRetries(),
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
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	return syncKeys(ctx, "daemonset", c.dirty, c.retries, c.sets, c.sync)
}

// observe records one event and marks the sets it concerns dirty.
func (c *DaemonSet) observe(ev store.Event) error {
	switch ev.Resource {
	case daemonSetsBucket:
		if ev.Type == store.Deleted {
			delete(c.sets, ev.Key)
			return nil
		}
		ds, err := decodeEvent[appsv1.DaemonSet](ev)
		if err != nil {
			return err
		}
		c.sets[ev.Key] = ds
		c.dirty[ev.Key] = true
	case podsBucket:
		return observeControlled(ev, "DaemonSet", c.pods, c.dirty)
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
		return observeControlled(ev, "DaemonSet", c.revisions, nil)
	}
	return nil
}

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

// sync brings one daemon set's pods, revisions and status in line.
func (c *DaemonSet) sync(ctx context.Context, ds *appsv1.DaemonSet) (time.Duration, error) {
	if ds.DeletionTimestamp != nil {
		return 0, nil
	}
	var revs []*appsv1.ControllerRevision
	for _, r := range c.revisions {
		if r.Namespace == ds.Namespace && controlledBy(r, ds.UID) {
			revs = append(revs, r)
		}
	}
	slices.SortFunc(revs, func(a, b *appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
	cur, err := c.currentRevision(ctx, ds, revs)
	if err != nil {
		return 0, err
	}
	hash := cur.Labels[appsv1.ControllerRevisionHashLabelKey]
	gen := daemonset.TemplateGeneration(ds)
	// The pods by node, bound ones first, then oldest first. A pod on its
	// way out still holds its node (no other is created there until it is
	// gone), unless it has finished: then it is the kubelet's or the pod
	// garbage collector's.
	byNode := map[string][]*corev1.Pod{}
	for _, p := range c.pods {
		if p.Namespace == ds.Namespace && controlledBy(p, ds.UID) && !(p.DeletionTimestamp != nil && podTerminal(p)) {
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
	ref := EventRef("apps/v1", "DaemonSet", ds)
	tolerations := daemonPodTolerations(&ds.Spec.Template.Spec)
	affinity := nodeaffinity.NewRequiredNodeAffinity(ds.Spec.Template.Spec.NodeSelector, ds.Spec.Template.Spec.Affinity)
	now := c.now()
	updated := func(p *corev1.Pod) bool {
		if h := p.Labels[appsv1.ControllerRevisionHashLabelKey]; h != "" {
			return h == hash
		}
		return p.Labels[daemonSetTemplateGenerationLabel] == strconv.FormatInt(gen, 10)
	}
	var st appsv1.DaemonSetStatus
	var create []string
	var remove []*corev1.Pod
	var oldAvailable, oldUnavailable []*corev1.Pod
	unavailable := 0
	for _, name := range slices.Sorted(maps.Keys(c.nodes)) {
		node := c.nodes[name]
		shouldRun, shouldContinue := daemonNodeShouldRun(node, ds, tolerations, affinity)
		pods := byNode[name]
		delete(byNode, name)
		switch {
		case shouldRun:
			st.DesiredNumberScheduled++
			if len(pods) == 0 {
				create = append(create, name)
				unavailable++
				continue
			}
			// The status counts the node's first pod, whatever its state.
			first := pods[0]
			st.CurrentNumberScheduled++
			if isPodReady(first) {
				st.NumberReady++
			}
			if isPodAvailable(first, ds.Spec.MinReadySeconds, now) {
				st.NumberAvailable++
			}
			if updated(first) {
				st.UpdatedNumberScheduled++
			}
			// A finished pod is deleted (and replaced at a later sync, once
			// it is gone); of the running ones the oldest stays.
			var live []*corev1.Pod
			for _, p := range pods {
				switch {
				case p.DeletionTimestamp != nil:
				case p.Status.Phase == corev1.PodFailed:
					c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedDaemonPod", "Found failed daemon pod %s/%s on node %s, will try to kill it", p.Namespace, p.Name, name)
					remove = append(remove, p)
				case p.Status.Phase == corev1.PodSucceeded:
					c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "SucceededDaemonPod", "Found succeeded daemon pod %s/%s on node %s, will try to delete it", p.Namespace, p.Name, name)
					remove = append(remove, p)
				default:
					live = append(live, p)
				}
			}
			if len(live) == 0 {
				unavailable++
				continue
			}
			remove = append(remove, live[1:]...)
			p := live[0]
			available := isPodAvailable(p, ds.Spec.MinReadySeconds, now)
			if !available {
				unavailable++
			}
			switch {
			case updated(p):
			case available:
				oldAvailable = append(oldAvailable, p)
			default:
				oldUnavailable = append(oldUnavailable, p)
			}
		case len(pods) > 0:
			st.NumberMisscheduled++
			if !shouldContinue {
				for _, p := range pods {
					if p.DeletionTimestamp == nil {
						remove = append(remove, p)
					}
				}
			}
		}
	}
	// Of the pods of nodes that are gone, those never bound are deleted;
	// the bound ones are the pod garbage collector's.
	for _, pods := range byNode {
		for _, p := range pods {
			if p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
				remove = append(remove, p)
			}
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	var errs []error
	// A rolling update deletes old pods within maxUnavailable: the
	// unavailable ones first, then available ones while the budget lasts.
	if ds.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType {
		maxUnavailable := 1
		if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
			v, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, int(st.DesiredNumberScheduled), true)
			if err == nil {
				maxUnavailable = v
			}
			if maxUnavailable == 0 && (ru.MaxSurge == nil || ru.MaxSurge.IntValue() == 0 && ru.MaxSurge.StrVal == "") {
				maxUnavailable = 1
			}
		}
		remove = append(remove, oldUnavailable...)
		for _, p := range oldAvailable {
			if unavailable >= maxUnavailable {
				break
			}
			remove = append(remove, p)
			unavailable++
		}
	}
	for _, p := range remove {
		uid := p.UID
		_, err := c.reg.Delete(ctx, podsGVR, p.Namespace, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		switch {
		case err == nil:
			c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		default:
			c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
			errs = append(errs, fmt.Errorf("delete pod %s: %w", p.Name, err))
		}
	}
	for _, node := range create {
		pod := daemonPod(ds, node, hash, gen)
		got, err := c.reg.Create(ctx, podsGVR, pod)
		if err != nil {
			c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
			errs = append(errs, fmt.Errorf("create pod for node %s: %w", node, err))
			continue
		}
		c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", got.(*corev1.Pod).Name)
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
	if ds.Spec.MinReadySeconds > 0 && st.NumberAvailable < st.NumberReady {
		return time.Second, nil
	}
	return 0, nil
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
