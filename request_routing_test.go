package fakeplane_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// recordedRequest is one request and kube-apiserver v1.37.2's (refplane's)
// answer to it: its code and its Status message.
type recordedRequest struct {
	method, path, body string
	wantCode           int
	wantMessage        string
}

// runRecordedRequests sends each request (a body as JSON, a PATCH's as a
// merge patch) and checks its code and message.
func runRecordedRequests(t *testing.T, cp *fakeplane.ControlPlane, cases []recordedRequest) {
	t.Helper()
	for _, tc := range cases {
		ct := ""
		if tc.body != "" {
			ct = "application/json"
			if tc.method == "PATCH" {
				ct = "application/merge-patch+json"
			}
		}
		code, _, body := rawRequest(t, cp, tc.method, tc.path, ct, []byte(tc.body), nil)
		if code != tc.wantCode {
			t.Errorf("%s %s %s: %d, want %d: %s", tc.method, tc.path, tc.body, code, tc.wantCode, body)
			continue
		}
		if message, _ := statusFieldCauses(t, body); message != tc.wantMessage {
			t.Errorf("%s %s %s: message\n%s\nwant\n%s", tc.method, tc.path, tc.body, message, tc.wantMessage)
		}
	}
}

// TestNameThatCannotBeAPathSegmentIsABadRequest reads, writes and deletes
// objects named "..", "." or "a%b" on the URL: kube-apiserver's storage
// refuses to make a key of such a name, a 400 before anything is read, for
// the object and for the subresources that reach it by name. Found by
// hack/refdiff's requests sweep; the answers are refplane's.
func TestNameThatCannotBeAPathSegmentIsABadRequest(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const dots = `Name parameter invalid: "..": may not be '..'`
	runRecordedRequests(t, cp, []recordedRequest{
		{"GET", "/api/v1/namespaces/default/configmaps/..", "", 400, dots},
		{"GET", "/api/v1/namespaces/default/configmaps/.", "", 400, `Name parameter invalid: ".": may not be '.'`},
		{"GET", "/api/v1/namespaces/default/configmaps/a%25b", "", 400, `Name parameter invalid: "a%b": may not contain '%'`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/..", `{}`, 400, dots},
		{"DELETE", "/api/v1/namespaces/default/configmaps/..", "", 400, dots},
		{"PUT", "/api/v1/namespaces/default/configmaps/..", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":".."}}`, 400, dots},
		// The update handler's checks of the body come first.
		{"PUT", "/api/v1/namespaces/default/configmaps/..", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`, 400, "the name of the object (.. based on URL) was undeterminable: name must be provided"},
		{"GET", "/api/v1/nodes/..", "", 400, dots},
		{"DELETE", "/api/v1/namespaces/..", "", 400, dots},
		{"GET", "/api/v1/namespaces/default/pods/../log", "", 400, dots},
		{"GET", "/apis/apps/v1/namespaces/default/deployments/../scale", "", 400, dots},
		{"PATCH", "/apis/apps/v1/namespaces/default/deployments/../status", `{}`, 400, dots},
		{"POST", "/api/v1/namespaces/default/serviceaccounts/../token", `{}`, 400, dots},
		{"POST", "/api/v1/namespaces/default/bindings?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":".."},"target":{"name":"n"}}`, 400, dots},
		// A service's proxy looks for its endpoint slices by a label no
		// slice can have: there are none.
		{"GET", "/api/v1/namespaces/default/services/../proxy", "", 503, `no endpoints available for service ".."`},
		// A name that can be one is looked for.
		{"GET", "/api/v1/namespaces/default/configmaps/a..b", "", 404, `configmaps "a..b" not found`},
	})
}

// TestCreateOnlyResourceHasNoNamedPath sends every method to a named path
// of the reviews and bindings, and to the all-namespaces path of the
// namespaced ones: kube-apiserver has no such routes (404), where a route
// that exists but not for the method is a 405.
func TestCreateOnlyResourceHasNoNamedPath(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const noRoute = "the server could not find the requested resource"
	const noMethod = "the server does not allow this method on the requested resource"
	var cases []recordedRequest
	for _, path := range []string{
		"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x",
		"/apis/authentication.k8s.io/v1/tokenreviews/x",
		"/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews/x",
		"/apis/authorization.k8s.io/v1/localsubjectaccessreviews",
		"/api/v1/namespaces/default/bindings/x",
		"/api/v1/bindings",
	} {
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			body := ""
			if method != "GET" && method != "DELETE" {
				body = "{}"
			}
			cases = append(cases, recordedRequest{method, path, body, 404, noRoute})
		}
	}
	cases = append(cases,
		recordedRequest{"GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "", 405, noMethod},
		recordedRequest{"DELETE", "/api/v1/namespaces/default/bindings", "", 405, noMethod},
		recordedRequest{"POST", "/api/v1/pods", "{}", 405, noMethod},
		recordedRequest{"DELETE", "/api/v1/componentstatuses/x", "", 405, noMethod},
		// Validation comes before the missing name.
		recordedRequest{"POST", "/api/v1/namespaces/default/bindings?dryRun=All", "{}", 500, "target.name: Required value"},
	)
	runRecordedRequests(t, cp, cases)
}

// TestUpdateChecksNamespaceThenNameBeforeReading puts objects, scales and
// statuses whose body names another namespace or name: kube-apiserver's
// update handler refuses the namespace first, then the name, before the
// object is read, so a missing object is not a 404 then. A Scale without
// a name is refused too.
func TestUpdateChecksNamespaceThenNameBeforeReading(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	mustStatus(t, cp, "POST", "/apis/apps/v1/namespaces/default/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`, 201)
	const otherNamespace = "the namespace of the provided object does not match the namespace sent on the request"
	scale := func(meta string) string {
		return `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":` + meta + `,"spec":{"replicas":1}}`
	}
	runRecordedRequests(t, cp, []recordedRequest{
		{"PUT", "/api/v1/namespaces/default/configmaps/nope?dryRun=All", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nope","namespace":"other"}}`, 400, otherNamespace},
		{"PUT", "/api/v1/namespaces/default/configmaps/nope?dryRun=All", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"other"}}`, 400, otherNamespace},
		{"PUT", "/api/v1/namespaces/default/pods/nope/status?dryRun=All", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","namespace":"x"}}`, 400, otherNamespace},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/d/scale?dryRun=All", scale(`{}`), 400, "the name of the object (d based on URL) was undeterminable: name must be provided"},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/d/scale?dryRun=All", scale(`{"name":"d","namespace":"other"}`), 400, otherNamespace},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/nope/scale?dryRun=All", scale(`{"name":"x"}`), 400, "the name of the object (x) does not match the name on the URL (nope)"},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/nope/scale?dryRun=All", scale(`{"name":"nope"}`), 404, `deployments.apps "nope" not found`},
	})
	code, _, body := rawRequest(t, cp, "PUT", "/apis/apps/v1/namespaces/default/deployments/d/scale?dryRun=All", "application/json", []byte(scale(`{"name":"d"}`)), nil)
	if code != 200 {
		t.Errorf("a Scale of the URL's name: %d: %s", code, body)
	}
}

