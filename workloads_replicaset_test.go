package fakeplane_test

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// replicaSet is a ReplicaSet of replicas pods labelled app=name.
func replicaSet(name string, replicas int32) *appsv1.ReplicaSet {
	ls := map[string]string{"app": name}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: ls},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: ls},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
			},
		},
	}
}

// controlledPods lists the pods labelled app=app whose controller has uid.
func controlledPods(t testing.TB, cp *fakeplane.ControlPlane, app string, uid types.UID) []corev1.Pod {
	t.Helper()
	var out []corev1.Pod
	for _, p := range podsOf(t, clientset(t, cp), "default", map[string]string{"app": app}) {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == uid {
			out = append(out, p)
		}
	}
	return out
}

// A ReplicaSet on its own keeps its replicas: it creates named, owned pods,
// reports them in its status, scales down the pods least worth keeping,
// releases a pod that stops matching and adopts an orphan that matches.
func TestReplicaSetKeepsItsReplicas(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	startTestKubelet(t, cp, nil)
	cs := clientset(t, cp)
	ctx := context.Background()
	rss := cs.AppsV1().ReplicaSets("default")
	rs, err := rss.Create(ctx, replicaSet("front", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus := func(t *testing.T, want appsv1.ReplicaSetStatus) *appsv1.ReplicaSet {
		t.Helper()
		var got *appsv1.ReplicaSet
		waitWorkload(t, "ReplicaSet status", func() (bool, string) {
			var err error
			if got, err = rss.Get(ctx, "front", metav1.GetOptions{}); err != nil {
				return false, err.Error()
			}
			st := got.Status
			return st.Replicas == want.Replicas && st.FullyLabeledReplicas == want.FullyLabeledReplicas && st.ReadyReplicas == want.ReadyReplicas &&
				st.AvailableReplicas == want.AvailableReplicas && st.ObservedGeneration == got.Generation && ptr.Deref(st.TerminatingReplicas, -1) == 0, fmt.Sprintf("%+v", st)
		})
		return got
	}

	t.Run("creates its pods, named after it and controlled by it", func(t *testing.T) {
		waitStatus(t, appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3})
		pods := controlledPods(t, cp, "front", rs.UID)
		if len(pods) != 3 {
			t.Fatalf("%d pods, want 3", len(pods))
		}
		name := regexp.MustCompile(`^front-` + podNameSuffix + `$`)
		for _, p := range pods {
			ref := metav1.GetControllerOf(&p)
			if !name.MatchString(p.Name) || ref.APIVersion != "apps/v1" || ref.Kind != "ReplicaSet" || ref.Name != "front" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
				t.Errorf("pod %s, controller %+v", p.Name, ref)
			}
		}
	})

	t.Run("scaling down deletes pods and records it", func(t *testing.T) {
		sc, err := rss.GetScale(ctx, "front", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sc.Spec.Replicas = 1
		if _, err := rss.UpdateScale(ctx, "front", sc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitStatus(t, appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1})
		waitWorkload(t, "pods deleted", func() (bool, string) {
			n := len(controlledPods(t, cp, "front", rs.UID))
			return n == 1, fmt.Sprintf("%d pods", n)
		})
		events := eventsFor(t, cs, "default", "ReplicaSet", "front")
		deleted := 0
		for _, e := range events {
			if e.Reason == "SuccessfulDelete" && e.Source.Component == "replicaset-controller" && regexp.MustCompile(`^Deleted pod: front-`+podNameSuffix+`$`).MatchString(e.Message) {
				deleted++
			}
		}
		if deleted != 2 {
			t.Errorf("%d SuccessfulDelete events, want 2: %v", deleted, events)
		}
	})

	t.Run("a pod that stops matching is released and replaced", func(t *testing.T) {
		pod := controlledPods(t, cp, "front", rs.UID)[0]
		patch := []byte(`{"metadata":{"labels":{"app":"elsewhere"}}}`)
		if _, err := cs.CoreV1().Pods("default").Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		waitWorkload(t, "released", func() (bool, string) {
			p, err := cs.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			return len(p.OwnerReferences) == 0, fmt.Sprintf("owners %v", p.OwnerReferences)
		})
		waitWorkload(t, "replaced", func() (bool, string) {
			pods := controlledPods(t, cp, "front", rs.UID)
			return len(pods) == 1 && pods[0].Name != pod.Name, fmt.Sprintf("%d pods", len(pods))
		})
	})

	t.Run("a matching orphan is adopted and the surplus deleted", func(t *testing.T) {
		orphan := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: "default", Labels: map[string]string{"app": "front"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
		}
		if _, err := cs.CoreV1().Pods("default").Create(ctx, orphan, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// Adopted, it is one pod too many: one of the two goes.
		waitWorkload(t, "adopted, then one pod left", func() (bool, string) {
			pods := podsOf(t, cs, "default", map[string]string{"app": "front"})
			ok := len(pods) == 1
			for _, p := range pods {
				if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != rs.UID {
					ok = false
				}
			}
			return ok, fmt.Sprintf("%d pods", len(pods))
		})
		stray, err := cs.CoreV1().Pods("default").Get(ctx, "stray", metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			t.Fatal(err)
		default:
			if ref := metav1.GetControllerOf(stray); ref == nil || ref.UID != rs.UID || ref.Kind != "ReplicaSet" {
				t.Errorf("stray kept but not adopted: %+v", stray.OwnerReferences)
			}
		}
		waitStatus(t, appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1})
	})
}

// A pod that a ReplicaSet adopts gets the controller reference
// kube-controller-manager gives it.
func TestReplicaSetAdoptsMatchingOrphanPods(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := context.Background()
	for i := range 2 {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pre-%d", i), Namespace: "default", Labels: map[string]string{"app": "adopter"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
		}
		if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := cs.AppsV1().ReplicaSets("default").Create(ctx, replicaSet("adopter", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitWorkload(t, "adopted two, created one", func() (bool, string) {
		pods := controlledPods(t, cp, "adopter", rs.UID)
		return len(pods) == 3, fmt.Sprintf("%d pods", len(pods))
	})
	for i := range 2 {
		p, err := cs.CoreV1().Pods("default").Get(ctx, fmt.Sprintf("pre-%d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "adopter", UID: rs.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
		if len(p.OwnerReferences) != 1 || !reflect.DeepEqual(p.OwnerReferences[0], want) {
			t.Errorf("pod %s owner references %+v, want %+v", p.Name, p.OwnerReferences, want)
		}
	}
}

// A ReplicationController is the ReplicaSet controller's too: pods owned by
// it, status, scaling with kubectl.
func TestReplicationControllerKeepsItsReplicas(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)
	startTestKubelet(t, cp, nil)
	cs := clientset(t, cp)
	ctx := context.Background()
	rc := &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: "default"},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: ptr.To[int32](2),
			Selector: map[string]string{"app": "legacy"},
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "legacy"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
			},
		},
	}
	rc, err := cs.CoreV1().ReplicationControllers("default").Create(ctx, rc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitRC := func(replicas int32) {
		t.Helper()
		waitWorkload(t, "ReplicationController status", func() (bool, string) {
			got, err := cs.CoreV1().ReplicationControllers("default").Get(ctx, "legacy", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			st := got.Status
			return st.Replicas == replicas && st.FullyLabeledReplicas == replicas && st.ReadyReplicas == replicas && st.AvailableReplicas == replicas &&
				st.ObservedGeneration == got.Generation, fmt.Sprintf("%+v", st)
		})
	}
	waitRC(2)
	pods := controlledPods(t, cp, "legacy", rc.UID)
	if len(pods) != 2 {
		t.Fatalf("%d pods, want 2", len(pods))
	}
	name := regexp.MustCompile(`^legacy-` + podNameSuffix + `$`)
	for _, p := range pods {
		ref := metav1.GetControllerOf(&p)
		if !name.MatchString(p.Name) || ref.APIVersion != "v1" || ref.Kind != "ReplicationController" || ref.Name != "legacy" {
			t.Errorf("pod %s controller %+v", p.Name, ref)
		}
	}
	waitWorkload(t, "SuccessfulCreate events", func() (bool, string) {
		events := eventsFor(t, cs, "default", "ReplicationController", "legacy")
		return hasEvent(events, "SuccessfulCreate", "replication-controller", "Created pod: "+pods[0].Name), fmt.Sprintf("%v", events)
	})
	wantLines(t, "kubectl scale rc", mustKubectl(t, cp, "scale", "rc", "legacy", "--replicas=4"), `replicationcontroller/legacy scaled`)
	waitRC(4)
	wantLines(t, "kubectl get rc", mustKubectl(t, cp, "get", "rc", "legacy"),
		`NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE`, `legacy\s+4\s+4\s+4\s+`+age)
	mustKubectl(t, cp, "scale", "rc", "legacy", "--replicas=0")
	waitRC(0)
	if n := len(controlledPods(t, cp, "legacy", rc.UID)); n != 0 {
		t.Errorf("%d pods at 0 replicas", n)
	}
	// A v1 delete that names no propagation policy orphans the pods, as
	// upstream keeps for old clients (kubectl names one).
	mustKubectl(t, cp, "scale", "rc", "legacy", "--replicas=1")
	waitRC(1)
	pod := controlledPods(t, cp, "legacy", rc.UID)[0]
	if err := cs.CoreV1().ReplicationControllers("default").Delete(ctx, "legacy", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitWorkload(t, "the controller gone, its pod orphaned", func() (bool, string) {
		_, err := cs.CoreV1().ReplicationControllers("default").Get(ctx, "legacy", metav1.GetOptions{})
		p, perr := cs.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if perr != nil {
			return false, perr.Error()
		}
		return apierrors.IsNotFound(err) && len(p.OwnerReferences) == 0 && p.DeletionTimestamp == nil, fmt.Sprintf("rc: %v, pod owners %v", err, p.OwnerReferences)
	})
}
