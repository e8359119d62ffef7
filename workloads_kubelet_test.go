package fakeplane_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/fakeplane/fakeplane"
)

// testKubelet stands in for the kubelets of the workload tests: it moves
// every pod it sees (that hold does not keep back) to Running with its
// containers started and the Ready condition True, through pods/status, as
// a kubelet reports a started pod. It stops with the test.
type testKubelet struct {
	cs      kubernetes.Interface
	hold    func(*corev1.Pod) bool
	pending chan string
	pods    cache.Indexer
}

// startTestKubelet runs a testKubelet against cp; hold, when not nil, keeps
// the pods it reports true for Pending.
func startTestKubelet(t testing.TB, cp *fakeplane.ControlPlane, hold func(*corev1.Pod) bool) {
	t.Helper()
	cs := clientset(t, cp)
	k := &testKubelet{cs: cs, hold: hold, pending: make(chan string, 1<<16)}
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().Pods().Informer()
	k.pods = inf.GetIndexer()
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			k.pending <- key
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	factory.Start(ctx.Done())
	wg.Go(func() { k.run(ctx, t) })
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
		wg.Wait()
	})
}

func (k *testKubelet) run(ctx context.Context, t testing.TB) {
	for {
		select {
		case <-ctx.Done():
			return
		case key := <-k.pending:
			if err := k.start(ctx, key); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) {
				t.Logf("test kubelet: pod %s: %v", key, err)
			}
		}
	}
}

// start reports the pod at key Running and Ready, unless it is, held back
// or being deleted.
func (k *testKubelet) start(ctx context.Context, key string) error {
	obj, ok, err := k.pods.GetByKey(key)
	if err != nil || !ok {
		return err
	}
	pod := obj.(*corev1.Pod)
	if pod.DeletionTimestamp != nil || podIsReady(pod) || (k.hold != nil && k.hold(pod)) {
		return nil
	}
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cur, err := k.cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.DeletionTimestamp != nil || podIsReady(cur) {
			return nil
		}
		now := metav1.Now()
		cur.Status.Phase = corev1.PodRunning
		cur.Status.StartTime = &now
		cur.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		}
		cur.Status.ContainerStatuses = nil
		for _, c := range cur.Spec.Containers {
			started := true
			cur.Status.ContainerStatuses = append(cur.Status.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, ImageID: "docker.io/library/" + c.Image, ContainerID: fmt.Sprintf("containerd://%s-%s", cur.UID, c.Name),
				Ready: true, Started: &started,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			})
		}
		_, err = k.cs.CoreV1().Pods(cur.Namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}

// podIsReady reports whether the pod's Ready condition is True.
func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
