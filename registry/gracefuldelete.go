package registry

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// beforeDelete is upstream's rest.BeforeDelete, on the registry's clock, for
// a resource whose strategy deletes gracefully (pods). It decides the grace
// period of a delete of o and, when the deletion is graceful, sets o's
// deletionTimestamp to now plus that period and its
// deletionGracePeriodSeconds to it (bumping a tracked generation). A delete
// of an object already being deleted may only shorten the period: pending
// says a graceful deletion is under way and this delete changes nothing.
// grace is the period decided when graceful. opts is the caller's copy; its
// grace period is set as upstream's strategies set it.
func (s *Registry) beforeDelete(c *Request, o *Object, opts *metav1.DeleteOptions) (graceful, pending bool, grace int64) {
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		opts.GracePeriodSeconds = &one
	}
	m := o.Meta
	if g := m.GetDeletionGracePeriodSeconds(); g != nil && *g < 0 {
		one := int64(1)
		m.SetDeletionGracePeriodSeconds(&one)
	}
	strategy := c.Res.graceful
	if strategy == nil {
		return false, false, 0
	}
	now := metav1.NewTime(s.now().Truncate(timePrecision))
	if ts := m.GetDeletionTimestamp(); ts != nil {
		cur := m.GetDeletionGracePeriodSeconds()
		if cur == nil || *cur == 0 {
			return false, false, 0 // already due: delete now
		}
		if opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds >= *cur {
			return false, true, 0
		}
		period := *opts.GracePeriodSeconds
		// Move the deadline back by the difference, never into the past.
		shorter := metav1.NewTime(ts.Add(time.Duration(period-*cur) * time.Second))
		if shorter.Before(&now) {
			shorter = now
			if period != 0 {
				period = 1 // still graceful: another actor deletes it
			}
		}
		m.SetDeletionTimestamp(&shorter)
		m.SetDeletionGracePeriodSeconds(&period)
		return true, false, period
	}
	if !strategy.CheckGracefulDelete(c.Context(), o.Obj, opts) || opts.GracePeriodSeconds == nil {
		return false, false, 0
	}
	period := *opts.GracePeriodSeconds
	deadline := metav1.NewTime(now.Add(time.Duration(period) * time.Second))
	m.SetDeletionTimestamp(&deadline)
	m.SetDeletionGracePeriodSeconds(&period)
	if gen := m.GetGeneration(); gen > 0 {
		m.SetGeneration(gen + 1)
	}
	return true, false, period
}
