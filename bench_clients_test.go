package fakeplane_test

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// BenchmarkUpdate8Clients updates ConfigMaps from 8 clients at once, one
// ConfigMap per client, each time with the object its previous update
// returned.
func BenchmarkUpdate8Clients(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	var clients atomic.Int64
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		name := "cm-" + strconv.FormatInt(clients.Add(1), 10)
		cm, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap(name), metav1.CreateOptions{})
		if err != nil {
			b.Error(err)
			return
		}
		for i := 0; pb.Next(); i++ {
			cm.Data["i"] = strconv.Itoa(i)
			if cm, err = client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
