package fakeplane_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// gzipThreshold is kube-apiserver's: a body larger than 128 KiB is
// compressed when the client accepts gzip.
const gzipThreshold = 128 * 1024

// rawAnswer is a response's compression headers and its body, decompressed
// when it came gzipped.
type rawAnswer struct {
	code     int
	encoding string
	vary     []string
	body     []byte
}

// getRaw sends a GET with the given headers (rawExchange: an
// Accept-Encoding set by the caller turns off Go's transparent
// decompression) and decompresses a gzipped answer.
func getRaw(t *testing.T, cp *fakeplane.ControlPlane, path string, headers map[string]string) rawAnswer {
	t.Helper()
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	code, hdr, body := rawExchange(t, cp, http.MethodGet, path, "", nil, h)
	a := rawAnswer{code: code, encoding: hdr.Get("Content-Encoding"), vary: hdr.Values("Vary"), body: body}
	if a.encoding == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("GET %s: Content-Encoding gzip, but: %v", path, err)
		}
		var rerr error
		if a.body, rerr = io.ReadAll(zr); rerr != nil {
			t.Fatalf("GET %s: gzip body: %v", path, rerr)
		}
	}
	return a
}

// TestLargeAnswersGzippedAsKubeAPIServer checks kube-apiserver's response
// compression (recorded from kube-apiserver v1.37 with curl): an encoded
// answer of more than 128 KiB, newline included, comes gzipped with
// Content-Encoding and Vary headers when Accept-Encoding names gzip
// (exactly, lower case, without q=0), in every encoding and form (JSON,
// pretty JSON, YAML, protobuf, Table, PartialObjectMetadataList); one byte
// less, another Accept-Encoding and /version come as they are.
func TestLargeAnswersGzippedAsKubeAPIServer(t *testing.T) {
	cp := fakeplane.Start(t)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cp.RESTConfig())

	// One ConfigMap whose JSON answer is exactly the threshold, then one
	// byte more.
	ns := "default"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "edge"}, Data: map[string]string{"v": strings.Repeat("y", 130000)}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	objPath := "/api/v1/namespaces/default/configmaps/edge"
	resize := func(size int) {
		t.Helper()
		cur, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "edge", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		plain := getRaw(t, cp, objPath, map[string]string{"Accept-Encoding": "identity"})
		cur.Data["v"] = strings.Repeat("y", len(cur.Data["v"])+size-len(plain.body))
		if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		// The resourceVersion's length may have changed with the update.
		if got := getRaw(t, cp, objPath, map[string]string{"Accept-Encoding": "identity"}); len(got.body) != size {
			cur.Data["v"] = strings.Repeat("y", len(cur.Data["v"])+size-len(got.body))
			if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if got := getRaw(t, cp, objPath, map[string]string{"Accept-Encoding": "identity"}); len(got.body) != size {
			t.Fatalf("answer of %d bytes, want %d", len(got.body), size)
		}
	}
	gz := map[string]string{"Accept-Encoding": "gzip"}
	resize(gzipThreshold)
	if a := getRaw(t, cp, objPath, gz); a.encoding != "" || len(a.vary) != 0 {
		t.Fatalf("an answer of exactly 128 KiB: Content-Encoding %q, Vary %q; want neither", a.encoding, a.vary)
	}
	resize(gzipThreshold + 1)
	if a := getRaw(t, cp, objPath, gz); a.encoding != "gzip" || fmt.Sprint(a.vary) != "[Accept-Encoding]" || len(a.body) != gzipThreshold+1 {
		t.Fatalf("an answer of 128 KiB and a byte: Content-Encoding %q, Vary %q, %d bytes; want gzip, [Accept-Encoding], %d", a.encoding, a.vary, len(a.body), gzipThreshold+1)
	}

	// A list of forty ConfigMaps of 4 KB each is larger than the threshold in every form.
	for i := range 40 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm%02d", i), Namespace: "big"}, Data: map[string]string{"v": strings.Repeat("x", 4000)}}
		if i == 0 {
			if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "big"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cs.CoreV1().ConfigMaps("big").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	list := "/api/v1/namespaces/big/configmaps"
	for _, tc := range []struct {
		name     string
		path     string
		headers  map[string]string
		wantGzip bool
		wantBody string // a prefix of the decompressed body
	}{
		{"JSON", list, gz, true, `{"kind":"ConfigMapList"`},
		{"pretty JSON", list + "?pretty=true", gz, true, "{\n  \"kind\": \"ConfigMapList\""},
		{"YAML", list, map[string]string{"Accept-Encoding": "gzip", "Accept": "application/yaml"}, true, "apiVersion: v1\nitems:"},
		{"protobuf", list, map[string]string{"Accept-Encoding": "gzip", "Accept": "application/vnd.kubernetes.protobuf"}, true, "k8s\x00"},
		{"Table", list + "?includeObject=Object", map[string]string{"Accept-Encoding": "gzip", "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}, true, `{"kind":"Table"`},
		{"PartialObjectMetadataList, under the threshold", list, map[string]string{"Accept-Encoding": "gzip", "Accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}, false, `{"kind":"PartialObjectMetadataList"`},
		{"gzip among others", list, map[string]string{"Accept-Encoding": "br, gzip, deflate"}, true, `{"kind":"ConfigMapList"`},
		{"gzip refused", list, map[string]string{"Accept-Encoding": "deflate, gzip;q=0"}, false, `{"kind":"ConfigMapList"`},
		{"GZIP in capitals", list, map[string]string{"Accept-Encoding": "GZIP"}, false, `{"kind":"ConfigMapList"`},
		{"identity", list, map[string]string{"Accept-Encoding": "identity"}, false, `{"kind":"ConfigMapList"`},
		{"a page under the threshold", list + "?limit=20", gz, false, `{"kind":"ConfigMapList"`},
		{"version", "/version", gz, false, "{\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := getRaw(t, cp, tc.path, tc.headers)
			if a.code != http.StatusOK {
				t.Fatalf("GET %s: %d %s", tc.path, a.code, a.body)
			}
			if got := a.encoding == "gzip"; got != tc.wantGzip {
				t.Fatalf("GET %s %v: gzipped %v, want %v", tc.path, tc.headers, got, tc.wantGzip)
			}
			if tc.wantGzip && fmt.Sprint(a.vary) != "[Accept-Encoding]" {
				t.Fatalf("Vary %q, want [Accept-Encoding]", a.vary)
			}
			if !bytes.HasPrefix(a.body, []byte(tc.wantBody)) {
				t.Fatalf("body starts %q, want %q", a.body[:min(len(a.body), 40)], tc.wantBody)
			}
		})
	}
}
