package controllers

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/dump"
)

// The annotations the deployment controller keeps on Deployments and their
// ReplicaSets.
const (
	revisionAnnotation        = "deployment.kubernetes.io/revision"
	revisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	desiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	maxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
)

// maxRevisionHistoryChars bounds the revision-history annotation.
const maxRevisionHistoryChars = 2000

// Reasons of the Deployment conditions and events, as upstream's.
const (
	reasonReplicaSetUpdated          = "ReplicaSetUpdated"
	reasonReplicaSetCreateError      = "ReplicaSetCreateError"
	reasonNewReplicaSetCreated       = "NewReplicaSetCreated"
	reasonFoundNewReplicaSet         = "FoundNewReplicaSet"
	reasonNewReplicaSetAvailable     = "NewReplicaSetAvailable"
	reasonProgressDeadlineExceeded   = "ProgressDeadlineExceeded"
	reasonDeploymentPaused           = "DeploymentPaused"
	reasonDeploymentResumed          = "DeploymentResumed"
	reasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	reasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	reasonScalingReplicaSet          = "ScalingReplicaSet"
	reasonRollbackRevisionNotFound   = "DeploymentRollbackRevisionNotFound"
	reasonRollbackTemplateUnchanged  = "DeploymentRollbackTemplateUnchanged"
	reasonRollbackDone               = "DeploymentRollback"
)

// podTemplateHash is the pod-template-hash of template with collisionCount,
// as kube-controller-manager computes it: the FNV-32a of the template's
// deep dump, then of the count, rendered with rand.SafeEncodeString. A
// ReplicaSet's name and its pods' label carry it, so it must be the same as
// on a cluster.
func podTemplateHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(*template))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// replicaSetNameFor is the name of the ReplicaSet of deployment name with
// hash, the deployment's name cut short to keep it a valid name.
func replicaSetNameFor(name, hash string) string {
	maxLen := validation.DNS1123SubdomainMaxLength - 1 - len(hash)
	if len(name) > maxLen && maxLen > 0 {
		name = name[:maxLen]
	}
	return name + "-" + hash
}

// resolveFenceposts turns maxSurge and maxUnavailable into numbers of pods
// of desired: surge rounds up, unavailable down, and both 0 makes
// unavailable 1.
func resolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (surge, unavailable int32, err error) {
	s, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxSurge, intstr.FromInt32(0)), int(desired), true)
	if err != nil {
		return 0, 0, err
	}
	u, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxUnavailable, intstr.FromInt32(0)), int(desired), false)
	if err != nil {
		return 0, 0, err
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

// isRollingUpdate reports whether d rolls out by RollingUpdate.
func isRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

// maxSurge is the number of pods d may run above its replicas.
func maxSurge(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) || d.Spec.Strategy.RollingUpdate == nil {
		return 0
	}
	s, _, _ := resolveFenceposts(d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable, *d.Spec.Replicas)
	return s
}

// maxUnavailable is the number of d's replicas that may be unavailable.
func maxUnavailable(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) || d.Spec.Strategy.RollingUpdate == nil || *d.Spec.Replicas == 0 {
		return 0
	}
	_, u, _ := resolveFenceposts(d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable, *d.Spec.Replicas)
	return min(u, *d.Spec.Replicas)
}

// hasProgressDeadline reports whether d has a progress deadline.
func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// hasRevisionHistoryLimit reports whether d limits its old ReplicaSets.
func hasRevisionHistoryLimit(d *appsv1.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}

