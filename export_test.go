package fakeplane

import (
	"time"

	policyv1 "k8s.io/api/policy/v1"
)

// WithIdentityLeaseRenewInterval renews the identity Lease every d instead
// of every 10 s; for the tests (in package fakeplane_test too) that compare
// resourceVersions and so must not see a renewal land among their writes.
func WithIdentityLeaseRenewInterval(d time.Duration) Option {
	return func(o *options) { o.identityLeaseRenew = d }
}

// WithKubernetesEndpointsInterval reconciles the kubernetes Service's
// endpoints every d instead of every 10 s (tests that watch them come
// back).
func WithKubernetesEndpointsInterval(d time.Duration) Option {
	return func(o *options) { o.kubernetesEndpointsInterval = d }
}

// SchedulerDisruptionBudgets returns the PodDisruptionBudgets cp's
// scheduler weighs for preemption now, from its informer cache (nil without
// a scheduler); for tests that must not preempt before the scheduler has
// seen a budget's status.
func SchedulerDisruptionBudgets(cp *ControlPlane) []*policyv1.PodDisruptionBudget {
	cp.mu.Lock()
	s := cp.scheduler
	cp.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.DisruptionBudgets()
}
