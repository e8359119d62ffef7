package controllers

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// jobCompletionIndexEnv is the variable an Indexed Job's containers get
// their completion index in.
const jobCompletionIndexEnv = "JOB_COMPLETION_INDEX"

// Pod failure backoff of a Job, as upstream's: 10s doubled per failure
// since the last success, up to 10 minutes.
const (
	jobPodFailureBackoff    = 10 * time.Second
	jobMaxPodFailureBackoff = 10 * time.Minute
)

// jobMaxUncountedPods bounds status.uncountedTerminatedPods, and
// jobMaxPodsPerSync the pods created or deleted in one sync, as upstream.
const (
	jobMaxUncountedPods = 500
	jobMaxPodsPerSync   = 500
)

// jobPodFromTemplate builds a pod of job from its template as the Job
// controller does: the template's labels, annotations and spec, the
// job-tracking finalizer, the Job as controller, named by generateName
// <job>- (or <job>-<index>- for an Indexed Job, which also gets the index
// as annotation, label, hostname and JOB_COMPLETION_INDEX).
func jobPodFromTemplate(job *batchv1.Job, index int) *corev1.Pod {
	t := job.Spec.Template.DeepCopy()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    job.Namespace,
			GenerateName: jobPodPrefix(job.Name),
			Labels:       map[string]string{},
			Annotations:  map[string]string{},
			Finalizers:   slices.Clone(t.Finalizers),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job,
				batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: t.Spec,
	}
	for k, v := range t.Labels {
		pod.Labels[k] = v
	}
	for k, v := range t.Annotations {
		pod.Annotations[k] = v
	}
	if !slices.Contains(pod.Finalizers, batchv1.JobTrackingFinalizer) {
		pod.Finalizers = append(pod.Finalizers, batchv1.JobTrackingFinalizer)
	}
	if index != jobUnknownIndex {
		ix := strconv.Itoa(index)
		for i := range pod.Spec.InitContainers {
			jobAddIndexEnv(&pod.Spec.InitContainers[i])
		}
		for i := range pod.Spec.Containers {
			jobAddIndexEnv(&pod.Spec.Containers[i])
		}
		pod.Annotations[batchv1.JobCompletionIndexAnnotation] = ix
		pod.Labels[batchv1.JobCompletionIndexAnnotation] = ix
		pod.Spec.Hostname = job.Name + "-" + ix
		pod.GenerateName = jobPodNameWithIndex(job.Name, index)
	}
	return pod
}

// jobPodPrefix is the generateName of a Job's pods, <job>-, or the Job's
// name when the dash would make it too long.
func jobPodPrefix(name string) string {
	if p := name + "-"; len(apivalidation.NameIsDNSSubdomain(p, true)) == 0 {
		return p
	}
	return name
}

// jobPodNameWithIndex is the generateName of an Indexed Job's pod,
// <job>-<index>-, the Job's name cut to fit.
func jobPodNameWithIndex(job string, index int) string {
	const maxGeneratedNameLength = 63 - 5
	suffix := "-" + strconv.Itoa(index) + "-"
	if len(job)+len(suffix) > maxGeneratedNameLength {
		job = job[:maxGeneratedNameLength-len(suffix)]
	}
	return job + suffix
}

func jobAddIndexEnv(c *corev1.Container) {
	for _, e := range c.Env {
		if e.Name == jobCompletionIndexEnv {
			return
		}
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: jobCompletionIndexEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: fmt.Sprintf("metadata.labels['%s']", batchv1.JobCompletionIndexAnnotation)},
	}})
}

// jobPodTerminal reports whether the pod succeeded or failed.
func jobPodTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// jobPodActive reports whether the pod runs or is to run: neither
// terminal nor being deleted.
func jobPodActive(p *corev1.Pod) bool {
	return !jobPodTerminal(p) && p.DeletionTimestamp == nil
}

