package fakeplane_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/registry"
)

// The expected answers in this file are refplane's: a kube-apiserver v1.37.2
// (with etcd, no kube-controller-manager) sent the same requests, and its
// codes, Status messages, reasons, details and protobuf bytes are hard-coded
// below as recorded.

// errorFidelityCRDs are the two custom resources the recordings used: a
// namespaced and a cluster-scoped kind of group h6.example.com.
var errorFidelityCRDs = []string{
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"h6-widgets.h6.example.com"},"spec":{"group":"h6.example.com","scope":"Namespaced","names":{"plural":"h6-widgets","singular":"h6-widget","kind":"H6Widget","listKind":"H6WidgetList"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`,
	`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"h6-gadgets.h6.example.com"},"spec":{"group":"h6.example.com","scope":"Cluster","names":{"plural":"h6-gadgets","singular":"h6-gadget","kind":"H6Gadget","listKind":"H6GadgetList"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`,
}

// startErrorFidelity starts a control plane with namespace h6-a and the
// recordings' custom resources served.
func startErrorFidelity(t *testing.T) *fakeplane.ControlPlane {
	t.Helper()
	cp := fakeplane.Start(t)
	mustStatus(t, cp, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"h6-a"}}`, 201)
	for _, crd := range errorFidelityCRDs {
		mustStatus(t, cp, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, 201)
	}
	for _, p := range []string{"/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets", "/apis/h6.example.com/v1/h6-gadgets"} {
		waitFor(t, func() bool {
			code, _, _ := rawRequest(t, cp, "GET", p, "", nil, nil)
			return code == http.StatusOK
		})
	}
	return cp
}

// mustStatus sends a JSON request and fails unless it answers code; it
// returns the body.
func mustStatus(t *testing.T, cp *fakeplane.ControlPlane, method, path, body string, code int) []byte {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
		if method == "PATCH" {
			ct = "application/merge-patch+json"
		}
	}
	got, _, b := rawRequest(t, cp, method, path, ct, []byte(body), nil)
	if got != code {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, got, code, b)
	}
	return b
}

// TestCreateWhileDeletingSaysBeingDeleted creates an object whose name is
// held by an object waiting for its finalizers: kube-apiserver's generic
// store answers AlreadyExists with its message prefixed by "object is being
// deleted: ", details unchanged, for any kind and for a dry run.
func TestCreateWhileDeletingSaysBeingDeleted(t *testing.T) {
	t.Parallel()
	cp := startErrorFidelity(t)
	cases := []struct {
		name, coll, item, obj string
		// want is refplane's 409 (reason AlreadyExists).
		wantMessage, wantGroup, wantKind string
	}{
		{
			name: "namespaced built-in", coll: "/api/v1/namespaces/h6-a/configmaps", item: "c1",
			obj:         `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"%s}}`,
			wantMessage: `object is being deleted: configmaps "c1" already exists`, wantKind: "configmaps",
		},
		{
			name: "namespaced built-in with a group", coll: "/apis/coordination.k8s.io/v1/namespaces/h6-a/leases", item: "l1",
			obj:         `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l1"%s}}`,
			wantMessage: `object is being deleted: leases.coordination.k8s.io "l1" already exists`, wantGroup: "coordination.k8s.io", wantKind: "leases",
		},
		{
			name: "cluster-scoped built-in", coll: "/apis/rbac.authorization.k8s.io/v1/clusterroles", item: "h6-cr1",
			obj:         `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"h6-cr1"%s}}`,
			wantMessage: `object is being deleted: clusterroles.rbac.authorization.k8s.io "h6-cr1" already exists`, wantGroup: "rbac.authorization.k8s.io", wantKind: "clusterroles",
		},
		{
			name: "namespaced custom resource", coll: "/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets", item: "w1",
			obj:         `{"apiVersion":"h6.example.com/v1","kind":"H6Widget","metadata":{"name":"w1"%s}}`,
			wantMessage: `object is being deleted: h6-widgets.h6.example.com "w1" already exists`, wantGroup: "h6.example.com", wantKind: "h6-widgets",
		},
		{
			name: "cluster-scoped custom resource", coll: "/apis/h6.example.com/v1/h6-gadgets", item: "h6-g1",
			obj:         `{"apiVersion":"h6.example.com/v1","kind":"H6Gadget","metadata":{"name":"h6-g1"%s}}`,
			wantMessage: `object is being deleted: h6-gadgets.h6.example.com "h6-g1" already exists`, wantGroup: "h6.example.com", wantKind: "h6-gadgets",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			held := strings.Replace(tc.obj, "%s", `,"finalizers":["example.com/x"]`, 1)
			plain := strings.Replace(tc.obj, "%s", "", 1)
			mustStatus(t, cp, "POST", tc.coll, held, 201)
			// Taken by a live object: the plain AlreadyExists.
			b := mustStatus(t, cp, "POST", tc.coll, plain, 409)
			if st := decodeStatus(t, b); st.Message != strings.TrimPrefix(tc.wantMessage, "object is being deleted: ") {
				t.Errorf("live: message %q", st.Message)
			}
			mustStatus(t, cp, "DELETE", tc.coll+"/"+tc.item, "", 200)
			for _, path := range []string{tc.coll, tc.coll + "?dryRun=All"} {
				st := decodeStatus(t, mustStatus(t, cp, "POST", path, plain, 409))
				want := metav1.Status{
					TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: 409,
					Message: tc.wantMessage, Reason: metav1.StatusReasonAlreadyExists,
					Details: &metav1.StatusDetails{Name: tc.item, Group: tc.wantGroup, Kind: tc.wantKind},
				}
				if !sameJSON(t, st, want) {
					t.Errorf("POST %s: got %+v, want %+v", path, st, want)
				}
			}
			mustStatus(t, cp, "PATCH", tc.coll+"/"+tc.item, `{"metadata":{"finalizers":null}}`, 200)
			waitFor(t, func() bool {
				code, _, _ := rawRequest(t, cp, "GET", tc.coll+"/"+tc.item, "", nil, nil)
				return code == http.StatusNotFound
			})
			mustStatus(t, cp, "POST", tc.coll, plain, 201)
		})
	}
}

