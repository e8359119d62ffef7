package fakeplane_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// readyPod writes the status a kubelet reports for a running, ready pod.
func readyPod(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) error {
	now := metav1.Now()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
	_, err := cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	return err
}

func webStatefulSet(replicas int32, policy appsv1.PodManagementPolicyType) *appsv1.StatefulSet {
	labels := map[string]string{"app": "web"}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To(replicas),
			ServiceName:         "web",
			PodManagementPolicy: policy,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
		},
	}
}

// waitStatefulSet polls the set until cond holds.
func waitStatefulSet(t *testing.T, cs kubernetes.Interface, ns, name string, what string, cond func(*appsv1.StatefulSet) bool) *appsv1.StatefulSet {
	t.Helper()
	var last *appsv1.StatefulSet
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		s, err := cs.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = s
		return cond(s), nil
	})
	if err != nil {
		t.Fatalf("statefulset %s: %s: not reached; last status %+v", name, what, last.Status)
	}
	return last
}

// An OrderedReady StatefulSet creates web-0 first, and web-1 only once
// web-0 is Running and Ready: each pod with its stable name, hostname,
// labels and claim.
func TestStatefulSetCreatesPodsInOrder(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	// The test kubelet runs every pod but web-0, which the test makes
	// ready itself.
	startTestKubelet(t, cp, func(p *corev1.Pod) bool { return p.Name == "web-0" })
	if _, err := cs.AppsV1().StatefulSets("default").Create(ctx, webStatefulSet(3, ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The controller has seen web-0 and reported it: it waits for it.
	waitStatefulSet(t, cs, "default", "web", "web-0 counted", func(s *appsv1.StatefulSet) bool { return s.Status.Replicas == 1 })
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 1 || pods.Items[0].Name != "web-0" {
		t.Fatalf("pods before web-0 is ready: %d, want web-0 alone", len(pods.Items))
	}
	web0 := pods.Items[0]
	set, err := cs.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ what, got, want string }{
		{"label statefulset.kubernetes.io/pod-name", web0.Labels["statefulset.kubernetes.io/pod-name"], "web-0"},
		{"label apps.kubernetes.io/pod-index", web0.Labels["apps.kubernetes.io/pod-index"], "0"},
		{"label controller-revision-hash", web0.Labels["controller-revision-hash"], set.Status.UpdateRevision},
		{"hostname", web0.Spec.Hostname, "web-0"},
		{"subdomain", web0.Spec.Subdomain, "web"},
		{"controller", metav1.GetControllerOf(&web0).Name, "web"},
		{"claim of volume data", claimOf(&web0, "data"), "data-web-0"},
	} {
		if tc.got != tc.want {
			t.Errorf("web-0 %s = %q, want %q", tc.what, tc.got, tc.want)
		}
	}
	pvc, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, "data-web-0", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("claim of web-0: %v", err)
	}
	if pvc.Labels["app"] != "web" {
		t.Errorf("claim labels %v, want the selector's app=web", pvc.Labels)
	}
	if err := readyPod(ctx, cs, &web0); err != nil {
		t.Fatal(err)
	}
	// web-1 follows; the test kubelet makes it ready at once, so web-2 may
	// be counted by the time the status is read.
	waitStatefulSet(t, cs, "default", "web", "web-1 counted", func(s *appsv1.StatefulSet) bool { return s.Status.Replicas >= 2 })
	set = waitStatefulSet(t, cs, "default", "web", "3 ready", func(s *appsv1.StatefulSet) bool {
		return s.Status.ReadyReplicas == 3 && s.Status.AvailableReplicas == 3 && s.Status.ObservedGeneration == s.Generation
	})
	if set.Status.CurrentRevision != set.Status.UpdateRevision || set.Status.CurrentReplicas != 3 || set.Status.UpdatedReplicas != 3 {
		t.Errorf("status %+v, want every replica current and updated", set.Status)
	}
	if set.Status.CollisionCount == nil || *set.Status.CollisionCount != 0 {
		t.Errorf("collisionCount %v, want 0", set.Status.CollisionCount)
	}
	rev, err := cs.AppsV1().ControllerRevisions("default").Get(ctx, set.Status.UpdateRevision, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the update revision: %v", err)
	}
	// Upstream's controller history labels a StatefulSet's revisions
	// controller.kubernetes.io/hash (its pods carry controller-revision-hash).
	if rev.Revision != 1 || metav1.GetControllerOf(rev).Name != "web" || rev.Labels["controller.kubernetes.io/hash"] == "" || rev.Labels["controller-revision-hash"] != "" {
		t.Errorf("revision %s: number %d, labels %v, want revision 1 of web", rev.Name, rev.Revision, rev.Labels)
	}
	// Its pods have the generateName upstream's GetPodFromTemplate gives them.
	if pod, err := cs.CoreV1().Pods("default").Get(ctx, "web-0", metav1.GetOptions{}); err != nil || pod.GenerateName != "web-" || pod.Labels["controller-revision-hash"] != rev.Name {
		t.Errorf("web-0: %v, generateName %q, labels %v", err, pod.GenerateName, pod.Labels)
	}
	// The events say what was made, with the verb title-cased, as the
	// v1.37 controller words them (refplane: "Create Pod web-0 in
	// StatefulSet web successful").
	waitEventNotes(t, cs, "default", "web",
		"Create Claim data-web-0 Pod web-0 in StatefulSet web success",
		"Create Pod web-0 in StatefulSet web successful",
		"Create Pod web-2 in StatefulSet web successful")
}

