package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// Store buckets the StatefulSet controller is fed from.
const (
	statefulSetsBucket = "apps/statefulsets"
	podsBucket         = "/pods"
	pvcsBucket         = "/persistentvolumeclaims"
)

var (
	statefulSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	statefulSetKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	podsGVR         = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	pvcsGVR         = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
)

// StatefulSet runs the pods of StatefulSets as kube-controller-manager's
// statefulset controller does: pods named <set>-<ordinal> with a stable
// hostname and their own PersistentVolumeClaims from the claim templates,
// created in order and each once the one before is Running and Ready
// (OrderedReady) or all at once (Parallel), removed from the highest
// ordinal down, replaced when they fail, and rolled to a new template from
// the highest ordinal down to the partition. Each template is kept as a
// ControllerRevision, and the status counts the pods by revision.
//
// The claims get the owner references the set's retention policy wants
// (statefulset_claims.go), for the garbage collector to delete them with
// the set or their scaled-away pod.
//
// A pending pod's claims are created again if they are deleted under it.
//
// Orphan pods named for the set and orphan revisions that its selector
// matches are adopted.
//
// Not built: adoption of orphaned claims (upstream's controller does not
// adopt them either; their owner references follow the retention policy).
type StatefulSet struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	now  func() time.Time
	// sets, pods, revisions and claims are what the controller was fed,
	// by store key.
	sets      map[string]*appsv1.StatefulSet
	pods      map[string]*corev1.Pod
	revisions map[string]*appsv1.ControllerRevision
	claims    map[string]*corev1.PersistentVolumeClaim
	// orphanPods and orphanRevisions have no controller: a set whose
	// selector matches them (and, for a pod, whose name is its set's)
	// adopts them.
	orphanPods      map[string]*corev1.Pod
	orphanRevisions map[string]*appsv1.ControllerRevision
	// dirty are the sets to sync, by key.
	dirty map[string]bool
	// retries are the failed syncs' retry times.
	retries *keyRetries
}

// NewStatefulSet returns the statefulset controller, writing through reg
// with now as its clock (nil: time.Now) and logging to log (nil:
// slog.Default()).
func NewStatefulSet(reg registry.Interface, now func() time.Time, log *slog.Logger) *StatefulSet {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	u := controllerUser("statefulset-controller")
	return &StatefulSet{
		reg: reg, log: log, user: u, now: now,
		rec:       NewRecorder(reg, "statefulset-controller", u, now, log),
		sets:      map[string]*appsv1.StatefulSet{},
		pods:      map[string]*corev1.Pod{},
		revisions: map[string]*appsv1.ControllerRevision{},
		claims:    map[string]*corev1.PersistentVolumeClaim{},
		dirty:     map[string]bool{},
		retries:   newKeyRetries(),

		orphanPods:      map[string]*corev1.Pod{},
		orphanRevisions: map[string]*appsv1.ControllerRevision{},
	}
}

// Name implements Controller.
func (c *StatefulSet) Name() string { return StatefulSetName }

// Resources implements Controller.
func (c *StatefulSet) Resources() []string {
	return []string{statefulSetsBucket, podsBucket, controllerRevisionsBucket, pvcsBucket}
}

// Sync implements Controller.
func (c *StatefulSet) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if err := c.observe(ev); err != nil {
			c.log.Warn("skipped", "err", err)
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	return syncKeys(ctx, "statefulset", c.dirty, c.retries, c.sets, c.sync)
}

