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
	cp, client, _ := benchSetup(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ns := benchNamespace(b, client)
		startBatchKubelet(b, client, ns, nil, func(*corev1.Pod) *testPodOutcome {
			return &testPodOutcome{exit: ptr.To[int32](0)}
		})
		b.StartTimer()
		var wg sync.WaitGroup
		errs := make(chan error, benchWorkers)
		for w := 0; w < benchWorkers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := w; j < benchJobCount; j += benchWorkers {
					if _, err := client.BatchV1().Jobs(ns).Create(ctx, testJob(fmt.Sprintf("job-%d", j), 1, 1), metav1.CreateOptions{}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Minute)
		for {
			l, err := client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			done := 0
			for i := range l.Items {
				if jobHas(&l.Items[i], batchv1.JobComplete) {
					done++
				}
			}
			if done == benchJobCount {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d jobs complete after 5 minutes", done, benchJobCount)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	b.ReportMetric(float64(benchJobCount*b.N)/b.Elapsed().Seconds(), "jobs/s")
	_ = cp
}
