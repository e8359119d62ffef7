package fakeplane_test

// "Use an HTTP Proxy to Access the Kubernetes API": kubectl proxy in front
// of the control plane, read with plain HTTP as curl reads it (kube-apiserver
// indents JSON for curl's User-Agent, which kubectl proxy passes on).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/fakeplane/fakeplane"
)

// startKubectlProxy runs `kubectl proxy --port=0` against cp and returns
// the address it serves on.
func startKubectlProxy(t *testing.T, cp *fakeplane.ControlPlane) string {
	t.Helper()
	s := startKubectl(t, cp, 5*time.Minute, "proxy", "--port=0")
	s.waitFor(t, `Starting to serve on 127\.0\.0\.1:[0-9]+`, 60*time.Second)
	return strings.TrimPrefix(s.seen[len(s.seen)-1], "Starting to serve on ")
}

// curl GETs a URL as curl does (its User-Agent) and returns the status and
// body.
func curl(t *testing.T, url string, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "curl/8.5.0")
	req.Header.Set("Accept", "*/*")
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestKubectlProxyServesTheSeedsAnswers(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	if out := mustKubectl(t, cp, "create", "deployment", "hello-app", "--image=gcr.io/google-samples/hello-app:2.0", "--port=8080"); out != "deployment.apps/hello-app created\n" {
		t.Fatalf("kubectl create deployment: %q", out)
	}
	base := "http://" + startKubectlProxy(t, cp)

	// /api/ as the seed shows it, with this server's address.
	code, body := curl(t, base+"/api/", "")
	want := fmt.Sprintf(`{
  "kind": "APIVersions",
  "versions": [
    "v1"
  ],
  "serverAddressByClientCIDRs": [
    {
      "clientCIDR": "0.0.0.0/0",
      "serverAddress": "%s"
    }
  ]
}`, strings.TrimPrefix(cp.URL(), "https://"))
	if code != http.StatusOK || strings.TrimSpace(body) != want {
		t.Errorf("GET /api/: %d\n%s\nwant\n%s", code, body, want)
	}

	// The pods of the Deployment, Running.
	var pod corev1.Pod
	var podsBody string
	if err := wait.PollUntilContextTimeout(ctxT(t), 100*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		code, podsBody = curl(t, base+"/api/v1/namespaces/default/pods", "")
		if code != http.StatusOK {
			return false, nil
		}
		var list corev1.PodList
		if err := json.Unmarshal([]byte(podsBody), &list); err != nil {
			return false, err
		}
		for _, p := range list.Items {
			if p.Labels["app"] == "hello-app" && p.Status.Phase == corev1.PodRunning {
				pod = p
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		t.Fatalf("no Running hello-app pod through kubectl proxy: %v\n%s", err, podsBody)
	}
	if !regexp.MustCompile(`^hello-app-[a-z0-9]+-$`).MatchString(pod.GenerateName) || pod.Labels["pod-template-hash"] == "" {
		t.Errorf("the pod is not a ReplicaSet's: generateName %q, labels %v", pod.GenerateName, pod.Labels)
	}
	if !strings.HasPrefix(podsBody, "{\n  \"kind\": \"PodList\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {\n    \"resourceVersion\": \"") {
		t.Errorf("the PodList is not indented for curl as the seed shows:\n%.200s", podsBody)
	}

	for _, tc := range []struct {
		path, host string
		code       int
		body       string // a pattern the body matches
	}{
		{path: "/api", code: http.StatusOK, body: `"kind": "APIVersions"`},
		{path: "/apis", code: http.StatusOK, body: `(?s)^\{\n  "kind": "APIGroupList",\n  "apiVersion": "v1",.*"name": "apps"`},
		{path: "/version", code: http.StatusOK, body: `(?s)^\{\n  "major": "1",\n  "minor": "37",.*"gitVersion": "v1\.37\.`},
		{path: "/healthz", code: http.StatusOK, body: `^ok$`},
		{path: "/openapi/v2", code: http.StatusOK, body: `^\{"swagger":"2\.0"|^\{\n  "swagger": "2\.0"`},
		// kubectl proxy refuses exec and attach, and other hosts, itself.
		{path: "/api/v1/namespaces/default/pods/" + pod.Name + "/exec?command=ls", code: http.StatusForbidden, body: `^Forbidden\n$`},
		{path: "/api/v1/namespaces/default/pods/" + pod.Name + "/attach", code: http.StatusForbidden, body: `^Forbidden\n$`},
		{path: "/api/", host: "example.com", code: http.StatusForbidden, body: `^Forbidden\n$`},
	} {
		code, body := curl(t, base+tc.path, tc.host)
		if code != tc.code || !regexp.MustCompile(tc.body).MatchString(body) {
			t.Errorf("GET %s (Host %q): %d\n%.300s\nwant %d matching %q", tc.path, tc.host, code, body, tc.code, tc.body)
		}
	}
}