// observe records one event and marks the set it concerns dirty.
func (c *StatefulSet) observe(ev store.Event) error {
	switch ev.Resource {
	case statefulSetsBucket:
		if ev.Type == store.Deleted {
			delete(c.sets, ev.Key)
			return nil
		}
		set, err := decodeEvent[appsv1.StatefulSet](ev)
		if err != nil {
			return err
		}
		c.sets[ev.Key] = set
		c.dirty[ev.Key] = true
	case podsBucket:
		orphan, err := observeAdoptable(ev, "StatefulSet", c.pods, c.orphanPods, c.dirty)
		if orphan != nil {
			wakeSelecting(orphan, c.sets, statefulSetSelector, c.dirty)
		}
		return err
	case controllerRevisionsBucket:
		orphan, err := observeAdoptable(ev, "StatefulSet", c.revisions, c.orphanRevisions, nil)
		if orphan != nil {
			wakeSelecting(orphan, c.sets, statefulSetSelector, c.dirty)
		}
		return err
	case pvcsBucket:
		_, err := trackEvent(c.claims, ev)
		return err
	}
	return nil
}

// statefulSetSelector is a set's selector.
func statefulSetSelector(set *appsv1.StatefulSet) *metav1.LabelSelector { return set.Spec.Selector }

// statefulPodOrdinal is the ordinal of a pod named <set>-<ordinal>, or -1.
func statefulPodOrdinal(set, pod string) int {
	rest, ok := strings.CutPrefix(pod, set+"-")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || strconv.Itoa(n) != rest {
		return -1
	}
	return n
}

// statefulPodRunningAndReady is the controller's test of a healthy pod:
// Running and Ready.
func statefulPodRunningAndReady(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodRunning && isPodReady(pod)
}

// statefulPodAvailable reports whether pod is Running and has been Ready
// for minReadySeconds at now.
func statefulPodAvailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	return pod.Status.Phase == corev1.PodRunning && isPodAvailable(pod, minReadySeconds, now)
}

// owned are the set's pods by ordinal, and its revisions, once it adopted
// the orphans its selector matches (pods named for it only) and released
// the pods it controls that no longer match, as upstream's
// ControllerRefManager (revisions are adopted, not released).
func (c *StatefulSet) owned(ctx context.Context, set *appsv1.StatefulSet) (map[int]*corev1.Pod, []*appsv1.ControllerRevision, error) {
	sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid label selector: %w", err)
	}
	o := newOwnerRefs(c.reg, set, statefulSetsGVR, statefulSetKind)
	member := func(p *corev1.Pod) bool { return statefulPodOrdinal(set.Name, p.Name) >= 0 }
	adoptedRevs, rerr := adopt(ctx, o, controllerRevisionsGVR, c.orphanRevisions, sel, nil)
	revs := append(controlledIn(c.revisions, set), adoptedRevs...)
	slices.SortFunc(revs, func(a, b *appsv1.ControllerRevision) int {
		if a.Revision != b.Revision {
			return int(a.Revision - b.Revision)
		}
		return strings.Compare(a.Name, b.Name)
	})
	list, perr := releaseUnmatched(ctx, o, podsGVR, controlledIn(c.pods, set), sel, member)
	adoptedPods, aerr := adopt(ctx, o, podsGVR, c.orphanPods, sel, member)
	pods := map[int]*corev1.Pod{}
	for _, p := range append(list, adoptedPods...) {
		pods[statefulPodOrdinal(set.Name, p.Name)] = p
	}
	return pods, revs, errors.Join(rerr, perr, aerr)
}

// controlledBy reports whether obj's controller has uid.
func controlledBy(obj metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && ref.UID == uid
}

// sync brings one set's pods, claims, revisions and status in line with
// its spec. A positive duration asks for another sync after it (a pod that
// becomes available with minReadySeconds).
func (c *StatefulSet) sync(ctx context.Context, set *appsv1.StatefulSet) (time.Duration, error) {
	if set.DeletionTimestamp != nil {
		return 0, nil
	}
	pods, revs, err := c.owned(ctx, set)
	if err != nil {
		return 0, err
	}
	collision := int32(0)
	if set.Status.CollisionCount != nil {
		collision = *set.Status.CollisionCount
	}
	update, revs, err := c.updateRevision(ctx, set, revs, &collision)
	if err != nil {
		return 0, err
	}
	current := update
	for _, r := range revs {
		if r.Name == set.Status.CurrentRevision {
			current = r
		}
	}
	now := c.now()
	status := c.status(set, pods, current, update, collision, now)
	actErr := c.act(ctx, set, pods, current, update, &status)
	if err := c.writeStatus(ctx, set, status); err != nil {
		return 0, errors.Join(actErr, err)
	}
	if err := c.truncateHistory(ctx, set, pods, revs, current, update); err != nil {
		return 0, errors.Join(actErr, err)
	}
	if actErr != nil {
		return 0, actErr
	}
	if set.Spec.MinReadySeconds > 0 && status.AvailableReplicas < status.ReadyReplicas {
		return time.Second, nil
	}
	return 0, nil
}

