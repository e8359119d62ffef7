package scheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// runLeaderElection holds the configuration's Lease
// (leaderElection.resourceNamespace/resourceName) as kube-scheduler does,
// with the hostname_UUID identity, records LeaderElection events, and lets
// the scheduling loop run while it leads. Losing the lease stops scheduling (kube-scheduler exits).
func (s *Scheduler) runLeaderElection(ctx context.Context) {
	le := s.cfg.LeaderElection
	// As kube-scheduler, "<identity> became leader" is recorded as the
	// first profile's scheduler name.
	recorder := s.legacy.NewRecorder(scheme.Scheme, corev1.EventSource{Component: s.ProfileNames()[0]}).WithLogger(s.logger)
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.ResourceNamespace, Name: le.ResourceName},
		Client:     s.client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: s.identity, EventRecorder: recorder},
	}
	lease, renew, retry := leaseTimings(s.cfg)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   lease,
		RenewDeadline:   renew,
		RetryPeriod:     retry,
		ReleaseOnCancel: true,
		Name:            "kube-scheduler",
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) {
				s.startOnce.Do(func() { close(s.leading) })
			},
			OnStoppedLeading: func() {
				s.log.Info("scheduler: leader election lost", "lease", le.ResourceNamespace+"/"+le.ResourceName)
				if s.cancel != nil {
					s.cancel()
				}
			},
		},
	})
	if err != nil {
		s.log.Error("scheduler: leader election", "err", err)
		return
	}
	elector.Run(ctx)
}
