package fakeplane_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
)

// TestPatchedTypeMetaAsKubeAPIServer patches objects so that their result
// names another apiVersion or kind, and checks the code and Status message
// against what a real v1.37 kube-apiserver answered (recorded with
// refplane). Upstream's patch handler decodes a JSON or merge patch's
// result as whatever type it names, and a strategic merge patch's into the
// resource's type, so these differ from a create's answers. OBJ in a
// message stands for the patched object as json-patch gives it; every
// refused patch must leave the object as it was.
func TestPatchedTypeMetaAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := context.Background()
	cm := "/api/v1/namespaces/default/configmaps/jp"
	dep := "/apis/apps/v1/namespaces/default/deployments/dp"
	foo := "/apis/tests.example.com/v1beta1/foos/f1"
	createCRD(t, ctx, dynamic.NewForConfigOrDie(cp.RESTConfig()), foosCRD(t, "type: object\nx-kubernetes-preserve-unknown-fields: true"))
	for _, s := range []struct{ path, body string }{
		{"/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"jp"},"data":{"x":"y"}}`},
		{"/apis/apps/v1/namespaces/default/deployments", `{"metadata":{"name":"dp"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`},
		{"/apis/tests.example.com/v1beta1/foos", `{"apiVersion":"tests.example.com/v1beta1","kind":"Foo","metadata":{"name":"f1"},"spec":{"a":1}}`},
	} {
		if code, _, b := rawRequest(t, cp, "POST", s.path, "application/json", []byte(s.body), nil); code != 201 {
			t.Fatalf("setup %s: %d %s", s.path, code, b)
		}
	}
	const (
		merge     = "application/merge-patch+json"
		jsonPatch = "application/json-patch+json"
		smp       = "application/strategic-merge-patch+json"
		invalid   = ` "" is invalid: patch: Invalid value: OBJQ: `
		notCM     = `no kind "ConfigMap" is registered for version `
	)
	for _, tc := range []struct {
		name, path, ctype, body string
		code                    int
		message                 string // "" for a 200
	}{
		{name: "merge: an unregistered version", path: cm, ctype: merge, body: `{"apiVersion":"v2"}`,
			code: 422, message: invalid + notCM + `"v2" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "merge: a version of another group", path: cm, ctype: merge, body: `{"apiVersion":"apps/v1"}`,
			code: 422, message: invalid + notCM + `"apps/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "merge: an apiVersion that does not parse", path: cm, ctype: merge, body: `{"apiVersion":"a/b/c"}`,
			code: 422, message: invalid + `unexpected GroupVersion string: a/b/c`},
		{name: "merge: no apiVersion decodes to the internal type", path: cm, ctype: merge, body: `{"apiVersion":null}`,
			code: 400, message: `the name of the object (jp based on URL) was undeterminable: name must be provided`},
		{name: "merge: a group without a version", path: cm, ctype: merge, body: `{"apiVersion":"apps/"}`,
			code: 422, message: invalid + `Object 'apiVersion' is missing in 'OBJ'`},
		{name: "merge: a registered kind that does not convert", path: cm, ctype: merge, body: `{"kind":"Service"}`,
			code: 422, message: invalid + `converting (v1.Service) to (core.ConfigMap): unknown conversion`},
		{name: "merge: a kind of another group", path: cm, ctype: merge, body: `{"apiVersion":"apps/v1","kind":"Deployment"}`,
			code: 422, message: invalid + `converting (v1.Deployment) to (core.ConfigMap): unknown conversion`},
		{name: "merge: an unregistered kind", path: cm, ctype: merge, body: `{"kind":"Foo"}`,
			code: 422, message: invalid + `no kind "Foo" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "merge: an internal kind that does not convert", path: cm, ctype: merge, body: `{"apiVersion":"","kind":"Service"}`,
			code: 422, message: invalid + `converting (core.Service) to (core.ConfigMap): unknown conversion`},
		{name: "merge: an unregistered internal kind", path: cm, ctype: merge, body: `{"apiVersion":"","kind":"Deployment"}`,
			code: 422, message: invalid + `no kind "Deployment" is registered for the internal version of group "" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "merge: an apiVersion that is not a string", path: cm, ctype: merge, body: `{"apiVersion":5}`,
			code: 422, message: invalid + `couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string`},
		{name: "merge: an unknown field shows json-patch's result", path: cm + "?fieldValidation=Strict", ctype: merge, body: `{"extra":1,"data":{"a":"b"}}`,
			code: 422, message: invalid + `strict decoding error: unknown field "extra"`},
		{name: "merge: no kind is the resource's", path: cm, ctype: merge, body: `{"kind":null}`, code: 200},
		{name: "merge: the core group written with a slash", path: cm, ctype: merge, body: `{"apiVersion":"/v1"}`, code: 200},
		{name: "JSON patch: a registered kind that does not convert", path: cm, ctype: jsonPatch, body: `[{"op":"replace","path":"/kind","value":"Service"}]`,
			code: 422, message: invalid + `converting (v1.Service) to (core.ConfigMap): unknown conversion`},
		{name: "JSON patch: no apiVersion", path: cm, ctype: jsonPatch, body: `[{"op":"remove","path":"/apiVersion"}]`,
			code: 400, message: `the name of the object (jp based on URL) was undeterminable: name must be provided`},
		{name: "strategic merge patch: apiVersion is not read", path: cm, ctype: smp, body: `{"apiVersion":"v2"}`, code: 200},
		{name: "strategic merge patch: kind is not read", path: cm, ctype: smp, body: `{"kind":"Service","data":{"a":"1"}}`, code: 200},
		{name: "merge: another version of the kind converts", path: dep, ctype: merge, body: `{"apiVersion":"apps/v1beta2"}`, code: 200},
		{name: "merge: the kind in another group converts", path: dep, ctype: merge, body: `{"apiVersion":"extensions/v1beta1"}`, code: 200},
		{name: "merge: the group without a version decodes to the internal type", path: dep, ctype: merge, body: `{"apiVersion":"apps/"}`,
			code: 400, message: `the name of the object (dp based on URL) was undeterminable: name must be provided`},
		{name: "merge: the core group's version", path: dep, ctype: merge, body: `{"apiVersion":"v1"}`,
			code: 422, message: invalid + `no kind "Deployment" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "scale: a result that does not decode", path: dep + "/scale", ctype: merge, body: `{"spec":{"replicas":"x"}}`,
			code: 422, message: invalid + `json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32`},
		{name: "scale: an unregistered kind", path: dep + "/scale", ctype: merge, body: `{"kind":"Foo"}`,
			code: 422, message: invalid + `no kind "Foo" is registered for version "autoscaling/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "custom resource: another version fails validation", path: foo, ctype: merge, body: `{"apiVersion":"tests.example.com/v2"}`,
			code: 422, message: `Foo.tests.example.com "f1" is invalid: apiVersion: Invalid value: "tests.example.com/v2": must be tests.example.com/v1beta1`},
		{name: "custom resource: a version of the core group", path: foo, ctype: merge, body: `{"apiVersion":"v2"}`,
			code: 422, message: `Foo "f1" is invalid: apiVersion: Invalid value: "v2": must be tests.example.com/v1beta1`},
		{name: "custom resource: another kind fails validation", path: foo, ctype: merge, body: `{"kind":"Bar"}`,
			code: 422, message: `Bar.tests.example.com "f1" is invalid: kind: Invalid value: "Bar": must be Foo`},
		{name: "custom resource: no apiVersion", path: foo, ctype: merge, body: `{"apiVersion":null}`,
			code: 500, message: `Internal error occurred: Object 'apiVersion' is missing in 'object has no apiVersion field'`},
		{name: "custom resource: no kind", path: foo, ctype: merge, body: `{"kind":null}`,
			code: 422, message: invalid + `Object 'Kind' is missing in 'OBJ'`},
		{name: "custom resource: another apiVersion and kind", path: foo, ctype: merge, body: `{"apiVersion":"v2","kind":"Bar"}`,
			code: 422, message: `Bar "f1" is invalid: [kind: Invalid value: "Bar": must be Foo, apiVersion: Invalid value: "v2": must be tests.example.com/v1beta1]`},
		{name: "custom resource: a group without a version", path: foo, ctype: merge, body: `{"apiVersion":"tests.example.com/"}`,
			code: 500, message: `Internal error occurred: Object 'apiVersion' is missing in 'object has no apiVersion field'`},
		{name: "custom resource: the name is checked first", path: foo, ctype: merge, body: `{"apiVersion":"tests.example.com/v2","metadata":{"name":"zz"}}`,
			code: 400, message: `the name of the object (zz) does not match the name on the URL (f1)`},
		{name: "custom resource: no name", path: foo, ctype: merge, body: `{"metadata":{"name":null},"kind":"Bar"}`,
			code: 400, message: `the name of the object (f1 based on URL) was undeterminable: name must be provided`},
		{name: "merge: no name", path: cm, ctype: merge, body: `{"metadata":{"name":null}}`,
			code: 400, message: `the name of the object (jp based on URL) was undeterminable: name must be provided`},
		{name: "merge: an empty name", path: cm, ctype: merge, body: `{"metadata":{"name":""}}`,
			code: 400, message: `the name of the object (jp based on URL) was undeterminable: name must be provided`},
		{name: "custom resource: an apiVersion that does not parse", path: foo, ctype: merge, body: `{"apiVersion":"a/b/c"}`,
			code: 422, message: invalid + `unexpected GroupVersion string: a/b/c`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, before := rawRequest(t, cp, "GET", tc.path, "", nil, nil)
			code, _, out := rawRequest(t, cp, "PATCH", tc.path, tc.ctype, []byte(tc.body), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, out)
			}
			var u map[string]any
			if err := json.Unmarshal(out, &u); err != nil {
				t.Fatalf("answer does not decode: %v %s", err, out)
			}
			if tc.code == 200 {
				// The object keeps its own apiVersion and kind.
				var head, was metav1.TypeMeta
				_ = json.Unmarshal(out, &head)
				_ = json.Unmarshal(before, &was)
				if head != was {
					t.Errorf("patched object is a %v, was a %v", head, was)
				}
				return
			}
			want := tc.message
			if strings.HasSuffix(tc.path, "/scale") {
				// A Scale's patched object has managedFields its get has not
				// (the parent's, translated): any object is taken.
				re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(want), "OBJQ", `"\{.*\}"`) + "$")
				if got, _ := u["message"].(string); !re.MatchString(got) {
					t.Errorf("message:\n got %s\nwant %s", got, re)
				}
				want = ""
			}
			if strings.Contains(want, "OBJ") {
				// Upstream shows json-patch's result: quoted as the
				// invalid value (OBJQ), as it is in a detail (OBJ).
				var patched []byte
				var err error
				if tc.ctype == merge {
					patched, err = jsonpatch.MergePatch(before, []byte(tc.body))
				} else {
					var p jsonpatch.Patch
					if p, err = jsonpatch.DecodePatch([]byte(tc.body)); err == nil {
						patched, err = p.Apply(before)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				want = strings.ReplaceAll(want, "OBJQ", strconv.Quote(string(patched)))
				want = strings.ReplaceAll(want, "OBJ", string(patched))
			}
			if got := u["message"]; want != "" && got != want {
				t.Errorf("message:\n got %s\nwant %s", got, want)
			}
			if _, _, after := rawRequest(t, cp, "GET", tc.path, "", nil, nil); !bytes.Equal(before, after) {
				t.Errorf("the refused patch changed the object:\n%s\n%s", before, after)
			}
		})
	}
}
