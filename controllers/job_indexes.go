package controllers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
