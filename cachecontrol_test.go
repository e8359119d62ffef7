package fakeplane_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// TestEveryAnswerSaysNotToCache checks kube-apiserver's Cache-Control on
// answers of every kind (resources, errors, discovery, health, refusals
// of anonymous and unauthenticated requests): "no-cache, private".
func TestEveryAnswerSaysNotToCache(t *testing.T) {
	cp := fakeplane.Start(t)
	admin, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	anonymous := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, tc := range []struct {
		name   string
		client *http.Client
		path   string
		code   int
	}{
		{"list", admin, "/api/v1/namespaces/default/configmaps", 200},
		{"not found", admin, "/api/v1/namespaces/default/configmaps/missing", 404},
		{"discovery", admin, "/apis", 200},
		{"version", admin, "/version", 200},
		{"openapi", admin, "/openapi/v3", 200},
		{"health", anonymous, "/healthz", 200},
		{"readiness", anonymous, "/readyz", 200},
		{"liveness", anonymous, "/livez", 200},
		{"forbidden to anonymous", anonymous, "/api/v1/namespaces", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.client.Get(cp.RESTConfig().Host + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Fatalf("GET %s: %d, want %d", tc.path, resp.StatusCode, tc.code)
			}
			if got := resp.Header.Values("Cache-Control"); len(got) != 1 || got[0] != "no-cache, private" {
				t.Fatalf("GET %s: Cache-Control %q, want [no-cache, private]", tc.path, got)
			}
		})
	}
}

// TestPanicIsAnsweredWithoutItsStack sends the JSON patch on which the JSON
// patch library (upstream's too) panics: the answer is kube-apiserver's
// 500 for a panic, which names nothing of it, and the server goes on.
func TestPanicIsAnsweredWithoutItsStack(t *testing.T) {
	cp := fakeplane.Start(t)
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	base := cp.RESTConfig().Host + "/api/v1/namespaces/default/configmaps"
	resp, err := hc.Post(base, "application/json", strings.NewReader(`{"metadata":{"name":"p"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, err := http.NewRequest(http.MethodPatch, base+"/p", strings.NewReader(`[{"op":"test","path":""}]`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json-patch+json")
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || string(body) != "This request caused apiserver to panic. Look in the logs for details.\n" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	if resp, err = hc.Get(base + "/p"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET after the panic: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestFutureResourceVersionIsWaitedFor lists at a resourceVersion ahead of
// the store's: kube-apiserver's watch cache waits for it, then answers 504
// "Too large resource version" with its cause. (A raw request: client-go
// would retry a 504 that carries Retry-After.)
func TestFutureResourceVersionIsWaitedFor(t *testing.T) {
	cp := fakeplane.Start(t)
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	list, err := kubernetesClient(t, cp).CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := strconv.ParseInt(list.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	future := strconv.FormatInt(rv+300, 10)
	resp, err := hc.Get(cp.RESTConfig().Host + "/api/v1/namespaces/default/configmaps?resourceVersionMatch=NotOlderThan&resourceVersion=" + future)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st metav1.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 504 || st.Code != 504 || st.Reason != metav1.StatusReasonTimeout ||
		!strings.HasPrefix(st.Message, "Timeout: Too large resource version: "+future+", current: ") ||
		st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge {
		t.Fatalf("list at resourceVersion %s: %d %+v", future, resp.StatusCode, st)
	}
}
