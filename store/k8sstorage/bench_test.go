package k8sstorage

import (
	"context"
	"fmt"
	"testing"

	storagetesting "k8s.io/apiserver/pkg/storage/testing"
)

// The benchmarks of k8s.io/apiserver/pkg/storage/testing, which upstream
// runs against etcd3, against the adapter over a bbolt store; smaller than
// upstream's dimensions so that one run takes seconds.

// benchmarkData is the cluster the benchmarks store.
func benchmarkData() storagetesting.BenchmarkData {
	return storagetesting.PrepareBenchmarkData(50, 300, 500)
}

func BenchmarkStoreWriteThroughput(b *testing.B) {
	data := benchmarkData()
	b.Run(fmt.Sprintf("Namespaces=%d/Pods=%d/Nodes=%d", len(data.NamespaceNames), len(data.Pods), len(data.NodeNames)), func(b *testing.B) {
		f := newFixture(b)
		storagetesting.RunBenchmarkWriteThroughput(context.Background(), b, f, data, false, nil)
	})
}

func BenchmarkStoreList(b *testing.B) {
	data := benchmarkData()
	b.Run(fmt.Sprintf("Namespaces=%d/Pods=%d/Nodes=%d", len(data.NamespaceNames), len(data.Pods), len(data.NodeNames)), func(b *testing.B) {
		f := newFixture(b)
		if err := storagetesting.PrecreateBenchmarkPods(context.Background(), f, data); err != nil {
			b.Fatal(err)
		}
		storagetesting.RunBenchmarkStoreList(context.Background(), b, f, data, false)
	})
}

func BenchmarkStoreStats(b *testing.B) {
	data := benchmarkData()
	f := newFixture(b)
	if err := storagetesting.PrecreateBenchmarkPods(context.Background(), f, data); err != nil {
		b.Fatal(err)
	}
	storagetesting.RunBenchmarkStoreStats(context.Background(), b, f)
}
