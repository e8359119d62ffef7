package fakeplane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// boundPod is a pod bound to node (unbound when ""), with one container.
func boundPod(name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{
			{Name: "web", Image: "nginx:1.27", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			}},
		}},
	}
}

// waitGone polls until a pod is deleted.
func waitGone(t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		t.Fatalf("pod %s is not deleted: %v", name, err)
	}
}

func podCondition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func running(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning }

func TestPodBoundToASimulatedNodeRunsAsAKubeletReportsIt(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(2))
	ctx := ctxT(t)
	client := clientset(t, cp)
	node, err := client.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cidr := netip.MustParsePrefix(node.Spec.PodCIDR)

	p := boundPod("web", "node-0")
	p.Spec.InitContainers = []corev1.Container{
		{Name: "migrate", Image: "busybox"},
		{Name: "proxy", Image: "envoyproxy/envoy:v1.31", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)},
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, boundPod("second", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitPod(t, client, "web", running)
	second := waitPod(t, client, "second", running)

	for _, typ := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled} {
		if c := podCondition(got, typ); c == nil || c.Status != corev1.ConditionTrue || c.LastTransitionTime.IsZero() {
			t.Errorf("condition %s: %+v", typ, c)
		}
	}
	ip, err := netip.ParseAddr(got.Status.PodIP)
	if err != nil || !cidr.Contains(ip) || len(got.Status.PodIPs) != 1 || got.Status.PodIPs[0].IP != got.Status.PodIP {
		t.Errorf("podIP %q podIPs %v not in node-0's pod CIDR %s", got.Status.PodIP, got.Status.PodIPs, cidr)
	}
	if second.Status.PodIP == got.Status.PodIP {
		t.Errorf("two pods on node-0 share the IP %s", got.Status.PodIP)
	}
	if got.Status.HostIP != node.Status.Addresses[0].Address || len(got.Status.HostIPs) != 1 || got.Status.StartTime == nil || got.Status.QOSClass != corev1.PodQOSBurstable {
		t.Errorf("hostIP %q hostIPs %v startTime %v qosClass %q", got.Status.HostIP, got.Status.HostIPs, got.Status.StartTime, got.Status.QOSClass)
	}
	if len(got.Status.ContainerStatuses) != 1 {
		t.Fatalf("container statuses %+v", got.Status.ContainerStatuses)
	}
	cs := got.Status.ContainerStatuses[0]
	if cs.Name != "web" || cs.Image != "docker.io/library/nginx:1.27" || cs.ImageID == "" || cs.ContainerID == "" || !cs.Ready || !ptr.Deref(cs.Started, false) || cs.RestartCount != 0 || cs.State.Running == nil || cs.State.Running.StartedAt.IsZero() {
		t.Errorf("container status %+v", cs)
	}
	if len(got.Status.InitContainerStatuses) != 2 {
		t.Fatalf("init container statuses %+v", got.Status.InitContainerStatuses)
	}
	if mig := got.Status.InitContainerStatuses[0]; mig.Name != "migrate" || mig.State.Terminated == nil || mig.State.Terminated.Reason != "Completed" || mig.State.Terminated.ExitCode != 0 {
		t.Errorf("regular init container %+v", mig)
	}
	if proxy := got.Status.InitContainerStatuses[1]; proxy.Name != "proxy" || proxy.State.Running == nil || !proxy.Ready || !ptr.Deref(proxy.Started, false) {
		t.Errorf("sidecar %+v", proxy)
	}
}

// TestPodOnAUsersSimulatedNodeGetsAnIPFromTheCIDRItIsGiven: a node a user
// creates for the simulator, without a pod CIDR, is given a free one, and
// its pods take their IPs from it.
func TestPodOnAUsersSimulatedNodeGetsAnIPFromTheCIDRItIsGiven(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	client := clientset(t, cp)
	if _, err := client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: "mine", Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var mine *corev1.Node
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		n, err := client.CoreV1().Nodes().Get(ctx, "mine", metav1.GetOptions{})
		mine = n
		return err == nil && n.Spec.PodCIDR != "" && len(n.Status.Addresses) > 0, err
	})
	if err != nil {
		t.Fatalf("node mine has no pod CIDR: %v", err)
	}
	first, err := client.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mine.Spec.PodCIDR == first.Spec.PodCIDR || len(mine.Spec.PodCIDRs) != 1 || mine.Spec.PodCIDRs[0] != mine.Spec.PodCIDR {
		t.Fatalf("node mine's pod CIDRs %q %v, node-0's %q", mine.Spec.PodCIDR, mine.Spec.PodCIDRs, first.Spec.PodCIDR)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, boundPod("on-mine", "mine"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, client, "on-mine", running)
	if ip, err := netip.ParseAddr(p.Status.PodIP); err != nil || !netip.MustParsePrefix(mine.Spec.PodCIDR).Contains(ip) {
		t.Errorf("pod IP %q not in %s", p.Status.PodIP, mine.Spec.PodCIDR)
	}
}

