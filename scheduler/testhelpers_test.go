package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// runtimeObject wraps plugin args as a profile's pluginConfig holds them.
func runtimeObject(o runtime.Object) runtime.RawExtension { return runtime.RawExtension{Object: o} }

// offlineScheduler is a scheduler of profiles (none: the default one)
// without an API server, its cache holding nodes.
func offlineScheduler(t testing.TB, nodes []*corev1.Node, profiles ...configv1.KubeSchedulerProfile) *Scheduler {
	t.Helper()
	cfg, err := NewConfig(profiles...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(nil, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		s.cache.setNode(n)
	}
	return s
}