// TestBodyOfAnotherKindIsDecodedAsItsKindFirst creates a ConfigMap from a
// body that says it is a Secret: kube-apiserver decodes it as a Secret
// before it tries to convert, so the Secret's decoding error is the answer
// when there is one.
func TestBodyOfAnotherKindIsDecodedAsItsKindFirst(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	runRecordedRequests(t, cp, []recordedRequest{
		{"POST", "/api/v1/namespaces/default/configmaps?dryRun=All", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"},"data":{"a":"b"}}`, 400,
			`Secret in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0`},
		{"POST", "/api/v1/namespaces/default/configmaps?dryRun=All", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"},"data":{"a":"YQ=="}}`, 400,
			`Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion`},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/x?dryRun=All", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":1}`, 400,
			`Pod in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct field Pod.spec of type v1.PodSpec`},
		{"POST", "/apis/apps/v1/namespaces/default/deployments?dryRun=All", `{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"x"},"spec":{"replicas":"x"}}`, 400,
			`Deployment in version "v1beta2" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
	})
}

// TestDeleteRulesAsKubeAPIServer deletes with options whose answers depend
// on the resource (refplane's answers): an events.k8s.io Event's failed
// precondition names the core kind it is stored as, and a namespace's
// first delete with orphanDependents=false adds the foregroundDeletion
// finalizer, as upstream's namespace storage reads it.
func TestDeleteRulesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	mustStatus(t, cp, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"c","reportingInstance":"i","action":"a","reason":"r","type":"Normal"}`, 201)
	created := mustStatus(t, cp, "GET", "/apis/events.k8s.io/v1/namespaces/default/events/e", "", 200)
	var e struct {
		Metadata struct{ UID string } `json:"metadata"`
	}
	if err := json.Unmarshal(created, &e); err != nil {
		t.Fatal(err)
	}
	const other = "00000000-0000-0000-0000-000000000000"
	runRecordedRequests(t, cp, []recordedRequest{
		{"DELETE", "/apis/events.k8s.io/v1/namespaces/default/events/e?dryRun=All", `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"` + other + `"}}`, 409,
			`Operation cannot be fulfilled on Event "e": the UID in the precondition (` + other + `) does not match the UID in record (` + e.Metadata.UID + `). The object might have been deleted and then recreated`},
	})
	mustStatus(t, cp, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}}`, 201)
	body := mustStatus(t, cp, "DELETE", "/api/v1/namespaces/n?dryRun=All&orphanDependents=false", "", 202)
	var ns struct {
		Metadata struct{ Finalizers []string } `json:"metadata"`
		Status   struct{ Phase string }        `json:"status"`
	}
	if err := json.Unmarshal(body, &ns); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ns.Metadata.Finalizers, []string{"foregroundDeletion"}) || ns.Status.Phase != "Terminating" {
		t.Errorf("namespace deleted with orphanDependents=false: finalizers %v, phase %s; want [foregroundDeletion], Terminating", ns.Metadata.Finalizers, ns.Status.Phase)
	}
}