func TestPodTheSchedulerBindsRuns(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(2))
	client := clientset(t, cp)
	if _, err := client.CoreV1().Pods("default").Create(ctxT(t), boundPod("scheduled", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, client, "scheduled", running)
	if p.Spec.NodeName == "" || p.Status.PodIP == "" || podCondition(p, corev1.PodReady).Status != corev1.ConditionTrue {
		t.Errorf("scheduled pod: node %q podIP %q conditions %+v", p.Spec.NodeName, p.Status.PodIP, p.Status.Conditions)
	}
}

// TestPodPhasesAJobsPodGoesThrough: a pod a Job owns runs, then Succeeds,
// and an informer sees Pending, Running, Succeeded in that order, then its
// deletion.
func TestPodPhasesAJobsPodGoesThrough(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	client := clientset(t, cp)

	var mu sync.Mutex
	var phases []corev1.PodPhase
	deleted := false
	record := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.Name == "job-pod" {
			mu.Lock()
			defer mu.Unlock()
			if len(phases) == 0 || phases[len(phases)-1] != p.Status.Phase {
				phases = append(phases, p.Status.Phase)
			}
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace("default"))
	inf := factory.Core().V1().Pods().Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
		DeleteFunc: func(any) { mu.Lock(); deleted = true; mu.Unlock() },
	})
	stop := make(chan struct{})
	defer func() { close(stop); factory.Shutdown() }()
	factory.Start(stop)
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)

	// A suspended Job whose selector does not match the pod: the Job
	// controller leaves the pod alone, the kubelet sees its owner kind.
	job, err := client.BatchV1().Jobs("default").Create(ctx, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "batch"},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "batch"}},
			Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := boundPod("job-pod", "node-0")
	p.Spec.RestartPolicy = corev1.RestartPolicyNever
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	done := waitPod(t, client, "job-pod", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded })
	if c := podCondition(done, corev1.PodReady); c == nil || c.Status != corev1.ConditionFalse || c.Reason != "PodCompleted" {
		t.Errorf("Ready condition of a completed pod: %+v", c)
	}
	for _, cs := range done.Status.ContainerStatuses {
		if term := cs.State.Terminated; term == nil || term.Reason != "Completed" || term.ExitCode != 0 || cs.Ready {
			t.Errorf("container of a completed pod: %+v", cs)
		}
	}
	// A terminated pod is deleted at once, whatever its grace period.
	if err := client.CoreV1().Pods("default").Delete(ctx, "job-pod", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](600)}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("default").Get(ctx, "job-pod", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a Succeeded pod is still there after its delete: %v", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return deleted, nil
	})
	if err != nil {
		t.Fatal("the informer did not see the deletion")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded}
	if len(phases) != len(want) {
		t.Fatalf("phases %v, want %v", phases, want)
	}
	for i := range want {
		if phases[i] != want[i] {
			t.Fatalf("phases %v, want %v", phases, want)
		}
	}
}

// By default a deleted pod on a simulated node is marked, then removed at
// once, as kwok's fast pod-delete stage removes it: a watch sees it
// MODIFIED with its grace period, MODIFIED again by the kubelet's delete
// with grace 0, then DELETED, as refplane with kwok shows it.
func TestDeletedPodOnASimulatedNodeGoesAtOnce(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	client := clientset(t, cp)
	pods := client.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, boundPod("quick", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	running := waitPod(t, client, "quick", running)
	w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=quick", ResourceVersion: running.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := pods.Delete(ctx, "quick", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](3600)}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for ev := range w.ResultChan() {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			t.Fatalf("watch: %v", ev.Object)
		}
		seen = append(seen, fmt.Sprintf("%s(grace=%d)", ev.Type, ptr.Deref(p.DeletionGracePeriodSeconds, -1)))
		if ev.Type == watch.Deleted {
			break
		}
	}
	if want := []string{"MODIFIED(grace=3600)", "MODIFIED(grace=0)", "DELETED(grace=0)"}; !slices.Equal(seen, want) {
		t.Errorf("events %v, want %v", seen, want)
	}
}