// jobPodTerminating reports whether the pod is being deleted before it
// finished.
func jobPodTerminating(p *corev1.Pod) bool {
	return !jobPodTerminal(p) && p.DeletionTimestamp != nil
}

func jobHasTrackingFinalizer(p *corev1.Pod) bool {
	return slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer)
}

// jobOnlyReplaceFailed says the Job replaces failed pods only, not the
// ones being deleted (podReplacementPolicy Failed).
func jobOnlyReplaceFailed(j *batchv1.Job) bool {
	return j.Spec.PodReplacementPolicy != nil && *j.Spec.PodReplacementPolicy == batchv1.Failed
}

// jobPodFailed reports whether the Job counts the pod as failed: Failed,
// or deleted before it succeeded unless only failed pods are replaced.
func jobPodFailed(p *corev1.Pod, j *batchv1.Job) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	if jobOnlyReplaceFailed(j) {
		return false
	}
	return p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded
}

// jobMatchPodFailurePolicy matches a failed pod against the Job's pod
// failure policy: the message to fail the Job with (FailJob), whether the
// failure counts towards the backoff limit (not for Ignore), and the action
// of the matching rule (nil: none matched).
func jobMatchPodFailurePolicy(pfp *batchv1.PodFailurePolicy, p *corev1.Pod) (*string, bool, *batchv1.PodFailurePolicyAction) {
	if pfp == nil {
		return nil, true, nil
	}
	for i, rule := range pfp.Rules {
		var msg string
		switch {
		case rule.OnExitCodes != nil:
			cs := jobMatchExitCodes(p, rule.OnExitCodes)
			if cs == nil {
				continue
			}
			msg = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %v matching %v rule at index %d",
				cs.Name, p.Namespace, p.Name, cs.State.Terminated.ExitCode, rule.Action, i)
		case rule.OnPodConditions != nil:
			c := jobMatchPodConditions(p, rule.OnPodConditions)
			if c == nil {
				continue
			}
			msg = fmt.Sprintf("Pod %s/%s has condition %v matching %v rule at index %d", p.Namespace, p.Name, c.Type, rule.Action, i)
		default:
			continue
		}
		action := rule.Action
		switch action {
		case batchv1.PodFailurePolicyActionIgnore:
			return nil, false, &action
		case batchv1.PodFailurePolicyActionFailJob:
			return &msg, true, &action
		default:
			return nil, true, &action
		}
	}
	return nil, true, nil
}

func jobMatchExitCodes(p *corev1.Pod, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for i := range list {
			cs := &list[i]
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 || (req.ContainerName != nil && *req.ContainerName != cs.Name) {
				continue
			}
			in := slices.Contains(req.Values, t.ExitCode)
			if (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && in) || (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn && !in) {
				return cs
			}
		}
	}
	return nil
}

func jobMatchPodConditions(p *corev1.Pod, patterns []batchv1.PodFailurePolicyOnPodConditionsPattern) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		for _, pat := range patterns {
			if c.Type == pat.Type && c.Status == pat.Status {
				return c
			}
		}
	}
	return nil
}

// jobPodFinishedTime is when a pod finished, as upstream estimates it: the
// last container's finish, else its Ready=False transition, else its
// deletion, else its creation.
func jobPodFinishedTime(p *corev1.Pod) time.Time {
	var last time.Time
	all := true
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated == nil || cs.State.Terminated.FinishedAt.IsZero() {
			all = false
			break
		}
		if t := cs.State.Terminated.FinishedAt.Time; t.After(last) {
			last = t
		}
	}
	if all && !last.IsZero() {
		return last
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	if p.DeletionTimestamp != nil {
		var grace int64
		if p.DeletionGracePeriodSeconds != nil {
			grace = *p.DeletionGracePeriodSeconds
		}
		return p.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)
	}
	return p.CreationTimestamp.Time
}

// jobBackoff is a Job's pod failure record: the failures since the last
// success and when the last one happened.
type jobBackoff struct {
	failures    int32
	lastFailure time.Time
}

