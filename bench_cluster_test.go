package fakeplane_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// The benchmarks of a cluster that runs: the controllers, the built-in
// scheduler and the simulated kubelets of 10 nodes, all in this process,
// driven by client-go. Each reports the process's CPU time (user and
// system, everything in the process: API server, controllers, scheduler,
// kubelets and the benchmark's client) per 1,000 pods.

// processCPU is the CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkClusterDeployment100Replicas measures a Deployment of 100
// replicas on 10 simulated nodes from its creation to all of them
// available: ReplicaSet, pods, scheduling, kubelets, status.
func BenchmarkClusterDeployment100Replicas(b *testing.B) {
	cp := fakeplane.Start(b, fakeplane.WithNodes(10))
	cs := clientset(b, cp)
	ctx := context.Background()
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		name := fmt.Sprintf("bench-%d", i)
		start := processCPU(b)
		if _, err := cs.AppsV1().Deployments("default").Create(ctx, webDeployment(name, 100, "nginx:1.27"), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitRolledOut(b, cs, "default", name)
		cpu += processCPU(b) - start
		b.StopTimer()
		if err := cs.AppsV1().Deployments("default").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		waitWorkload(b, "pods of "+name+" gone", func() (bool, string) {
			n := len(podsOf(b, cs, "default", map[string]string{"app": name}))
			return n == 0, fmt.Sprintf("%d pods", n)
		})
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N)*10, "cpu-ms/1000pods")
}

// BenchmarkClusterJobs1000Complete measures 1,000 one-pod Jobs on 10
// simulated nodes from their creation to all Complete: pods, scheduling,
// kubelets running them to Succeeded, the job controller counting them.
func BenchmarkClusterJobs1000Complete(b *testing.B) {
	const jobs = 1000
	cp := fakeplane.Start(b, fakeplane.WithNodes(10))
	cs := clientset(b, cp)
	ctx := context.Background()
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		ns := fmt.Sprintf("jobs-%d", i)
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitWorkload(b, "default ServiceAccount of "+ns, func() (bool, string) {
			_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
			return err == nil, fmt.Sprint(err)
		})
		b.StartTimer()
		start := processCPU(b)
		createJobs(b, cs, ns, jobs)
		waitJobsComplete(b, cs, ns, jobs, 10*time.Minute)
		cpu += processCPU(b) - start
	}
	b.ReportMetric(float64(jobs*b.N)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/1000pods")
}