// updateRevision finds or creates the revision of the set's current
// template, giving it the highest revision number, and returns it with the
// set's revisions as they are then.
func (c *StatefulSet) updateRevision(ctx context.Context, set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, collision *int32) (*appsv1.ControllerRevision, []*appsv1.ControllerRevision, error) {
	data, err := templatePatch(set)
	if err != nil {
		return nil, nil, fmt.Errorf("statefulset %s/%s: revision: %w", set.Namespace, set.Name, err)
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
			return r, revs, nil
		}
		// An earlier template again (a rollback): it becomes the newest.
		got, err := c.reg.Update(ctx, controllerRevisionsGVR, r.Namespace, r.Name, func(cur runtime.Object) (runtime.Object, error) {
			cr := cur.(*appsv1.ControllerRevision)
			cr.Revision = next
			return cr, nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("update revision %s: %w", r.Name, err)
		}
		cr := got.(*appsv1.ControllerRevision)
		c.revisions[cr.Namespace+"/"+cr.Name] = cr
		out := append(slices.Delete(slices.Clone(revs), i, i+1), cr)
		return cr, out, nil
	}
	for range 10 {
		cr := newControllerRevision(set, statefulSetKind, set.Spec.Template.Labels, data, next, revisionHash(data, collision), controllerRevisionHashLabel)
		got, err := c.reg.Create(ctx, controllerRevisionsGVR, cr)
		if apierrors.IsAlreadyExists(err) {
			existing, gerr := c.reg.Get(ctx, controllerRevisionsGVR, cr.Namespace, cr.Name)
			if gerr == nil {
				if e := existing.(*appsv1.ControllerRevision); controlledBy(e, set.UID) && sameRevisionData(e.Data.Raw, data) {
					c.revisions[e.Namespace+"/"+e.Name] = e
					return e, append(revs, e), nil
				}
			}
			*collision++ // a hash collision: the next name differs
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("create revision %s: %w", cr.Name, err)
		}
		cr = got.(*appsv1.ControllerRevision)
		c.revisions[cr.Namespace+"/"+cr.Name] = cr
		return cr, append(revs, cr), nil
	}
	return nil, nil, fmt.Errorf("create revision: too many hash collisions")
}

// status counts the set's pods as the controller reports them.
func (c *StatefulSet) status(set *appsv1.StatefulSet, pods map[int]*corev1.Pod, current, update *appsv1.ControllerRevision, collision int32, now time.Time) appsv1.StatefulSetStatus {
	st := appsv1.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    current.Name,
		UpdateRevision:     update.Name,
		CollisionCount:     &collision,
		Conditions:         set.Status.Conditions,
	}
	for _, p := range pods {
		if p.Status.Phase != "" {
			st.Replicas++
		}
		if statefulPodRunningAndReady(p) {
			st.ReadyReplicas++
			if statefulPodAvailable(p, set.Spec.MinReadySeconds, now) {
				st.AvailableReplicas++
			}
		}
		if p.Status.Phase != "" && p.DeletionTimestamp == nil {
			if p.Labels[appsv1.StatefulSetRevisionLabel] == current.Name {
				st.CurrentReplicas++
			}
			if p.Labels[appsv1.StatefulSetRevisionLabel] == update.Name {
				st.UpdatedReplicas++
			}
		}
	}
	replicas := statefulReplicas(set)
	if st.UpdatedReplicas == replicas && st.ReadyReplicas == replicas && st.Replicas == replicas {
		st.CurrentReplicas = st.UpdatedReplicas
		st.CurrentRevision = st.UpdateRevision
	}
	return st
}