func TestGracefulPodDeletionOnASimulatedNode(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now().Truncate(time.Second)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithClock(clock), fakeplane.WithPodGracePeriods())
	ctx := ctxT(t)
	client := clientset(t, cp)
	pods := client.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, boundPod("slow", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "slow", running)
	if err := pods.Delete(ctx, "slow", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](3600)}); err != nil {
		t.Fatal(err)
	}
	p, err := pods.Get(ctx, "slow", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("a pod on a node is gone before its grace period: %v", err)
	}
	if p.DeletionTimestamp == nil || !p.DeletionTimestamp.Time.Equal(now.Add(time.Hour)) || ptr.Deref(p.DeletionGracePeriodSeconds, 0) != 3600 {
		t.Errorf("deletionTimestamp %v (want %v), grace %v", p.DeletionTimestamp, now.Add(time.Hour), p.DeletionGracePeriodSeconds)
	}
	// The kubelet handles pods in order of events: once a later pod runs,
	// it has seen the terminating one, and left it there.
	if _, err := pods.Create(ctx, boundPod("later", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "later", running)
	if _, err := pods.Get(ctx, "slow", metav1.GetOptions{}); err != nil {
		t.Fatalf("the pod went before its grace period elapsed: %v", err)
	}
	mu.Lock()
	now = now.Add(time.Hour + time.Second)
	mu.Unlock()
	waitGone(t, client, "slow")
}

// TestGracefulDeletionOfAPodWithAFinalizer: once the grace period is over
// the kubelet's delete leaves the pod to its finalizer (grace period 0);
// removing the finalizer removes the pod.
func TestGracefulDeletionOfAPodWithAFinalizer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now().Truncate(time.Second)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithClock(clock))
	ctx := ctxT(t)
	client := clientset(t, cp)
	pods := client.CoreV1().Pods("default")
	p := boundPod("kept", "node-0")
	p.Finalizers = []string{"example.com/keep"}
	if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "kept", running)
	if err := pods.Delete(ctx, "kept", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	got := waitPod(t, client, "kept", func(p *corev1.Pod) bool { return ptr.Deref(p.DeletionGracePeriodSeconds, -1) == 0 })
	if got.DeletionTimestamp == nil || len(got.Finalizers) != 1 {
		t.Fatalf("pod after its grace period: %+v", got.ObjectMeta)
	}
	got.Finalizers = nil
	if _, err := pods.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, client, "kept")
}

func TestGracefulPodDeletionWithThePodsTerminationGracePeriod(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	client := clientset(t, cp)
	p := boundPod("quick", "node-0")
	p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
	if _, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, client, "quick", running)
	// The delete answers with the pod as that delete left it; a later Get
	// could already see the kubelet's own delete with grace 0.
	got := &corev1.Pod{}
	if err := client.CoreV1().RESTClient().Delete().Namespace("default").Resource("pods").Name("quick").Do(ctx).Into(got); err != nil {
		t.Fatal(err)
	}
	if got.DeletionTimestamp == nil || ptr.Deref(got.DeletionGracePeriodSeconds, 0) != 1 {
		t.Errorf("terminating pod: deletionTimestamp %v grace %v", got.DeletionTimestamp, got.DeletionGracePeriodSeconds)
	}
	waitGone(t, client, "quick")
}