// TestNamespaceDeleteMarksFirst deletes namespaces as refplane answered:
// the first delete only marks a namespace (deletionTimestamp, phase
// Terminating) and answers it so, even with its spec.finalizers emptied
// beforehand through /finalize; the namespace REST checks preconditions
// with its own messages; a delete of a marked namespace still held by
// spec.finalizers changes nothing.
func TestNamespaceDeleteMarksFirst(t *testing.T) {
	t.Parallel()
	cp := startErrorFidelity(t)
	finalized := func(name string) {
		mustStatus(t, cp, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+name+`"}}`, 201)
		mustStatus(t, cp, "PUT", "/api/v1/namespaces/"+name+"/finalize", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+name+`"},"spec":{"finalizers":[]}}`, 200)
	}
	marked := func(t *testing.T, b []byte, wantFinalizers []string) corev1.Namespace {
		t.Helper()
		var ns corev1.Namespace
		if err := json.Unmarshal(b, &ns); err != nil || ns.Kind != "Namespace" {
			t.Fatalf("not a Namespace (%v): %s", err, b)
		}
		if ns.DeletionTimestamp == nil || ns.DeletionGracePeriodSeconds != nil || ns.Status.Phase != corev1.NamespaceTerminating {
			t.Errorf("want deletionTimestamp, no deletionGracePeriodSeconds, phase Terminating: %s", b)
		}
		if strings.Join(ns.Finalizers, ",") != strings.Join(wantFinalizers, ",") {
			t.Errorf("metadata.finalizers %v, want %v", ns.Finalizers, wantFinalizers)
		}
		return ns
	}

	t.Run("finalized namespace", func(t *testing.T) {
		finalized("h6-n1")
		marked(t, mustStatus(t, cp, "DELETE", "/api/v1/namespaces/h6-n1", "", 200), nil)
	})
	t.Run("dry run", func(t *testing.T) {
		finalized("h6-n2")
		marked(t, mustStatus(t, cp, "DELETE", "/api/v1/namespaces/h6-n2?dryRun=All", "", 200), nil)
		var ns corev1.Namespace
		_ = json.Unmarshal(mustStatus(t, cp, "GET", "/api/v1/namespaces/h6-n2", "", 200), &ns)
		if ns.DeletionTimestamp != nil || ns.Status.Phase != corev1.NamespaceActive {
			t.Errorf("dry run marked the namespace: %+v", ns.ObjectMeta)
		}
		marked(t, mustStatus(t, cp, "DELETE", "/api/v1/namespaces/h6-n2?gracePeriodSeconds=0", "", 200), nil)
	})
	t.Run("orphan", func(t *testing.T) {
		finalized("h6-n3")
		marked(t, mustStatus(t, cp, "DELETE", "/api/v1/namespaces/h6-n3", `{"propagationPolicy":"Orphan"}`, 200), []string{"orphan"})
	})
	t.Run("preconditions and a second delete", func(t *testing.T) {
		mustStatus(t, cp, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"h6-n4"}}`, 201)
		// Content held by a finalizer keeps the namespace's own finalizer.
		mustStatus(t, cp, "POST", "/api/v1/namespaces/h6-n4/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","finalizers":["example.com/x"]}}`, 201)
		var ns corev1.Namespace
		_ = json.Unmarshal(mustStatus(t, cp, "GET", "/api/v1/namespaces/h6-n4", "", 200), &ns)
		for _, tc := range []struct{ body, want string }{
			{`{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`,
				`Operation cannot be fulfilled on namespaces "h6-n4": Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: ` + string(ns.UID)},
			{`{"preconditions":{"resourceVersion":"1"}}`,
				`Operation cannot be fulfilled on namespaces "h6-n4": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ` + ns.ResourceVersion},
		} {
			st := decodeStatus(t, mustStatus(t, cp, "DELETE", "/api/v1/namespaces/h6-n4", tc.body, 409))
			want := metav1.Status{
				TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: 409,
				Message: tc.want, Reason: metav1.StatusReasonConflict, Details: &metav1.StatusDetails{Name: "h6-n4", Kind: "namespaces"},
			}
			if !sameJSON(t, st, want) {
				t.Errorf("DELETE %s: got %+v, want %+v", tc.body, st, want)
			}
		}
		marked(t, mustStatus(t, cp, "DELETE", "/api/v1/namespaces/h6-n4", "", 200), nil)
		again := marked(t, mustStatus(t, cp, "DELETE", "/api/v1/namespaces/h6-n4", `{"propagationPolicy":"Orphan"}`, 200), nil)
		if len(again.Spec.Finalizers) != 1 || again.Spec.Finalizers[0] != corev1.FinalizerKubernetes {
			t.Errorf("spec.finalizers %v", again.Spec.Finalizers)
		}
		mustStatus(t, cp, "PATCH", "/api/v1/namespaces/h6-n4/configmaps/held", `{"metadata":{"finalizers":null}}`, 200)
	})
}