// statefulReplicas is spec.replicas (defaulted to 1).
func statefulReplicas(set *appsv1.StatefulSet) int32 {
	if set.Spec.Replicas == nil {
		return 1
	}
	return *set.Spec.Replicas
}

// act creates, replaces, deletes and updates pods, one step at a time
// when the set is OrderedReady.
func (c *StatefulSet) act(ctx context.Context, set *appsv1.StatefulSet, pods map[int]*corev1.Pod, current, update *appsv1.ControllerRevision, status *appsv1.StatefulSetStatus) error {
	start, end := statefulOrdinals(set)
	monotonic := set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	now := c.now()
	var errs []error
	// The replicas, in order.
	for ord := start; ord < end; ord++ {
		pod := pods[ord]
		if pod == nil {
			// A claim an earlier pod of the name still owns (whenScaled:
			// Delete) goes first.
			if c.podClaimIsStale(set, ord) {
				if monotonic {
					return errors.Join(errs...)
				}
				continue
			}
			if err := c.createPod(ctx, set, ord, start, current, update, status); err != nil {
				errs = append(errs, err)
			}
			if monotonic {
				return errors.Join(errs...)
			}
			continue
		}
		if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
			if pod.DeletionTimestamp == nil {
				if err := c.deletePod(ctx, set, pod); err != nil {
					errs = append(errs, err)
				}
			}
			if monotonic {
				return errors.Join(errs...)
			}
			continue
		}
		// A pending pod gets back a claim deleted under it.
		if pod.Status.Phase == corev1.PodPending {
			err := c.createClaims(ctx, set, ord)
			if err == nil {
				err = c.podUpdateFailed(ctx, set, pod.Name, c.updateClaimsForRetention(ctx, set, pod, ord))
			}
			if err != nil {
				errs = append(errs, err)
				if monotonic {
					return errors.Join(errs...)
				}
				continue
			}
		}
		if monotonic && (pod.DeletionTimestamp != nil || !statefulPodAvailable(pod, set.Spec.MinReadySeconds, now)) {
			return errors.Join(errs...)
		}
		if !c.claimsMatchRetention(set, pod, ord) {
			if err := c.updatePodClaims(ctx, set, pod, ord); err != nil {
				errs = append(errs, err)
				if monotonic {
					return errors.Join(errs...)
				}
			}
		}
	}
	// The condemned, from the highest ordinal down.
	var condemned []int
	for ord := range pods {
		if ord < start || ord >= end {
			condemned = append(condemned, ord)
		}
	}
	slices.Sort(condemned)
	slices.Reverse(condemned)
	// Their claims first get the owners the policy wants of a pod scaled
	// away.
	for _, ord := range condemned {
		if c.claimsMatchRetention(set, pods[ord], ord) {
			continue
		}
		if err := c.updateClaimsForRetention(ctx, set, pods[ord], ord); err != nil {
			return errors.Join(append(errs, err)...)
		}
	}
	for _, ord := range condemned {
		pod := pods[ord]
		if pod.DeletionTimestamp != nil {
			if monotonic {
				return errors.Join(errs...)
			}
			continue
		}
		if err := c.deletePod(ctx, set, pod); err != nil {
			errs = append(errs, err)
		}
		if monotonic {
			return errors.Join(errs...)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return nil
	}
	return c.rollingUpdate(ctx, set, pods, start, end, monotonic, update, status, now)
}

