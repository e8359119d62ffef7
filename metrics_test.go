package fakeplane_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// scrape reads a control plane's /metrics.
func scrape(t *testing.T, cp *fakeplane.ControlPlane) string {
	t.Helper()
	b, err := clientset(t, cp).CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	return string(b)
}

// TestMetrics checks /metrics: kube-apiserver's request counter and
// latency histogram with its labels, and the stored object counts; each
// control plane in a process counts its own requests.
func TestMetrics(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	other := fakeplane.Start(t)
	ctx := context.Background()
	cms := clientset(t, cp).CoreV1().ConfigMaps("default")
	before := scrape(t, cp)
	for _, name := range []string{"m1", "m2", "m3"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m1"}}, metav1.CreateOptions{}); err == nil {
		t.Fatal("second create of m1 succeeded")
	}
	if _, err := cms.List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry"}}, metav1.CreateOptions{DryRun: []string{"All"}}); err != nil {
		t.Fatal(err)
	}
	// A dryRun value the API refuses is counted under "invalid", as
	// upstream's cleanDryRun labels it.
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}, metav1.CreateOptions{DryRun: []string{"Maybe"}}); !apierrors.IsInvalid(err) {
		t.Fatalf("create with dryRun=Maybe: %v, want 422", err)
	}
	got := scrape(t, cp)
	storedBefore := metricValue(before, `apiserver_storage_objects{resource="configmaps"}`)
	for _, want := range []string{
		`apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"} 3`,
		`apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"} 1`,
		`apiserver_request_total{code="201",component="apiserver",dry_run="All",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"} 1`,
		`apiserver_request_total{code="422",component="apiserver",dry_run="invalid",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"} 1`,
		`apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"} 4`,
		`apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1",le="60"} 4`,
		`apiserver_resource_objects{group="",resource="configmaps"} ` + strconv.Itoa(storedBefore+3),
		`apiserver_storage_objects{resource="configmaps"} ` + strconv.Itoa(storedBefore+3),
		`# TYPE apiserver_request_total counter`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if o := scrape(t, other); strings.Contains(o, `resource="configmaps",scope="resource"`) {
		t.Errorf("another control plane counted this one's requests")
	}
	// Refused by authentication (401) or authorization (403), a request
	// never reaches kube-apiserver's instrumented handlers: not counted
	// (recorded on refplane).
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for token, code := range map[string]int{"": http.StatusForbidden, "bogus": http.StatusUnauthorized} {
		req, err := http.NewRequest(http.MethodGet, cp.URL()+"/api/v1/namespaces/default/secrets", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != code {
			t.Fatalf("list of secrets with token %q: %d, want %d", token, resp.StatusCode, code)
		}
	}
	for _, l := range strings.Split(scrape(t, cp), "\n") {
		if strings.HasPrefix(l, "apiserver_request_") && strings.Contains(l, `resource="secrets"`) {
			t.Errorf("a refused request counted: %s", l)
		}
	}
}

// metricValue returns the integer value of a sample line that starts with
// prefix, or -1000 when there is none.
func metricValue(text, prefix string) int {
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, prefix+" "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return -1000
			}
			return n
		}
	}
	return -1000
}

// TestMetricsFeatureGates checks kube-apiserver's kubernetes_feature_enabled
// in /metrics: every v1.37 gate with its stage (empty for GA) and default,
// lines as a real v1.37 kube-apiserver (refplane) printed them.
func TestMetricsFeatureGates(t *testing.T) {
	t.Parallel()
	text := scrape(t, fakeplane.Start(t))
	for _, want := range []string{
		"# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.",
		"# TYPE kubernetes_feature_enabled gauge",
		`kubernetes_feature_enabled{name="APIResponseCompression",stage="BETA"} 1`,
		`kubernetes_feature_enabled{name="APIServerWebhookAuthenticationToken",stage="ALPHA"} 0`,
		`kubernetes_feature_enabled{name="AggregatedDiscoveryRemoveBetaType",stage="DEPRECATED"} 1`,
		`kubernetes_feature_enabled{name="AllAlpha",stage="ALPHA"} 0`,
		`kubernetes_feature_enabled{name="AllowDNSOnlyNodeCSR",stage="DEPRECATED"} 0`,
		`kubernetes_feature_enabled{name="CustomResourceFieldSelectors",stage=""} 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if n := strings.Count(text, "\nkubernetes_feature_enabled{"); n != 254 {
		t.Errorf("%d gates in /metrics, want kube-apiserver v1.37's 254", n)
	}
}

// TestMetricsCountNonResourceRequestsAsKubeAPIServer checks which requests
// outside the API's resources /metrics counts, and with what labels, as a
// real v1.37 kube-apiserver (refplane) counted the same requests: the
// health endpoints (the verb from the method: HEAD as GET, ?watch=true as
// WATCH) but not their checks, the OpenAPI v3 index and documents,
// aggregated discovery but not the legacy documents, /flagz and /statusz
// (a structured answer's group and version) once served (not an anonymous
// request's 403); /version not at all.
func TestMetricsCountNonResourceRequestsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	// kube-apiserver alone: no controller of the control plane's own
	// reads discovery meanwhile.
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape())
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	const aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	for _, req := range []struct{ method, path, accept string }{
		{"GET", "/readyz", ""}, {"POST", "/readyz", ""}, {"HEAD", "/livez", ""}, {"GET", "/healthz?watch=true", ""},
		{"GET", "/healthz/etcd", ""}, {"GET", "/livez/ping", ""},
		{"GET", "/openapi/v3", ""}, {"GET", "/openapi/v3/api/v1", ""},
		{"GET", "/api", aggregated}, {"GET", "/apis", aggregated}, {"GET", "/api", ""}, {"GET", "/apis/apps", aggregated},
		{"GET", "/flagz", ""}, {"GET", "/flagz", "application/json;g=config.k8s.io;v=v1beta1;as=Flagz"}, {"GET", "/statusz", ""},
		{"GET", "/version", ""},
	} {
		r, err := http.NewRequest(req.method, cp.URL()+req.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if req.accept != "" {
			r.Header.Set("Accept", req.accept)
		}
		resp, err := hc.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	// Anonymous: /readyz is served, /flagz refused (not counted).
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for path, code := range map[string]int{"/readyz": http.StatusOK, "/flagz": http.StatusForbidden} {
		resp, err := anon.Get(cp.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != code {
			t.Fatalf("anonymous GET %s: %d, want %d", path, resp.StatusCode, code)
		}
	}
	var got []string
	for _, l := range strings.Split(scrape(t, cp), "\n") {
		if strings.HasPrefix(l, "apiserver_request_total{") && strings.Contains(l, `scope=""`) {
			got = append(got, l)
		}
	}
	want := []string{
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="WATCH",version=""} 1`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/livez",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""} 2`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="POST",version=""} 1`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="openapi/v3",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="openapi/v3/",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="api",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="apis",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="flagz",scope="",subresource="",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="statusz",scope="",subresource="",verb="GET",version=""} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="config.k8s.io",resource="flagz",scope="",subresource="",verb="GET",version="v1beta1"} 1`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("non-resource request counts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
