package controllers

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// syncStatusOnly updates the status of a Deployment being deleted.
func (c *Deployment) syncStatusOnly(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return c.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// syncScale scales the ReplicaSets of a paused Deployment, or of one whose
// replicas changed, without rolling it out.
func (c *Deployment) syncScale(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := c.scale(ctx, d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused && rollbackTo(d) == nil {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// checkPausedConditions sets the Progressing condition of a Deployment
// that was paused or resumed.
func (c *Deployment) checkPausedConditions(ctx context.Context, d *appsv1.Deployment) error {
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == reasonProgressDeadlineExceeded {
		return nil
	}
	pausedCond := cond != nil && cond.Reason == reasonDeploymentPaused
	switch {
	case d.Spec.Paused && !pausedCond:
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, reasonDeploymentPaused, "Deployment is paused", c.now()))
	case !d.Spec.Paused && pausedCond:
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, reasonDeploymentResumed, "Deployment is resumed", c.now()))
	default:
		return nil
	}
	return c.writeStatus(ctx, d)
}

// getAllReplicaSetsAndSyncRevision returns the new ReplicaSet (created when
// create says so and none has d's template) and the old ones.
func (c *Deployment) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	existing := findNewReplicaSet(d, rsList)
	var oldRSs []*appsv1.ReplicaSet
	for _, rs := range rsList {
		if existing != nil && rs.UID == existing.UID {
			continue
		}
		oldRSs = append(oldRSs, rs)
	}
	newRS, err := c.getNewReplicaSet(ctx, d, existing, oldRSs, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}

// getNewReplicaSet brings the new ReplicaSet's revision and annotations up
// to date, or creates it.
func (c *Deployment) getNewReplicaSet(ctx context.Context, d *appsv1.Deployment, existing *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	newRevision := strconv.FormatInt(maxRevision(oldRSs)+1, 10)
	if existing != nil {
		rsCopy := existing.DeepCopy()
		annotationsChanged := setNewReplicaSetAnnotations(d, rsCopy, newRevision, true)
		if annotationsChanged || rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			return c.updateReplicaSet(ctx, existing, rsCopy)
		}
		needsUpdate := setDeploymentRevision(d, rsCopy.Annotations[revisionAnnotation])
		if hasProgressDeadline(d) && deploymentCondition(d.Status, appsv1.DeploymentProgressing) == nil {
			msg := fmt.Sprintf("Found new replica set %q", rsCopy.Name)
			setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonFoundNewReplicaSet, msg, c.now()))
			needsUpdate = true
		}
		if needsUpdate {
			if err := c.writeStatus(ctx, d); err != nil {
				return nil, err
			}
		}
		return rsCopy, nil
	}
	if !create {
		return nil, nil
	}

	template := *d.Spec.Template.DeepCopy()
	hash := podTemplateHash(&template, d.Status.CollisionCount)
	template.Labels = withLabel(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey, hash)
	selector := d.Spec.Selector.DeepCopy()
	if selector.MatchLabels == nil {
		selector.MatchLabels = map[string]string{}
	}
	selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	zero := int32(0)
	newRS := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            replicaSetNameFor(d.Name, hash),
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*controllerRefTo(d, deploymentKind)},
			Labels:          template.Labels,
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        &zero,
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        selector,
			Template:        template,
		},
	}
	replicas, err := newRSReplicas(d, append(oldRSs, newRS), newRS)
	if err != nil {
		return nil, err
	}
	newRS.Spec.Replicas = &replicas
	setNewReplicaSetAnnotations(d, newRS, newRevision, false)

	alreadyExists := false
	out, err := c.reg.Create(ctx, replicaSetsGVR, newRS)
	var created *appsv1.ReplicaSet
	switch {
	case apierrors.IsAlreadyExists(err):
		alreadyExists = true
		rs, ok := c.sets[newRS.Namespace+"/"+newRS.Name]
		if !ok {
			// Created meanwhile: the next events show it.
			return nil, err
		}
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.UID == d.UID && equalIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
			created = rs.DeepCopy()
			break
		}
		// A hash collision: the next sync computes another name.
		if d.Status.CollisionCount == nil {
			d.Status.CollisionCount = new(int32)
		}
		*d.Status.CollisionCount++
		if serr := c.writeStatus(ctx, d); serr == nil {
			c.log.Info("found a hash collision for deployment - bumping collisionCount to resolve it", "deployment", d.Namespace+"/"+d.Name, "collisionCount", *d.Status.CollisionCount)
		}
		return nil, err
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", newRS.Name, err)
		if hasProgressDeadline(d) {
			setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, reasonReplicaSetCreateError, msg, c.now()))
			_ = c.writeStatus(ctx, d)
		}
		c.rec.Eventf(ctx, c.eventRef(d), corev1.EventTypeWarning, reasonReplicaSetCreateError, "%s", msg)
		return nil, err
	default:
		created = out.(*appsv1.ReplicaSet)
	}
	if !alreadyExists && replicas > 0 {
		c.rec.Eventf(ctx, c.eventRef(d), corev1.EventTypeNormal, reasonScalingReplicaSet, "Scaled up replica set %s from 0 to %d", created.Name, replicas)
	}
	needsUpdate := setDeploymentRevision(d, newRevision)
	if !alreadyExists && hasProgressDeadline(d) {
		msg := fmt.Sprintf("Created new replica set %q", created.Name)
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonNewReplicaSetCreated, msg, c.now()))
		needsUpdate = true
	}
	if needsUpdate {
		if err := c.writeStatus(ctx, d); err != nil {
			return created, err
		}
	}
	return created, nil
}