// rollingUpdate deletes the pods of the set's replicas (ordinals start to
// end) not at the update revision, from the highest ordinal down to the
// partition, as upstream's controller with maxUnavailable (on by default
// since v1.37) does: no more than maxUnavailable (default 1) replicas are
// unavailable at once, missing or terminating ones counted; with Parallel
// management, pods that are unavailable already are replaced first. Each
// deletion is taken off status.currentReplicas at once, as upstream's.
func (c *StatefulSet) rollingUpdate(ctx context.Context, set *appsv1.StatefulSet, pods map[int]*corev1.Pod, start, end int, monotonic bool,
	update *appsv1.ControllerRevision, status *appsv1.StatefulSetStatus, now time.Time) error {
	partition, maxUnavailable := 0, 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if ru.Partition != nil {
			partition = int(*ru.Partition)
		}
		n, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxUnavailable, intstr.FromInt32(1)), end-start, false)
		if err != nil {
			return err
		}
		maxUnavailable = max(n, 1)
	}
	outdated := func(p *corev1.Pod) bool {
		return p != nil && p.Labels[appsv1.StatefulSetRevisionLabel] != update.Name && p.DeletionTimestamp == nil
	}
	unavailable := func(p *corev1.Pod) bool {
		return p == nil || p.DeletionTimestamp != nil || !statefulPodAvailable(p, set.Spec.MinReadySeconds, now)
	}
	down, downOutdated := 0, 0
	for ord := start; ord < end; ord++ {
		if unavailable(pods[ord]) {
			down++
			if !monotonic && outdated(pods[ord]) {
				downOutdated++
			}
		}
	}
	if down >= maxUnavailable && downOutdated == 0 {
		return nil
	}
	remove := func(p *corev1.Pod) error {
		if err := c.deletePod(ctx, set, p); err != nil {
			return err
		}
		status.CurrentReplicas--
		return nil
	}
	budget := maxUnavailable - down
	if !monotonic {
		// Those unavailable already first, then available ones within
		// the budget.
		for ord := end - 1; ord >= start+partition; ord-- {
			if p := pods[ord]; outdated(p) && unavailable(p) {
				if err := remove(p); err != nil {
					return err
				}
			}
		}
		for ord := end - 1; ord >= start+partition && budget > 0; ord-- {
			if p := pods[ord]; outdated(p) && !unavailable(p) {
				if err := remove(p); err != nil {
					return err
				}
				budget--
			}
		}
		return nil
	}
	for ord := end - 1; ord >= start+partition && budget > 0; ord-- {
		if p := pods[ord]; outdated(p) {
			if err := remove(p); err != nil {
				return err
			}
			budget--
		}
	}
	return nil
}

// createPod creates the pod of ordinal ord, and first its claims.
func (c *StatefulSet) createPod(ctx context.Context, set *appsv1.StatefulSet, ord, start int, current, update *appsv1.ControllerRevision, status *appsv1.StatefulSetStatus) error {
	rev := update
	if set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType || set.Spec.UpdateStrategy.Type == "" {
		partition := 0
		ru := set.Spec.UpdateStrategy.RollingUpdate
		if ru != nil && ru.Partition != nil {
			partition = int(*ru.Partition)
		}
		if (ru == nil && ord < start+int(status.CurrentReplicas)) || (ru != nil && ord < start+partition) {
			rev = current
		}
	} else if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType && ord < start+int(status.CurrentReplicas) {
		rev = current
	}
	tmpl := set.Spec.Template
	if rev != update {
		if t, err := statefulTemplateOf(rev); err == nil {
			tmpl = t
		}
	}
	name := statefulPodName(set, ord)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			// As upstream's GetPodFromTemplate leaves it, under the name.
			GenerateName:    set.Name + "-",
			Namespace:       set.Namespace,
			Labels:          copyStringMap(tmpl.Labels),
			Annotations:     copyStringMap(tmpl.Annotations),
			Finalizers:      slices.Clone(tmpl.Finalizers),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, statefulSetKind)},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = name
	pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(ord)
	pod.Labels[appsv1.StatefulSetRevisionLabel] = rev.Name
	pod.Spec.Hostname = name
	pod.Spec.Subdomain = set.Spec.ServiceName
	// The claims, and the volumes that mount them.
	if err := c.createClaims(ctx, set, ord); err != nil {
		c.rec.Eventf(ctx, EventRef("apps/v1", "StatefulSet", set), corev1.EventTypeWarning, "FailedCreate",
			"Create Pod %s in StatefulSet %s failed error: %s", name, set.Name, err)
		return err
	}
	var volumes []corev1.Volume
	claimed := map[string]bool{}
	for _, t := range set.Spec.VolumeClaimTemplates {
		claimed[t.Name] = true
		volumes = append(volumes, corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: statefulClaimName(set, t.Name, ord)},
		}})
	}
	for _, v := range pod.Spec.Volumes {
		if !claimed[v.Name] {
			volumes = append(volumes, v)
		}
	}
	pod.Spec.Volumes = volumes
	_, err := c.reg.Create(ctx, podsGVR, pod)
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	ref := EventRef("apps/v1", "StatefulSet", set)
	if err != nil {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedCreate", "Create Pod %s in StatefulSet %s failed error: %s", name, set.Name, err)
		return fmt.Errorf("create pod %s: %w", name, err)
	}
	// As upstream's, with the pod as it was sent (no UID yet).
	if err := c.podUpdateFailed(ctx, set, name, c.updateClaimsForRetention(ctx, set, pod, ord)); err != nil {
		return err
	}
	c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "SuccessfulCreate", "Create Pod %s in StatefulSet %s successful", name, set.Name)
	return nil
}