// waitEventNotes waits until the events about the object named regarding
// include every note in want.
func waitEventNotes(t *testing.T, cs kubernetes.Interface, ns, regarding string, want ...string) {
	t.Helper()
	var notes map[string]bool
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=" + regarding})
		if err != nil {
			return false, err
		}
		notes = map[string]bool{}
		for _, e := range list.Items {
			notes[e.Note] = true
		}
		for _, w := range want {
			if !notes[w] {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("events of %s: %v; have %v, want %q", regarding, err, notes, want)
	}
}

func claimOf(pod *corev1.Pod, volume string) string {
	for _, v := range pod.Spec.Volumes {
		if v.Name == volume && v.PersistentVolumeClaim != nil {
			return v.PersistentVolumeClaim.ClaimName
		}
	}
	return ""
}

// A Parallel StatefulSet creates every pod at once, ready or not.
func TestStatefulSetParallelCreatesAllAtOnce(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.AppsV1().StatefulSets("default").Create(ctx, webStatefulSet(3, appsv1.ParallelPodManagement), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatefulSet(t, cs, "default", "web", "3 pods, none ready", func(s *appsv1.StatefulSet) bool { return s.Status.Replicas == 3 })
	for i := range 3 {
		if _, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, fmt.Sprintf("data-web-%d", i), metav1.GetOptions{}); err != nil {
			t.Errorf("claim of web-%d: %v", i, err)
		}
	}
}

// A template change rolls the pods from the highest ordinal down to the
// partition; scaling down removes the highest ordinals and keeps their
// claims.
func TestStatefulSetRollingUpdateAndScaleDown(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startTestKubelet(t, cp, nil)
	if _, err := cs.AppsV1().StatefulSets("default").Create(ctx, webStatefulSet(3, ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	first := waitStatefulSet(t, cs, "default", "web", "3 ready", func(s *appsv1.StatefulSet) bool { return s.Status.ReadyReplicas == 3 })
	image := func(name string) string {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return p.Spec.Containers[0].Image
	}

	// Partition 2: only web-2 moves.
	set := first.DeepCopy()
	set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
	set.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	if _, err := cs.AppsV1().StatefulSets("default").Update(ctx, set, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	partial := waitStatefulSet(t, cs, "default", "web", "web-2 updated", func(s *appsv1.StatefulSet) bool {
		return s.Status.UpdatedReplicas == 1 && s.Status.ReadyReplicas == 3 && s.Status.ObservedGeneration == s.Generation
	})
	if partial.Status.UpdateRevision == first.Status.UpdateRevision || partial.Status.CurrentRevision != first.Status.UpdateRevision {
		t.Errorf("revisions current %s update %s, want current %s and a new update revision", partial.Status.CurrentRevision, partial.Status.UpdateRevision, first.Status.UpdateRevision)
	}
	for name, want := range map[string]string{"web-0": "nginx:1.27", "web-1": "nginx:1.27", "web-2": "nginx:1.28"} {
		if got := image(name); got != want {
			t.Errorf("with partition 2, %s runs %q, want %q", name, got, want)
		}
	}

	// Partition 0: the rest follow, and the update revision becomes current.
	set = partial.DeepCopy()
	set.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0)
	if _, err := cs.AppsV1().StatefulSets("default").Update(ctx, set, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	done := waitStatefulSet(t, cs, "default", "web", "all updated", func(s *appsv1.StatefulSet) bool {
		return s.Status.UpdatedReplicas == 3 && s.Status.ReadyReplicas == 3 && s.Status.CurrentRevision == s.Status.UpdateRevision
	})
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		if got := image(name); got != "nginx:1.28" {
			t.Errorf("after the update, %s runs %q", name, got)
		}
	}
	revs, err := cs.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs.Items) != 2 {
		t.Errorf("%d revisions, want 2", len(revs.Items))
	}

	// Scale down to 1: web-2 and web-1 go, their claims stay.
	set = done.DeepCopy()
	set.Spec.Replicas = ptr.To[int32](1)
	if _, err := cs.AppsV1().StatefulSets("default").Update(ctx, set, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatefulSet(t, cs, "default", "web", "scaled to 1", func(s *appsv1.StatefulSet) bool {
		return s.Status.Replicas == 1 && s.Status.ReadyReplicas == 1
	})
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 1 || pods.Items[0].Name != "web-0" {
		t.Errorf("after scaling to 1: %d pods, want web-0 alone", len(pods.Items))
	}
	pvcs, err := cs.CoreV1().PersistentVolumeClaims("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pvcs.Items) != 3 {
		t.Errorf("%d claims after scaling down, want the 3 retained", len(pvcs.Items))
	}
}

// TestStatefulSetMaxUnavailableReplacesPodsTogether checks a rolling update
// with maxUnavailable (on by default in kube-controller-manager v1.37): a
// Parallel set of 4 with maxUnavailable 2 replaces its two highest pods at
// once, and no more while those are not available.
func TestStatefulSetMaxUnavailableReplacesPodsTogether(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	var holdNew atomic.Bool
	startTestKubelet(t, cp, func(p *corev1.Pod) bool { return holdNew.Load() && p.Spec.Containers[0].Image == "nginx:1.28" })
	set := webStatefulSet(4, appsv1.ParallelPodManagement)
	set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: ptr.To(intstr.FromInt32(2))}}
	if _, err := cs.AppsV1().StatefulSets("default").Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	first := waitStatefulSet(t, cs, "default", "web", "4 ready", func(s *appsv1.StatefulSet) bool { return s.Status.ReadyReplicas == 4 })
	holdNew.Store(true)
	set = first.DeepCopy()
	set.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	if _, err := cs.AppsV1().StatefulSets("default").Update(ctx, set, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	images := func() map[string]string {
		out := map[string]string{}
		l, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Items {
			if p.DeletionTimestamp == nil {
				out[p.Name] = p.Spec.Containers[0].Image
			}
		}
		return out
	}
	want := map[string]string{"web-0": "nginx:1.27", "web-1": "nginx:1.27", "web-2": "nginx:1.28", "web-3": "nginx:1.28"}
	waitWorkload(t, "web-3 and web-2 replaced together", func() (bool, string) {
		got := images()
		return fmt.Sprint(got) == fmt.Sprint(want), fmt.Sprint(got)
	})
	// While they are not available, the budget is spent: web-1 and web-0
	// stay.
	waitStatefulSet(t, cs, "default", "web", "the new pods seen", func(s *appsv1.StatefulSet) bool {
		return s.Status.UpdatedReplicas == 2 && s.Status.CurrentReplicas == 2
	})
	if got := images(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pods %v while the new ones are not ready, want %v", got, want)
	}
	holdNew.Store(false)
	for _, name := range []string{"web-2", "web-3"} {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := readyPod(ctx, cs, p); err != nil {
			t.Fatal(err)
		}
	}
	waitStatefulSet(t, cs, "default", "web", "all updated", func(s *appsv1.StatefulSet) bool {
		return s.Status.UpdatedReplicas == 4 && s.Status.ReadyReplicas == 4 && s.Status.CurrentRevision == s.Status.UpdateRevision
	})
}

// TestStatefulSetClaimRetentionPolicy: the controller gives the claims the
// owner references of spec.persistentVolumeClaimRetentionPolicy, as
// kube-controller-manager's: under whenDeleted Delete the set controls
// them (so they go with it); under whenScaled Delete a scaled-away pod's
// claims pass to the pod (so they go with it) and the pod of that ordinal
// comes back only once they are gone; under Retain they have no owner.
func TestStatefulSetClaimRetentionPolicy(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startTestKubelet(t, cp, nil)
	del, retain := appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	set := webStatefulSet(3, appsv1.ParallelPodManagement)
	set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: del, WhenScaled: del}
	if _, err := cs.AppsV1().StatefulSets("default").Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatefulSet(t, cs, "default", "web", "3 ready", func(s *appsv1.StatefulSet) bool { return s.Status.ReadyReplicas == 3 })
	// owners are the kinds and names of a claim's owners, "-" when it is
	// gone.
	owners := func(name string) string {
		c, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return "-"
		}
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, r := range c.OwnerReferences {
			if r.Controller == nil || !*r.Controller || r.BlockOwnerDeletion == nil || !*r.BlockOwnerDeletion {
				t.Errorf("claim %s: owner %+v is not a blocking controller reference", name, r)
			}
			out += r.Kind + "/" + r.Name
		}
		return out
	}
	wantOwners := func(what string, want map[string]string) {
		t.Helper()
		eventuallyT(t, what, func(context.Context) (bool, error) {
			for name, w := range want {
				if owners(name) != w {
					return false, nil
				}
			}
			return true, nil
		})
	}
	wantOwners("the set owns its claims", map[string]string{"data-web-0": "StatefulSet/web", "data-web-1": "StatefulSet/web", "data-web-2": "StatefulSet/web"})

	// Scaled to 1: web-1's and web-2's claims pass to their pods and go
	// with them.
	change := func(f func(*appsv1.StatefulSet)) {
		t.Helper()
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			s, err := cs.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			f(s)
			_, err = cs.AppsV1().StatefulSets("default").Update(ctx, s, metav1.UpdateOptions{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	change(func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](1) })
	wantOwners("the scaled-away claims deleted", map[string]string{"data-web-0": "StatefulSet/web", "data-web-1": "-", "data-web-2": "-"})

	// Retain on both: the set lets go of web-0's claim, and new claims
	// have no owner.
	change(func(s *appsv1.StatefulSet) {
		s.Spec.Replicas = ptr.To[int32](2)
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: retain, WhenScaled: retain}
	})
	wantOwners("no owners under Retain", map[string]string{"data-web-0": "", "data-web-1": ""})
	waitEventNotes(t, cs, "default", "web", "Update Pod web-0 in StatefulSet web successful")

	// The set deleted: retained claims stay.
	if err := cs.AppsV1().StatefulSets("default").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the pods gone", func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		return err == nil && len(pods.Items) == 0, err
	})
	if o := owners("data-web-0") + owners("data-web-1"); o != "" {
		t.Errorf("retained claims after the set's deletion: owners %q", o)
	}
}

