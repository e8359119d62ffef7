package fakeplane_test

import (
	"encoding/json"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane"
)

// TestManagersOfEitherHPAVersionAreKept writes a HorizontalPodAutoscaler
// through autoscaling/v1 and autoscaling/v2 by three managers: each write
// keeps the managers recorded through the other version, their fields
// compared in that version, as kube-apiserver's field manager converts
// them (refplane's managed fields). The HPA controller's status writes,
// through v2, keep the v1 writer's entry too.
func TestManagersOfEitherHPAVersionAreKept(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cs := clientset(t, cp)
	hpa := &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "h"},
		Spec:       autoscalingv1.HorizontalPodAutoscalerSpec{MaxReplicas: 3, ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}},
	}
	if _, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Create(ctx, hpa, metav1.CreateOptions{FieldManager: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Patch(ctx, "h", types.MergePatchType, []byte(`{"spec":{"minReplicas":2}}`), metav1.PatchOptions{FieldManager: "b"}); err != nil {
		t.Fatal(err)
	}
	got, err := cs.AutoscalingV1().HorizontalPodAutoscalers("default").Patch(ctx, "h", types.MergePatchType, []byte(`{"spec":{"maxReplicas":5}}`), metav1.PatchOptions{FieldManager: "c"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a autoscaling/v1": `{"f:spec":{"f:scaleTargetRef":{},"f:targetCPUUtilizationPercentage":{}}}`,
		"b autoscaling/v2": `{"f:spec":{"f:minReplicas":{}}}`,
		"c autoscaling/v1": `{"f:spec":{"f:maxReplicas":{}}}`,
	}
	for _, m := range got.ManagedFields {
		key := m.Manager + " " + m.APIVersion
		w, ok := want[key]
		if !ok {
			continue
		}
		delete(want, key)
		var gotFields, wantFields any
		_ = json.Unmarshal(m.FieldsV1.Raw, &gotFields)
		_ = json.Unmarshal([]byte(w), &wantFields)
		if g, _ := json.Marshal(gotFields); string(g) != w {
			t.Errorf("%s owns %s, want %s", key, g, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("managers missing: %v, have %+v", want, got.ManagedFields)
	}
}
