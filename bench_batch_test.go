package fakeplane_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// benchJobCount is the number of Jobs BenchmarkJobs1000Complete runs.
const benchJobCount = 1000

// BenchmarkJobs1000Complete measures 1,000 Jobs of one pod each from their
// creation through client-go to their Complete condition: the job
// controller creates the pods, a test kubelet makes them succeed, the
// controller counts them and completes the Jobs.
//
//	go test -run x -bench Jobs1000Complete -benchtime 1x ./
func BenchmarkJobs1000Complete(b *testing.B) {
	_, client, _ := benchSetup(b)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ns := benchNamespace(b, client)
		startBatchKubelet(b, client, ns, nil, func(*corev1.Pod) *testPodOutcome {
			return &testPodOutcome{exit: ptr.To[int32](0)}
		})
		b.StartTimer()
		createJobs(b, client, ns, benchJobCount)
		waitJobsComplete(b, client, ns, benchJobCount, 5*time.Minute)
	}
	b.ReportMetric(float64(benchJobCount*b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// createJobs creates n one-pod Jobs, job-0 to job-(n-1), in ns, from
// benchWorkers clients at once.
func createJobs(b *testing.B, cs kubernetes.Interface, ns string, n int) {
	b.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, benchWorkers)
	for w := range benchWorkers {
		wg.Go(func() {
			for j := w; j < n; j += benchWorkers {
				if _, err := cs.BatchV1().Jobs(ns).Create(ctx, testJob(fmt.Sprintf("job-%d", j), 1, 1), metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// waitJobsComplete polls the Jobs of ns until n of them are Complete, for
// at most timeout.
func waitJobsComplete(b *testing.B, cs kubernetes.Interface, ns string, n int, timeout time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		l, err := cs.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		done := 0
		for i := range l.Items {
			if jobHas(&l.Items[i], batchv1.JobComplete) {
				done++
			}
		}
		if done == n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d jobs complete after %v", done, n, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