// withLabel is a copy of ls with key=value.
func withLabel(ls map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(ls)+1)
	for k, v := range ls {
		out[k] = v
	}
	out[key] = value
	return out
}

// setDeploymentRevision sets d's revision annotation, reporting a change.
func setDeploymentRevision(d *appsv1.Deployment, revision string) bool {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	if d.Annotations[revisionAnnotation] == revision {
		return false
	}
	d.Annotations[revisionAnnotation] = revision
	return true
}

// scale scales the ReplicaSets of d to its replicas: the one active
// ReplicaSet alone, or all of them in proportion during a rollout.
func (c *Deployment) scale(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	if target := findActiveOrLatest(newRS, oldRSs); target != nil {
		if *target.Spec.Replicas == *d.Spec.Replicas {
			return nil
		}
		_, _, err := c.scaleReplicaSet(ctx, target, *d.Spec.Replicas, d, false)
		return err
	}
	if isSaturated(d, newRS) {
		for _, old := range activeReplicaSets(oldRSs) {
			if _, _, err := c.scaleReplicaSet(ctx, old, 0, d, false); err != nil {
				return err
			}
		}
		return nil
	}
	if !isRollingUpdate(d) {
		return nil
	}
	all := activeReplicaSets(append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS))
	allowed := int32(0)
	if *d.Spec.Replicas > 0 {
		allowed = *d.Spec.Replicas + maxSurge(d)
	}
	toAdd := allowed - sumSpecReplicas(all)
	switch {
	case toAdd > 0:
		sortBySize(all, true)
	case toAdd < 0:
		sortBySize(all, false)
	}
	added := int32(0)
	sizes := map[string]int32{}
	for _, rs := range all {
		if toAdd != 0 {
			p := replicaSetProportion(rs, d, toAdd, added)
			sizes[rs.Name] = *rs.Spec.Replicas + p
			added += p
		} else {
			sizes[rs.Name] = *rs.Spec.Replicas
		}
	}
	for i, rs := range all {
		if i == 0 && toAdd != 0 {
			sizes[rs.Name] = max(sizes[rs.Name]+toAdd-added, 0)
		}
		if _, _, err := c.scaleReplicaSet(ctx, rs, sizes[rs.Name], d, true); err != nil {
			return err
		}
	}
	return nil
}

