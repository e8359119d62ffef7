package fakeplane_test

import (
	"encoding/json"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// TestSubresourcesAndReviewsAsKubeAPIServer sends bindings, evictions, log
// and exec requests, token requests and reviews, good and bad, and checks
// each code and Status message against what a real v1.37 kube-apiserver
// answered to the same requests in the same order (recorded with
// refplane). Some of upstream's answers are odd and kept so: an invalid
// Binding is a 500 with the validation's text, and the log of a pod on a
// missing node names a missing pod.
func TestSubresourcesAndReviewsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	waitForDefaultServiceAccount(t, cp, "default")
	runWriteCases(t, cp, []writeCase{
		{"a pod", "POST", "/api/v1/namespaces/default/pods", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`, 201, ""},
		{`a binding needs a node's name (a 500, as upstream's)`, "POST", `/api/v1/namespaces/default/pods/p/binding`, `{"metadata":{"name":"p"},"target":{"kind":"Node","name":""}}`, 500, `target.name: Required value`},
		{`the binding's name is the pod's`, "POST", `/api/v1/namespaces/default/pods/p/binding`, `{"metadata":{"name":"other"},"target":{"kind":"Node","name":"n1"}}`, 400, `name in URL does not match name in Binding object`},
		{`a binding's target is a node`, "POST", `/api/v1/namespaces/default/pods/p/binding`, `{"metadata":{"name":"p"},"target":{"kind":"Pod","name":"n1"}}`, 500, `target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`},
		{`a binding is decoded strictly when asked`, "POST", `/api/v1/namespaces/default/pods/p/binding?fieldValidation=Strict`, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"bogus":1,"target":{"kind":"Node","name":"n1"}}`, 400, `Binding in version "v1" cannot be handled as a Binding: strict decoding error: unknown field "bogus"`},
		{`the bindings collection decodes strictly when asked`, "POST", `/api/v1/namespaces/default/bindings?fieldValidation=Strict`, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"bogus":1,"target":{"kind":"Node","name":"n1"}}`, 400, `Binding in version "v1" cannot be handled as a Binding: strict decoding error: unknown field "bogus"`},
		{`a binding's create options are checked first`, "POST", `/api/v1/namespaces/default/pods/p/binding?fieldManager=` + strings.Repeat("a", 130), `{"metadata":{"name":"other"},"target":{"kind":"Node","name":"n1"}}`, 422, `CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes`},
		{`a pod is bound`, "POST", `/api/v1/namespaces/default/pods/p/binding`, `{"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}}`, 201, ``},
		{`once`, "POST", `/api/v1/namespaces/default/pods/p/binding`, `{"metadata":{"name":"p"},"target":{"kind":"Node","name":"n2"}}`, 409, `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"`},
		{`an eviction's name is the pod's`, "POST", `/api/v1/namespaces/default/pods/p/eviction`, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"other"}}`, 400, `name in URL does not match name in Eviction object`},
		{`an eviction's delete options are validated`, "POST", `/api/v1/namespaces/default/pods/p/eviction`, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"deleteOptions":{"gracePeriodSeconds":-1}}`, 201, ``},
		{`an eviction is decoded strictly when asked`, "POST", `/api/v1/namespaces/default/pods/p/eviction?fieldValidation=Strict`, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"bogus":1}`, 400, `Eviction in version "v1" cannot be handled as a Eviction: strict decoding error: unknown field "bogus"`},
		{`an eviction's create options are checked`, "POST", `/api/v1/namespaces/default/pods/p/eviction?dryRun=Bogus`, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}`, 422, `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"`},
		{`an eviction of policy/v1beta1`, "POST", `/api/v1/namespaces/default/pods/p/eviction?dryRun=All`, `{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"p"}}`, 201, ``},
		{`an eviction of no known version`, "POST", `/api/v1/namespaces/default/pods/p/eviction?dryRun=All`, `{"apiVersion":"v1","kind":"Eviction","metadata":{"name":"p"}}`, 400, `Eviction in version "v1" cannot be handled as a Eviction: no kind "Eviction" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{`a binding is no eviction`, "POST", `/api/v1/namespaces/default/pods/p/eviction?dryRun=All`, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"}}`, 400, `Binding in version "v1" cannot be handled as a Eviction: converting (v1.Binding) to (policy.Eviction): unknown conversion`},
		{`evicting a missing pod`, "POST", `/api/v1/namespaces/default/pods/nosuch/eviction`, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"nosuch"}}`, 404, `pods "nosuch" not found`},
		{`an eviction's preconditions`, "POST", `/api/v1/namespaces/default/pods/p/eviction`, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"deleteOptions":{"preconditions":{"uid":"nope"}}}`, 409, ""}, // the message names the pod's UID
		{`a dry-run eviction`, "POST", `/api/v1/namespaces/default/pods/p/eviction`, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"deleteOptions":{"dryRun":["All"]}}`, 201, ``},
		{`evictions are created, not read`, "GET", `/api/v1/namespaces/default/pods/p/eviction`, ``, 405, `the server does not allow this method on the requested resource`},
		{`bindings are created, not read`, "GET", `/api/v1/namespaces/default/pods/p/binding`, ``, 405, `the server does not allow this method on the requested resource`},
		{`the log of a pod on a missing node: upstream names a pod`, "GET", `/api/v1/namespaces/default/pods/p/log`, ``, 404, `pods "n1" not found`},
		{`the log of a missing container`, "GET", `/api/v1/namespaces/default/pods/p/log?container=nope`, ``, 400, `container nope is not valid for pod p`},
		{`exec on a pod on a missing node`, "GET", `/api/v1/namespaces/default/pods/p/exec?command=ls`, ``, 404, `pods "n1" not found`},
		{`a token request's short expiration`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token`, `{"spec":{"expirationSeconds":10}}`, 422, `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes`},
		{`a token bound to a missing pod`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token`, `{"spec":{"audiences":[],"boundObjectRef":{"kind":"Pod","name":"nope"}}}`, 404, `pods "nope" not found`},
		{`a token bound to a ConfigMap`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token`, `{"spec":{"boundObjectRef":{"kind":"ConfigMap","name":"x"}}}`, 400, `cannot bind token to object of type /, Kind=ConfigMap`},
		{`a token of a missing service account`, "POST", `/api/v1/namespaces/default/serviceaccounts/nosa/token`, `{"spec":{}}`, 404, `serviceaccounts "nosa" not found`},
		{`a token of a missing service account is looked up before its request is validated`, "POST", `/api/v1/namespaces/default/serviceaccounts/nosa/token`, `{"spec":{"expirationSeconds":100}}`, 404, `serviceaccounts "nosa" not found`},
		{`a token request's name is its service account's`, "POST", `/api/v1/namespaces/default/serviceaccounts/nosa/token`, `{"metadata":{"name":"other"},"spec":{"expirationSeconds":100}}`, 422, `TokenRequest.authentication.k8s.io "nosa" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified`},
		{`a token request's namespace is the URL's`, "POST", `/api/v1/namespaces/default/serviceaccounts/nosa/token`, `{"metadata":{"namespace":"other"},"spec":{"expirationSeconds":100}}`, 400, `the namespace of the provided object does not match the namespace sent on the request`},
		{`a token request's UID is its service account's`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token`, `{"metadata":{"uid":"123"},"spec":{"expirationSeconds":100}}`, 409, ""}, // the message names the service account's UID
		{`a token request's long expiration`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token`, `{"spec":{"expirationSeconds":5000000000}}`, 422, `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 5000000000: may not specify a duration larger than 2^32 seconds`},
		{`a token bound to a secret without a name`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token`, `{"spec":{"boundObjectRef":{"kind":"Secret","apiVersion":"v1"}}}`, 400, `Name parameter required.`},
		{`a token bound to a pod of an unparsable apiVersion (the core group's)`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token`, `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"a/b/c","name":"nope"}}}`, 404, `pods "nope" not found`},
		{`a token request's create options are checked`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token?fieldManager=` + strings.Repeat("a", 130), `{"spec":{}}`, 422, `CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes`},
		{`a token request is decoded strictly when asked`, "POST", `/api/v1/namespaces/default/serviceaccounts/default/token?fieldValidation=Strict`, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{},"bogus":1}`, 400, `TokenRequest in version "v1" cannot be handled as a TokenRequest: strict decoding error: unknown field "bogus"`},
		{`a token review of a bad token`, "POST", `/apis/authentication.k8s.io/v1/tokenreviews`, `{"spec":{"token":"nope"}}`, 201, ``},
		{`a token review needs a token`, "POST", `/apis/authentication.k8s.io/v1/tokenreviews`, `{"spec":{}}`, 400, `token is required for TokenReview in authentication`},
		{`an access review needs attributes and a user`, "POST", `/apis/authorization.k8s.io/v1/subjectaccessreviews`, `{"spec":{}}`, 422, `.authorization.k8s.io "" is invalid: [spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]`},
		{`not both kinds of attributes`, "POST", `/apis/authorization.k8s.io/v1/subjectaccessreviews`, `{"spec":{"user":"u","resourceAttributes":{"verb":"get","resource":"pods"},"nonResourceAttributes":{"path":"/x","verb":"get"}}}`, 422, `.authorization.k8s.io "" is invalid: spec: Invalid value: {"Path":"/x","Verb":"get"}: exactly one of nonResourceAttributes or resourceAttributes must be specified`},
		{`a local review's namespace is its own`, "POST", `/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews`, `{"spec":{"user":"u","resourceAttributes":{"verb":"get","resource":"pods","namespace":"other"}}}`, 422, `.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`},
		{`a local review's body names the URL's namespace`, "POST", `/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews`, `{"metadata":{"namespace":"other"},"spec":{"user":"u","resourceAttributes":{"verb":"get","resource":"pods","namespace":"default"}}}`, 400, `the namespace of the provided object does not match the namespace sent on the request`},
		{`a cluster review's namespace is dropped`, "POST", `/apis/authorization.k8s.io/v1/subjectaccessreviews`, `{"metadata":{"namespace":"zzz"},"spec":{"user":"u","resourceAttributes":{"verb":"get","resource":"pods","namespace":"default"}}}`, 201, ``},
		{`a self review needs attributes`, "POST", `/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, `{"spec":{}}`, 422, `.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified`},
		{`a rules review needs a namespace`, "POST", `/apis/authorization.k8s.io/v1/selfsubjectrulesreviews`, `{"spec":{}}`, 400, `no namespace on request`},
		{`a self subject review`, "POST", `/apis/authentication.k8s.io/v1/selfsubjectreviews`, `{}`, 201, ``},
	})
}

// TestTokenRequestAnswerAsKubeAPIServer: a TokenRequest is answered as
// upstream's create handler and TokenREST leave it (recorded from
// refplane): the request's metadata, with the service account's name,
// namespace and UID, the time of the request, and the managedFields the
// field manager recorded for the token subresource (what the client set,
// and the defaulted expiration); an unknown field is a warning.
func TestTokenRequestAnswerAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	sa, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "tr"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, h, body := rawExchange(t, cp, "POST", "/api/v1/namespaces/default/serviceaccounts/tr/token?fieldManager=fm", "application/json",
		[]byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"labels":{"a":"b"}},"spec":{"audiences":["x"]},"bogus":1}`), nil)
	var tr authenticationv1.TokenRequest
	if err := json.Unmarshal(body, &tr); code != 201 || err != nil {
		t.Fatalf("%d %v %s", code, err, body)
	}
	if w := h.Get("Warning"); w != `299 - "unknown field \"bogus\""` {
		t.Errorf("warning %q", w)
	}
	m := tr.ObjectMeta
	if m.Name != "tr" || m.Namespace != "default" || m.UID != sa.UID || m.Labels["a"] != "b" || m.CreationTimestamp.IsZero() || tr.Status.Token == "" {
		t.Errorf("metadata %+v", m)
	}
	if mf := m.ManagedFields; len(mf) != 1 || mf[0].Manager != "fm" || mf[0].Operation != metav1.ManagedFieldsOperationUpdate || mf[0].APIVersion != "authentication.k8s.io/v1" ||
		mf[0].Subresource != "token" || string(mf[0].FieldsV1.Raw) != `{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:audiences":{},"f:expirationSeconds":{}}}` {
		t.Errorf("managedFields %+v", mf)
	}

	// A kubelet asks in protobuf.
	cfg := cp.RESTConfig()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	pb, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pb.CoreV1().ServiceAccounts("default").CreateToken(ctx, "tr", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"y"}}}, metav1.CreateOptions{})
	if err != nil || got.Status.Token == "" || got.UID != sa.UID || len(got.ManagedFields) != 1 || *got.Spec.ExpirationSeconds != 3600 {
		t.Errorf("protobuf: %v %+v", err, got)
	}
}

