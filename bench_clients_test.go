package fakeplane_test

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
)

// benchClients is how many clients write at once in the throughput
// benchmarks, as fakeplane-bench's ops/s figures (-c 8).
const benchClients = 8

// runClients runs op on benchClients goroutines (at least: a multiple of
// GOMAXPROCS) until b.N ops are done; op gets a number unique to its call.
func runClients(b *testing.B, op func(i int64) error) {
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchClients + procs - 1) / procs)
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(next.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCreate8Clients creates ConfigMaps from 8 clients at once: the
// time per op is the inverse of the throughput.
func BenchmarkCreate8Clients(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	runClients(b, func(i int64) error {
		_, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap("cm-"+strconv.FormatInt(i, 10)), metav1.CreateOptions{})
		return err
	})
}

// runClientsOnConfigMaps runs op on benchClients goroutines until b.N ops
// are done, each goroutine on a ConfigMap of its own that it creates first:
// op gets it as the previous op returned it, and the op's number.
func runClientsOnConfigMaps(b *testing.B, client kubernetes.Interface, ns string, op func(cm *corev1.ConfigMap, i int) (*corev1.ConfigMap, error)) {
	ctx := context.Background()
	var clients atomic.Int64
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		cm, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap("cm-"+strconv.FormatInt(clients.Add(1), 10)), metav1.CreateOptions{})
		if err != nil {
			b.Error(err)
			return
		}
		for i := 0; pb.Next(); i++ {
			if cm, err = op(cm, i); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkUpdate8Clients updates ConfigMaps from 8 clients at once, one
// ConfigMap per client, each time with the object its previous update
// returned.
func BenchmarkUpdate8Clients(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	runClientsOnConfigMaps(b, client, ns, func(cm *corev1.ConfigMap, i int) (*corev1.ConfigMap, error) {
		cm.Data["i"] = strconv.Itoa(i)
		return client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	})
}

// BenchmarkPatch8Clients sends JSON merge patches of one key from 8 clients
// at once, each client to a ConfigMap of its own, as fakeplane-bench's
// patch throughput.
func BenchmarkPatch8Clients(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	runClientsOnConfigMaps(b, client, ns, func(cm *corev1.ConfigMap, i int) (*corev1.ConfigMap, error) {
		patch := []byte(`{"data":{"i":"` + strconv.Itoa(i) + `"}}`)
		return client.CoreV1().ConfigMaps(ns).Patch(ctx, cm.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	})
}

// BenchmarkApply8Clients applies ConfigMaps with server-side apply from 8
// clients at once, each client a manager of its own ConfigMap, as
// fakeplane-bench's apply throughput.
func BenchmarkApply8Clients(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	base := benchConfigMap("")
	var clients atomic.Int64
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		name := "cm-" + strconv.FormatInt(clients.Add(1), 10)
		for i := 0; pb.Next(); i++ {
			ac := corev1ac.ConfigMap(name, ns).WithLabels(base.Labels).WithData(map[string]string{"payload": base.Data["payload"], "i": strconv.Itoa(i)})
			if _, err := client.CoreV1().ConfigMaps(ns).Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "bench", Force: true}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