// TestDeleteBodiesCarryDeletionMark checks the bodies of deletes as
// refplane answered them: an object waiting for finalizers is answered
// with deletionTimestamp, deletionGracePeriodSeconds 0 and (when it tracks
// one) its generation bumped; an object removed at once (grace period 0 or
// none) is answered with a Success Status naming it.
func TestDeleteBodiesCarryDeletionMark(t *testing.T) {
	t.Parallel()
	cp := startErrorFidelity(t)
	type meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Generation                 int64   `json:"generation"`
			DeletionTimestamp          *string `json:"deletionTimestamp"`
			DeletionGracePeriodSeconds *int64  `json:"deletionGracePeriodSeconds"`
		} `json:"metadata"`
	}
	cases := []struct {
		name, coll, item, obj, query string
		// wantGeneration is the generation of an object answered as
		// marked; wantGone names the group and resource of a Success.
		wantGeneration      int64
		wantGone            bool
		wantGroup, wantKind string
	}{
		{name: "custom resource held by a finalizer", coll: "/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets", item: "w1",
			obj: `{"apiVersion":"h6.example.com/v1","kind":"H6Widget","metadata":{"name":"w1","finalizers":["example.com/x"]}}`, wantGeneration: 2},
		{name: "built-in held by a finalizer", coll: "/api/v1/namespaces/h6-a/configmaps", item: "c1",
			obj: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1","finalizers":["example.com/x"]}}`, wantGeneration: 0},
		{name: "custom resource", coll: "/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets", item: "w2",
			obj: `{"apiVersion":"h6.example.com/v1","kind":"H6Widget","metadata":{"name":"w2"}}`, wantGone: true, wantGroup: "h6.example.com", wantKind: "h6-widgets"},
		{name: "custom resource, grace period 0", coll: "/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets", item: "w3", query: "?gracePeriodSeconds=0",
			obj: `{"apiVersion":"h6.example.com/v1","kind":"H6Widget","metadata":{"name":"w3"}}`, wantGone: true, wantGroup: "h6.example.com", wantKind: "h6-widgets"},
		{name: "built-in, grace period 0", coll: "/api/v1/namespaces/h6-a/configmaps", item: "d1", query: "?gracePeriodSeconds=0",
			obj: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d1"}}`, wantGone: true, wantKind: "configmaps"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			created := mustStatus(t, cp, "POST", tc.coll, tc.obj, 201)
			b := mustStatus(t, cp, "DELETE", tc.coll+"/"+tc.item+tc.query, "", 200)
			if tc.wantGone {
				var obj struct {
					Metadata struct {
						UID types.UID `json:"uid"`
					} `json:"metadata"`
				}
				_ = json.Unmarshal(created, &obj)
				want := metav1.Status{
					TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess,
					Details: &metav1.StatusDetails{Name: tc.item, Group: tc.wantGroup, Kind: tc.wantKind, UID: obj.Metadata.UID},
				}
				if st := decodeStatus(t, b); !sameJSON(t, st, want) {
					t.Errorf("got %s, want %+v", b, want)
				}
				return
			}
			var m meta
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			md := m.Metadata
			if m.Kind == "Status" || md.DeletionTimestamp == nil || md.DeletionGracePeriodSeconds == nil || *md.DeletionGracePeriodSeconds != 0 {
				t.Errorf("want the object with deletionTimestamp and deletionGracePeriodSeconds 0: %s", b)
			}
			if md.Generation != tc.wantGeneration {
				t.Errorf("generation %d, want %d", md.Generation, tc.wantGeneration)
			}
			mustStatus(t, cp, "PATCH", tc.coll+"/"+tc.item, `{"metadata":{"finalizers":null}}`, 200)
		})
	}
}

