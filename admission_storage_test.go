package fakeplane_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// StorageObjectInUseProtection, its controllers and PersistentVolumeClaimResize.
// The messages were compared with kube-apiserver v1.37.2 (refplane) and
// upstream's plugin/pkg/admission/storage sources.

func TestStorageObjectsGetTheirProtectionFinalizers(t *testing.T) {
	t.Parallel()
	// No controllers: the finalizers are the admission plugin's alone.
	cp := fakeplane.Start(t, fakeplane.WithControllers())
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	pvc, err := client.CoreV1().PersistentVolumeClaims("default").Create(ctx, testClaim("data", "1Gi", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pv, err := client.CoreV1().PersistentVolumes().Create(ctx, testVolume("vol", "1Gi", ""), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vac, err := client.StorageV1().VolumeAttributesClasses().Create(ctx, &storagev1.VolumeAttributesClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gold"}, DriverName: "example.com/csi", Parameters: map[string]string{"iops": "100"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what       string
		finalizers []string
		want       string
	}{
		{"claim", pvc.Finalizers, "kubernetes.io/pvc-protection"},
		{"volume", pv.Finalizers, "kubernetes.io/pv-protection"},
		{"volume attributes class", vac.Finalizers, "kubernetes.io/vac-protection"},
	} {
		if !slices.Equal(tc.finalizers, []string{tc.want}) {
			t.Errorf("%s: finalizers %v, want [%s]", tc.what, tc.finalizers, tc.want)
		}
	}
	// Without kube-controller-manager, as with envtest, a deleted claim
	// stays Terminating.
	if err := client.CoreV1().PersistentVolumeClaims("default").Delete(ctx, "data", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := client.CoreV1().PersistentVolumeClaims("default").Get(ctx, "data", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("claim after delete: %v, %v; want it kept, terminating", got, err)
	}
	// A finalizer the client already lists is not added twice; a dry run
	// shows it too.
	c := testClaim("listed", "1Gi", nil)
	c.Finalizers = []string{"kubernetes.io/pvc-protection"}
	dry, err := client.CoreV1().PersistentVolumeClaims("default").Create(ctx, c, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || !slices.Equal(dry.Finalizers, []string{"kubernetes.io/pvc-protection"}) {
		t.Fatalf("dry run: %v, %v", dry.Finalizers, err)
	}
}

// testVolume is a hostPath PersistentVolume of size in class ("": none).
func testVolume(name, size, class string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + name}},
		},
	}
}

func TestStorageProtectionControllersWaitForUsers(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	claims := client.CoreV1().PersistentVolumeClaims("default")
	gone := func(get func() error) func() error {
		return func() error {
			if err := get(); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there (%v)", err)
			}
			return nil
		}
	}
	claimGone := func(name string) func() error {
		return gone(func() error { _, err := claims.Get(ctx, name, metav1.GetOptions{}); return err })
	}

	// An unused claim is deleted at once.
	if _, err := claims.Create(ctx, testClaim("unused", "1Gi", ptr.To("")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := claims.Delete(ctx, "unused", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "unused claim deleted", claimGone("unused"))

	// A claim that a pod bound to a node uses waits for the pod.
	if _, err := claims.Create(ctx, testClaim("used", "1Gi", ptr.To("")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := testPod("user", nil)
	pod.Spec.NodeName = "node-a"
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "used"}}}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := claims.Delete(ctx, "used", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The controller has seen the delete once the claim's events after it
	// are in; the claim is still there, terminating, with its finalizer.
	if _, err := claims.Create(ctx, testClaim("marker", "1Gi", ptr.To("")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "marker claim protected", func() error {
		got, err := claims.Get(ctx, "used", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got.DeletionTimestamp == nil || !slices.Contains(got.Finalizers, "kubernetes.io/pvc-protection") {
			return fmt.Errorf("claim in use: %v %v", got.DeletionTimestamp, got.Finalizers)
		}
		return nil
	})
	if err := client.CoreV1().Pods("default").Delete(ctx, "user", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "claim deleted after its pod", claimGone("used"))

	// A Bound volume waits; an Available one goes at once.
	if _, err := client.CoreV1().PersistentVolumes().Create(ctx, testVolume("free", "1Gi", "manual"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().PersistentVolumes().Delete(ctx, "free", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "available volume deleted", gone(func() error {
		_, err := client.CoreV1().PersistentVolumes().Get(ctx, "free", metav1.GetOptions{})
		return err
	}))
	if _, err := client.CoreV1().PersistentVolumes().Create(ctx, testVolume("bound", "1Gi", "manual"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := claims.Create(ctx, testClaim("binds", "1Gi", ptr.To("manual")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "volume bound", func() error {
		pv, err := client.CoreV1().PersistentVolumes().Get(ctx, "bound", metav1.GetOptions{})
		if err != nil || pv.Status.Phase != corev1.VolumeBound {
			return fmt.Errorf("volume: %v", err)
		}
		return nil
	})
	if err := client.CoreV1().PersistentVolumes().Delete(ctx, "bound", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	pv, err := client.CoreV1().PersistentVolumes().Get(ctx, "bound", metav1.GetOptions{})
	if err != nil || pv.DeletionTimestamp == nil {
		t.Fatalf("bound volume after delete: %v", err)
	}
	// Deleting its claim releases it (Retain), and then it goes.
	if err := claims.Delete(ctx, "binds", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "released volume deleted", gone(func() error {
		_, err := client.CoreV1().PersistentVolumes().Get(ctx, "bound", metav1.GetOptions{})
		return err
	}))

	// A VolumeAttributesClass that a claim names waits for the claim.
	if _, err := client.StorageV1().VolumeAttributesClasses().Create(ctx, &storagev1.VolumeAttributesClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gold"}, DriverName: "example.com/csi", Parameters: map[string]string{"iops": "100"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := testClaim("golden", "1Gi", ptr.To(""))
	c.Spec.VolumeAttributesClassName = ptr.To("gold")
	if _, err := claims.Create(ctx, c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.StorageV1().VolumeAttributesClasses().Delete(ctx, "gold", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	vac, err := client.StorageV1().VolumeAttributesClasses().Get(ctx, "gold", metav1.GetOptions{})
	if err != nil || vac.DeletionTimestamp == nil {
		t.Fatalf("class in use after delete: %v", err)
	}
	if err := claims.Delete(ctx, "golden", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "class deleted after its claim", gone(func() error {
		_, err := client.StorageV1().VolumeAttributesClasses().Get(ctx, "gold", metav1.GetOptions{})
		return err
	}))
}

func TestPersistentVolumeClaimResize(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	for _, sc := range []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "grows"}, Provisioner: "example.com/csi", AllowVolumeExpansion: ptr.To(true)},
		{ObjectMeta: metav1.ObjectMeta{Name: "fixed"}, Provisioner: "example.com/csi"},
	} {
		if _, err := client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	claims := client.CoreV1().PersistentVolumeClaims("default")
	// Bound claims, through volumes made for them.
	for _, class := range []string{"grows", "fixed"} {
		pv := testVolume("vol-"+class, "1Gi", class)
		pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: class}
		if _, err := client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := claims.Create(ctx, testClaim(class, "1Gi", ptr.To(class)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "claim "+class+" bound", func() error {
			got, err := claims.Get(ctx, class, metav1.GetOptions{})
			if err != nil || got.Status.Phase != corev1.ClaimBound {
				return fmt.Errorf("claim %s: %v", class, err)
			}
			return nil
		})
	}
	if _, err := claims.Create(ctx, testClaim("pending", "1Gi", ptr.To("grows")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	resize := func(name, size string) error {
		cur, err := claims.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
		_, err = claims.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}
	for _, tc := range []struct {
		name, claim, size, want string
	}{
		{"a bound claim whose class allows expansion grows", "grows", "2Gi", ""},
		{"a class without allowVolumeExpansion refuses", "fixed", "2Gi",
			`persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`},
	} {
		err := resize(tc.claim, tc.size)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!apierrors.IsForbidden(err) || err.Error() != tc.want):
			t.Errorf("%s: got %v, want 403 %s", tc.name, err, tc.want)
		}
	}
	// A claim that is not bound never reaches the plugin's "Only bound
	// persistent volume claims can be expanded": validation, which runs
	// first, refuses any change to its spec.
	const want = `PersistentVolumeClaim "pending" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims`
	if err := resize("pending", "2Gi"); !apierrors.IsInvalid(err) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("unbound claim: got %v, want 422 %s", err, want)
	}
}
