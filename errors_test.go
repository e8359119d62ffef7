package fakeplane_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// rawRequest sends one request with the admin identity and returns the code,
// Content-Type and body.
func rawRequest(t *testing.T, cp *fakeplane.ControlPlane, method, path, contentType string, body []byte, header http.Header) (int, string, []byte) {
	t.Helper()
	code, h, b := rawExchange(t, cp, method, path, contentType, body, header)
	return code, h.Get("Content-Type"), b
}

// rawExchange is rawRequest with the answer's headers.
func rawExchange(t *testing.T, cp *fakeplane.ControlPlane, method, path, contentType string, body []byte, header http.Header) (int, http.Header, []byte) {
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
	return resp.StatusCode, resp.Header, b
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
		{name: "strategic merge patch with an unknown directive", method: "PATCH", path: cms + "/jp", ctype: "application/strategic-merge-patch+json", body: `{"data":{"b":"x"},"$patch":"bogus"}`,
			code: 500, reason: "", message: `unknown patch type: bogus in map: map[$patch:bogus data:map[b:x]]`},
		{name: "strategic merge patch of a list element without its merge key", method: "PATCH", path: "/apis/apps/v1/namespaces/default/deployments/d?dryRun=All", ctype: "application/strategic-merge-patch+json", body: `{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`,
			code: 500, reason: "", message: `map: map[image:x] does not contain declared merge key: name`},
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
		{name: "an unregistered version of the kind", method: "POST", path: cms, ctype: "application/json", body: `{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"x"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "the kind in another group", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"jp"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "another registered kind of another group", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `{"apiVersion":"apps/v1beta1","kind":"Deployment","metadata":{"name":"jp"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `Deployment in version "v1beta1" cannot be handled as a ConfigMap: converting (v1beta1.Deployment) to (core.ConfigMap): unknown conversion`},
		{name: "an unregistered kind", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `{"kind":"Foo","metadata":{"name":"jp"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `Foo in version "v1" cannot be handled as a ConfigMap: no kind "Foo" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "an unregistered version of a group", method: "POST", path: "/apis/apps/v1/namespaces/default/deployments", ctype: "application/json", body: `{"apiVersion":"apps/v2","kind":"Deployment","metadata":{"name":"x"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `Deployment in version "v2" cannot be handled as a Deployment: no kind "Deployment" is registered for version "apps/v2" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "another served version of the kind", method: "POST", path: "/apis/apps/v1/namespaces/default/deployments", ctype: "application/json", body: `{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"x"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `the API version in the data (apps/v1beta2) does not match the expected API version (apps/v1)`},
		{name: "a scale update of another kind", method: "PUT", path: "/apis/apps/v1/namespaces/default/deployments/d/scale", ctype: "application/json", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":3}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `Deployment in version "v1" cannot be handled as a Scale: converting (v1.Deployment) to (autoscaling.Scale): unknown conversion`},
		{name: "a scale get's resourceVersion that is not a number", method: "GET", path: "/apis/apps/v1/namespaces/default/deployments/d/scale?resourceVersion=abc",
			code: 500, message: `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{name: "an empty body", method: "PUT", path: cms + "/jp", ctype: "application/json", body: ``,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`},
		{name: "a body that is not an object", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `[]`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" } (5b5d)`},
		{name: "an update of null has no name", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `null`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `the name of the object (jp based on URL) was undeterminable: name must be provided`},
		{name: "an update without a name", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `{"metadata":{"name":""},"data":{"a":"b"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `the name of the object (jp based on URL) was undeterminable: name must be provided`},
		{name: "an update's UID is a precondition", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `{"metadata":{"name":"jp","uid":"6b1e7d0c-0000-0000-0000-000000000000","resourceVersion":"1"}}`,
			code: 409, reason: metav1.StatusReasonConflict, message: `Operation cannot be fulfilled on configmaps "jp": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/jp, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 6b1e7d0c-0000-0000-0000-000000000000, UID in object meta: (UID)`},
		{name: "an update's resourceVersion that is not a number", method: "PUT", path: cms + "/jp", ctype: "application/json", body: `{"metadata":{"name":"jp","resourceVersion":"abc"}}`,
			code: 500, message: `strconv.ParseUint: parsing "abc": invalid syntax`},
		{name: "a get's resourceVersion that is not a number", method: "GET", path: cms + "/jp?resourceVersion=abc",
			code: 500, message: `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{name: "a list's resourceVersion that is not a number", method: "GET", path: cms + "?resourceVersion=abc",
			code: 400, reason: metav1.StatusReasonBadRequest, message: `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{name: "a watch's resourceVersion that is not a number", method: "GET", path: cms + "?watch=1&resourceVersion=-1",
			code: 500, message: `resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax`},
		{name: "a continue token that does not decode", method: "GET", path: cms + "?continue=garbage",
			code: 400, reason: metav1.StatusReasonBadRequest, message: `invalid continue token: continue key is not valid: invalid character '\u0081' looking for beginning of value`},
		{name: "delete options of an unregistered kind", method: "DELETE", path: cms + "/jp", ctype: "application/json", body: `{"kind":"Foo"}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `no kind "Foo" is registered for version "meta.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "delete options of another kind", method: "DELETE", path: cms + "/jp", ctype: "application/json", body: `{"kind":"Status"}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `converting (v1.Status) to (v1.DeleteOptions): unknown conversion`},
		{name: "delete options that are not JSON", method: "DELETE", path: cms + "/jp", ctype: "application/json", body: `not json`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')`},
		{name: "delete options that do not decode", method: "DELETE", path: cms + "/jp", ctype: "application/json", body: `{"dryRun":"All"}`,
			code: 400, reason: metav1.StatusReasonBadRequest, message: `json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string`},
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
			want = strings.ReplaceAll(want, "(UID)", string(cur.UID))
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

// TestPatchWarningsComeWithFailures checks that a patch's unknown-field
// warnings come with the answer when the patched object is then refused
// (recorded from kube-apiserver v1.37 with curl): a merge, strategic, apply
// or scale patch whose result fails validation answers 422 with the warning.
func TestPatchWarningsComeWithFailures(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cms := "/api/v1/namespaces/default/configmaps"
	if code, _, b := rawRequest(t, cp, "POST", cms, "application/json", []byte(`{"metadata":{"name":"pw"}}`), nil); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"pw"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}`
	if code, _, b := rawRequest(t, cp, "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", []byte(deploy), nil); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	for _, tc := range []struct {
		name, path, ctype, body, warning string
		code                             int
	}{
		{"merge patch", cms + "/pw", "application/merge-patch+json", `{"metadata":{"labels":{"a b":"c"}},"bogus":1}`, `unknown field \"bogus\"`, 422},
		{"strategic merge patch", cms + "/pw", "application/strategic-merge-patch+json", `{"metadata":{"labels":{"a b":"c"}},"bogus":1}`, `unknown field \"bogus\"`, 422},
		// An apply's unknown field is a 500 on kube-apiserver too; its
		// duplicate keys are warnings, worded without the YAML decoder's
		// heading.
		{"apply patch", cms + "/pw?fieldManager=m", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"pw","labels":{"a b":"c"}},"data":{"k":"1","k":"2"}}`, `line 1: key \"k\" already set in map`, 422},
		{"apply patch that creates", cms + "/pw2?fieldManager=m", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"pw2","labels":{"a b":"c"}},"data":{"k":"1","k":"2"}}`, `line 1: key \"k\" already set in map`, 422},
		{"scale patch", "/apis/apps/v1/namespaces/default/deployments/pw/scale", "application/merge-patch+json", `{"spec":{"replicas":-1},"bogus":1}`, `unknown field \"bogus\"`, 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, hdr, b := rawExchange(t, cp, "PATCH", tc.path, tc.ctype, []byte(tc.body), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, b)
			}
			if got, want := hdr.Values("Warning"), []string{`299 - "` + tc.warning + `"`}; strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("warnings %q, want %q", got, want)
			}
		})
	}
}