// TestVersionIsKubeAPIServerV1372 compares /version with refplane's, field
// by field; buildDate, goVersion, compiler and platform describe the binary
// that answers, so they may differ.
func TestVersionIsKubeAPIServerV1372(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	var got version.Info
	if err := json.Unmarshal(mustStatus(t, cp, "GET", "/version", "", 200), &got); err != nil {
		t.Fatal(err)
	}
	want := version.Info{
		Major: "1", Minor: "37", EmulationMajor: "1", EmulationMinor: "37",
		MinCompatibilityMajor: "1", MinCompatibilityMinor: "36",
		GitVersion: "v1.37.2", GitCommit: "$Format:%H$", GitTreeState: "clean",
		BuildDate: got.BuildDate, GoVersion: got.GoVersion, Compiler: got.Compiler, Platform: got.Platform,
	}
	if got != want {
		t.Errorf("/version %+v, want %+v", got, want)
	}
	cs, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	sv, err := cs.Discovery().ServerVersion()
	if err != nil || sv.GitVersion != "v1.37.2" {
		t.Errorf("client-go ServerVersion: %v, %v", sv, err)
	}
}

// TestErrorsInProtobuf sends requests that fail with Accept naming protobuf
// and compares the bodies with refplane's, byte for byte: kube-apiserver
// negotiates an error's encoding among JSON, YAML and protobuf for any
// endpoint (custom resources and /version included) and writes a v1
// Status in the protobuf envelope.
func TestErrorsInProtobuf(t *testing.T) {
	t.Parallel()
	cp := startErrorFidelity(t)
	waitFor(t, func() bool {
		code, _, _ := rawRequest(t, cp, "GET", "/api/v1/namespaces/h6-a/configmaps/kube-root-ca.crt", "", nil, nil)
		return code == http.StatusOK
	})
	const pb = "application/vnd.kubernetes.protobuf"
	notFoundCM := "k8s\x00\n\f\n\x02v1\x12\x06Status\x12U\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a\x1bconfigmaps \"nope\" not found\"\bNotFound*\x18\n\x04nope\x12\x00\x1a\nconfigmaps(\x002\x000\x94\x03\x1a\x00\"\x00"
	notAcceptableCR := "k8s\x00\n\f\n\x02v1\x12\x06Status\x12\x99\x01\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1atonly the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf\"\rNotAcceptable0\x96\x03\x1a\x00\"\x00"
	cases := []struct {
		name, accept, method, path, ct, body string
		code                                 int
		want                                 string // refplane's body; "" for JSON
	}{
		{"not found", pb, "GET", "/api/v1/namespaces/h6-a/configmaps/nope", "", "", 404, notFoundCM},
		{"not found, protobuf then JSON", pb + ", application/json", "GET", "/api/v1/namespaces/h6-a/configmaps/nope", "", "", 404, notFoundCM},
		{"not found, watch stream type", pb + ";stream=watch", "GET", "/api/v1/namespaces/h6-a/configmaps/nope", "", "", 404, notFoundCM},
		{"patch not found", pb, "PATCH", "/api/v1/namespaces/h6-a/configmaps/nope", "application/merge-patch+json", "{}", 404, notFoundCM},
		{"already exists", pb, "POST", "/api/v1/namespaces/h6-a/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt"}}`, 409,
			"k8s\x00\n\f\n\x02v1\x12\x06Status\x12w\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a,configmaps \"kube-root-ca.crt\" already exists\"\rAlreadyExists*$\n\x10kube-root-ca.crt\x12\x00\x1a\nconfigmaps(\x002\x000\x99\x03\x1a\x00\"\x00"},
		{"unknown resource", pb, "GET", "/api/v1/namespaces/h6-a/nothings", "", "", 404,
			"k8s\x00\n\f\n\x02v1\x12\x06Status\x12\\\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a0the server could not find the requested resource\"\bNotFound*\n\n\x00\x12\x00\x1a\x00(\x002\x000\x94\x03\x1a\x00\"\x00"},
		{"method not allowed", pb, "POST", "/api/v1/namespaces/h6-a/configmaps/nope", "application/json", "{}", 405,
			"k8s\x00\n\f\n\x02v1\x12\x06Status\x12s\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a?the server does not allow this method on the requested resource\"\x10MethodNotAllowed*\n\n\x00\x12\x00\x1a\x00(\x002\x000\x95\x03\x1a\x00\"\x00"},
		{"unsupported media type", pb, "PUT", "/api/v1/namespaces/h6-a/configmaps/nope", "text/plain", "{}", 415,
			"k8s\x00\n\f\n\x02v1\x12\x06Status\x12\xc5\x01\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a\x98\x01the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf\"\x14UnsupportedMediaType0\x9f\x03\x1a\x00\"\x00"},
		{"bad watch field selector", pb, "GET", "/api/v1/namespaces/h6-a/configmaps?watch=1&fieldSelector=foo%3Dbar", "", "", 400,
			"k8s\x00\n\f\n\x02v1\x12\x06Status\x12q\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1aO\"foo\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"\"\nBadRequest0\x90\x03\x1a\x00\"\x00"},
		{"subresource not found", pb, "GET", "/api/v1/namespaces/h6-a/pods/nope/log", "", "", 404,
			"k8s\x00\n\f\n\x02v1\x12\x06Status\x12I\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a\x15pods \"nope\" not found\"\bNotFound*\x12\n\x04nope\x12\x00\x1a\x04pods(\x002\x000\x94\x03\x1a\x00\"\x00"},
		{"custom resource, protobuf only", pb, "GET", "/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets/nope", "", "", 406, notAcceptableCR},
		{"custom resource create, protobuf only", pb, "POST", "/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets", "application/json", `{"apiVersion":"h6.example.com/v1","kind":"H6Widget","metadata":{"name":"BAD"}}`, 406, notAcceptableCR},
		{"custom resource not found, protobuf then JSON", pb + ", application/json", "GET", "/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets/nope", "", "", 404,
			"k8s\x00\n\f\n\x02v1\x12\x06Status\x12r\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a*h6-widgets.h6.example.com \"nope\" not found\"\bNotFound*&\n\x04nope\x12\x0eh6.example.com\x1a\nh6-widgets(\x002\x000\x94\x03\x1a\x00\"\x00"},
		{"version", pb, "GET", "/version", "", "", 406,
			"k8s\x00\n\f\n\x02v1\x12\x06Status\x12q\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a@406: Not Acceptable\n\nAvailable representations: application/json\"\rNotAcceptable*\n\n\x00\x12\x00\x1a\x00(\x002\x000\x96\x03\x1a\x00\"\x00"},
		// JSON wins by order or weight; a protobuf Table clause is no
		// encoding for an error (so the 406 is JSON).
		{"JSON first", "application/json, " + pb, "GET", "/api/v1/namespaces/h6-a/configmaps/nope", "", "", 404, ""},
		{"JSON weighs more", pb + ";q=0.5, application/json;q=0.9", "GET", "/api/v1/namespaces/h6-a/configmaps/nope", "", "", 404, ""},
		{"protobuf Table", pb + ";as=Table;v=v1;g=meta.k8s.io", "GET", "/api/v1/namespaces/h6-a/configmaps/nope", "", "", 406, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, ct, b := rawRequest(t, cp, tc.method, tc.path, tc.ct, []byte(tc.body), http.Header{"Accept": {tc.accept}})
			if code != tc.code {
				t.Fatalf("code %d, want %d: %q", code, tc.code, b)
			}
			if tc.want == "" {
				if ct != "application/json" {
					t.Errorf("Content-Type %q, want JSON: %q", ct, b)
				}
				return
			}
			if ct != pb {
				t.Errorf("Content-Type %q, want %s", ct, pb)
			}
			if string(b) != tc.want {
				t.Errorf("body\n%q\nwant refplane's\n%q", b, tc.want)
			}
		})
	}
}

// TestProtobufWatchErrorEvent reads the ERROR event of a protobuf watch
// whose timeout has already passed: refplane's frame types the Status v1.
func TestProtobufWatchErrorEvent(t *testing.T) {
	t.Parallel()
	cp := startErrorFidelity(t)
	code, _, b := rawRequest(t, cp, "GET", "/apis/apps/v1/namespaces/h6-a/deployments?watch=1&timeoutSeconds=-1", "", nil,
		http.Header{"Accept": {"application/vnd.kubernetes.protobuf;stream=watch"}})
	want := "\x00\x00\x00a\n\x05ERROR\x12X\nVk8s\x00\n\f\n\x02v1\x12\x06Status\x12>\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a\x19context deadline exceeded\"\rInternalError0\xf4\x03\x1a\x00\"\x00"
	if code != http.StatusOK || string(b) != want {
		t.Errorf("%d %q, want refplane's 200 %q", code, b, want)
	}
}

// TestProtobufClientDecodesErrors drives client-go's typed clientset with
// protobuf as its content type (and as its only accepted type, and before
// JSON): each failure decodes into the StatusError refplane's JSON answer
// describes.
func TestProtobufClientDecodesErrors(t *testing.T) {
	t.Parallel()
	cp := startErrorFidelity(t)
	for _, accept := range []string{"application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf,application/json"} {
		t.Run(accept, func(t *testing.T) {
			cfg := cp.RESTConfig()
			cfg.ContentType = "application/vnd.kubernetes.protobuf"
			cfg.AcceptContentTypes = accept
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := ctxT(t)
			cms := cs.CoreV1().ConfigMaps("h6-a")
			_, err = cms.Get(ctx, "nope", metav1.GetOptions{})
			checkStatusError(t, "get", err, metav1.Status{Status: "Failure", Code: 404, Reason: metav1.StatusReasonNotFound,
				Message: `configmaps "nope" not found`, Details: &metav1.StatusDetails{Name: "nope", Kind: "configmaps"}})

			_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "BAD"}}, metav1.CreateOptions{})
			const rfc1123 = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
			checkStatusError(t, "create invalid", err, metav1.Status{Status: "Failure", Code: 422, Reason: metav1.StatusReasonInvalid,
				Message: `ConfigMap "BAD" is invalid: metadata.name: Invalid value: "BAD": ` + rfc1123,
				Details: &metav1.StatusDetails{Name: "BAD", Kind: "ConfigMap", Causes: []metav1.StatusCause{
					{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "BAD": ` + rfc1123, Field: "metadata.name"},
				}}})

			held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c1", Finalizers: []string{"example.com/x"}}}
			if _, err := cms.Create(ctx, held, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			if err := cms.Delete(ctx, "c1", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}, metav1.CreateOptions{})
			checkStatusError(t, "create while deleting", err, metav1.Status{Status: "Failure", Code: 409, Reason: metav1.StatusReasonAlreadyExists,
				Message: `object is being deleted: configmaps "c1" already exists`, Details: &metav1.StatusDetails{Name: "c1", Kind: "configmaps"}})
		})
	}
}

