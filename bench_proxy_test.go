package fakeplane_test

// Request latency through the proxies of issue 15: a client reaching the
// control plane directly, through SOCKS5 and through HTTP CONNECT; and an
// aggregated API request with the aggregator's connection direct or through
// a Konnectivity server (GRPC over a Unix socket). Connections are reused,
// as clients reuse them: every byte goes through the proxy's tunnel. Each
// reports its median besides the mean (ns/op).

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fakeplane/fakeplane"
)

// timeOps runs op b.N times and reports the median duration.
func timeOps(b *testing.B, op func() error) {
	b.Helper()
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "ns-median/op")
}

func BenchmarkRequestLatencyThroughProxies(b *testing.B) {
	cp := fakeplane.Start(b)
	for _, kind := range []string{"direct", "socks5", "http"} {
		b.Run(kind, func(b *testing.B) {
			cfg := cp.RESTConfig()
			if kind != "direct" {
				_, proxyURL := clientProxy(b, kind)
				var err error
				if cfg, err = clientcmd.BuildConfigFromFlags("", proxiedKubeconfig(b, cp, proxyURL)); err != nil {
					b.Fatal(err)
				}
			}
			cfg.QPS = -1
			cs := kubernetes.NewForConfigOrDie(cfg)
			ctx := ctxT(b)
			timeOps(b, func() error {
				_, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
				return err
			})
		})
	}
}

func BenchmarkAggregatedRequestLatencyThroughKonnectivity(b *testing.B) {
	for _, mode := range []string{"direct", "konnectivity-grpc"} {
		b.Run(mode, func(b *testing.B) {
			var opts []fakeplane.Option
			if mode != "direct" {
				_, conn := egressProxy(b, "GRPC-UDS")
				opts = append(opts, fakeplane.WithEgressSelectorConfigFile(writeEgressConfig(b, "apiserver.k8s.io/v1beta1", map[string]string{"cluster": conn})))
			}
			cp, _ := startWardle(b, opts...)
			cfg := rest.CopyConfig(cp.RESTConfig())
			flunders := dynamic.NewForConfigOrDie(cfg).Resource(flundersGVR).Namespace("default")
			ctx := ctxT(b)
			timeOps(b, func() error {
				_, err := flunders.List(ctx, metav1.ListOptions{})
				return err
			})
		})
	}
}