// equalIgnoreHash reports whether two pod templates are the same but for
// the pod-template-hash label.
func equalIgnoreHash(t1, t2 *corev1.PodTemplateSpec) bool {
	c1, c2 := t1.DeepCopy(), t2.DeepCopy()
	delete(c1.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(c2.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return apiequality.Semantic.DeepEqual(c1, c2)
}

// revisionOf is the revision annotation of rs (0 when absent).
func revisionOf(rs *appsv1.ReplicaSet) (int64, error) {
	v, ok := rs.Annotations[revisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// maxRevision is the highest revision among rss.
func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		if v, err := revisionOf(rs); err == nil && v > m {
			m = v
		}
	}
	return m
}

// lastRevision is the second highest revision among rss: the one before the
// current.
func lastRevision(rss []*appsv1.ReplicaSet) int64 {
	var m, second int64
	for _, rs := range rss {
		v, err := revisionOf(rs)
		switch {
		case err != nil:
		case v >= m:
			second, m = m, v
		case v > second:
			second = v
		}
	}
	return second
}

// skippedAnnotations are not copied from a Deployment to its ReplicaSets.
var skippedAnnotations = map[string]bool{
	corev1.LastAppliedConfigAnnotation: true,
	revisionAnnotation:                 true,
	revisionHistoryAnnotation:          true,
	desiredReplicasAnnotation:          true,
	maxReplicasAnnotation:              true,
	appsv1.DeprecatedRollbackTo:        true,
}

// copyDeploymentAnnotations copies d's annotations to rs, but the skipped
// ones, reporting whether rs changed.
func copyDeploymentAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations {
		if cur, ok := rs.Annotations[k]; skippedAnnotations[k] || (ok && cur == v) {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setNewReplicaSetAnnotations gives the new ReplicaSet d's annotations and
// the revision newRevision (moving its former one to the revision
// history), and, for a ReplicaSet not yet created, the replicas
// annotations. It reports whether rs changed.
func setNewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool) bool {
	changed := copyDeploymentAnnotations(d, rs)
	old, hadOld := rs.Annotations[revisionAnnotation]
	oldN, err := strconv.ParseInt(old, 10, 64)
	if err != nil {
		if old != "" {
			return false
		}
		oldN = 0
	}
	newN, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldN < newN {
		rs.Annotations[revisionAnnotation] = newRevision
		changed = true
	}
	if hadOld && oldN < newN {
		history := rs.Annotations[revisionHistoryAnnotation]
		olds := strings.Split(history, ",")
		if olds[0] == "" {
			rs.Annotations[revisionHistoryAnnotation] = old
		} else {
			total := len(history) + len(old) + 1
			start := 0
			for total > maxRevisionHistoryChars && start < len(olds) {
				total -= len(olds[start]) + 1
				start++
			}
			if total <= maxRevisionHistoryChars {
				rs.Annotations[revisionHistoryAnnotation] = strings.Join(append(olds[start:], old), ",")
			}
		}
	}
	if !exists && setReplicasAnnotations(rs, *d.Spec.Replicas, *d.Spec.Replicas+maxSurge(d)) {
		changed = true
	}
	return changed
}

// setReplicasAnnotations sets the desired- and max-replicas annotations,
// reporting whether they changed.
func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	if v := strconv.Itoa(int(desired)); rs.Annotations[desiredReplicasAnnotation] != v {
		rs.Annotations[desiredReplicasAnnotation] = v
		changed = true
	}
	if v := strconv.Itoa(int(maxReplicas)); rs.Annotations[maxReplicasAnnotation] != v {
		rs.Annotations[maxReplicasAnnotation] = v
		changed = true
	}
	return changed
}

// replicasAnnotationsNeedUpdate reports whether setReplicasAnnotations
// would change rs.
func replicasAnnotationsNeedUpdate(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	return rs.Annotations[desiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		rs.Annotations[maxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

// int32Annotation reads a non-negative int32 annotation of rs.
func int32Annotation(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// sumSpecReplicas sums the spec.replicas of rss (nil entries count 0).
func sumSpecReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += *rs.Spec.Replicas
		}
	}
	return n
}

// sumStatusReplicas sums the status.replicas of rss.
func sumStatusReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.Replicas
		}
	}
	return n
}

// sumReadyReplicas sums the status.readyReplicas of rss.
func sumReadyReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.ReadyReplicas
		}
	}
	return n
}

// sumAvailableReplicas sums the status.availableReplicas of rss.
func sumAvailableReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.AvailableReplicas
		}
	}
	return n
}

// sumTerminatingReplicas is nil when one ReplicaSet that has been synced
// does not report terminating replicas.
func sumTerminatingReplicas(rss []*appsv1.ReplicaSet) *int32 {
	var n int32
	for _, rs := range rss {
		switch {
		case rs == nil:
		case rs.Status.ObservedGeneration == 0 && rs.Status.TerminatingReplicas == nil:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			n += *rs.Status.TerminatingReplicas
		}
	}
	return &n
}

// activeReplicaSets are the ReplicaSets with replicas.
func activeReplicaSets(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && *rs.Spec.Replicas > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// rsOlder orders ReplicaSets by creation, then name.
func rsOlder(a, b *appsv1.ReplicaSet) bool {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.Name < b.Name
	}
	return a.CreationTimestamp.Before(&b.CreationTimestamp)
}

// sortByCreation sorts rss oldest first.
func sortByCreation(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool { return rsOlder(rss[i], rss[j]) })
}

// sortBySize sorts rss largest first; among equals, the older first
// (newerFirst false) or the newer first.
func sortBySize(rss []*appsv1.ReplicaSet, newerFirst bool) {
	sort.SliceStable(rss, func(i, j int) bool {
		if *rss[i].Spec.Replicas == *rss[j].Spec.Replicas {
			if newerFirst {
				return rsOlder(rss[j], rss[i])
			}
			return rsOlder(rss[i], rss[j])
		}
		return *rss[i].Spec.Replicas > *rss[j].Spec.Replicas
	})
}

// sortByRevision sorts rss by revision, then creation.
func sortByRevision(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool {
		ri, _ := revisionOf(rss[i])
		rj, _ := revisionOf(rss[j])
		if ri == rj {
			return rsOlder(rss[i], rss[j])
		}
		return ri < rj
	})
}

