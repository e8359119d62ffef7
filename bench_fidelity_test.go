package fakeplane_test

import (
	"context"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
)

// Benchmarks of the API-fidelity paths against their plain counterparts,
// each pair measured in one run: server-side apply against a merge patch of
// the same change, and a list as Table, as protobuf and as metadata only
// against the JSON list.

// BenchmarkPatchMerge changes one key of a ConfigMap with a JSON merge patch.
func BenchmarkPatchMerge(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap("cm"), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		patch := []byte(`{"data":{"i":"` + strconv.Itoa(i) + `"}}`)
		if _, err := client.CoreV1().ConfigMaps(ns).Patch(ctx, "cm", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPatchApply makes the same change with server-side apply.
func BenchmarkPatchApply(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	base := benchConfigMap("cm")
	for i := 0; b.Loop(); i++ {
		ac := corev1ac.ConfigMap("cm", ns).WithLabels(base.Labels).WithData(map[string]string{"payload": base.Data["payload"], "i": strconv.Itoa(i)})
		if _, err := client.CoreV1().ConfigMaps(ns).Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "bench", Force: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchListAs lists benchListCount ConfigMaps with an Accept header, raw.
func benchListAs(b *testing.B, accept string) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, benchListCount)
	rc := client.(*kubernetes.Clientset).CoreV1().RESTClient()
	ctx := context.Background()
	for b.Loop() {
		body, err := rc.Get().Namespace(ns).Resource("configmaps").Param("labelSelector", "app=bench").SetHeader("Accept", accept).DoRaw(ctx)
		if err != nil || len(body) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkListJSON is the plain JSON list of 100 ConfigMaps.
func BenchmarkListJSON(b *testing.B) { benchListAs(b, "application/json") }

// BenchmarkListProtobuf is the same list in protobuf.
func BenchmarkListProtobuf(b *testing.B) { benchListAs(b, "application/vnd.kubernetes.protobuf") }

// BenchmarkListTable is the same list as a Table, as kubectl get asks.
func BenchmarkListTable(b *testing.B) {
	benchListAs(b, "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
}

// BenchmarkListMetadata is the same list as PartialObjectMetadataList.
func BenchmarkListMetadata(b *testing.B) {
	benchListAs(b, "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json")
}
