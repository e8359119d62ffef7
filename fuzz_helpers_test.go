package fakeplane_test

// Shared harness of the fuzz targets (issue 17, "Bad input, fuzzed"): one
// control plane per target, one raw HTTPS client sending the exact bytes,
// and the checks every answer must pass.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane"
)

// fuzzNS is the namespace the fuzz targets write in.
const fuzzNS = "fuzz"

// fuzzPlane is a control plane started once per fuzz target, with a raw
// HTTP client holding the admin's credentials.
type fuzzPlane struct {
	cp *fakeplane.ControlPlane
	hc *http.Client
	// panics counts the panics the server recovered (it logs each one).
	panics *atomic.Int64
}

// panicCounter is a slog handler that drops every record and counts the
// server's "panic serving request" ones.
type panicCounter struct{ n *atomic.Int64 }

// Enabled keeps error records only.
func (p panicCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }

// Handle counts the records of recovered panics.
func (p panicCounter) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "panic") {
		p.n.Add(1)
	}
	return nil
}

// WithAttrs returns the same counter.
func (p panicCounter) WithAttrs([]slog.Attr) slog.Handler { return p }

// WithGroup returns the same counter.
func (p panicCounter) WithGroup(string) slog.Handler { return p }

// startFuzzPlane starts the control plane of a fuzz target: no
// kube-controller-manager controllers, nodes or scheduler, so that nothing
// writes in the background and the store's revision moves only with the
// target's own requests. It creates the namespace fuzzNS with its default
// ServiceAccount (which pods need) and the custom resource definition
// widgets.fuzz.example.com, and waits until widgets are served.
func startFuzzPlane(f *testing.F) *fuzzPlane {
	f.Helper()
	n := &atomic.Int64{}
	// No controllers, and no identity Lease renewal (every 10 s by
	// default) during a run: a refused request must leave the store's
	// revision where it was, and nothing else may move it.
	cp := fakeplane.Start(f, fakeplane.WithControllers(), fakeplane.WithIdentityLeaseRenewInterval(time.Hour), fakeplane.WithLogger(slog.New(panicCounter{n})))
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		f.Fatal(err)
	}
	fp := &fuzzPlane{cp: cp, hc: hc, panics: n}
	fp.mustDo(f, "POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+fuzzNS+`"}}`, 201)
	fp.mustDo(f, "POST", "/api/v1/namespaces/"+fuzzNS+"/serviceaccounts", "application/json", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`, 201)
	fp.mustDo(f, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", fuzzWidgetCRD, 201)
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _, _, err := fp.do(context.Background(), "GET", widgetsPath, "", nil)
		if err == nil && code == 200 {
			break
		}
		if time.Now().After(deadline) {
			f.Fatalf("widgets are not served: %d %v", code, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fp
}

// widgetsPath is the collection of the custom resource in fuzzNS.
const widgetsPath = "/apis/fuzz.example.com/v1/namespaces/" + fuzzNS + "/widgets"

// fuzzWidgetCRD is a namespaced CRD with a structural schema that uses most of
// what schemas can say: types, formats, bounds, patterns, enums, defaults,
// nullable, list types and map keys, embedded resources, int-or-string,
// preserved unknown fields, a CEL rule, and status and scale subresources.
const fuzzWidgetCRD = `{
 "apiVersion": "apiextensions.k8s.io/v1",
 "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.fuzz.example.com"},
 "spec": {
  "group": "fuzz.example.com",
  "scope": "Namespaced",
  "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList", "shortNames": ["wd"], "categories": ["all"]},
  "versions": [{
   "name": "v1", "served": true, "storage": true,
   "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}},
   "selectableFields": [{"jsonPath": ".spec.color"}],
   "additionalPrinterColumns": [{"name": "Color", "type": "string", "jsonPath": ".spec.color"}, {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}],
   "schema": {"openAPIV3Schema": {
    "type": "object",
    "properties": {
     "spec": {
      "type": "object",
      "required": ["color"],
      "x-kubernetes-validations": [{"rule": "!has(self.maxReplicas) || self.replicas <= self.maxReplicas", "message": "replicas must not exceed maxReplicas", "fieldPath": ".replicas"}],
      "properties": {
       "color": {"type": "string", "enum": ["red", "green", "blue"]},
       "replicas": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 1000, "default": 1},
       "maxReplicas": {"type": "integer", "format": "int32"},
       "size": {"x-kubernetes-int-or-string": true},
       "name": {"type": "string", "maxLength": 63, "pattern": "^[a-z]([-a-z0-9]*[a-z0-9])?$"},
       "ratio": {"type": "number", "nullable": true},
       "enabled": {"type": "boolean", "default": false},
       "created": {"type": "string", "format": "date-time"},
       "tags": {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "set", "items": {"type": "string"}},
       "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "port": {"type": "integer", "minimum": 1, "maximum": 65535}}}},
       "settings": {"type": "object", "maxProperties": 8, "additionalProperties": {"type": "string"}},
       "template": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
       "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
      }
     },
     "status": {"type": "object", "properties": {"replicas": {"type": "integer"}, "selector": {"type": "string"}}}
    }
   }}
  }]
 }
}`

// do sends one request with the exact body and returns the code, the
// Content-Type and the body of the answer.
func (fp *fuzzPlane) do(ctx context.Context, method, path, contentType string, body []byte) (int, string, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, fp.cp.URL()+path, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := fp.hc.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b, err
}

// mustDo sends a request of the harness itself and fails unless it gets
// the code wanted.
func (fp *fuzzPlane) mustDo(t testing.TB, method, path, contentType, body string, want int) []byte {
	t.Helper()
	code, _, b, err := fp.do(context.Background(), method, path, contentType, []byte(body))
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if code != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, code, b, want)
	}
	return b
}

