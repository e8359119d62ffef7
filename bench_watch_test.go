package fakeplane_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// BenchmarkWatchEvent100Watchers measures watch fan-out: 100 watches (one
// client, so one HTTP/2 connection, as a controller's informers share) on
// a namespace, and per op one create; it reports the delivery latency from
// the start of the create to each watcher's ADDED event, as p50 and p99
// over all deliveries (metrics p50-ns and p99-ns).
func BenchmarkWatchEvent100Watchers(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchWatchFanOut(b, client, ns)
}

// benchWatchFanOut is BenchmarkWatchEvent100Watchers against client's
// server, in namespace ns.
func benchWatchFanOut(b *testing.B, client kubernetes.Interface, ns string) {
	const watchers = 100
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	list, err := client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	type delivery struct {
		name string
		at   time.Time
	}
	got := make(chan delivery, watchers*2)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for range watchers {
		w, err := client.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, LabelSelector: "app=bench"})
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Stop()
			for {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						return
					}
					if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added {
						select {
						case got <- delivery{cm.Name, time.Now()}:
						case <-ctx.Done():
							return
						}
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		name := "cm-" + strconv.Itoa(i)
		t0 := time.Now()
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap(name), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		timeout := time.After(30 * time.Second)
		for n := 0; n < watchers; n++ {
			select {
			case d := <-got:
				if d.name != name {
					b.Fatalf("got %s while waiting for %s", d.name, name)
				}
				lat = append(lat, d.at.Sub(t0))
			case <-timeout:
				b.Fatalf("%d of %d watchers had %s within 30s", n, watchers, name)
			}
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
}