// TestYAMLDuplicateKeysAsKubeAPIServer checks a YAML body's duplicate keys
// (recorded from kube-apiserver v1.37 with curl): its YAML decoder reports
// them before the unknown fields, a warning per key with fieldValidation=Warn
// (the default), all in the 400's strict decoding error with Strict, none
// with Ignore; an update reports them as a create does.
func TestYAMLDuplicateKeysAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cms := "/api/v1/namespaces/default/configmaps"
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\n  bogus: 1\ndata:\n  k: \"1\"\n  k: \"2\"\n  j: \"1\"\n  j: \"3\"\n"
	warned := []string{`line 8: key "k" already set in map`, `line 10: key "j" already set in map`, `unknown field "metadata.bogus"`}
	for _, tc := range []struct {
		name, method, path string
		code               int
		warnings           []string
		message            string
	}{
		{"create, Warn", "POST", cms + "?dryRun=All", 201, warned, ""},
		{"create, Strict", "POST", cms + "?fieldValidation=Strict", 400, nil,
			"ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 8: key \"k\" already set in map\n  line 10: key \"j\" already set in map, unknown field \"metadata.bogus\""},
		{"create, Ignore", "POST", cms + "?dryRun=All&fieldValidation=Ignore", 201, nil, ""},
		{"update, Warn", "PUT", cms + "/y1", 200, warned, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.method == "PUT" {
				if code, _, b := rawRequest(t, cp, "POST", cms, "application/json", []byte(`{"metadata":{"name":"y1"}}`), nil); code != 201 {
					t.Fatalf("create: %d %s", code, b)
				}
			}
			code, hdr, b := rawExchange(t, cp, tc.method, tc.path, "application/yaml", []byte(body), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, b)
			}
			var want []string
			for _, w := range tc.warnings {
				want = append(want, "299 - "+strconv.Quote(w))
			}
			if got := hdr.Values("Warning"); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("warnings %q, want %q", got, want)
			}
			if tc.message != "" {
				var st metav1.Status
				if err := json.Unmarshal(b, &st); err != nil || st.Message != tc.message {
					t.Fatalf("message %q (%v), want %q", st.Message, err, tc.message)
				}
			}
		})
	}
}