func TestPodsStayPendingWithoutPodLifecycle(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithoutPodLifecycle(), fakeplane.WithNodeLeaseRenewInterval(50*time.Millisecond))
	ctx := ctxT(t)
	client := clientset(t, cp)
	if _, err := client.CoreV1().Pods("default").Create(ctx, boundPod("idle", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Wait for two more heartbeats of node-0: the simulator is running.
	lease, err := client.CoordinationV1().Leases("kube-node-lease").Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	renewals := 0
	last := lease.ResourceVersion
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := client.CoordinationV1().Leases("kube-node-lease").Get(ctx, "node-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if l.ResourceVersion != last {
			renewals, last = renewals+1, l.ResourceVersion
		}
		return renewals >= 2, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	node, err := client.CoreV1().Nodes().Get(ctx, "node-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			t.Errorf("node-0 is not Ready: %+v", c)
		}
	}
	p, err := client.CoreV1().Pods("default").Get(ctx, "idle", metav1.GetOptions{})
	if err != nil || p.Status.Phase != corev1.PodPending || len(p.Status.ContainerStatuses) != 0 {
		t.Fatalf("pod with the lifecycle off: %v phase %q statuses %+v", err, p.Status.Phase, p.Status.ContainerStatuses)
	}
	// No kubelet deletes it: a graceful delete leaves it Terminating.
	if err := client.CoreV1().Pods("default").Delete(ctx, "idle", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, err := client.CoreV1().Pods("default").Get(ctx, "idle", metav1.GetOptions{}); err != nil || p.DeletionTimestamp == nil {
		t.Fatalf("pod after a graceful delete: %v %+v", err, p.ObjectMeta)
	}
}

// TestPodDeleteIsGracefulAsKubeAPIServers covers the registry's graceful
// pod deletion over HTTP, with no kubelet: the status code and body of each
// delete, the shortening of a pending grace period, the immediate deletion
// of unbound pods and the watch events of each.
func TestPodDeleteIsGracefulAsKubeAPIServers(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now().Truncate(time.Second)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cp := fakeplane.Start(t, fakeplane.WithClock(clock))
	ctx := ctxT(t)
	client := clientset(t, cp)
	pods := client.CoreV1().Pods("default")
	for _, p := range []*corev1.Pod{boundPod("bound", "elsewhere"), boundPod("unbound", ""), boundPod("forced", "elsewhere")} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	// del sends a DELETE and returns its status code and the pod answered.
	del := func(name string, grace *int64) (int, *corev1.Pod) {
		t.Helper()
		req := client.CoreV1().RESTClient().Delete().Namespace("default").Resource("pods").Name(name)
		if grace != nil {
			req = req.Body(&metav1.DeleteOptions{GracePeriodSeconds: grace})
		}
		res := req.Do(ctx)
		var code int
		res.StatusCode(&code)
		body, err := res.Raw()
		if err != nil {
			t.Fatalf("delete %s: %v", name, err)
		}
		var p corev1.Pod
		if err := json.Unmarshal(body, &p); err != nil || p.Kind != "Pod" {
			t.Fatalf("delete %s answered %s", name, body)
		}
		return code, &p
	}

	code, p := del("bound", nil)
	if code != http.StatusOK || p.DeletionTimestamp == nil || !p.DeletionTimestamp.Time.Equal(now.Add(30*time.Second)) || ptr.Deref(p.DeletionGracePeriodSeconds, 0) != 30 || p.Generation != 2 {
		t.Fatalf("first delete: %d deletionTimestamp %v grace %v generation %d", code, p.DeletionTimestamp, p.DeletionGracePeriodSeconds, p.Generation)
	}
	code, p = del("bound", ptr.To[int64](60))
	if code != http.StatusOK || ptr.Deref(p.DeletionGracePeriodSeconds, 0) != 30 {
		t.Fatalf("a longer grace period changes the deletion: %d grace %v", code, p.DeletionGracePeriodSeconds)
	}
	code, p = del("bound", ptr.To[int64](10))
	if code != http.StatusOK || !p.DeletionTimestamp.Time.Equal(now.Add(10*time.Second)) || ptr.Deref(p.DeletionGracePeriodSeconds, 0) != 10 {
		t.Fatalf("shortened: %d deletionTimestamp %v grace %v", code, p.DeletionTimestamp, p.DeletionGracePeriodSeconds)
	}
	if _, err := pods.Get(ctx, "bound", metav1.GetOptions{}); err != nil {
		t.Fatalf("a bound pod with no kubelet is gone: %v", err)
	}
	code, p = del("bound", ptr.To[int64](0))
	if code != http.StatusOK || p.Name != "bound" {
		t.Fatalf("forced delete: %d %s", code, p.Name)
	}
	code, p = del("unbound", nil)
	if code != http.StatusOK || p.DeletionTimestamp == nil || ptr.Deref(p.DeletionGracePeriodSeconds, -1) != 0 {
		t.Fatalf("unbound delete: %d deletionTimestamp %v grace %v", code, p.DeletionTimestamp, p.DeletionGracePeriodSeconds)
	}
	if code, _ = del("forced", ptr.To[int64](0)); code != http.StatusOK {
		t.Fatalf("forced delete of a fresh pod: %d", code)
	}
	for _, name := range []string{"bound", "unbound", "forced"} {
		if _, err := pods.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("pod %s after its immediate delete: %v", name, err)
		}
	}

	// Each delete is seen as kube-apiserver's watchers see it: a graceful
	// delete is a MODIFIED event; one due at once is MODIFIED (with the
	// deletionTimestamp) then DELETED.
	want := []string{
		"MODIFIED bound 30", "MODIFIED bound 10", "MODIFIED bound 0", "DELETED bound 0",
		"MODIFIED unbound 0", "DELETED unbound 0", "MODIFIED forced 0", "DELETED forced 0",
	}
	var got []string
	timeout := time.After(30 * time.Second)
	for len(got) < len(want) {
		select {
		case ev := <-w.ResultChan():
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Added {
				continue
			}
			grace := "none"
			if p.DeletionGracePeriodSeconds != nil {
				grace = strconv.FormatInt(*p.DeletionGracePeriodSeconds, 10)
			}
			got = append(got, string(ev.Type)+" "+p.Name+" "+grace)
		case <-timeout:
			t.Fatalf("watch events %v, want %v", got, want)
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("watch events %v, want %v", got, want)
		}
	}
}