// createClaims creates the claims of the pod of ordinal ord that do not
// exist, from the set's claim templates, as upstream's
// createPersistentVolumeClaims: each failure has its event and is
// returned with the others; a claim being deleted is a failure too.
func (c *StatefulSet) createClaims(ctx context.Context, set *appsv1.StatefulSet, ord int) error {
	name := statefulPodName(set, ord)
	var errs []error
	for _, t := range set.Spec.VolumeClaimTemplates {
		claim := t.DeepCopy()
		claim.Name = statefulClaimName(set, t.Name, ord)
		claim.Namespace = set.Namespace
		claim.ResourceVersion, claim.UID = "", ""
		if set.Spec.Selector != nil {
			if claim.Labels == nil {
				claim.Labels = map[string]string{}
			}
			for k, v := range set.Spec.Selector.MatchLabels {
				claim.Labels[k] = v
			}
		}
		if have := c.claims[claim.Namespace+"/"+claim.Name]; have != nil {
			if have.DeletionTimestamp != nil {
				errs = append(errs, fmt.Errorf("pvc %s is being deleted", claim.Name))
			}
			continue
		}
		claim.Status = corev1.PersistentVolumeClaimStatus{}
		_, err := c.reg.Create(ctx, pvcsGVR, claim)
		switch {
		case err == nil:
			c.rec.Eventf(ctx, EventRef("apps/v1", "StatefulSet", set), corev1.EventTypeNormal, "SuccessfulCreate",
				"Create Claim %s Pod %s in StatefulSet %s success", claim.Name, name, set.Name)
		case apierrors.IsAlreadyExists(err):
			errs = append(errs, fmt.Errorf("failed to create PVC %s: %w", claim.Name, err))
		default:
			c.rec.Eventf(ctx, EventRef("apps/v1", "StatefulSet", set), corev1.EventTypeWarning, "FailedCreate",
				"Create Claim %s for Pod %s in StatefulSet %s failed error: %s", claim.Name, name, set.Name, err)
			errs = append(errs, fmt.Errorf("failed to create PVC %s: %w", claim.Name, err))
		}
	}
	return errors.Join(errs...)
}

// updatePodClaims gives the claims of a replica's pod the owners the
// set's policy wants, as upstream's UpdateStatefulPod does, with its
// event (the pod itself is unchanged, so not written).
func (c *StatefulSet) updatePodClaims(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod, ord int) error {
	if err := c.podUpdateFailed(ctx, set, pod.Name, c.updateClaimsForRetention(ctx, set, pod, ord)); err != nil {
		return err
	}
	c.rec.Eventf(ctx, EventRef("apps/v1", "StatefulSet", set), corev1.EventTypeNormal, "SuccessfulUpdate", "Update Pod %s in StatefulSet %s successful", pod.Name, set.Name)
	return nil
}

