package controllers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/registry"
)

// The pods' store bucket and resource, podsBucket and podsGVR, are
// declared with the StatefulSet controller.

// Event reasons of kube-controller-manager's pod control, shared by the
// controllers that create and delete pods.
const (
	reasonSuccessfulCreate = "SuccessfulCreate"
	reasonFailedCreate     = "FailedCreate"
	reasonSuccessfulDelete = "SuccessfulDelete"
	reasonFailedDelete     = "FailedDelete"
)

// podDeletionCostAnnotation ranks the pods of a ReplicaSet for scale-down
// (lower cost goes first).
const podDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// slowStartInitialBatchSize is the first batch of pod creations; each batch
// that succeeds doubles the next, as kube-controller-manager does.
const slowStartInitialBatchSize = 1

// podGeneratePrefix is the generateName of the pods of controller name:
// "<name>-", or the name alone when that is not a valid pod name prefix.
func podGeneratePrefix(name string) string {
	prefix := name + "-"
	if len(apivalidation.NameIsDNSSubdomain(prefix, true)) != 0 {
		return name
	}
	return prefix
}

// podFromTemplate is the pod a controller creates from template: its
// labels, annotations, finalizers and spec, generateName from the
// controller's name, and ref as its controller reference.
func podFromTemplate(template *corev1.PodTemplateSpec, namespace, controllerName string, ref *metav1.OwnerReference) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    namespace,
			GenerateName: podGeneratePrefix(controllerName),
			Labels:       map[string]string{},
			Annotations:  map[string]string{},
			Finalizers:   append([]string{}, template.Finalizers...),
		},
		Spec: *template.Spec.DeepCopy(),
	}
	for k, v := range template.Labels {
		pod.Labels[k] = v
	}
	for k, v := range template.Annotations {
		pod.Annotations[k] = v
	}
	if ref != nil {
		pod.OwnerReferences = append(pod.OwnerReferences, *ref)
	}
	return pod
}

// createPodFromTemplate creates a pod of template for the controller whose
// event reference is owner, and records SuccessfulCreate or FailedCreate
// about it as kube-controller-manager's pod control does (no event when the
// namespace is terminating). ctx carries the controller's user.
func createPodFromTemplate(ctx context.Context, reg registry.Interface, rec *Recorder, owner corev1.ObjectReference, template *corev1.PodTemplateSpec, ref *metav1.OwnerReference) (*corev1.Pod, error) {
	pod := podFromTemplate(template, owner.Namespace, owner.Name, ref)
	if len(pod.Labels) == 0 {
		return nil, fmt.Errorf("unable to create pods, no labels")
	}
	out, err := reg.Create(ctx, podsGVR, pod)
	if err != nil {
		if !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			rec.Eventf(ctx, owner, corev1.EventTypeWarning, reasonFailedCreate, "Error creating: %v", err)
		}
		return nil, err
	}
	created := out.(*corev1.Pod)
	rec.Eventf(ctx, owner, corev1.EventTypeNormal, reasonSuccessfulCreate, "Created pod: %v", created.Name)
	return created, nil
}

// deleteControlledPod deletes pod namespace/name for the controller whose
// event reference is owner, recording SuccessfulDelete or FailedDelete. A
// pod already gone is returned as NotFound, without an event.
func deleteControlledPod(ctx context.Context, reg registry.Interface, rec *Recorder, owner corev1.ObjectReference, namespace, name string) error {
	if _, err := reg.Delete(ctx, podsGVR, namespace, name, metav1.DeleteOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return err
		}
		rec.Eventf(ctx, owner, corev1.EventTypeWarning, reasonFailedDelete, "Error deleting: %v", err)
		return fmt.Errorf("unable to delete pods: %w", err)
	}
	rec.Eventf(ctx, owner, corev1.EventTypeNormal, reasonSuccessfulDelete, "Deleted pod: %v", name)
	return nil
}