// TestUpdateResourceVersionIsANumber checks that an update's
// resourceVersion is compared as upstream's store compares it: as a number,
// 0 (or empty) for an unconditional update.
func TestUpdateResourceVersionIsANumber(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cm := "/api/v1/namespaces/default/configmaps/rvn"
	if code, _, b := rawRequest(t, cp, "POST", "/api/v1/namespaces/default/configmaps", "application/json", []byte(`{"metadata":{"name":"rvn"}}`), nil); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	currentRV := func() string {
		_, _, b := rawRequest(t, cp, "GET", cm, "", nil, nil)
		var m metav1.PartialObjectMetadata
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m.ResourceVersion
	}
	for _, tc := range []struct {
		name string
		rv   func() string
		code int
	}{
		{"zero is unconditional", func() string { return "0" }, 200},
		{"leading zeros name the same revision", func() string { return "00" + currentRV() }, 200},
		{"the current revision", currentRV, 200},
		{"an older revision conflicts", func() string { return "1" }, 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"metadata":{"name":"rvn","resourceVersion":"` + tc.rv() + `"},"data":{"t":"` + tc.name + `"}}`
			code, _, b := rawRequest(t, cp, "PUT", cm, "application/json", []byte(body), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, b)
			}
			_, _, after := rawRequest(t, cp, "GET", cm, "", nil, nil)
			if updated := strings.Contains(string(after), tc.name); updated != (tc.code == 200) {
				t.Errorf("object updated: %v, want %v: %s", updated, tc.code == 200, after)
			}
		})
	}
}

// TestWritesThatCreate checks an apply and an update that create their
// object against what a real v1.37 kube-apiserver answered: the UID the
// object names is refused (by the patch handler, or as the store's
// precondition), its resourceVersion ignored.
func TestWritesThatCreate(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cms := "/api/v1/namespaces/default/configmaps/"
	leases := "/apis/coordination.k8s.io/v1/namespaces/default/leases/"
	const uid = "6b1e7d0c-0000-0000-0000-000000000000"
	for _, tc := range []struct {
		name, method, path, ctype, body string
		code                            int
		message                         string
	}{
		{"an apply naming a UID", "PATCH", cms + "a1?fieldManager=m", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a1","uid":"` + uid + `"}}`,
			409, `Operation cannot be fulfilled on configmaps "a1": uid mismatch: the provided object specified uid ` + uid + `, and no existing object was found`},
		{"an apply naming a resourceVersion", "PATCH", cms + "a2?fieldManager=m", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a2","resourceVersion":"5"}}`,
			201, ""},
		{"an update naming a UID", "PUT", leases + "l1", "application/json", `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l1","uid":"` + uid + `"}}`,
			409, `Operation cannot be fulfilled on leases.coordination.k8s.io "l1": StorageError: invalid object, Code: 4, Key: /registry/leases/default/l1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ` + uid + `, UID in object meta: `},
		{"an update naming a resourceVersion", "PUT", leases + "l2", "application/json", `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l2","resourceVersion":"7"}}`,
			201, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, out := rawRequest(t, cp, tc.method, tc.path, tc.ctype, []byte(tc.body), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, out)
			}
			if tc.message == "" {
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(out, &st); err != nil || st.Message != tc.message {
				t.Errorf("message %q (%v), want %q", st.Message, err, tc.message)
			}
			if code, _, _ := rawRequest(t, cp, "GET", strings.Split(tc.path, "?")[0], "", nil, nil); code != 404 {
				t.Errorf("the refused write created the object (GET %d)", code)
			}
		})
	}
}

