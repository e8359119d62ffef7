package controllers

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// jobUnknownIndex is the completion index of a pod that has none.
const jobUnknownIndex = -1

// jobInterval is a run of completion indexes, first to last included.
type jobInterval struct{ first, last int }

// jobIntervals is a set of completion indexes as increasing, disjoint
// intervals: the form of status.completedIndexes ("1,3-5,7").
type jobIntervals []jobInterval

// parseJobIntervals reads an index list ("1,3-5,7"), keeping the indexes
// below completions and skipping what does not parse, as upstream does.
func parseJobIntervals(s string, completions int) jobIntervals {
	var out jobIntervals
	if s == "" {
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(lo)
		if err != nil || first < 0 {
			continue
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(hi); err != nil || last < first {
				continue
			}
		}
		if first >= completions {
			break
		}
		last = min(last, completions-1)
		if n := len(out); n > 0 && out[n-1].last+1 >= first {
			out[n-1].last = max(out[n-1].last, last)
			continue
		}
		out = append(out, jobInterval{first, last})
	}
	return out
}

// with returns the set with the indexes added.
func (oi jobIntervals) with(indexes []int) jobIntervals {
	all := make([]int, 0, oi.total()+len(indexes))
	for _, iv := range oi {
		for i := iv.first; i <= iv.last; i++ {
			all = append(all, i)
		}
	}
	all = append(all, indexes...)
	slices.Sort(all)
	all = slices.Compact(all)
	var out jobIntervals
	for _, i := range all {
		if n := len(out); n > 0 && out[n-1].last+1 == i {
			out[n-1].last = i
			continue
		}
		out = append(out, jobInterval{i, i})
	}
	return out
}

// total is the number of indexes in the set.
func (oi jobIntervals) total() int {
	n := 0
	for _, iv := range oi {
		n += iv.last - iv.first + 1
	}
	return n
}

// has reports whether ix is in the set.
func (oi jobIntervals) has(ix int) bool {
	for _, iv := range oi {
		if ix >= iv.first && ix <= iv.last {
			return true
		}
	}
	return false
}

// String is the status.completedIndexes form, as upstream writes it:
// ranges of three or more as "first-last", two in a row as "first,last".
func (oi jobIntervals) String() string {
	var b strings.Builder
	for i, iv := range oi {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(iv.first))
		switch {
		case iv.last == iv.first+1:
			fmt.Fprintf(&b, ",%d", iv.last)
		case iv.last > iv.first:
			fmt.Fprintf(&b, "-%d", iv.last)
		}
	}
	return b.String()
}

// jobPodIndex is the completion index a pod's annotation gives, or
// jobUnknownIndex.
func jobPodIndex(p *corev1.Pod) int {
	v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return jobUnknownIndex
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return jobUnknownIndex
	}
	return i
}

// jobFirstPendingIndexes returns up to count indexes below completions
// that are neither done nor taken by a pod.
func jobFirstPendingIndexes(taken jobIntervals, count, completions int) []int {
	var out []int
	for i := 0; i < completions && len(out) < count; i++ {
		if !taken.has(i) {
			out = append(out, i)
		}
	}
	return out
}

