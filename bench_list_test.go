package fakeplane_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// BenchmarkList10kServed compares what serving a list of 10,000 objects
// costs for a built-in resource (ConfigMaps of ~300 bytes) and a custom
// resource (a CRD with a structural schema), as JSON, the one encoding
// custom resources have: the client reads the body and decodes nothing, so
// the figures are the server's (and the wire's) alone. (Decoding 10,000
// objects into unstructured maps, as the dynamic client does, costs the
// client several times what serving them costs; see
// BenchmarkList10kCustomResources.)
func BenchmarkList10kServed(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(widgetCRD(0)), 0o600); err != nil {
		b.Fatal(err)
	}
	cp := fakeplane.Start(b, fakeplane.WithCRDs(dir))
	client := benchClient(b, cp)
	ns := benchNamespace(b, client)
	benchFill(b, client, ns, benchBigCount)
	widgets := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets0"}).Namespace(ns)
	var wg sync.WaitGroup
	errs := make(chan error, benchWorkers)
	for w := range benchWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < benchBigCount; i += benchWorkers {
				obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget0",
					"metadata": map[string]any{"name": fmt.Sprintf("w%05d", i)}, "spec": map[string]any{"size": int64(i % 7)}}}
				if _, err := widgets.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"configmaps", "/api/v1/namespaces/" + ns + "/configmaps?labelSelector=app%3Dbench"},
		{"customresources", "/apis/example.com/v1/namespaces/" + ns + "/widgets0"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				req, err := http.NewRequest(http.MethodGet, cp.RESTConfig().Host+tc.path, nil)
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Accept", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("GET %s: %d %v", tc.path, resp.StatusCode, err)
				}
				size = len(body)
			}
			b.ReportMetric(float64(size)/1e6, "MB")
		})
	}
}

// BenchmarkGzipListBody compresses the protobuf list of 10,000 ConfigMaps
// at kube-apiserver's gzip level (1) with the standard library's writer
// (kube-apiserver's) and klauspost/compress's (the server's, see
// server/compression.go).
func BenchmarkGzipListBody(b *testing.B) {
	cp, client, ns := benchSetup(b)
	benchFill(b, client, ns, benchBigCount)
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, cp.RESTConfig().Host+"/api/v1/namespaces/"+ns+"/configmaps?labelSelector=app%3Dbench", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf")
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		w    interface {
			io.WriteCloser
			Reset(io.Writer)
		}
	}{
		{"compress/gzip", must(gzip.NewWriterLevel(io.Discard, gzip.BestSpeed))},
		{"klauspost", must(kgzip.NewWriterLevel(io.Discard, kgzip.BestSpeed))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			var out countingWriter
			for b.Loop() {
				out = 0
				tc.w.Reset(&out)
				if _, err := tc.w.Write(body); err != nil {
					b.Fatal(err)
				}
				if err := tc.w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out)/float64(len(body)), "ratio")
		})
	}
}

// must is v, or a panic with err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// countingWriter counts what is written to it.
type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