// TestFinalizerNamesAsKubeAPIServer checks finalizer names on create and
// update against a real v1.37 kube-apiserver (recorded with refplane): its
// own types, validated with the core group's ObjectMeta rules, want a name
// without a domain to be a standard finalizer; leases (validated with
// apimachinery's alone) take any qualified name.
func TestFinalizerNamesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const notStandard = `metadata.finalizers[0]: Invalid value: "nodomain": name is neither a standard finalizer name nor is it fully qualified`
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		message                  string
	}{
		{"a config map's", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"f1","finalizers":["nodomain"]}}`,
			422, `ConfigMap "f1" is invalid: ` + notStandard},
		{"a bad name is reported twice", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"f2","finalizers":["bad finalizer"]}}`,
			422, `ConfigMap "f2" is invalid: [metadata.finalizers: Invalid value: "bad finalizer": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), metadata.finalizers[0]: Invalid value: "bad finalizer": name is neither a standard finalizer name nor is it fully qualified]`},
		{"standard and qualified names", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"f3","finalizers":["kubernetes","orphan","a.b/c"]}}`,
			201, ""},
		{"an update's", "PUT", "/api/v1/namespaces/default/configmaps/f3", `{"metadata":{"name":"f3","finalizers":["nodomain"]}}`,
			422, `ConfigMap "f3" is invalid: ` + notStandard},
		{"a role's", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", `{"metadata":{"name":"r","finalizers":["nodomain"]}}`,
			422, `Role.rbac.authorization.k8s.io "r" is invalid: ` + notStandard},
		{"a job's", "POST", "/apis/batch/v1/namespaces/default/jobs", `{"metadata":{"name":"j","finalizers":["nodomain"]},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}`,
			422, `Job.batch "j" is invalid: ` + notStandard},
		{"a lease's", "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", `{"metadata":{"name":"l","finalizers":["nodomain"]}}`,
			201, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, out := rawRequest(t, cp, tc.method, tc.path, "application/json", []byte(tc.body), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, out)
			}
			var st metav1.Status
			if tc.message != "" {
				if err := json.Unmarshal(out, &st); err != nil || st.Message != tc.message {
					t.Errorf("message\n got %s\nwant %s", st.Message, tc.message)
				}
			}
		})
	}
}

// TestCustomResourceBodiesWithoutTypeAsKubeAPIServer checks that a custom
// resource's create or update body must name its apiVersion and kind, as
// kube-apiserver's unstructured decoder requires (a built-in type's body
// takes the URL's): the code and Status message of each case were recorded
// from a real v1.37 kube-apiserver (refplane), and nothing is written.
func TestCustomResourceBodiesWithoutTypeAsKubeAPIServer(t *testing.T) {
	// yamlBody in a case's path sends its body as YAML (and stands for the
	// query's "?").
	const yamlBody = "?yaml"
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t, `{type: object, x-kubernetes-preserve-unknown-fields: true}`))["v1beta1"]
	if _, err := foos.Create(ctx, foo(t, "v1beta1", "kept", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const path = "/apis/tests.example.com/v1beta1/foos"
	for _, tc := range []struct {
		name, method, path, body, message string
	}{
		{"an empty object", "POST", path, `{}`,
			`the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in '{}' ({})`},
		{"no apiVersion or kind", "POST", path, `{"metadata":{"name":"a"}}`,
			`the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in '{"metadata":{"name":"a"}}' ({"metadata":{"name":"a"}})`},
		{"no kind, summarized", "POST", path, `{"apiVersion":"tests.example.com/v1beta1","metadata":{"name":"b"}}`,
			`the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in '{"apiVersion":"tests.example.com/v1beta1","metadata":{"name":"b"}}' ({"apiVersion":"tests.example.c ...)`},
		{"no apiVersion", "POST", path, `{"kind":"Foo","metadata":{"name":"c"}}`,
			`the API version in the data () does not match the expected API version (tests.example.com/v1beta1)`},
		{"null", "POST", path, `null`,
			`the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in 'null' (6e756c6c)`},
		{"an update without a kind", "PUT", path + "/kept", `{"metadata":{"name":"kept"}}`,
			`the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in '{"metadata":{"name":"kept"}}' ({"metadata":{"name":"kept"}})`},
		{"an update without an apiVersion", "PUT", path + "/kept", `{"kind":"Foo","metadata":{"name":"kept"}}`,
			`the API version in the data () does not match the expected API version (tests.example.com/v1beta1)`},
		{"a status update without a kind", "PUT", path + "/kept/status", `{"metadata":{"name":"kept"}}`,
			`the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in '{"metadata":{"name":"kept"}}' ({"metadata":{"name":"kept"}})`},
		{"a status update without an apiVersion", "PUT", path + "/kept/status", `{"kind":"Foo","metadata":{"name":"kept"}}`,
			`the API version in the data () does not match the expected API version (tests.example.com/v1beta1)`},
		// A YAML body is quoted as it was sent, not as the JSON it becomes.
		{"YAML without a kind", "POST", path + yamlBody, "metadata:\n  name: y\n",
			"the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in 'metadata:\n  name: y\n' (6d657461646174613a0a20206e616d653a20790a)"},
		{"YAML without a kind, strictly", "POST", path + yamlBody + "&fieldValidation=Strict", "apiVersion: tests.example.com/v1beta1\nmetadata:\n  name: y\n  name: z\n",
			"the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in 'apiVersion: tests.example.com/v1beta1\nmetadata:\n  name: y\n  name: z\n' (61706956657273696f6e3a2074657374732e6578616d706c652e636f6d2f ...)"},
		{"a YAML update without a kind", "PUT", path + "/kept" + yamlBody, "{}\n",
			"the object provided is unrecognized (must be of type Foo): Object 'Kind' is missing in '{}\n' ({}\n)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, before := rawRequest(t, cp, "GET", path, "", nil, nil)
			p, ctype := tc.path, "application/json"
			if i := strings.Index(p, yamlBody); i >= 0 {
				p, ctype = p[:i]+"?"+p[i+len(yamlBody):], "application/yaml"
			}
			code, _, out := rawRequest(t, cp, tc.method, p, ctype, []byte(tc.body), nil)
			var st metav1.Status
			if err := json.Unmarshal(out, &st); err != nil || st.Kind != "Status" {
				t.Fatalf("%d, not a Status: %v %s", code, err, out)
			}
			if code != 400 || st.Reason != metav1.StatusReasonBadRequest || st.Message != tc.message {
				t.Errorf("got %d %s %q\nwant 400 BadRequest %q", code, st.Reason, st.Message, tc.message)
			}
			// The foos, not the list's resourceVersion, which any write
			// in the cluster moves (its controllers run).
			if _, _, after := rawRequest(t, cp, "GET", path, "", nil, nil); !bytes.Equal(listItems(t, before), listItems(t, after)) {
				t.Errorf("the request changed the foos:\n%s\n%s", before, after)
			}
		})
	}
}

