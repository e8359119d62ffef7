package fakeplane

import "time"

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
