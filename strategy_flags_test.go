package fakeplane_test

import (
	"context"
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// TestCSIDriverGenerationFollowsSpec checks upstream's CSIDriver strategy: a
// new CSIDriver has no generation, and an update bumps it only when the spec
// changes.
func TestCSIDriverGenerationFollowsSpec(t *testing.T) {
	cs := kubernetes.NewForConfigOrDie(fakeplane.Start(t).RESTConfig())
	ctx := context.Background()
	drivers := cs.StorageV1().CSIDrivers()
	d, err := drivers.Create(ctx, &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "gen.example.com"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation != 0 {
		t.Errorf("generation at create = %d, want 0", d.Generation)
	}
	d.Labels = map[string]string{"a": "b"}
	if d, err = drivers.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if d.Generation != 0 {
		t.Errorf("generation after a metadata change = %d, want 0", d.Generation)
	}
	d.Spec.PodInfoOnMount = ptr.To(!ptr.Deref(d.Spec.PodInfoOnMount, false))
	if d, err = drivers.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if d.Generation != 1 {
		t.Errorf("generation after a spec change = %d, want 1", d.Generation)
	}
}

// TestDeviceTaintRuleUpdateNeedsResourceVersion checks that resource.k8s.io/v1
// DeviceTaintRules refuse an update without metadata.resourceVersion, as
// upstream's v1 strategy does.
func TestDeviceTaintRuleUpdateNeedsResourceVersion(t *testing.T) {
	cs := kubernetes.NewForConfigOrDie(fakeplane.Start(t).RESTConfig())
	ctx := context.Background()
	rules := cs.ResourceV1().DeviceTaintRules()
	r, err := rules.Create(ctx, &resourcev1.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: "taint"},
		Spec:       resourcev1.DeviceTaintRuleSpec{Taint: resourcev1.DeviceTaint{Key: "example.com/k", Effect: resourcev1.DeviceTaintEffectNoSchedule}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.ResourceVersion = ""
	_, err = rules.Update(ctx, r, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "metadata.resourceVersion: Invalid value: 0: must be specified for an update") {
		t.Fatalf("update without resourceVersion: %v, want 422 naming metadata.resourceVersion", err)
	}
}
