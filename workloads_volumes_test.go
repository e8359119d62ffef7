package fakeplane_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

func newClaim(name string, class *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
}

// waitClaimBound polls the claim until it is Bound and returns it.
func waitClaimBound(t *testing.T, cs kubernetes.Interface, name string) *corev1.PersistentVolumeClaim {
	t.Helper()
	var last *corev1.PersistentVolumeClaim
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		c, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = c
		return c.Status.Phase == corev1.ClaimBound, nil
	})
	if err != nil {
		t.Fatalf("claim %s not bound: %+v", name, last)
	}
	return last
}

// Claims bind as a cluster with kind's local-path provisioner binds them:
// a claim of the default class once its first pod is bound to a node, on
// that node; a claim of an Immediate class at once; a claim of a class no
// provisioner serves to a matching volume a user made; and a volume whose
// claim goes is deleted or released by its reclaim policy.
func TestPersistentVolumeClaimsBind(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(2))
	cs := clientset(t, cp)
	ctx := ctxT(t)

	// The default class waits for the first consumer.
	sc, err := cs.StorageV1().StorageClasses().Get(ctx, "standard", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the default StorageClass: %v", err)
	}
	if sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		t.Errorf("standard: annotations %v, binding mode %v", sc.Annotations, *sc.VolumeBindingMode)
	}
	if _, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, newClaim("data", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "user"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "nginx"}},
			Volumes:    []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}},
		},
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bound := waitClaimBound(t, cs, "data")
	scheduled, err := cs.CoreV1().Pods("default").Get(ctx, "user", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pv, err := cs.CoreV1().PersistentVolumes().Get(ctx, bound.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the provisioned volume: %v", err)
	}
	if pv.Name != "pvc-"+string(bound.UID) || pv.Status.Phase != corev1.VolumeBound || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != bound.UID {
		t.Errorf("volume %s: phase %s, claimRef %+v", pv.Name, pv.Status.Phase, pv.Spec.ClaimRef)
	}
	if got := pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0]; got != scheduled.Spec.NodeName {
		t.Errorf("volume on node %s, its pod on %s", got, scheduled.Spec.NodeName)
	}
	for k, want := range map[string]string{"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
		"volume.kubernetes.io/storage-provisioner": "rancher.io/local-path"} {
		if bound.Annotations[k] != want {
			t.Errorf("claim annotation %s = %q, want %q", k, bound.Annotations[k], want)
		}
	}
	if q := bound.Status.Capacity[corev1.ResourceStorage]; q.String() != "1Gi" {
		t.Errorf("claim capacity %s, want 1Gi", q.String())
	}

	// An Immediate class binds at once.
	immediate := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "rancher.io/local-path",
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingImmediate)}
	if _, err := cs.StorageV1().StorageClasses().Create(ctx, immediate, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, newClaim("now", ptr.To("fast")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitClaimBound(t, cs, "now")

	// A volume a user made binds to a claim of its class; deleting the
	// claim releases a Retain volume.
	manual := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "manual-1"},
		Spec: corev1.PersistentVolumeSpec{
			StorageClassName:              "manual",
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/data"}},
		},
	}
	if _, err := cs.CoreV1().PersistentVolumes().Create(ctx, manual, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, newClaim("static", ptr.To("manual")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := waitClaimBound(t, cs, "static"); got.Spec.VolumeName != "manual-1" {
		t.Errorf("static claim bound to %s, want manual-1", got.Spec.VolumeName)
	}
	if err := cs.CoreV1().PersistentVolumeClaims("default").Delete(ctx, "static", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		v, err := cs.CoreV1().PersistentVolumes().Get(ctx, "manual-1", metav1.GetOptions{})
		return err == nil && v.Status.Phase == corev1.VolumeReleased, nil
	}); err != nil {
		t.Error("the Retain volume of a deleted claim is not Released")
	}

	// Deleting a claim of a Delete class deletes its volume.
	nowClaim, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, "now", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().PersistentVolumeClaims("default").Delete(ctx, "now", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().PersistentVolumes().Get(ctx, nowClaim.Spec.VolumeName, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		t.Error("the Delete volume of a deleted claim stayed")
	}
}

// TestGenericEphemeralVolumesGetTheirClaims: kube-controller-manager's
// ephemeral-volume-controller gives each generic ephemeral volume of a pod
// its claim, <pod>-<volume>, made from the volume's template and owned by
// the pod, which the garbage collector deletes with it; a claim of that
// name the pod does not own is a FailedBinding event. The claim is the one
// refplane's kube-controller-manager made of the same pod.
func TestGenericEphemeralVolumesGetTheirClaims(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ephemeralPod := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "c", Image: "nginx"}},
				Volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
					VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
						ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"x": "yes"}, Annotations: map[string]string{"a": "b"}},
						Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
							Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
					},
				}}}},
			},
		}
	}
	pod, err := cs.CoreV1().Pods("default").Create(ctx, ephemeralPod("eph"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var claim *corev1.PersistentVolumeClaim
	eventuallyT(t, "the ephemeral volume's claim", func(ctx context.Context) (bool, error) {
		claim, err = cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, "eph-scratch", metav1.GetOptions{})
		return err == nil, nil
	})
	owner := metav1.GetControllerOf(claim)
	if owner == nil || owner.Kind != "Pod" || owner.Name != "eph" || owner.UID != pod.UID || owner.BlockOwnerDeletion == nil || !*owner.BlockOwnerDeletion ||
		claim.Labels["x"] != "yes" || claim.Annotations["a"] != "b" || claim.Spec.Resources.Requests.Storage().String() != "1Gi" ||
		*claim.Spec.VolumeMode != corev1.PersistentVolumeFilesystem || claim.ManagedFields[0].Manager != "kube-controller-manager" {
		t.Errorf("claim %+v", claim)
	}
	// A claim of that name the pod does not own.
	if _, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "other-scratch"},
		Spec:       claim.Spec,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, ephemeralPod("other"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the FailedBinding event", func(context.Context) (bool, error) {
		return hasEvent(eventsFor(t, cs, "default", "Pod", "other"), "FailedBinding", "ephemeral_volume",
			"ephemeral volume scratch: PVC default/other-scratch was not created for pod default/other (pod is not owner)"), nil
	})
	// The claim goes with its pod.
	if err := cs.CoreV1().Pods("default").Delete(ctx, "eph", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the claim deleted with its pod", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, "eph-scratch", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// A claim left pending says why in an event, as the
// persistentvolume-binder controller words it on refplane: no class, a
// missing class, an in-tree provisioner this controller lacks, an external
// provisioner (which the claim is annotated with), and a
// WaitForFirstConsumer class with no pod, or with pods not yet scheduled.
func TestPendingClaimsSayWhy(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	for _, sc := range []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "ext"}, Provisioner: "example.com/ext"},
		{ObjectMeta: metav1.ObjectMeta{Name: "wffc"}, Provisioner: "example.com/ext", VolumeBindingMode: &wffc},
		{ObjectMeta: metav1.ObjectMeta{Name: "noprov"}, Provisioner: "kubernetes.io/no-provisioner"},
	} {
		if _, err := cs.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ns := newBatchNamespace(t, cs, "pending-claims")
	// The pod comes first, so that its claim's first sync sees it (a later
	// pod is seen at the next periodic sync, 15s on).
	user := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "user"}, Spec: corev1.PodSpec{
		NodeSelector: map[string]string{"x": "y"},
		Containers:   []corev1.Container{{Name: "user", Image: "nginx"}},
		Volumes:      []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "wffc-used"}}}},
	}}
	eventuallyT(t, "the pod using wffc-used", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, user, metav1.CreateOptions{})
		return err == nil, nil
	})
	for name, class := range map[string]string{"noclass": "", "missing": "missing", "ext": "ext", "wffc": "wffc", "wffc-used": "wffc", "noprov": "noprov"} {
		if _, err := cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, newClaim(name, ptr.To(class)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"noclass":   "Normal FailedBinding no persistent volumes available for this claim and no storage class is set",
		"missing":   `Warning ProvisioningFailed storageclass.storage.k8s.io "missing" not found`,
		"noprov":    "Warning ProvisioningFailed no volume plugin matched name: kubernetes.io/no-provisioner",
		"ext":       "Normal ExternalProvisioning Waiting for a volume to be created either by the external provisioner 'example.com/ext' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
		"wffc":      "Normal WaitForFirstConsumer waiting for first consumer to be created before binding",
		"wffc-used": "Normal WaitForPodScheduled waiting for pod user to be scheduled",
	}
	got := map[string]map[string]bool{}
	eventuallyT(t, "an event for each pending claim", func(ctx context.Context) (bool, error) {
		l, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "source=persistentvolume-controller"})
		if err != nil {
			return false, err
		}
		for _, e := range l.Items {
			if got[e.InvolvedObject.Name] == nil {
				got[e.InvolvedObject.Name] = map[string]bool{}
			}
			got[e.InvolvedObject.Name][e.Type+" "+e.Reason+" "+e.Message] = true
		}
		for claim, event := range want {
			if !got[claim][event] {
				return false, nil
			}
		}
		return true, nil
	})
	ext, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "ext", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"volume.kubernetes.io/storage-provisioner", "volume.beta.kubernetes.io/storage-provisioner"} {
		if ext.Annotations[k] != "example.com/ext" {
			t.Errorf("claim ext annotations %v, want %s: example.com/ext", ext.Annotations, k)
		}
	}
	for _, name := range []string{"noclass", "missing", "ext", "wffc", "wffc-used", "noprov"} {
		if c, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{}); err != nil || c.Status.Phase != corev1.ClaimPending {
			t.Errorf("claim %s: %v, phase %v, want Pending", name, err, c.Status.Phase)
		}
	}
}
