package fakeplane_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// bodyTarget is a resource the request-body fuzz target writes.
type bodyTarget struct {
	collection string // path of the collection in fuzzNS
	kind       string
	seed       string // the JSON of an object named "target", as kubectl sends it
}

// bodyTargets are built-ins of the core and apps groups and a custom
// resource with a structural schema.
var bodyTargets = []bodyTarget{
	{"/api/v1/namespaces/" + fuzzNS + "/configmaps", "ConfigMap",
		`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"target","creationTimestamp":null},"data":{"lives":"3","ui.properties":"color.good=purple"}}`},
	{"/api/v1/namespaces/" + fuzzNS + "/pods", "Pod",
		`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"target","creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80}],"resources":{}}],"restartPolicy":"Always","dnsPolicy":"ClusterFirst"},"status":{}}`},
	{"/apis/apps/v1/namespaces/" + fuzzNS + "/deployments", "Deployment",
		`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"target","creationTimestamp":null,"labels":{"app":"web"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","resources":{}}]}},"strategy":{}},"status":{}}`},
	{widgetsPath, "Widget",
		`{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"target","labels":{"app":"web"}},"spec":{"color":"red","replicas":3,"maxReplicas":5,"size":"10Gi","name":"w-1","ratio":0.5,"created":"2025-01-02T03:04:05Z","tags":["a","b"],"ports":[{"name":"http","port":80}],"settings":{"k":"v"},"template":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"embedded"}},"extra":{"anything":[1,"two",{"three":3}]}}}`},
}

// bodyEncodings are the Content-Types of request bodies.
var bodyEncodings = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}

// rvPlaceholder in a fuzzed body is replaced by the target's current
// resourceVersion, so that updates of custom resources (which need one)
// can succeed.
const rvPlaceholder = "@RV@"

// rvField is the resourceVersion of an object's JSON.
var rvField = regexp.MustCompile(`"resourceVersion":"[0-9]+"`)