// TestCustomResourceDuplicateFieldsAsKubeAPIServer: a custom resource's
// body with a field twice is judged as kube-apiserver's unstructured
// decoder judges it (recorded from refplane): with fieldValidation Strict
// a 400 naming the duplicates (in the body's order) before the unknown
// fields, with Warn (and by default) as many warnings, with Ignore nothing.
func TestCustomResourceDuplicateFieldsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	createCRD(t, ctx, dynamic.NewForConfigOrDie(cp.RESTConfig()), foosCRD(t, `{type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}`))
	body := func(name string) []byte {
		return []byte(`{"apiVersion":"tests.example.com/v1beta1","kind":"Foo","metadata":{"name":"` + name + `"},"spec":{"size":1,"extra":5,"size":2},"zzz":1}`)
	}
	want := []string{`duplicate field "spec.size"`, `unknown field "spec.extra"`, `unknown field "zzz"`}
	for _, tc := range []struct {
		query    string
		code     int
		warnings []string
	}{
		{"?fieldValidation=Strict", 400, nil},
		{"?fieldValidation=Warn", 201, want},
		{"", 201, want},
		{"?fieldValidation=Ignore", 201, nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			code, h, out := rawExchange(t, cp, "POST", "/apis/tests.example.com/v1beta1/foos"+tc.query, "application/json", body("dup"+strings.TrimPrefix(strings.ToLower(tc.query), "?fieldvalidation=")), nil)
			if code != tc.code {
				t.Fatalf("%d %s", code, out)
			}
			var got []string
			for _, w := range h.Values("Warning") {
				got = append(got, strings.TrimSuffix(strings.TrimPrefix(w, `299 - "`), `"`))
			}
			for i := range got {
				got[i] = strings.ReplaceAll(got[i], `\"`, `"`)
			}
			if !slices.Equal(got, tc.warnings) {
				t.Errorf("warnings %q, want %q", got, tc.warnings)
			}
			if code == 400 && !strings.Contains(string(out), `"message":"Foo in version \"v1beta1\" cannot be handled as a Foo: strict decoding error: duplicate field \"spec.size\", unknown field \"spec.extra\", unknown field \"zzz\""`) {
				t.Errorf("message: %s", out)
			}
		})
	}
}

// listItems is the items of a list in JSON, as JSON.
func listItems(t *testing.T, list []byte) []byte {
	t.Helper()
	var l struct {
		Items json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(list, &l); err != nil {
		t.Fatalf("not a list: %v %s", err, list)
	}
	return l.Items
}