// findNewReplicaSet is the oldest of rss whose template is d's.
func findNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sorted := append([]*appsv1.ReplicaSet(nil), rss...)
	sortByCreation(sorted)
	for _, rs := range sorted {
		if equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// findActiveOrLatest is the one ReplicaSet with replicas, or the latest
// when none has any; nil when several have.
func findActiveOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	olds := append([]*appsv1.ReplicaSet(nil), oldRSs...)
	sort.SliceStable(olds, func(i, j int) bool { return rsOlder(olds[j], olds[i]) })
	all := activeReplicaSets(append(olds, newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return olds[0]
	case 1:
		return all[0]
	}
	return nil
}

// isSaturated reports whether rs runs all of d's replicas, available.
func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, err := strconv.Atoi(rs.Annotations[desiredReplicasAnnotation])
	if err != nil {
		return false
	}
	return *rs.Spec.Replicas == *d.Spec.Replicas && int32(desired) == *d.Spec.Replicas && rs.Status.AvailableReplicas == *d.Spec.Replicas
}

// newRSReplicas is how many replicas the new ReplicaSet may have now.
func newRSReplicas(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case appsv1.RollingUpdateDeploymentStrategyType:
		var surgeValue *intstr.IntOrString
		if d.Spec.Strategy.RollingUpdate != nil {
			surgeValue = d.Spec.Strategy.RollingUpdate.MaxSurge
		}
		surge, err := intstr.GetScaledValueFromIntOrPercent(surgeValue, int(*d.Spec.Replicas), true)
		if err != nil {
			return 0, err
		}
		current := sumSpecReplicas(all)
		maxTotal := *d.Spec.Replicas + int32(surge)
		if current >= maxTotal {
			return *newRS.Spec.Replicas, nil
		}
		up := min(maxTotal-current, *d.Spec.Replicas-*newRS.Spec.Replicas)
		return *newRS.Spec.Replicas + up, nil
	case appsv1.RecreateDeploymentStrategyType:
		return *d.Spec.Replicas, nil
	}
	return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
}

// replicaSetProportion is how many replicas rs gains (or loses) in a
// proportional scaling of d by toAdd, of which added are handed out.
func replicaSetProportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32) int32 {
	if rs == nil || *rs.Spec.Replicas == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

// replicaSetFraction is rs's share of d's new size, minus its size.
func replicaSetFraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	if *d.Spec.Replicas == 0 {
		return -*rs.Spec.Replicas
	}
	maxReplicas := *d.Spec.Replicas + maxSurge(d)
	before, ok := int32Annotation(rs, maxReplicasAnnotation)
	if !ok || before == 0 {
		before = d.Status.Replicas
		if before == 0 {
			return 0
		}
	}
	size := float64(*rs.Spec.Replicas*maxReplicas) / float64(before)
	return int32(math.Round(size)) - *rs.Spec.Replicas
}

// deploymentComplete reports whether st shows d fully rolled out.
func deploymentComplete(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	return st.UpdatedReplicas == *d.Spec.Replicas && st.Replicas == *d.Spec.Replicas &&
		st.AvailableReplicas == *d.Spec.Replicas && st.ObservedGeneration >= d.Generation
}

// deploymentProgressing reports whether st is progress over d's status.
func deploymentProgressing(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// deploymentTimedOut reports whether d's progress deadline passed at now.
func deploymentTimedOut(d *appsv1.Deployment, st *appsv1.DeploymentStatus, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	c := deploymentCondition(*st, appsv1.DeploymentProgressing)
	switch {
	case c == nil, c.Reason == reasonNewReplicaSetAvailable:
		return false
	case c.Reason == reasonProgressDeadlineExceeded:
		return true
	}
	return c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Before(now)
}

// newDeploymentCondition is a condition updated and transitioned at now.
func newDeploymentCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, msg string, now time.Time) appsv1.DeploymentCondition {
	ts := metav1.NewTime(now)
	return appsv1.DeploymentCondition{Type: t, Status: status, LastUpdateTime: ts, LastTransitionTime: ts, Reason: reason, Message: msg}
}

// deploymentCondition returns a copy of the condition of type t, or nil.
func deploymentCondition(st appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for _, c := range st.Conditions {
		if c.Type == t {
			return &c
		}
	}
	return nil
}

// setDeploymentCondition sets c, unless one of the same status and reason
// is there; a condition of the same status keeps its transition time.
func setDeploymentCondition(st *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := deploymentCondition(*st, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	removeDeploymentCondition(st, c.Type)
	st.Conditions = append(st.Conditions, c)
}

// removeDeploymentCondition removes the conditions of type t.
func removeDeploymentCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	var out []appsv1.DeploymentCondition
	for _, c := range st.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	st.Conditions = out
}