// checkStatusError fails unless err is a StatusError carrying want.
func checkStatusError(t *testing.T, what string, err error, want metav1.Status) {
	t.Helper()
	se, ok := err.(*apierrors.StatusError)
	if !ok {
		t.Errorf("%s: %T %v, want a StatusError", what, err, err)
		return
	}
	got := se.ErrStatus
	got.TypeMeta = metav1.TypeMeta{}
	if !sameJSON(t, got, want) {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
}

// decodeStatus decodes a JSON Status body.
func decodeStatus(t *testing.T, b []byte) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("not a Status (%v): %s", err, b)
	}
	return st
}

// sameJSON compares two values by their JSON encodings.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}

// TestDeleteSuccessStatusInProtobuf: a delete's Success Status is encoded in
// protobuf when the client asks for it, as kube-apiserver v1.37 encodes it
// (the same bytes, UID aside, recorded from refplane).
func TestDeleteSuccessStatusInProtobuf(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const cms = "/api/v1/namespaces/default/configmaps"
	if code, _, out := rawRequest(t, cp, "POST", cms, "application/json", []byte(`{"metadata":{"name":"pb"}}`), nil); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	code, ctype, out := rawRequest(t, cp, "DELETE", cms+"/pb", "", nil, http.Header{"Accept": {"application/vnd.kubernetes.protobuf"}})
	if code != http.StatusOK || ctype != "application/vnd.kubernetes.protobuf" || !strings.HasPrefix(string(out), "k8s\x00") {
		t.Fatalf("delete: %d %q %q", code, ctype, out)
	}
	obj, err := runtime.Decode(registry.ProtobufSerializer(), out)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := obj.(*metav1.Status)
	if !ok || st.Status != metav1.StatusSuccess || st.Details == nil || st.Details.Name != "pb" || st.Details.Kind != "configmaps" || st.Details.UID == "" {
		t.Errorf("delete answered %#v", obj)
	}
}

