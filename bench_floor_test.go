package fakeplane_test

import (
	"context"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane/internal/nullserver"
	"github.com/fakeplane/fakeplane/registry"
)

// The floor benchmarks run a fakeplane benchmark (the name without
// "Floor") against a null server (internal/nullserver) that answers with
// what fakeplane answered, and does nothing else. What they measure is
// client-go, HTTP/2 and TLS on this machine: the lower bound of the
// fakeplane figure. The difference between the two is fakeplane's own part.

// nullClient starts a null server with answers and returns a client of it.
func nullClient(b *testing.B, answers nullserver.Answers) kubernetes.Interface {
	b.Helper()
	s := nullserver.Start(answers)
	b.Cleanup(s.Close)
	c, err := kubernetes.NewForConfig(s.RESTConfig())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// rawProtobuf returns req's answer in protobuf, as it is on the wire.
func rawProtobuf(b *testing.B, req *rest.Request) []byte {
	b.Helper()
	body, err := req.SetHeader("Accept", nullserver.ProtobufType).DoRaw(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// emptyConfigMapList is an empty ConfigMapList in protobuf.
func emptyConfigMapList(b *testing.B) []byte {
	b.Helper()
	body, err := registry.ProtobufEncode(&corev1.ConfigMapList{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "1"},
	})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkFloorGet is BenchmarkGet against a null server answering with
// the ConfigMap fakeplane answered.
func BenchmarkFloorGet(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, 1)
	rc := client.(*kubernetes.Clientset).CoreV1().RESTClient()
	null := nullClient(b, nullserver.Answers{Object: rawProtobuf(b, rc.Get().Namespace(ns).Resource("configmaps").Name("cm-00000"))})
	ctx := context.Background()
	for b.Loop() {
		if _, err := null.CoreV1().ConfigMaps(ns).Get(ctx, "cm-00000", metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFloorCreate is BenchmarkCreate against a null server, which
// answers a create with the object it was sent.
func BenchmarkFloorCreate(b *testing.B) {
	null := nullClient(b, nullserver.Answers{})
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if _, err := null.CoreV1().ConfigMaps("ns").Create(ctx, benchConfigMap("cm-"+strconv.Itoa(i)), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFloorList is BenchmarkList against a null server answering with
// the list of 100 fakeplane answered.
func BenchmarkFloorList(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, benchListCount)
	rc := client.(*kubernetes.Clientset).CoreV1().RESTClient()
	list := rawProtobuf(b, rc.Get().Namespace(ns).Resource("configmaps").Param("labelSelector", "app=bench"))
	null := nullClient(b, nullserver.Answers{Lists: map[string][]byte{"app=bench": list}})
	for b.Loop() {
		benchList(b, null, ns, benchListCount)
	}
}

// BenchmarkFloorWatchEvent100Watchers is BenchmarkWatchEvent100Watchers
// against a null server, which sends each create to the 100 watches before
// it answers, as fakeplane does.
func BenchmarkFloorWatchEvent100Watchers(b *testing.B) {
	benchWatchFanOut(b, nullClient(b, nullserver.Answers{EmptyList: emptyConfigMapList(b)}), "ns")
}