// FuzzRequestBody sends fuzzed bodies in JSON, YAML and protobuf as create
// (POST) and update (PUT) of built-ins and of a custom resource. Every
// answer must be a success or a refusal with a Status, the server must not
// panic, and a refused request must commit nothing (a refused update
// leaves its target as it was).
func FuzzRequestBody(f *testing.F) {
	fp := startFuzzPlane(f)
	for _, bt := range bodyTargets {
		fp.mustDo(f, "POST", bt.collection, "application/json", bt.seed, 201)
	}

	for i, bt := range bodyTargets {
		res := uint8(i)
		// What kubectl replace and edit send: the object as read, changed.
		got := fp.mustDo(f, "GET", bt.collection+"/target", "", "", 200)
		got = rvField.ReplaceAll(got, []byte(`"resourceVersion":"`+rvPlaceholder+`"`))
		got = bytes.Replace(got, []byte(`"labels":{"app":"web"}`), []byte(`"labels":{"app":"web","edited":"true"}`), 1)
		f.Add(res, true, uint8(0), false, got)
		f.Add(res, true, uint8(1), true, yamlBody(string(got)))
		created := bytes.Replace([]byte(bt.seed), []byte(`"name":"target"`), []byte(`"generateName":"seed-"`), 1)
		updated := bytes.Replace([]byte(bt.seed), []byte(`"metadata":{`), []byte(`"metadata":{"resourceVersion":"`+rvPlaceholder+`",`), 1)
		for _, strict := range []bool{false, true} {
			f.Add(res, false, uint8(0), strict, created)
			f.Add(res, true, uint8(0), strict, updated)
		}
		f.Add(res, false, uint8(1), false, yamlBody(string(created)))
		f.Add(res, true, uint8(1), true, yamlBody(string(updated)))
		if bt.kind != "Widget" {
			f.Add(res, false, uint8(2), false, protoFromJSON(string(created)))
			f.Add(res, true, uint8(2), false, protoFromJSON(bt.seed))
		}
		// Bad input of the kinds clients send by mistake.
		f.Add(res, false, uint8(0), true, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":"dup"},"unknown":1}`))
		f.Add(res, true, uint8(1), false, []byte("metadata:\n  name: target\n  labels: [\n"))
		f.Add(res, false, uint8(2), false, []byte("k8s\x00\n\x02v1\x12\tConfigMap\x12\x03\n\x01"))
	}
	f.Add(uint8(3), false, uint8(0), false, []byte(`{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"bad"},"spec":{"color":"pink","replicas":7,"maxReplicas":2,"tags":["a","a"],"ports":[{"name":"x"},{"name":"x"}]}}`))

	f.Fuzz(func(t *testing.T, res uint8, put bool, enc uint8, strict bool, body []byte) {
		bt := bodyTargets[int(res)%len(bodyTargets)]
		ctype := bodyEncodings[int(enc)%len(bodyEncodings)]
		method, path := "POST", bt.collection
		var before []byte
		if put {
			method, path = "PUT", bt.collection+"/target"
			before = fp.mustDo(t, "GET", path, "", "", 200)
			body = bytes.ReplaceAll(body, []byte(rvPlaceholder), []byte(metaOf(t, before).Metadata.ResourceVersion))
		}
		query := "?fieldManager=fuzz"
		if strict {
			query += "&fieldValidation=Strict"
		}
		rev := fp.revision(t)
		code, answer := fp.send(t, method, path+query, ctype, body)
		if code < 200 || code >= 300 {
			fp.checkUnchanged(t, rev, method+" "+path)
			if put {
				if after := fp.mustDo(t, "GET", path, "", "", 200); !bytes.Equal(after, before) {
					t.Fatalf("refused update changed its target:\nbefore %s\nafter  %s", before, after)
				}
			}
			return
		}
		var obj struct {
			Kind string `json:"kind"`
			objectMeta
		}
		if err := json.Unmarshal(answer, &obj); err != nil {
			t.Fatalf("%s %s: answer %d is no object: %v: %s", method, path, code, err, answer)
		}
		if obj.Kind != bt.kind || obj.Metadata.Name == "" || obj.Metadata.Namespace != fuzzNS || obj.Metadata.ResourceVersion == "" {
			t.Fatalf("%s %s: answer %d is %s %s/%s at %q, want a %s in %s: %s", method, path, code, obj.Kind, obj.Metadata.Namespace, obj.Metadata.Name, obj.Metadata.ResourceVersion, bt.kind, fuzzNS, answer)
		}
		if !put {
			// Keep the store small: what was created goes at once.
			if _, _, _, err := fp.do(context.Background(), "DELETE", bt.collection+"/"+url.PathEscape(obj.Metadata.Name)+"?gracePeriodSeconds=0", "", nil); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestCreateWithResourceVersion: kube-apiserver's storage refuses (500) to
// create an object whose resourceVersion parses as a revision other than
// 0, and creates it, at a new resourceVersion, whatever else it holds
// (found by FuzzRequestBody: fakeplane refused any resourceVersion).
func TestCreateWithResourceVersion(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithControllers())
	for _, tc := range []struct {
		rv   string
		code int
	}{
		{"A", 201}, {"0", 201}, {"-1", 201}, {"+1", 201}, {"1.5", 201}, {"18446744073709551616", 201},
		{"1", 500}, {"01", 500}, {"123456", 500},
	} {
		t.Run(tc.rv, func(t *testing.T) {
			name := "rv-" + strings.ToLower(strings.NewReplacer("+", "p", ".", "d", "-", "m").Replace(tc.rv))
			body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","resourceVersion":"` + tc.rv + `"}}`
			code, _, b := rawRequest(t, cp, "POST", "/api/v1/namespaces/default/configmaps", "application/json", []byte(body), nil)
			if code != tc.code {
				t.Fatalf("create with resourceVersion %q: %d %s, want %d", tc.rv, code, b, tc.code)
			}
			if code == 500 {
				checkAnswer(t, code, "application/json", b)
				return
			}
			rv := metaOf(t, b).Metadata.ResourceVersion
			if _, err := strconv.ParseUint(rv, 10, 64); err != nil || rv == tc.rv {
				t.Errorf("created at resourceVersion %q, want a new revision", rv)
			}
		})
	}
}