// jobMatchSuccessPolicy reports whether the succeeded indexes meet a rule
// of the success policy, with upstream's message.
func jobMatchSuccessPolicy(sp *batchv1.SuccessPolicy, completions int32, succeeded jobIntervals) (string, bool) {
	if sp == nil || len(succeeded) == 0 {
		return "", false
	}
	for i, rule := range sp.Rules {
		if rule.SucceededIndexes != nil {
			required := parseJobIntervals(*rule.SucceededIndexes, int(completions))
			if len(required) == 0 {
				continue
			}
			contained := 0
			for _, iv := range required {
				for ix := iv.first; ix <= iv.last; ix++ {
					if succeeded.has(ix) {
						contained++
					}
				}
			}
			if contained == required.total() || (rule.SucceededCount != nil && contained >= int(*rule.SucceededCount)) {
				return fmt.Sprintf("Matched rules at index %d", i), true
			}
		} else if rule.SucceededCount != nil && succeeded.total() >= int(*rule.SucceededCount) {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}

// indexes lists the indexes of the set in increasing order.
func (oi jobIntervals) indexes() []int {
	out := make([]int, 0, oi.total())
	for _, iv := range oi {
		for i := iv.first; i <= iv.last; i++ {
			out = append(out, i)
		}
	}
	return out
}

// jobHasBackoffLimitPerIndex reports whether the Job limits the failures
// of each index (spec.backoffLimitPerIndex) rather than of the whole Job.
func jobHasBackoffLimitPerIndex(j *batchv1.Job) bool {
	return j.Spec.BackoffLimitPerIndex != nil
}

// jobIndexFailureCounts reads a pod's batch.kubernetes.io/job-index-failure-count
// and job-index-ignored-failure-count annotations: the failures of its index
// before it that counted, and those a podFailurePolicy Ignore rule matched. A
// missing, unparsable, negative or too large value reads as 0, as upstream.
func jobIndexFailureCounts(p *corev1.Pod) (counted, ignored int32) {
	read := func(key string) int32 {
		v, ok := p.Annotations[key]
		if !ok {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > math.MaxInt32 {
			return 0
		}
		return int32(n)
	}
	return read(batchv1.JobIndexFailureCountAnnotation), read(batchv1.JobIndexIgnoredFailureCountAnnotation)
}

// jobIndexFailed reports whether a pod's failure fails its index: a
// podFailurePolicy FailIndex rule matched it, or it counts and its index
// had failed backoffLimitPerIndex times before it.
func jobIndexFailed(job *batchv1.Job, p *corev1.Pod) bool {
	if !jobPodFailed(p, job) {
		return false
	}
	_, count, action := jobMatchPodFailurePolicy(job.Spec.PodFailurePolicy, p)
	if action != nil && *action == batchv1.PodFailurePolicyActionFailIndex {
		return true
	}
	counted, _ := jobIndexFailureCounts(p)
	return count && counted >= *job.Spec.BackoffLimitPerIndex
}

// jobFailedIndexes is the status.failedIndexes of a Job with
// backoffLimitPerIndex: those the status lists, and the indexes of the
// pods not counted yet (those with the tracking finalizer) whose failure
// fails their index.
func jobFailedIndexes(job *batchv1.Job, pods []*corev1.Pod, completions int) jobIntervals {
	var prev jobIntervals
	if job.Status.FailedIndexes != nil {
		prev = parseJobIntervals(*job.Status.FailedIndexes, completions)
	}
	var failed []int
	for _, p := range pods {
		if ix := jobPodIndex(p); ix != jobUnknownIndex && ix < completions && jobHasTrackingFinalizer(p) && jobIndexFailed(job, p) {
			failed = append(failed, ix)
		}
	}
	return prev.with(failed)
}

// jobPodsToReplace are, by index, the failed pods whose tracking finalizer
// (so their deletion) waits until a replacement of their index exists, so
// that it can carry on the index's failure counts: for each index neither
// succeeded, failed nor running, its last failed pod (the one of the
// highest counts, and then the latest to finish).
func jobPodsToReplace(job *batchv1.Job, pods, active []*corev1.Pod, succeeded, failed jobIntervals, completions int) map[int]*corev1.Pod {
	running := map[int]bool{}
	for _, p := range active {
		if ix := jobPodIndex(p); ix != jobUnknownIndex {
			running[ix] = true
		}
	}
	out := map[int]*corev1.Pod{}
	for _, p := range pods {
		ix := jobPodIndex(p)
		if !jobHasTrackingFinalizer(p) || ix == jobUnknownIndex || ix >= completions || !jobPodFailed(p, job) ||
			succeeded.has(ix) || failed.has(ix) || running[ix] {
			continue
		}
		last, ok := out[ix]
		if !ok {
			out[ix] = p
			continue
		}
		lc, li := jobIndexFailureCounts(last)
		pc, pi := jobIndexFailureCounts(p)
		if lc+li <= pc+pi && !jobPodFinishedTime(p).Before(jobPodFinishedTime(last)) {
			out[ix] = p
		}
	}
	return out
}

// jobNextIndexFailureCounts are the failure counts the replacement of a
// failed pod of an index starts with (0 and 0 for an index's first pod):
// the failed pod's, plus its own failure, as ignored when a podFailurePolicy
// Ignore rule matched it.
func jobNextIndexFailureCounts(job *batchv1.Job, replaced *corev1.Pod) (counted, ignored int32) {
	if replaced == nil {
		return 0, 0
	}
	counted, ignored = jobIndexFailureCounts(replaced)
	if _, count, _ := jobMatchPodFailurePolicy(job.Spec.PodFailurePolicy, replaced); count {
		counted++
	} else {
		ignored++
	}
	return counted, ignored
}

// jobSetIndexFailureCounts gives a new pod of a Job with
// backoffLimitPerIndex the failure counts of its index, replacing the
// failed pod replaced (nil: none): the failure-count annotation always, the
// ignored one when not 0.
func jobSetIndexFailureCounts(pod *corev1.Pod, job *batchv1.Job, replaced *corev1.Pod) {
	counted, ignored := jobNextIndexFailureCounts(job, replaced)
	pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(counted))
	if ignored > 0 {
		pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(ignored))
	}
}

// jobIndexBackoff is how long an index waits before its replacement pod is
// created: the Job's pod failure backoff for the failures of the index so
// far (those the failed pod carries, and its own), from when it finished.
func jobIndexBackoff(replaced *corev1.Pod, now time.Time) time.Duration {
	if replaced == nil {
		return 0
	}
	counted, ignored := jobIndexFailureCounts(replaced)
	return jobBackoff{failures: counted + ignored + 1, lastFailure: jobPodFinishedTime(replaced)}.remaining(now)
}