// slowStartBatch calls fn count times, in concurrent batches of 1, 2, 4,
// ... calls, stopping after the first batch with a failure. It returns the
// number of calls that succeeded and the first failure.
func slowStartBatch(count, initialBatchSize int, fn func() error) (int, error) {
	remaining, successes := count, 0
	for batch := min(remaining, initialBatchSize); batch > 0; batch = min(2*batch, remaining) {
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for range batch {
			wg.Go(func() {
				if err := fn(); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		successes += batch - len(errs)
		if len(errs) > 0 {
			return successes, <-errs
		}
		remaining -= batch
	}
	return successes, nil
}

// isPodActive reports whether a pod counts towards its controller's
// replicas: not terminal and not being deleted.
func isPodActive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil
}

// isPodTerminating reports whether a pod is being deleted and not yet
// terminal.
func isPodTerminating(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp != nil
}

// activePods returns the active pods of pods (isPodActive).
func activePods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if isPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// podReadyCondition returns the pod's Ready condition, or nil.
func podReadyCondition(p *corev1.Pod) *corev1.PodCondition { return podCondition(p, corev1.PodReady) }

// isPodReady reports whether the pod's Ready condition is True.
func isPodReady(p *corev1.Pod) bool {
	c := podReadyCondition(p)
	return c != nil && c.Status == corev1.ConditionTrue
}

// isPodAvailable reports whether the pod has been ready for minReadySeconds
// at now.
func isPodAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	if !isPodReady(p) {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	c := podReadyCondition(p)
	return !c.LastTransitionTime.IsZero() && !c.LastTransitionTime.Add(time.Duration(minReadySeconds)*time.Second).After(now)
}

// nextPodAvailabilityCheck is how long after now the first of pods that is
// ready but not yet available becomes available, or false when none waits.
func nextPodAvailabilityCheck(pods []*corev1.Pod, minReadySeconds int32, now time.Time) (time.Duration, bool) {
	var next time.Duration
	found := false
	for _, p := range pods {
		if !isPodReady(p) || isPodAvailable(p, minReadySeconds, now) {
			continue
		}
		c := podReadyCondition(p)
		d := c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second).Sub(now)
		if d <= 0 {
			continue
		}
		if !found || d < next {
			next, found = d, true
		}
	}
	return next, found
}

// podReadyTime is when the pod became ready, or the zero time.
func podReadyTime(p *corev1.Pod) metav1.Time {
	if c := podReadyCondition(p); c != nil && c.Status == corev1.ConditionTrue {
		return c.LastTransitionTime
	}
	return metav1.Time{}
}

// podPhaseOrdinal orders the phases of pods to delete first.
var podPhaseOrdinal = map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}

// podDeletionCost is the pod's controller.kubernetes.io/pod-deletion-cost
// (0 when absent or not an int32).
func podDeletionCost(p *corev1.Pod) int32 {
	v, ok := p.Annotations[podDeletionCostAnnotation]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// maxRestarts is the highest restart count among the pod's containers and,
// separately, among its restartable init containers (sidecars).
func maxRestarts(p *corev1.Pod) (regular, sidecar int32) {
	for _, c := range p.Status.ContainerStatuses {
		regular = max(regular, c.RestartCount)
	}
	sidecars := map[string]bool{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
		}
	}
	for _, c := range p.Status.InitContainerStatuses {
		if sidecars[c.Name] {
			sidecar = max(sidecar, c.RestartCount)
		}
	}
	return regular, sidecar
}

// logRankDiff compares how long ago t1 and t2 were, on a base-2
// logarithmic scale: pods of about the same age rank the same.
func logRankDiff(t1, t2, now time.Time) int64 {
	r1, r2 := int64(-1), int64(-1)
	if d := now.Sub(t1); d > 0 {
		r1 = int64(math.Log2(float64(d)))
	}
	if d := now.Sub(t2); d > 0 {
		r2 = int64(math.Log2(float64(d)))
	}
	return r1 - r2
}

// afterOrZero reports whether t1 is after t2, a zero time being after any
// other.
func afterOrZero(t1, t2 time.Time) bool {
	if t1.IsZero() || t2.IsZero() {
		return t1.IsZero()
	}
	return t1.After(t2)
}

// rankedPods orders pods for scale-down as kube-controller-manager's
// ActivePodsWithRanks does: the pods to delete first come first.
// rank[i] is the number of related active pods on pod i's node.
type rankedPods struct {
	pods []*corev1.Pod
	rank []int
	now  time.Time
}

func (s rankedPods) Len() int { return len(s.pods) }

func (s rankedPods) Swap(i, j int) {
	s.pods[i], s.pods[j] = s.pods[j], s.pods[i]
	s.rank[i], s.rank[j] = s.rank[j], s.rank[i]
}