// TestUndecodableBodiesAreWordedAsKubeAPIServer: a body that does not decode
// is a 400 whose message is kube-apiserver's. An object's names the kind it
// should have been and the body's start; delete options' is the decoder's
// error alone; every failure of a custom resource's Scale gets the error of
// upstream's typer, which does not know the Scale kind.
func TestUndecodableBodiesAreWordedAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := startErrorFidelity(t)
	mustStatus(t, cp, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"h6-scalers.h6.example.com"},"spec":{"group":"h6.example.com","scope":"Namespaced","names":{"plural":"h6-scalers","singular":"h6-scaler","kind":"H6Scaler","listKind":"H6ScalerList"},"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`, 201)
	waitFor(t, func() bool {
		code, _, _ := rawRequest(t, cp, "GET", "/apis/h6.example.com/v1/namespaces/h6-a/h6-scalers", "", nil, nil)
		return code == http.StatusOK
	})
	mustStatus(t, cp, "POST", "/apis/h6.example.com/v1/namespaces/h6-a/h6-scalers", `{"apiVersion":"h6.example.com/v1","kind":"H6Scaler","metadata":{"name":"x"},"spec":{"replicas":1}}`, 201)
	const (
		yamlCT        = "application/yaml"
		badYAML       = "metadata: {name: [}"
		badYAMLStart  = "6d657461646174613a207b6e616d653a205b7d" // as upstream's summarizeData prints it
		shortBadYAML  = "a: ["
		notRegistered = `no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:111"`
	)
	const ns = "/api/v1/namespaces/h6-a"
	const scaler = "/apis/h6.example.com/v1/namespaces/h6-a/h6-scalers/x/scale"
	tests := []struct {
		name, method, path, contentType, body, want string
	}{
		{"a create's YAML", "POST", ns + "/configmaps", yamlCT, badYAML,
			"the object provided is unrecognized (must be of type ConfigMap): yaml: did not find expected node content (" + badYAMLStart + ")"},
		{"a strict create's YAML", "POST", ns + "/configmaps?fieldValidation=Strict", yamlCT, badYAML,
			"the object provided is unrecognized (must be of type ConfigMap): yaml: did not find expected node content (" + badYAMLStart + ")"},
		{"an update's YAML", "PUT", ns + "/configmaps/x", yamlCT, badYAML,
			"the object provided is unrecognized (must be of type ConfigMap): yaml: did not find expected node content (" + badYAMLStart + ")"},
		{"a custom resource's YAML", "POST", "/apis/h6.example.com/v1/namespaces/h6-a/h6-widgets", yamlCT, badYAML,
			"the object provided is unrecognized (must be of type H6Widget): yaml: did not find expected node content (" + badYAMLStart + ")"},
		{"delete options' YAML", "DELETE", ns + "/configmaps/x", yamlCT, shortBadYAML, "yaml: line 1: did not find expected node content"},
		{"a delete collection's YAML", "DELETE", ns + "/configmaps", yamlCT, shortBadYAML, "yaml: line 1: did not find expected node content"},
		{"an eviction's YAML", "POST", ns + "/pods/x/eviction", yamlCT, shortBadYAML,
			"the object provided is unrecognized (must be of type Eviction): yaml: line 1: did not find expected node content (613a205b)"},
		{"a token request's YAML", "POST", ns + "/serviceaccounts/default/token", yamlCT, shortBadYAML,
			"the object provided is unrecognized (must be of type TokenRequest): yaml: line 1: did not find expected node content (613a205b)"},
		{"a pod status's YAML", "PUT", ns + "/pods/x/status", yamlCT, shortBadYAML,
			"the object provided is unrecognized (must be of type Pod): yaml: line 1: did not find expected node content (613a205b)"},
		{"a review's YAML", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", yamlCT, shortBadYAML,
			"the object provided is unrecognized (must be of type SelfSubjectAccessReview): yaml: line 1: did not find expected node content (613a205b)"},
		{"a built-in Scale's YAML", "PUT", "/apis/apps/v1/namespaces/h6-a/deployments/x/scale", yamlCT, shortBadYAML,
			"the object provided is unrecognized (must be of type Scale): yaml: line 1: did not find expected node content (613a205b)"},
		{"a custom resource's Scale's YAML", "PUT", scaler, yamlCT, shortBadYAML, notRegistered},
		{"a custom resource's Scale's JSON", "PUT", scaler, "application/json", `{"a":`, notRegistered},
		{"a custom resource's Scale's field types", "PUT", scaler, "application/json", `{"spec":{"replicas":"x"}}`, notRegistered},
		{"a custom resource's Scale's kind", "PUT", scaler, "application/json", `{"apiVersion":"autoscaling/v1","kind":"Foo","metadata":{"name":"x"},"spec":{"replicas":2}}`, notRegistered},
		{"a custom resource's Scale's version", "PUT", scaler, "application/json", `{"apiVersion":"autoscaling/v2","kind":"Scale","metadata":{"name":"x"},"spec":{"replicas":2}}`, notRegistered},
		{"a custom resource's Scale's unknown field, strictly", "PUT", scaler + "?fieldValidation=Strict", "application/json",
			`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"x"},"spec":{"replicas":2},"bogus":1}`, notRegistered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := rawRequest(t, cp, tt.method, tt.path, tt.contentType, []byte(tt.body), nil)
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil {
				t.Fatalf("%d %s: %v", code, body, err)
			}
			if code != http.StatusBadRequest || st.Reason != metav1.StatusReasonBadRequest || st.Message != tt.want {
				t.Errorf("got %d %s %q\nwant 400 BadRequest %q", code, st.Reason, st.Message, tt.want)
			}
		})
	}
}