// send is do for the fuzzed request: a transport error (a connection the
// server dropped, as net/http does after a panic it recovered) fails.
func (fp *fuzzPlane) send(t *testing.T, method, path, contentType string, body []byte) (int, []byte) {
	t.Helper()
	before := fp.panics.Load()
	code, ctype, b, err := fp.do(context.Background(), method, path, contentType, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if n := fp.panics.Load(); n != before {
		t.Fatalf("%s %s: the server panicked serving it (answer %d %s)", method, path, code, b)
	}
	t.Logf("%s %s (%s): %d %.200s", method, path, contentType, code, b)
	checkAnswer(t, code, ctype, b)
	return code, b
}

// refusalCodes are the codes kube-apiserver answers bad input with. 403
// is among them because admission refuses with Forbidden (ServiceAccount
// admission for a pod naming a missing ServiceAccount, NamespaceLifecycle),
// as upstream's does. 500 is not, but for upstream500.
var refusalCodes = map[int]bool{400: true, 403: true, 404: true, 405: true, 406: true, 409: true, 410: true, 413: true, 415: true, 422: true}

// upstream500 are the messages (their beginnings) of the 500s
// kube-apiserver itself answers bad input with (checked against v1.37):
// its storage's refusal of a create whose resourceVersion parses as a
// revision and of an update, a get or a watch whose resourceVersion is not
// a number, and server-side apply's of a patch with a field the schema does
// not declare (bare errors, which the handlers make 500s).
var upstream500 = []string{
	"resourceVersion should not be set on objects to be created",
	"failed to create typed patch object (",
	// An applied object the built-in type cannot hold (a creationTimestamp
	// that is no time, say), as v1.37 words it.
	"failed to convert new object (",
	// An update whose resourceVersion is not a number: upstream's store
	// parses it and returns the error bare.
	"strconv.ParseUint: parsing ",
	// A get's or a watch's resourceVersion that is not a number.
	"resourceVersion: Invalid value: ",
	// A patch that leaves a custom resource without an apiVersion.
	"Internal error occurred: Object 'apiVersion' is missing in 'object has no apiVersion field'",
	// Strategic merge patch errors upstream's patch handler does not
	// interpret (interpretStrategicMergePatchError): the library's bare
	// errors, which it answers as 500s.
	"unknown patch type: ",
	"list element types are not identical: ",
	"map: ",
	"value for key ",
	"cannot find merge key `",
	"cannot merge lists without merge key for ",
	"expected a ",
	"invalid element type in merging list:",
	"invalid value for special key: ",
	"merging lists cannot yet be specified in the patch",
	"The order in patch list:",
	"unexpected patch strategy: ",
	"unknown type: ",
	"fail to find unknown prefix ",
}

// isUpstream500 says whether a 500's message is one kube-apiserver gives.
func isUpstream500(msg string) bool {
	for _, m := range upstream500 {
		if strings.HasPrefix(msg, m) {
			return true
		}
	}
	return false
}

// checkAnswer fails unless the answer is a success or a refusal with a
// metav1.Status body, as kube-apiserver gives.
func checkAnswer(t *testing.T, code int, ctype string, body []byte) {
	t.Helper()
	if code >= 200 && code < 300 {
		return
	}
	// 504 answers a resourceVersion ahead of the store's, waited for in
	// vain, as kube-apiserver's watch cache answers it.
	tooLarge := code == 504 && strings.Contains(string(body), `"message":"Timeout: Too large resource version: `)
	if !refusalCodes[code] && code != 500 && !tooLarge {
		t.Fatalf("answer %d %s, want a success or one of kube-apiserver's refusals of bad input", code, body)
	}
	if !strings.HasPrefix(ctype, "application/json") {
		t.Fatalf("answer %d with Content-Type %q, want application/json: %s", code, ctype, body)
	}
	var st struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Status     string `json:"status"`
		Message    string `json:"message"`
		Reason     string `json:"reason"`
		Code       int    `json:"code"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("answer %d: the body is no JSON Status: %v: %s", code, err, body)
	}
	if st.APIVersion != "v1" || st.Kind != "Status" || st.Status != "Failure" || st.Code != code || st.Message == "" {
		t.Fatalf("answer %d: Status %+v, want apiVersion v1, kind Status, status Failure, code %d and a message", code, st, code)
	}
	if code == 500 && !isUpstream500(st.Message) {
		t.Fatalf("answer 500 %s, want a success or one of kube-apiserver's refusals of bad input", body)
	}
}

// revision is the store's current revision: the resourceVersion of a list
// (a list is consistent at the current revision), of a namespace no
// target writes in.
func (fp *fuzzPlane) revision(t testing.TB) int64 {
	t.Helper()
	b := fp.mustDo(t, "GET", "/api/v1/namespaces/kube-public/configmaps?limit=1", "", "", 200)
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("list: %v: %s", err, b)
	}
	rv, err := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("list resourceVersion %q: %v", l.Metadata.ResourceVersion, err)
	}
	return rv
}

// checkUnchanged fails if the store's revision moved from before: a
// refused request must commit nothing.
func (fp *fuzzPlane) checkUnchanged(t *testing.T, before int64, what string) {
	t.Helper()
	if after := fp.revision(t); after != before {
		t.Fatalf("%s was refused but the store's revision moved from %d to %d", what, before, after)
	}
}

// objectMeta is the part of an answer's object the harness reads.
type objectMeta struct {
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// metaOf reads the metadata of a JSON object.
func metaOf(t testing.TB, b []byte) objectMeta {
	t.Helper()
	var m objectMeta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("object: %v: %s", err, b)
	}
	return m
}

// protoBody encodes a typed object as client-go sends it with
// ContentType application/vnd.kubernetes.protobuf.
func protoBody(obj runtime.Object) []byte {
	s := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme)
	var buf bytes.Buffer
	if err := s.Encode(obj, &buf); err != nil {
		panic(fmt.Sprintf("protobuf %T: %v", obj, err))
	}
	return buf.Bytes()
}

// yamlBody is a JSON body as YAML.
func yamlBody(j string) []byte {
	y, err := yaml.JSONToYAML([]byte(j))
	if err != nil {
		panic(fmt.Sprintf("yaml of %s: %v", j, err))
	}
	return y
}

// protoFromJSON is a built-in object's JSON re-encoded as protobuf, the
// body client-go (and kubectl create) sends.
func protoFromJSON(j string) []byte {
	obj, gvk, err := clientgoscheme.Codecs.UniversalDeserializer().Decode([]byte(j), nil, nil)
	if err != nil {
		panic(fmt.Sprintf("decode %s: %v", j, err))
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	return protoBody(obj)
}