// TestPodStagesReplaceTheLifecycle: kwok Stages given by file move the
// pods instead of the built-in lifecycle: one makes a labelled pod fail,
// the others run, complete and delete pods as kwok's fast stages do.
func TestPodStagesReplaceTheLifecycle(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1),
		fakeplane.WithPodStages(filepath.Join("kubelet", "testdata", "stages-fast.yaml"), filepath.Join("kubelet", "testdata", "stages-fail.yaml")))
	ctx := ctxT(t)
	client := clientset(t, cp)
	pods := client.CoreV1().Pods("default")
	failing := boundPod("failing", "node-0")
	failing.Labels = map[string]string{"fail": "yes"}
	for _, p := range []*corev1.Pod{failing, boundPod("fine", "node-0")} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	failed := waitPod(t, client, "failing", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if len(failed.Status.ContainerStatuses) != 1 || failed.Status.ContainerStatuses[0].State.Terminated == nil || failed.Status.ContainerStatuses[0].State.Terminated.ExitCode != 1 || failed.Status.Reason != "Error" {
		t.Errorf("failed pod's status %+v", failed.Status)
	}
	fine := waitPod(t, client, "fine", running)
	if fine.Status.PodIP == "" || podCondition(fine, corev1.PodReady) == nil {
		t.Errorf("running pod's status %+v", fine.Status)
	}
	// The pod-delete stage deletes a terminating pod at once.
	if err := pods.Delete(ctx, "fine", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](3600)}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, client, "fine")
}

func TestPodStagesThatCannotRunStopTheStart(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "node-stage.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: n}\nspec:\n  resourceRef: {apiGroup: v1, kind: Node}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := fakeplane.New(fakeplane.WithNodes(1), fakeplane.WithPodStages(bad))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cp.Stop() }()
	if err := cp.Start(ctxT(t)); err == nil || !strings.Contains(err.Error(), "only v1 Pod stages") {
		t.Fatalf("start with a Node stage: %v", err)
	}
}

// TestDelayedPodStageWaitsForTheClock: a stage with a delay moves a pod on
// once the delay has passed on the control plane's clock, and records its
// event about the pod.
func TestDelayedPodStageWaitsForTheClock(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now().Truncate(time.Second)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithClock(clock),
		fakeplane.WithPodStages(filepath.Join("kubelet", "testdata", "stages-delayed.yaml")))
	ctx := ctxT(t)
	client := clientset(t, cp)
	pods := client.CoreV1().Pods("default")
	soon := boundPod("soon", "node-0")
	soon.Annotations = map[string]string{"example.com/delay": "0s"}
	for _, p := range []*corev1.Pod{boundPod("later", "node-0"), soon} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The pod whose annotation sets no delay runs; the other waits for
	// the clock, created before it.
	waitPod(t, client, "soon", running)
	if p, err := pods.Get(ctx, "later", metav1.GetOptions{}); err != nil || p.Status.Phase != corev1.PodPending {
		t.Fatalf("the delayed pod before its delay: %v %q", err, p.Status.Phase)
	}
	// Move the clock a minute on while the pod waits (its wait starts
	// when the kubelet first sees it, which may be after a move).
	start := clock()
	later := waitPod(t, client, "later", func(p *corev1.Pod) bool {
		if running(p) {
			return true
		}
		mu.Lock()
		now = now.Add(time.Minute)
		mu.Unlock()
		return false
	})
	if later.Status.StartTime == nil || later.Status.StartTime.Time.Before(start.Add(time.Minute)) {
		t.Errorf("startTime %v, want a minute after %v at least", later.Status.StartTime, start)
	}
	var events *corev1.EventList
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		events, err = client.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=later,reason=Started"})
		return err == nil && len(events.Items) > 0, err
	})
	if err != nil || len(events.Items) != 1 || events.Items[0].Source.Component != "kubelet" || events.Items[0].Source.Host != "node-0" || events.Items[0].Message != "Started container" {
		t.Fatalf("Started event of the delayed pod: %v %+v", err, events)
	}
}