// scaleReplicaSet sets rs's replicas (and replicas annotations), recording
// ScalingReplicaSet on d. It returns whether it scaled and rs as stored.
func (c *Deployment) scaleReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet, newScale int32, d *appsv1.Deployment, force bool) (bool, *appsv1.ReplicaSet, error) {
	if !force && *rs.Spec.Replicas == newScale {
		return false, rs, nil
	}
	sizeChanged := *rs.Spec.Replicas != newScale
	maxReplicas := *d.Spec.Replicas + maxSurge(d)
	if !sizeChanged && !replicasAnnotationsNeedUpdate(rs, *d.Spec.Replicas, maxReplicas) {
		return false, rs, nil
	}
	oldScale := *rs.Spec.Replicas
	rsCopy := rs.DeepCopy()
	rsCopy.Spec.Replicas = &newScale
	setReplicasAnnotations(rsCopy, *d.Spec.Replicas, maxReplicas)
	out, err := c.updateReplicaSet(ctx, rs, rsCopy)
	if err != nil {
		return false, rs, err
	}
	if sizeChanged {
		op := "down"
		if oldScale < newScale {
			op = "up"
		}
		c.rec.Eventf(ctx, c.eventRef(d), corev1.EventTypeNormal, reasonScalingReplicaSet, "Scaled %s replica set %s from %d to %d", op, out.Name, oldScale, newScale)
	}
	return sizeChanged, out, nil
}