// TestSubresourceCreatesWarnAsKubeAPIServer: an eviction's, a binding's
// and a token request's unknown fields are warnings, as the create handler
// that decodes them words them (recorded from refplane).
func TestSubresourceCreatesWarnAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	waitForDefaultServiceAccount(t, cp, "default")
	if code, _, body := rawRequest(t, cp, "POST", "/api/v1/namespaces/default/pods", "application/json", []byte(`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`), nil); code != 201 {
		t.Fatalf("%d %s", code, body)
	}
	for _, tc := range []struct{ path, body string }{
		{"/api/v1/namespaces/default/pods/p/eviction?dryRun=All", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"bogus":1}`},
		{"/api/v1/namespaces/default/pods/p/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"bogus":1,"target":{"kind":"Node","name":"n1"}}`},
		{"/api/v1/namespaces/default/serviceaccounts/default/token", `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{},"bogus":1}`},
	} {
		code, h, body := rawExchange(t, cp, "POST", tc.path, "application/json", []byte(tc.body), nil)
		if code != 201 || h.Get("Warning") != `299 - "unknown field \"bogus\""` {
			t.Errorf("POST %s: %d, warning %q\n%s", tc.path, code, h.Get("Warning"), body)
		}
	}

	// Controllers and the scheduler send them in protobuf.
	cfg := cp.RESTConfig()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	pb, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if err := pb.PolicyV1().Evictions("default").Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, DeleteOptions: &metav1.DeleteOptions{DryRun: []string{"All"}}}); err != nil {
		t.Errorf("protobuf eviction: %v", err)
	}
	if _, err := pb.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pb.CoreV1().Pods("default").Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n9"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("protobuf binding: %v", err)
	}
	if q, err := pb.CoreV1().Pods("default").Get(ctx, "q", metav1.GetOptions{}); err != nil || q.Spec.NodeName != "n9" {
		t.Errorf("bound pod: %v %q", err, q.Spec.NodeName)
	}
}