// TestStatefulSetClaimsGoWithTheSet: under whenDeleted Delete, deleting
// the set deletes its claims (the garbage collector follows the owner
// references the controller set).
func TestStatefulSetClaimsGoWithTheSet(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startTestKubelet(t, cp, nil)
	set := webStatefulSet(2, appsv1.ParallelPodManagement)
	set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
	if _, err := cs.AppsV1().StatefulSets("default").Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatefulSet(t, cs, "default", "web", "2 ready", func(s *appsv1.StatefulSet) bool { return s.Status.ReadyReplicas == 2 })
	if err := cs.AppsV1().StatefulSets("default").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the claims deleted with the set", func(ctx context.Context) (bool, error) {
		pvcs, err := cs.CoreV1().PersistentVolumeClaims("default").List(ctx, metav1.ListOptions{})
		return err == nil && len(pvcs.Items) == 0, err
	})
}

// TestStatefulSetRecreatesAPendingPodsClaim: a claim deleted under a pod
// that is still Pending is created again, as kube-controller-manager's
// controller does. (The pod is not scheduled, its claim being unbound, so
// the claim's protection does not hold it.)
func TestStatefulSetRecreatesAPendingPodsClaim(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startTestKubelet(t, cp, func(p *corev1.Pod) bool { return p.Name == "web-0" })
	if _, err := cs.AppsV1().StatefulSets("default").Create(ctx, webStatefulSet(1, ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var first *corev1.PersistentVolumeClaim
	eventuallyT(t, "web-0 pending with its claim", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "web-0", metav1.GetOptions{})
		if err != nil || p.Status.Phase != corev1.PodPending {
			return false, nil
		}
		first, err = cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, "data-web-0", metav1.GetOptions{})
		return err == nil, nil
	})
	if err := cs.CoreV1().PersistentVolumeClaims("default").Delete(ctx, "data-web-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// As upstream's, the controller does not watch claims: the pod's next
	// change syncs the set (the scheduler's may come first, and the claim
	// be back already).
	eventuallyT(t, "the claim gone", func(ctx context.Context) (bool, error) {
		c, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, "data-web-0", metav1.GetOptions{})
		return apierrors.IsNotFound(err) || err == nil && c.UID != first.UID, nil
	})
	if _, err := cs.CoreV1().Pods("default").Patch(ctx, "web-0", types.MergePatchType, []byte(`{"metadata":{"labels":{"touched":"yes"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the claim created again", func(ctx context.Context) (bool, error) {
		c, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, "data-web-0", metav1.GetOptions{})
		return err == nil && c.UID != first.UID && c.DeletionTimestamp == nil, nil
	})
}

// A StatefulSet deleted with the Orphan propagation policy and created
// again adopts the pods named for it and its revision, as upstream's: the
// pods are not replaced, and a pod of another name that its selector
// matches is left alone.
func TestStatefulSetAdoptsItsOrphans(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	startTestKubelet(t, cp, nil)
	if _, err := cs.AppsV1().StatefulSets("default").Create(ctx, webStatefulSet(2, ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatefulSet(t, cs, "default", "web", "2 ready", func(s *appsv1.StatefulSet) bool { return s.Status.ReadyReplicas == 2 })
	if _, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stranger", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	uids := map[string]types.UID{}
	for _, name := range []string{"web-0", "web-1"} {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		uids[name] = p.UID
	}
	orphan := metav1.DeletePropagationOrphan
	if err := cs.AppsV1().StatefulSets("default").Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the pods orphaned and the set gone", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "web-1", metav1.GetOptions{})
		if err != nil || len(p.OwnerReferences) != 0 {
			return false, nil
		}
		_, err = cs.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	set, err := cs.AppsV1().StatefulSets("default").Create(ctx, webStatefulSet(2, ""), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitStatefulSet(t, cs, "default", "web", "2 ready again", func(s *appsv1.StatefulSet) bool {
		return s.Status.ReadyReplicas == 2 && s.Status.ObservedGeneration == s.Generation
	})
	for name, uid := range uids {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.UID != uid || metav1.GetControllerOf(p) == nil || metav1.GetControllerOf(p).UID != set.UID {
			t.Errorf("pod %s: owners %v, uid changed %v; want it adopted", name, p.OwnerReferences, p.UID != uid)
		}
	}
	p, err := cs.CoreV1().Pods("default").Get(ctx, "stranger", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.OwnerReferences) != 0 {
		t.Errorf("pod stranger adopted: %v", p.OwnerReferences)
	}
}