// podUpdateFailed records upstream's FailedUpdate event of the set's pod
// name when err is not nil, and returns err.
func (c *StatefulSet) podUpdateFailed(ctx context.Context, set *appsv1.StatefulSet, name string, err error) error {
	if err != nil {
		c.rec.Eventf(ctx, EventRef("apps/v1", "StatefulSet", set), corev1.EventTypeWarning, "FailedUpdate", "Update Pod %s in StatefulSet %s failed error: %s", name, set.Name, err)
	}
	return err
}

// statefulTemplateOf is the pod template a StatefulSet revision holds.
func statefulTemplateOf(rev *appsv1.ControllerRevision) (corev1.PodTemplateSpec, error) {
	var patch struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	err := json.Unmarshal(rev.Data.Raw, &patch)
	return patch.Spec.Template, err
}

// deletePod deletes one of the set's pods.
func (c *StatefulSet) deletePod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	uid := pod.UID
	_, err := c.reg.Delete(ctx, podsGVR, pod.Namespace, pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	ref := EventRef("apps/v1", "StatefulSet", set)
	if err != nil && !apierrors.IsNotFound(err) {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedDelete", "Delete Pod %s in StatefulSet %s failed error: %s", pod.Name, set.Name, err)
		return fmt.Errorf("delete pod %s: %w", pod.Name, err)
	}
	if err == nil {
		c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "SuccessfulDelete", "Delete Pod %s in StatefulSet %s successful", pod.Name, set.Name)
	}
	return nil
}

// writeStatus writes status when it differs from the set's.
func (c *StatefulSet) writeStatus(ctx context.Context, set *appsv1.StatefulSet, status appsv1.StatefulSetStatus) error {
	if statefulStatusEqual(set.Status, status) {
		return nil
	}
	got, err := c.reg.UpdateSubresource(ctx, statefulSetsGVR, "status", set.Namespace, set.Name, func(cur runtime.Object) (runtime.Object, error) {
		s := cur.(*appsv1.StatefulSet)
		if s.UID != set.UID {
			return nil, apierrors.NewNotFound(statefulSetsGVR.GroupResource(), set.Name)
		}
		s.Status = status
		if s.Generation > status.ObservedGeneration {
			// The spec changed since: the next sync sees it.
			s.Status.ObservedGeneration = status.ObservedGeneration
		}
		return s, nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	s := got.(*appsv1.StatefulSet)
	c.sets[s.Namespace+"/"+s.Name] = s
	return nil
}

// statefulStatusEqual reports whether two statuses say the same.
func statefulStatusEqual(a, b appsv1.StatefulSetStatus) bool {
	ca, cb := int32(-1), int32(-1)
	if a.CollisionCount != nil {
		ca = *a.CollisionCount
	}
	if b.CollisionCount != nil {
		cb = *b.CollisionCount
	}
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas &&
		a.ReadyReplicas == b.ReadyReplicas && a.CurrentReplicas == b.CurrentReplicas &&
		a.UpdatedReplicas == b.UpdatedReplicas && a.AvailableReplicas == b.AvailableReplicas &&
		a.CurrentRevision == b.CurrentRevision && a.UpdateRevision == b.UpdateRevision && ca == cb
}

// truncateHistory deletes the oldest revisions beyond
// revisionHistoryLimit (default 10) that no pod uses and that are neither
// the current nor the update revision.
func (c *StatefulSet) truncateHistory(ctx context.Context, set *appsv1.StatefulSet, pods map[int]*corev1.Pod, revs []*appsv1.ControllerRevision, current, update *appsv1.ControllerRevision) error {
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	live := map[string]bool{current.Name: true, update.Name: true}
	for _, p := range pods {
		live[p.Labels[appsv1.StatefulSetRevisionLabel]] = true
	}
	var old []*appsv1.ControllerRevision
	for _, r := range revs {
		if !live[r.Name] {
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

// copyStringMap copies a map of strings (nil stays nil).
func copyStringMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
