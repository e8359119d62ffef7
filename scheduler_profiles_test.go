package fakeplane_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/scheduler"
)

func TestProfilesRouteBySchedulerName(t *testing.T) {
	// One scheduler, two profiles: the default one spreads (LeastAllocated),
	// bin-packer packs (MostAllocated).
	cfg, err := scheduler.NewConfig(
		configv1.KubeSchedulerProfile{SchedulerName: ptr.To("default-scheduler")},
		configv1.KubeSchedulerProfile{SchedulerName: ptr.To("bin-packer"), PluginConfig: []configv1.PluginConfig{{
			Name: scheduler.NodeResourcesFit,
			Args: runtimeRaw(&configv1.NodeResourcesFitArgs{ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.MostAllocated}}),
		}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, fakeplane.WithNodes(3), fakeplane.WithScheduler(cfg))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()

	nodes := map[string]int{}
	for _, name := range []string{"pack-0", "pack-1", "pack-2"} {
		if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod(name, "bin-packer", "1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p := waitPod(t, client, name, func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
		nodes[p.Spec.NodeName]++
		if ev := waitEvent(t, client, name, "Scheduled"); ev.ReportingController != "bin-packer" {
			t.Errorf("%s scheduled by %q, want bin-packer", name, ev.ReportingController)
		}
	}
	if len(nodes) != 1 {
		t.Errorf("MostAllocated spread the pods over %v, want one node", nodes)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("plain", "", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, client, "plain", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if nodes[p.Spec.NodeName] > 0 {
		t.Errorf("LeastAllocated put the pod on the busy node %s", p.Spec.NodeName)
	}
	if ev := waitEvent(t, client, "plain", "Scheduled"); ev.ReportingController != "default-scheduler" {
		t.Errorf("plain scheduled by %q", ev.ReportingController)
	}
}

func TestNodeLeasesAreRenewed(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithNodeLeaseRenewInterval(20*time.Millisecond))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	first, err := client.CoordinationV1().Leases("kube-node-lease").Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(first.Spec.HolderIdentity, "") != "node-0" || ptr.Deref(first.Spec.LeaseDurationSeconds, 0) != 40 ||
		len(first.OwnerReferences) != 1 || first.OwnerReferences[0].Kind != "Node" {
		t.Errorf("lease %+v", first)
	}
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, false, func(ctx context.Context) (bool, error) {
		l, err := client.CoordinationV1().Leases("kube-node-lease").Get(ctx, "node-0", metav1.GetOptions{})
		return err == nil && l.ResourceVersion != first.ResourceVersion && l.Spec.RenewTime.After(first.Spec.RenewTime.Time), err
	})
	if err != nil {
		t.Errorf("the lease was not renewed: %v", err)
	}
}

func TestStopLeavesNoGoroutineOfTheSchedulerOrNodes(t *testing.T) {
	before := goleak.IgnoreCurrent()
	cp, err := fakeplane.New(fakeplane.WithNodes(2), fakeplane.WithNodeLeaseRenewInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("p", "", "100m"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod("too-big", "", "100"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "p", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	opts := append([]goleak.Option{before}, goroutinesOutsideFakeplane...)
	if err := goleak.Find(opts...); err != nil {
		t.Errorf("goroutines outlived Stop: %v", err)
	}
}