// cleanupDeployment deletes the oldest old ReplicaSets beyond d's
// revisionHistoryLimit that have no pods left.
func (c *Deployment) cleanupDeployment(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) error {
	if !hasRevisionHistoryLimit(d) {
		return nil
	}
	var cleanable []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := int32(len(cleanable)) - *d.Spec.RevisionHistoryLimit
	if diff <= 0 {
		return nil
	}
	sortByRevision(cleanable)
	for i := int32(0); i < diff; i++ {
		rs := cleanable[i]
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		if _, err := c.reg.Delete(ctx, replicaSetsGVR, rs.Namespace, rs.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// syncDeploymentStatus writes d's status computed from its ReplicaSets.
func (c *Deployment) syncDeploymentStatus(ctx context.Context, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	st := c.calculateStatus(all, newRS, d)
	if reflect.DeepEqual(d.Status, st) {
		return nil
	}
	d.Status = st
	return c.writeStatus(ctx, d)
}

// calculateStatus is d's status from its ReplicaSets, with the Available
// condition.
func (c *Deployment) calculateStatus(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) appsv1.DeploymentStatus {
	available := sumAvailableReplicas(all)
	unavailable := max(sumSpecReplicas(all)-available, 0)
	st := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            sumStatusReplicas(all),
		UpdatedReplicas:     sumStatusReplicas([]*appsv1.ReplicaSet{newRS}),
		ReadyReplicas:       sumReadyReplicas(all),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
		TerminatingReplicas: sumTerminatingReplicas(all),
	}
	st.Conditions = append(st.Conditions, d.Status.Conditions...)
	if available >= *d.Spec.Replicas-maxUnavailable(d) {
		setDeploymentCondition(&st, newDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, reasonMinimumReplicasAvailable, "Deployment has minimum availability.", c.now()))
	} else {
		setDeploymentCondition(&st, newDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, reasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", c.now()))
	}
	return st
}

// isScalingEvent reports whether d's replicas differ from those its active
// ReplicaSets were last scaled for.
func (c *Deployment) isScalingEvent(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (bool, error) {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return false, err
	}
	for _, rs := range activeReplicaSets(append(oldRSs, newRS)) {
		desired, ok := int32Annotation(rs, desiredReplicasAnnotation)
		if ok && desired != *d.Spec.Replicas {
			return true, nil
		}
	}
	return false, nil
}

// rolloutRolling is one step of a RollingUpdate rollout.
func (c *Deployment) rolloutRolling(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	all := append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	scaledUp, err := c.reconcileNewReplicaSet(ctx, all, newRS, d)
	if err != nil {
		return err
	}
	if scaledUp {
		return c.syncRolloutStatus(ctx, all, newRS, d)
	}
	scaledDown, err := c.reconcileOldReplicaSets(ctx, all, activeReplicaSets(oldRSs), newRS, d)
	if err != nil {
		return err
	}
	if scaledDown {
		return c.syncRolloutStatus(ctx, all, newRS, d)
	}
	if deploymentComplete(d, &d.Status) {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, all, newRS, d)
}

// reconcileNewReplicaSet scales the new ReplicaSet up as far as maxSurge
// lets it, or down to d's replicas.
func (c *Deployment) reconcileNewReplicaSet(ctx context.Context, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if *newRS.Spec.Replicas == *d.Spec.Replicas {
		return false, nil
	}
	if *newRS.Spec.Replicas > *d.Spec.Replicas {
		scaled, _, err := c.scaleReplicaSet(ctx, newRS, *d.Spec.Replicas, d, false)
		return scaled, err
	}
	n, err := newRSReplicas(d, all, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := c.scaleReplicaSet(ctx, newRS, n, d, false)
	return scaled, err
}

// reconcileOldReplicaSets scales the old ReplicaSets down as far as
// maxUnavailable lets it, their unhealthy replicas first.
func (c *Deployment) reconcileOldReplicaSets(ctx context.Context, all, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if sumSpecReplicas(oldRSs) == 0 {
		return false, nil
	}
	minAvailable := *d.Spec.Replicas - maxUnavailable(d)
	newUnavailable := *newRS.Spec.Replicas - newRS.Status.AvailableReplicas
	maxScaledDown := sumSpecReplicas(all) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	oldRSs, cleaned, err := c.cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown)
	if err != nil {
		return false, nil
	}
	all = append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	scaledDown, err := c.scaleDownOldReplicaSetsForRollingUpdate(ctx, all, oldRSs, d)
	if err != nil {
		return false, nil
	}
	return cleaned+scaledDown > 0, nil
}

// cleanupUnhealthyReplicas scales old ReplicaSets down by their unavailable
// replicas, up to maxCleanup in all.
func (c *Deployment) cleanupUnhealthyReplicas(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment, maxCleanup int32) ([]*appsv1.ReplicaSet, int32, error) {
	sortByCreation(oldRSs)
	total := int32(0)
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		if *rs.Spec.Replicas == 0 || *rs.Spec.Replicas == rs.Status.AvailableReplicas {
			continue
		}
		n := min(maxCleanup-total, *rs.Spec.Replicas-rs.Status.AvailableReplicas)
		newCount := *rs.Spec.Replicas - n
		if newCount > *rs.Spec.Replicas {
			return nil, 0, fmt.Errorf("when cleaning up unhealthy replicas, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, *rs.Spec.Replicas, newCount)
		}
		_, updated, err := c.scaleReplicaSet(ctx, rs, newCount, d, false)
		if err != nil {
			return nil, total, err
		}
		total += n
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

// scaleDownOldReplicaSetsForRollingUpdate scales old ReplicaSets down, the
// oldest first, by the available replicas above d's minimum.
func (c *Deployment) scaleDownOldReplicaSetsForRollingUpdate(ctx context.Context, all, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) (int32, error) {
	minAvailable := *d.Spec.Replicas - maxUnavailable(d)
	available := sumAvailableReplicas(all)
	if available <= minAvailable {
		return 0, nil
	}
	sortByCreation(oldRSs)
	total, target := int32(0), available-minAvailable
	for _, rs := range oldRSs {
		if total >= target {
			break
		}
		if *rs.Spec.Replicas == 0 {
			continue
		}
		n := min(*rs.Spec.Replicas, target-total)
		if _, _, err := c.scaleReplicaSet(ctx, rs, *rs.Spec.Replicas-n, d, false); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// rolloutRecreate is one step of a Recreate rollout: the old ReplicaSets to
// 0, and once their pods are gone, the new one up.
func (c *Deployment) rolloutRecreate(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	all := append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	scaled := false
	for _, rs := range activeReplicaSets(oldRSs) {
		s, _, err := c.scaleReplicaSet(ctx, rs, 0, d, false)
		if err != nil {
			return err
		}
		scaled = scaled || s
	}
	if scaled {
		return c.syncRolloutStatus(ctx, all, newRS, d)
	}
	if c.oldPodsRunning(newRS, oldRSs, rsList) {
		return c.syncRolloutStatus(ctx, all, newRS, d)
	}
	if newRS == nil {
		if newRS, oldRSs, err = c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true); err != nil {
			return err
		}
		all = append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	}
	if _, _, err := c.scaleReplicaSet(ctx, newRS, *d.Spec.Replicas, d, false); err != nil {
		return err
	}
	if deploymentComplete(d, &d.Status) {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, all, newRS, d)
}

// oldPodsRunning reports whether pods of the old ReplicaSets remain that
// are not terminal.
func (c *Deployment) oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs, rsList []*appsv1.ReplicaSet) bool {
	if sumStatusReplicas(oldRSs) > 0 {
		return true
	}
	owned := map[string]bool{}
	for _, rs := range rsList {
		if newRS == nil || rs.UID != newRS.UID {
			owned[string(rs.UID)] = true
		}
	}
	for _, p := range c.pods {
		ref := p.controller()
		if ref == nil || !owned[string(ref.UID)] {
			continue
		}
		if p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
			return true
		}
	}
	return false
}

// syncRolloutStatus writes d's status with the Progressing condition, and
// plans a check of its progress deadline.
func (c *Deployment) syncRolloutStatus(ctx context.Context, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	st := c.calculateStatus(all, newRS, d)
	if !hasProgressDeadline(d) {
		removeDeploymentCondition(&st, appsv1.DeploymentProgressing)
	}
	now := c.now()
	cur := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	complete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == reasonNewReplicaSetAvailable
	if hasProgressDeadline(d) && !complete {
		switch {
		case deploymentComplete(d, &st):
			msg := fmt.Sprintf("Deployment %q has successfully progressed.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has successfully progressed.", newRS.Name)
			}
			setDeploymentCondition(&st, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonNewReplicaSetAvailable, msg, now))
		case deploymentProgressing(d, &st):
			msg := fmt.Sprintf("Deployment %q is progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q is progressing.", newRS.Name)
			}
			cond := newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonReplicaSetUpdated, msg, now)
			if cur != nil {
				if cur.Status == corev1.ConditionTrue {
					cond.LastTransitionTime = cur.LastTransitionTime
				}
				removeDeploymentCondition(&st, appsv1.DeploymentProgressing)
			}
			setDeploymentCondition(&st, cond)
		case deploymentTimedOut(d, &st, now):
			msg := fmt.Sprintf("Deployment %q has timed out progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name)
			}
			setDeploymentCondition(&st, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, reasonProgressDeadlineExceeded, msg, now))
		}
	}
	if failures := replicaFailures(all, newRS); len(failures) > 0 {
		setDeploymentCondition(&st, failures[0])
	} else {
		removeDeploymentCondition(&st, appsv1.DeploymentReplicaFailure)
	}
	if reflect.DeepEqual(d.Status, st) {
		c.requeueStuckDeployment(d, st, now)
		return nil
	}
	d.Status = st
	return c.writeStatus(ctx, d)
}