// next returns the record once newly succeeded and failed pods are seen.
func (b jobBackoff) next(succeeded, failed []*corev1.Pod) jobBackoff {
	byFinish := func(ps []*corev1.Pod) {
		sort.SliceStable(ps, func(i, j int) bool { return jobPodFinishedTime(ps[i]).Before(jobPodFinishedTime(ps[j])) })
	}
	byFinish(succeeded)
	byFinish(failed)
	switch {
	case len(succeeded) == 0 && len(failed) == 0:
		return b
	case len(succeeded) == 0:
		return jobBackoff{failures: b.failures + int32(len(failed)), lastFailure: jobPodFinishedTime(failed[len(failed)-1])}
	}
	out := jobBackoff{}
	lastSuccess := jobPodFinishedTime(succeeded[len(succeeded)-1])
	for i := len(failed) - 1; i >= 0; i-- {
		t := jobPodFinishedTime(failed[i])
		if !t.After(lastSuccess) {
			break
		}
		if out.lastFailure.IsZero() {
			out.lastFailure = t
		}
		out.failures++
	}
	return out
}

// remaining is how long the Job waits before it creates pods again.
func (b jobBackoff) remaining(now time.Time) time.Duration {
	if b.failures == 0 {
		return 0
	}
	d := jobPodFailureBackoff
	for i := int32(1); i < b.failures; i++ {
		d *= 2
		if d >= jobMaxPodFailureBackoff {
			d = jobMaxPodFailureBackoff
			break
		}
	}
	elapsed := now.Sub(b.lastFailure)
	if d < elapsed {
		return 0
	}
	return d - elapsed
}

// jobPodsForRemoval orders candidate pods as upstream deletes them first:
// unscheduled before scheduled, pending before running, not ready before
// ready, newer before older.
func jobPodsForRemoval(pods []*corev1.Pod) {
	phase := map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
			return a.Spec.NodeName == ""
		}
		if phase[a.Status.Phase] != phase[b.Status.Phase] {
			return phase[a.Status.Phase] < phase[b.Status.Phase]
		}
		if isPodReady(a) != isPodReady(b) {
			return !isPodReady(a)
		}
		return b.CreationTimestamp.Before(&a.CreationTimestamp)
	})
}

// jobCondition returns the Job's condition of type t, or nil.
func jobCondition(j *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if j.Status.Conditions[i].Type == t {
			return &j.Status.Conditions[i]
		}
	}
	return nil
}

// jobConditionTrue reports whether the Job has condition t True.
func jobConditionTrue(j *batchv1.Job, t batchv1.JobConditionType) bool {
	c := jobCondition(j, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

// jobFinished reports whether the Job is Complete or Failed, and which.
func jobFinished(j *batchv1.Job) (batchv1.JobConditionType, bool) {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type, true
		}
	}
	return "", false
}

// jobNewCondition is a condition that changed at now.
func jobNewCondition(t batchv1.JobConditionType, s corev1.ConditionStatus, reason, msg string, now time.Time) batchv1.JobCondition {
	return batchv1.JobCondition{Type: t, Status: s, Reason: reason, Message: msg,
		LastProbeTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}
}

// jobEnsureCondition sets condition t as given, reporting whether the list
// changed. A missing condition is not added as False.
func jobEnsureCondition(j *batchv1.Job, t batchv1.JobConditionType, s corev1.ConditionStatus, reason, msg string, now time.Time) bool {
	if c := jobCondition(j, t); c != nil {
		if c.Status != s || c.Reason != reason || c.Message != msg {
			*c = jobNewCondition(t, s, reason, msg, now)
			return true
		}
		return false
	}
	if s == corev1.ConditionFalse {
		return false
	}
	j.Status.Conditions = append(j.Status.Conditions, jobNewCondition(t, s, reason, msg, now))
	return true
}
