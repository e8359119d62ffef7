package fakeplane_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// TestStatuszAsKubeAPIServer checks /statusz against kube-apiserver v1.37's
// (recorded from refplane): the text page, its structured form, and the 406
// for a plain JSON Accept.
func TestStatuszAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)

	code, ctype, body := rawRequest(t, cp, "GET", "/statusz", "", nil, nil)
	// Upstream picks one of four delimiters at random, to keep scripts
	// from parsing the page.
	d := `(:|: |=| ) `
	page := regexp.MustCompile(`^\napiserver statusz\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only\.\n\n` +
		`Started` + d + `[A-Z][a-z]{2} [A-Z][a-z]{2} +[0-9]+ [0-9:]{8} [A-Z+0-9-]+ [0-9]{4}\nUp` + d + `[0-9]+ hr [0-9]{2} min [0-9]{2} sec\n` +
		`Go version` + d + regexp.QuoteMeta(runtime.Version()) + `\nBinary version` + d + `1\.37\.2\nEmulation version` + d + `1\.37\n` +
		`Paths` + d + `/flagz /healthz /livez /metrics /readyz /statusz /version\n$`)
	if code != 200 || ctype != "text/plain; charset=utf-8" || !page.Match(body) {
		t.Errorf("text: %d %s\n%q", code, ctype, body)
	}

	code, ctype, body = rawRequest(t, cp, "GET", "/statusz", "", nil, http.Header{"Accept": {"application/json;as=Statusz;v=v1beta1;g=config.k8s.io"}})
	var st struct {
		Kind, APIVersion string
		Metadata         struct{ Name string }
		StartTime        string
		GoVersion        string
		BinaryVersion    string
		EmulationVersion string
		Paths            []string
	}
	if err := json.Unmarshal(body, &st); err != nil || code != 200 || ctype != "application/json;g=config.k8s.io;v=v1beta1;as=Statusz" {
		t.Fatalf("structured: %d %s %v\n%s", code, ctype, err, body)
	}
	if st.Kind != "Statusz" || st.APIVersion != "config.k8s.io/v1beta1" || st.Metadata.Name != "apiserver" || st.StartTime == "" ||
		st.GoVersion != runtime.Version() || st.BinaryVersion != "1.37.2" || st.EmulationVersion != "1.37" ||
		!slices.Equal(st.Paths, []string{"/flagz", "/healthz", "/livez", "/metrics", "/readyz", "/statusz", "/version"}) {
		t.Errorf("structured: %+v", st)
	}

	code, _, body = rawRequest(t, cp, "GET", "/statusz", "", nil, http.Header{"Accept": {"application/json"}})
	if code != 406 || !strings.Contains(string(body), `"message":"only the following media types are accepted: application/json, application/yaml, text/plain"`) {
		t.Errorf("plain JSON: %d %s", code, body)
	}
}

