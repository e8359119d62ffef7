package fakeplane_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/scheduler"
)

// BenchmarkSchedule1000PendingPods measures how fast a scheduler with two
// profiles binds 1,000 pending pods (half for each profile) on 100
// simulated nodes: the pods exist before the scheduler starts, as in the
// seed's walkthrough; the time runs from its start until the last pod is
// bound. pods/s is the metric to read.
func BenchmarkSchedule1000PendingPods(b *testing.B) {
	const pods = 1000
	cp := fakeplane.Start(b, fakeplane.WithNodes(100))
	cfg := cp.RESTConfig()
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	schedCfg := &scheduler.Configuration{Profiles: []configv1.KubeSchedulerProfile{
		{SchedulerName: ptr.To("bench-a")}, {SchedulerName: ptr.To("bench-b")},
	}}
	schedCfg.LeaderElection.LeaderElect = ptr.To(false)
	if err := scheduler.Complete(schedCfg); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ns := fmt.Sprintf("bench-%d", i)
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < pods; j++ {
			p := pausePod(fmt.Sprintf("p-%d", j), []string{"bench-a", "bench-b"}[j%2], "10m")
			p.Namespace = ns
			if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := scheduler.New(client, schedCfg, scheduler.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if err := s.Start(ctx); err != nil {
			b.Fatal(err)
		}
		waitBound(b, w, pods)
		total += time.Since(start)
		b.StopTimer()
		w.Stop()
		s.Stop()
		if err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(pods*b.N)/total.Seconds(), "pods/s")
}

// waitBound counts the pods a watch sees bound until n are.
func waitBound(b *testing.B, w watch.Interface, n int) {
	bound := map[string]bool{}
	timeout := time.After(5 * time.Minute)
	for len(bound) < n {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				b.Fatal("watch closed")
			}
			if p, isPod := ev.Object.(*corev1.Pod); isPod && p.Spec.NodeName != "" {
				bound[p.Name] = true
			}
		case <-timeout:
			b.Fatalf("%d of %d pods bound", len(bound), n)
		}
	}
}

// BenchmarkCreateToBound measures the time from a pod's create call
// returning to a watch seeing it bound by the built-in scheduler, with 100
// simulated nodes; it reports the median and the 99th percentile.
func BenchmarkCreateToBound(b *testing.B) {
	cp := fakeplane.Start(b, fakeplane.WithNodes(100))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	w, err := client.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		name := fmt.Sprintf("p-%d", i)
		start := time.Now()
		if _, err := client.CoreV1().Pods("default").Create(ctx, pausePod(name, "", "10m"), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		for bound := false; !bound; {
			ev := <-w.ResultChan()
			p, ok := ev.Object.(*corev1.Pod)
			bound = ok && p.Name == name && p.Spec.NodeName != ""
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSchedule1000PendingPodsKubeScheduler is
// BenchmarkSchedule1000PendingPods with the real kube-scheduler (see
// kubeSchedulerBinary) in place of the built-in one, against fakeplane:
// the same two profiles, nodes and pods, client-side throttling off
// (qps 5000) as the built-in scheduler has it. The time runs from the
// process's start, so it includes its start-up and informer sync. Without
// the binary it is skipped.
func BenchmarkSchedule1000PendingPodsKubeScheduler(b *testing.B) {
	bin := kubeSchedulerBinary()
	if bin == "" {
		b.Skip("no kube-scheduler binary: set FAKEPLANE_KUBE_SCHEDULER or put one at ~/.cache/refplane/bin/kube-scheduler")
	}
	const pods = 1000
	cp := fakeplane.Start(b, fakeplane.WithNodes(100))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	cfg := filepath.Join(b.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(strings.Join([]string{
		"apiVersion: kubescheduler.config.k8s.io/v1",
		"kind: KubeSchedulerConfiguration",
		"clientConnection:",
		"  kubeconfig: " + cp.KubeconfigPath(),
		"  qps: 5000",
		"  burst: 5000",
		"leaderElection:",
		"  leaderElect: false",
		"profiles:",
		"- schedulerName: bench-a",
		"- schedulerName: bench-b",
		"",
	}, "\n")), 0o600); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ns := fmt.Sprintf("bench-%d", i)
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < pods; j++ {
			p := pausePod(fmt.Sprintf("p-%d", j), []string{"bench-a", "bench-b"}[j%2], "10m")
			p.Namespace = ns
			if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		cmdCtx, cancel := context.WithCancel(ctx)
		cmd := exec.CommandContext(cmdCtx, bin, "--config", cfg, "--secure-port", "0")
		b.StartTimer()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			cancel()
			b.Fatal(err)
		}
		waitBound(b, w, pods)
		total += time.Since(start)
		b.StopTimer()
		cancel()
		_ = cmd.Wait()
		w.Stop()
		if err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(pods*b.N)/total.Seconds(), "pods/s")
}
