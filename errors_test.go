package fakeplane_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// rawRequest sends one request with the admin identity and returns the code,
// Content-Type and body.
func rawRequest(t *testing.T, cp *fakeplane.ControlPlane, method, path, contentType string, body []byte, header http.Header) (int, string, []byte) {
	t.Helper()
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, cp.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// TestErrorsMatchKubeAPIServer sends bad requests and checks the code and
// Status message against what a real v1.37 kube-apiserver answered to the
// same request (recorded with refplane).
func TestErrorsMatchKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cms := "/api/v1/namespaces/default/configmaps"
	setup := []struct{ path, body string }{
		{cms, `{"metadata":{"name":"jp"}}`},
		{"/apis/apps/v1/namespaces/default/deployments", `{"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`},
	}
	for _, s := range setup {
		if code, _, b := rawRequest(t, cp, "POST", s.path, "application/json", []byte(s.body), nil); code != 201 {
			t.Fatalf("setup %s: %d %s", s.path, code, b)
		}
	}
	big, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": "big"}, "data": map[string]any{"a": strings.Repeat("x", 3200000)}})

	for _, tc := range []struct {
		name                string
		method, path, ctype string
		body                string
		rawBody             []byte
		code                int
		message             string // exact Status message; "" for a plain-text 404
		reason              metav1.StatusReason
	}{
		{name: "kind does not match the URL", method: "POST", path: cms, ctype: "application/json", body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"x"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `Service in version "v1" cannot be handled as a ConfigMap: converting (v1.Service) to (core.ConfigMap): unknown conversion`},
		{name: "malformed JSON", method: "POST", path: cms, ctype: "application/json", body: `{bad`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'b' looking for beginning of object key string ({bad)`},
		{name: "unknown resource", method: "GET", path: "/api/v1/foos", code: 404, reason: metav1.StatusReasonNotFound, message: "the server could not find the requested resource"},
		{name: "unknown version of a known group", method: "GET", path: "/apis/apps/v9/deployments", code: 404, reason: metav1.StatusReasonNotFound, message: "the server could not find the requested resource"},
		{name: "unknown subresource", method: "GET", path: cms + "/jp/status", code: 404, reason: metav1.StatusReasonNotFound, message: "the server could not find the requested resource"},
		{name: "unknown group is a plain 404", method: "GET", path: "/apis/foo.io/v1/bars", code: 404},
		{name: "non-API path is a plain 404", method: "GET", path: "/nope", code: 404},
		{name: "unsupported body type", method: "POST", path: cms, ctype: "text/plain", body: "hello",
			code: 415, reason: metav1.StatusReasonUnsupportedMediaType, message: "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{name: "not protobuf", method: "POST", path: cms, ctype: "application/vnd.kubernetes.protobuf", body: "hello",
			code: 400, reason: metav1.StatusReasonBadRequest, message: "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (68656c6c6f)"},
		{name: "body over 3 MiB", method: "POST", path: cms, ctype: "application/json", rawBody: big,
			code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, message: "Request entity too large: limit is 3145728"},
		{name: "failed JSON patch test", method: "PATCH", path: cms + "/jp", ctype: "application/json-patch+json", body: `[{"op":"test","path":"/data/x","value":"y"}]`,
			code: 422, reason: metav1.StatusReasonInvalid, message: "the server rejected our request due to an error in our request"},
		{name: "malformed merge patch", method: "PATCH", path: cms + "/jp", ctype: "application/merge-patch+json", body: `{bad`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: "invalid JSON patch"},
		{name: "name differs from the URL", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `{"metadata":{"name":"other"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: "the name of the object (other) does not match the name on the URL (jp)"},
		{name: "stale resourceVersion", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `{"metadata":{"name":"jp","resourceVersion":"1"}}`,
			code: 409, reason: metav1.StatusReasonConflict, message: `Operation cannot be fulfilled on configmaps "jp": the object has been modified; please apply your changes to the latest version and try again`},
		{name: "strict field validation", method: "POST", path: cms + "?fieldValidation=Strict", ctype: "application/json", body: `{"metadata":{"name":"fvs","bogus":1},"data":{"a":"b"},"data":{"c":"d"},"extra":true}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus", duplicate field "data", unknown field "extra"`},
		{name: "strict field validation on strategic merge patch", method: "PATCH", path: cms + "/jp?fieldValidation=Strict", ctype: "application/strategic-merge-patch+json", body: `{"extra":1,"data":{"a":"b"}}`,
			code: 422, reason: metav1.StatusReasonInvalid, message: ` "" is invalid: patch: Invalid value: "map[data:map[a:b] extra:1]": strict decoding error: unknown field "extra"`},
		{name: "strategic merge patch whose result does not decode", method: "PATCH", path: cms + "/jp", ctype: "application/strategic-merge-patch+json", body: `{"data":"notamap"}`,
			code: 422, reason: metav1.StatusReasonInvalid, message: ` "" is invalid: patch: Invalid value: "map[data:notamap]": cannot restore map from string`},
		{name: "bad write options", method: "POST", path: cms + "?fieldValidation=Bogus&dryRun=x", ctype: "application/json", body: `{"metadata":{"name":"fvb"}}`,
			code: 422, reason: metav1.StatusReasonInvalid, message: `CreateOptions.meta.k8s.io "" is invalid: [dryRun: Unsupported value: ["x"]: supported values: "All", fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"]`},
		{name: "POST to an object", method: "POST", path: cms + "/jp", ctype: "application/json", body: `{}`,
			code: 405, reason: metav1.StatusReasonMethodNotAllowed, message: "the server does not allow this method on the requested resource"},
		{name: "bad label selector", method: "GET", path: cms + "?labelSelector=a%3D%3D%3Db",
			code: 400, reason: metav1.StatusReasonBadRequest, message: "unable to parse requirement: found '=', expected: identifier"},
		{name: "resourceVersion on create", method: "POST", path: cms, ctype: "application/json", body: `{"metadata":{"name":"rvset","resourceVersion":"5"}}`,
			code: 500, message: "resourceVersion should not be set on objects to be created"},
		{name: "delete precondition on resourceVersion", method: "DELETE", path: cms + "/jp", ctype: "application/json", body: `{"preconditions":{"resourceVersion":"1"}}`,
			code: 409, reason: metav1.StatusReasonConflict, message: `Operation cannot be fulfilled on ConfigMap "jp": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (RV). The object might have been modified`},
		{name: "bad propagation policy", method: "DELETE", path: cms + "/jp", ctype: "application/json", body: `{"propagationPolicy":"Bogus"}`,
			code: 422, reason: metav1.StatusReasonInvalid, message: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"`},
		{name: "create on a read-only resource", method: "POST", path: "/api/v1/componentstatuses", ctype: "application/json", body: `{}`,
			code: 405, reason: metav1.StatusReasonMethodNotAllowed, message: "the server does not allow this method on the requested resource"},
		{name: "invalid name", method: "POST", path: cms, ctype: "application/json", body: `{"metadata":{"name":"Bad_Name"}}`,
			code: 422, reason: metav1.StatusReasonInvalid, message: `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.rawBody
			if body == nil {
				body = []byte(tc.body)
			}
			_, _, before := rawRequest(t, cp, "GET", cms+"/jp", "", nil, nil)
			code, ctype, out := rawRequest(t, cp, tc.method, tc.path, tc.ctype, body, nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, out)
			}
			if tc.message == "" {
				if string(out) != "404 page not found\n" || !strings.HasPrefix(ctype, "text/plain") {
					t.Errorf("want a plain-text 404, got %q (%s)", out, ctype)
				}
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(out, &st); err != nil || st.Kind != "Status" {
				t.Fatalf("not a Status: %v %s", err, out)
			}
			var cur metav1.PartialObjectMetadata
			_ = json.Unmarshal(before, &cur)
			want := strings.ReplaceAll(tc.message, "(RV)", "("+cur.ResourceVersion+")")
			if st.Message != want || st.Reason != tc.reason || int(st.Code) != tc.code {
				t.Errorf("status:\n got %d %s %q\nwant %d %s %q", st.Code, st.Reason, st.Message, tc.code, tc.reason, want)
			}
			// Bad requests change nothing.
			if _, _, after := rawRequest(t, cp, "GET", cms+"/jp", "", nil, nil); !bytes.Equal(before, after) {
				t.Errorf("the request changed the object:\n%s\n%s", before, after)
			}
		})
	}
}

// TestFieldValidationWarns checks the Warning headers of fieldValidation=Warn
// (the default).
func TestFieldValidationWarns(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	hc, _ := rest.HTTPClientFor(cp.RESTConfig())
	req, _ := http.NewRequest("POST", cp.URL()+"/api/v1/namespaces/default/configmaps", strings.NewReader(`{"metadata":{"name":"w","bogus":1},"extra":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := resp.Header.Values("Warning")
	want := []string{`299 - "unknown field \"metadata.bogus\""`, `299 - "unknown field \"extra\""`}
	if resp.StatusCode != 201 || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("code %d warnings %q, want %q", resp.StatusCode, got, want)
	}

	// The decoder's warnings come with the answer even when the write then
	// fails, as upstream records them while decoding.
	req, _ = http.NewRequest("POST", cp.URL()+"/api/v1/namespaces/default/configmaps", strings.NewReader(`{"metadata":{"name":"w"},"data":{"k":"1","k":"2"}}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err = hc.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got = resp.Header.Values("Warning")
	want = []string{`299 - "duplicate field \"data.k\""`}
	if resp.StatusCode != 409 || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("create of an existing object: code %d warnings %q, want 409 and %q", resp.StatusCode, got, want)
	}
}