// TestFlagzAsKubeAPIServer checks /flagz against kube-apiserver v1.37's
// (recorded from refplane): the text page lists the flags sorted by name,
// the structured forms (v1beta1, and v1alpha1 with its deprecation warning)
// hold them by name, a plain JSON Accept is a 406; a control plane started
// without WithFlagz lists none.
func TestFlagzAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	flags := map[string]string{"service-cluster-ip-range": "10.0.0.0/24", "anonymous-auth": "true", "authorization-mode": "[RBAC]"}
	cp := fakeplane.Start(t, fakeplane.WithFlagz(flags))
	const head = "\napiserver flagz\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.\n"
	// Upstream picks one of four delimiters at random, to keep scripts
	// from parsing the page.
	d := `(:|: |=| )`
	page := regexp.MustCompile(`^` + regexp.QuoteMeta(head) + `anonymous-auth` + d + `true\nauthorization-mode` + d + `\[RBAC\]\nservice-cluster-ip-range` + d + `10\.0\.0\.0/24\n$`)
	code, ctype, body := rawRequest(t, cp, "GET", "/flagz", "", nil, nil)
	if code != 200 || ctype != "text/plain; charset=utf-8" || !page.Match(body) {
		t.Errorf("text: %d %s\n%q", code, ctype, body)
	}

	for _, tc := range []struct{ version, warning string }{
		{"v1beta1", ""},
		{"v1alpha1", `299 - "This version of the flagz endpoint is deprecated. Please use a newer version."`},
	} {
		accept := "application/json;g=config.k8s.io;v=" + tc.version + ";as=Flagz"
		code, h, body := rawExchange(t, cp, "GET", "/flagz", "", nil, http.Header{"Accept": {accept}})
		var got struct {
			Kind, APIVersion string
			Metadata         struct{ Name string }
			Flags            map[string]string
		}
		if err := json.Unmarshal(body, &got); err != nil || code != 200 || h.Get("Content-Type") != accept || h.Get("Warning") != tc.warning {
			t.Fatalf("%s: %d %s %q %v\n%s", tc.version, code, h.Get("Content-Type"), h.Get("Warning"), err, body)
		}
		if got.Kind != "Flagz" || got.APIVersion != "config.k8s.io/"+tc.version || got.Metadata.Name != "apiserver" || !maps.Equal(got.Flags, flags) {
			t.Errorf("%s: %+v", tc.version, got)
		}
	}

	code, _, body = rawRequest(t, cp, "GET", "/flagz", "", nil, http.Header{"Accept": {"application/json"}})
	if code != 406 || !strings.Contains(string(body), `"message":"only the following media types are accepted: application/json, application/yaml, text/plain"`) {
		t.Errorf("plain JSON: %d %s", code, body)
	}

	none := fakeplane.Start(t)
	if code, _, body := rawRequest(t, none, "GET", "/flagz", "", nil, nil); code != 200 || string(body) != head {
		t.Errorf("without flags: %d %q", code, body)
	}
}

// TestHealthSLIsAsKubeAPIServer checks /metrics/slis against kube-apiserver
// v1.37's (recorded from refplane): each check a root health endpoint ran,
// less those ?exclude= named, is a kubernetes_healthcheck gauge and a
// kubernetes_healthchecks_total counter; a check's own path counts nothing.
// The counts are the control plane's: another one's requests do not show.
func TestHealthSLIsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp, other := fakeplane.Start(t), fakeplane.Start(t)
	for _, p := range []string{"/healthz", "/healthz", "/livez?exclude=ping&exclude=etcd", "/livez/log", "/readyz/ping"} {
		if code, _, body := rawRequest(t, cp, "GET", p, "", nil, nil); code != 200 {
			t.Fatalf("%s: %d %s", p, code, body)
		}
	}
	code, ctype, body := rawRequest(t, cp, "GET", "/metrics/slis", "", nil, nil)
	if code != 200 || ctype != "text/plain; version=0.0.4; charset=utf-8; escaping=underscores" {
		t.Fatalf("%d %s", code, ctype)
	}
	page := string(body)
	for _, want := range []string{
		"# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.\n# TYPE kubernetes_healthcheck gauge\n",
		"# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all healthcheck.\n# TYPE kubernetes_healthchecks_total counter\n",
		`kubernetes_healthcheck{name="ping",type="healthz"} 1` + "\n",
		`kubernetes_healthchecks_total{name="ping",status="success",type="healthz"} 2` + "\n",
		`kubernetes_healthchecks_total{name="poststarthook/rbac/bootstrap-roles",status="success",type="healthz"} 2` + "\n",
		`kubernetes_healthchecks_total{name="log",status="success",type="livez"} 1` + "\n",
		"# TYPE process_start_time_seconds gauge\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q in\n%s", want, page)
		}
	}
	for _, absent := range []string{`name="ping",type="livez"`, `name="etcd",type="livez"`, `type="readyz"`} {
		if strings.Contains(page, absent) {
			t.Errorf("%s counted", absent)
		}
	}
	if _, _, body := rawRequest(t, other, "GET", "/metrics/slis", "", nil, nil); strings.Contains(string(body), "kubernetes_healthchecks_total{") {
		t.Errorf("another control plane counts these checks:\n%s", body)
	}
}