// Less puts first: unassigned pods, then earlier phases (Pending, Unknown,
// Running), not ready, lower deletion cost, more doubled up on a node,
// ready more recently, more restarts, and created more recently.
func (s rankedPods) Less(i, j int) bool {
	pi, pj := s.pods[i], s.pods[j]
	if pi.Spec.NodeName != pj.Spec.NodeName && (pi.Spec.NodeName == "" || pj.Spec.NodeName == "") {
		return pi.Spec.NodeName == ""
	}
	if oi, oj := podPhaseOrdinal[pi.Status.Phase], podPhaseOrdinal[pj.Status.Phase]; oi != oj {
		return oi < oj
	}
	if ri, rj := isPodReady(pi), isPodReady(pj); ri != rj {
		return !ri
	}
	if ci, cj := podDeletionCost(pi), podDeletionCost(pj); ci != cj {
		return ci < cj
	}
	if s.rank[i] != s.rank[j] {
		return s.rank[i] > s.rank[j]
	}
	if isPodReady(pi) && isPodReady(pj) {
		ti, tj := podReadyTime(pi), podReadyTime(pj)
		if !ti.Equal(&tj) {
			if s.now.IsZero() || ti.IsZero() || tj.IsZero() {
				return afterOrZero(ti.Time, tj.Time)
			}
			if d := logRankDiff(ti.Time, tj.Time, s.now); d != 0 {
				return d < 0
			}
			return pi.UID < pj.UID
		}
	}
	ri, si := maxRestarts(pi)
	rj, sj := maxRestarts(pj)
	if ri != rj {
		return ri > rj
	}
	if si != sj {
		return si > sj
	}
	if !pi.CreationTimestamp.Equal(&pj.CreationTimestamp) {
		if s.now.IsZero() || pi.CreationTimestamp.IsZero() || pj.CreationTimestamp.IsZero() {
			return afterOrZero(pi.CreationTimestamp.Time, pj.CreationTimestamp.Time)
		}
		if d := logRankDiff(pi.CreationTimestamp.Time, pj.CreationTimestamp.Time, s.now); d != 0 {
			return d < 0
		}
		return pi.UID < pj.UID
	}
	return false
}

// rankPodsForDeletion ranks pods by the related active pods on the same
// node, for rankedPods.
func rankPodsForDeletion(pods, related []*corev1.Pod, now time.Time) rankedPods {
	onNode := map[string]int{}
	for _, p := range related {
		if isPodActive(p) {
			onNode[p.Spec.NodeName]++
		}
	}
	rank := make([]int, len(pods))
	for i, p := range pods {
		rank[i] = onNode[p.Spec.NodeName]
	}
	return rankedPods{pods: pods, rank: rank, now: now}
}

// controllerRefTo is the controller reference to owner of kind gvk that a
// controller puts on what it creates or adopts.
func controllerRefTo(owner metav1.Object, gvk schema.GroupVersionKind) *metav1.OwnerReference {
	return metav1.NewControllerRef(owner, gvk)
}

// adoptObject sets a controller reference to owner on the object of gvr
// namespace/name whose uid is uid, unless it has a controller by then: the
// update kube-controller-manager's ControllerRefManager patches. A changed
// selector match is the caller's to have checked.
func adoptObject(ctx context.Context, reg registry.Interface, gvr schema.GroupVersionResource, namespace, name string, uid string, ref *metav1.OwnerReference) error {
	_, err := reg.Update(ctx, gvr, namespace, name, func(cur runtime.Object) (runtime.Object, error) {
		m, err := metaOf(cur)
		if err != nil {
			return nil, err
		}
		if string(m.GetUID()) != uid {
			return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
		}
		if metav1.GetControllerOfNoCopy(m) != nil || m.GetDeletionTimestamp() != nil {
			return nil, errAdoptionRaced
		}
		m.SetOwnerReferences(append(m.GetOwnerReferences(), *ref))
		return cur, nil
	})
	return err
}

// releaseObject removes the owner reference of owner uid from the object
// of gvr namespace/name whose uid is uid.
func releaseObject(ctx context.Context, reg registry.Interface, gvr schema.GroupVersionResource, namespace, name, uid, ownerUID string) error {
	_, err := reg.Update(ctx, gvr, namespace, name, func(cur runtime.Object) (runtime.Object, error) {
		m, err := metaOf(cur)
		if err != nil {
			return nil, err
		}
		if string(m.GetUID()) != uid {
			return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
		}
		var refs []metav1.OwnerReference
		for _, r := range m.GetOwnerReferences() {
			if string(r.UID) != ownerUID {
				refs = append(refs, r)
			}
		}
		m.SetOwnerReferences(refs)
		return cur, nil
	})
	return err
}

// errAdoptionRaced says an object found an owner (or began its deletion)
// between the controller's view and its adoption.
var errAdoptionRaced = errors.New("object changed before adoption")

// metaOf is obj's ObjectMeta accessor.
func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no object metadata", obj)
	}
	return m, nil
}

// selectorMatches reports whether sel selects the labels ls.
func selectorMatches(sel labels.Selector, ls map[string]string) bool {
	return sel.Matches(labels.Set(ls))
}
