package fakeplane_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// BenchmarkRun1000BoundPods measures how fast the simulated kubelet runs
// 1,000 pods bound to 10 simulated nodes: the time runs from the first
// create until a watch has seen every pod Running. pods/s is the metric to
// read.
func BenchmarkRun1000BoundPods(b *testing.B) {
	const pods, nodes = 1000, 10
	cp := fakeplane.Start(b, fakeplane.WithNodes(nodes))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ns := fmt.Sprintf("bench-%d", i)
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, pods)
		for j := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := j; k < pods; k += 8 {
					p := boundPod(fmt.Sprintf("p-%d", k), fmt.Sprintf("node-%d", k%nodes))
					p.Namespace = ns
					if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		runningPods := map[string]bool{}
		timeout := time.After(5 * time.Minute)
		for len(runningPods) < pods {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					b.Fatal("watch closed")
				}
				if p, ok := ev.Object.(*corev1.Pod); ok && p.Status.Phase == corev1.PodRunning {
					runningPods[p.Name] = true
				}
			case err := <-errs:
				b.Fatal(err)
			case <-timeout:
				b.Fatalf("%d of %d pods running after 5 minutes", len(runningPods), pods)
			}
		}
		total += time.Since(start)
		b.StopTimer()
		wg.Wait()
		w.Stop()
	}
	b.ReportMetric(float64(pods*b.N)/total.Seconds(), "pods/s")
}
