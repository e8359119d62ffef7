package fakeplane_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// testPodOutcome is what batchKubelet makes of a new pod.
type testPodOutcome struct {
	// run makes the pod Running (Ready unless notReady) with an IP.
	run, notReady bool
	// exit, when set, ends the pod: Succeeded for 0, Failed otherwise,
	// its containers terminated with that exit code.
	exit *int32
}

func testRunning() testPodOutcome         { return testPodOutcome{run: true} }
func testRunningNotReady() testPodOutcome { return testPodOutcome{run: true, notReady: true} }
func testExit(code int32) testPodOutcome  { return testPodOutcome{run: true, exit: &code} }
func testSucceed() testPodOutcome         { return testExit(0) }

// batchKubelet stands in for the kubelet in the workload tests: it watches
// the pods of a namespace and, for each new one, writes through pods/status
// the status a kubelet would report for the outcome decide chooses (no
// change when decide returns nil). It stops with the test.
type batchKubelet struct {
	cs     kubernetes.Interface
	ns     string
	decide func(*corev1.Pod) *testPodOutcome
	now    func() time.Time
	mu     sync.Mutex
	seen   map[string]bool
	nextIP int
	wg     sync.WaitGroup
}

// startBatchKubelet runs a batchKubelet whose timestamps come from now (nil:
// time.Now), the control plane's clock.
func startBatchKubelet(t testing.TB, cs kubernetes.Interface, ns string, now func() time.Time, decide func(*corev1.Pod) *testPodOutcome) *batchKubelet {
	t.Helper()
	if now == nil {
		now = time.Now
	}
	k := &batchKubelet{cs: cs, ns: ns, decide: decide, now: now, seen: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		cancel()
		t.Fatalf("test kubelet: watch pods: %v", err)
	}
	// A few pods at a time, as kubelets on several nodes would.
	sem := make(chan struct{}, 8)
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					// The watch ended (a timeout): watch again.
					if ctx.Err() != nil {
						return
					}
					if w, err = cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{}); err != nil {
						return
					}
					continue
				}
				pod, isPod := ev.Object.(*corev1.Pod)
				if !isPod || ev.Type == watch.Deleted || pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodPending && pod.Status.Phase != "" {
					continue
				}
				k.mu.Lock()
				done := k.seen[string(pod.UID)]
				k.seen[string(pod.UID)] = true
				k.nextIP++
				ip := fmt.Sprintf("10.244.%d.%d", k.nextIP/250, k.nextIP%250+1)
				k.mu.Unlock()
				if done {
					continue
				}
				out := decide(pod)
				if out == nil {
					continue
				}
				sem <- struct{}{}
				k.wg.Add(1)
				go func() {
					defer func() { <-sem; k.wg.Done() }()
					if err := k.apply(ctx, pod, *out, ip); err != nil && ctx.Err() == nil {
						t.Errorf("test kubelet: pod %s: %v", pod.Name, err)
					}
				}()
			}
		}
	}()
	t.Cleanup(func() { cancel(); k.wg.Wait() })
	return k
}

// apply writes the statuses of out: Running first (when out.run), then
// the end (when out.exit is set).
func (k *batchKubelet) apply(ctx context.Context, pod *corev1.Pod, out testPodOutcome, ip string) error {
	now := metav1.NewTime(k.now())
	set := func(mutate func(*corev1.Pod)) error {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := k.cs.CoreV1().Pods(k.ns).Get(ctx, pod.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			mutate(cur)
			_, err = k.cs.CoreV1().Pods(k.ns).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
			return err
		})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	cond := func(t corev1.PodConditionType, s corev1.ConditionStatus, reason string) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: s, LastTransitionTime: now, Reason: reason}
	}
	if out.run {
		ready := corev1.ConditionTrue
		if out.notReady {
			ready = corev1.ConditionFalse
		}
		err := set(func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			if ip != "" {
				p.Status.PodIP = ip
				p.Status.PodIPs = []corev1.PodIP{{IP: ip}}
			}
			p.Status.StartTime = &now
			p.Status.Conditions = []corev1.PodCondition{
				cond(corev1.PodInitialized, corev1.ConditionTrue, ""),
				cond(corev1.ContainersReady, ready, ""),
				cond(corev1.PodReady, ready, ""),
			}
			p.Status.ContainerStatuses = nil
			for _, c := range p.Spec.Containers {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
					Name: c.Name, Image: c.Image, Ready: ready == corev1.ConditionTrue, Started: ptr.To(true),
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
				})
			}
		})
		if err != nil || out.exit == nil {
			return err
		}
	}
	code := *out.exit
	return set(func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodSucceeded
		reason := "Completed"
		if code != 0 {
			p.Status.Phase, reason = corev1.PodFailed, "Error"
		}
		p.Status.Conditions = []corev1.PodCondition{
			cond(corev1.PodInitialized, corev1.ConditionTrue, "PodCompleted"),
			cond(corev1.ContainersReady, corev1.ConditionFalse, "PodCompleted"),
			cond(corev1.PodReady, corev1.ConditionFalse, "PodCompleted"),
		}
		p.Status.ContainerStatuses = nil
		for _, c := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, Started: ptr.To(false),
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: code, Reason: reason, StartedAt: now, FinishedAt: now}},
			})
		}
	})
}