// replicaFailures are the ReplicaFailure conditions of the new ReplicaSet,
// or else of the others, as Deployment conditions.
func replicaFailures(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []appsv1.DeploymentCondition {
	conv := func(rs *appsv1.ReplicaSet) []appsv1.DeploymentCondition {
		var out []appsv1.DeploymentCondition
		for _, c := range rs.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure {
				out = append(out, appsv1.DeploymentCondition{
					Type: appsv1.DeploymentConditionType(c.Type), Status: c.Status,
					LastTransitionTime: c.LastTransitionTime, LastUpdateTime: c.LastTransitionTime,
					Reason: c.Reason, Message: c.Message,
				})
			}
		}
		return out
	}
	if newRS != nil {
		if out := conv(newRS); len(out) > 0 {
			return out
		}
	}
	var out []appsv1.DeploymentCondition
	for _, rs := range all {
		if rs != nil {
			out = append(out, conv(rs)...)
		}
	}
	return out
}

// requeueStuckDeployment plans a sync of d when its progress deadline
// passes, if it is still progressing.
func (c *Deployment) requeueStuckDeployment(d *appsv1.Deployment, st appsv1.DeploymentStatus, now time.Time) {
	cur := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if !hasProgressDeadline(d) || cur == nil {
		return
	}
	if deploymentComplete(d, &st) || cur.Reason == reasonProgressDeadlineExceeded {
		return
	}
	after := cur.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(now)
	if after < time.Second {
		after = 0
	}
	c.due[d.Namespace+"/"+d.Name] = now.Add(after + time.Second)
}
