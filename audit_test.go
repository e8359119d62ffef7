package fakeplane_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// auditTestPolicy audits configmaps' writes at RequestResponse (without
// managedFields), their reads at Metadata without the RequestReceived
// stage, secrets at Request, endpoints not at all, and the rest at
// Metadata.
const auditTestPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  resources: [{group: "", resources: ["endpoints"]}]
- level: RequestResponse
  omitManagedFields: true
  verbs: ["create", "update", "patch", "delete"]
  resources: [{group: "", resources: ["configmaps"]}]
- level: Metadata
  omitStages: ["RequestReceived"]
  resources: [{group: "", resources: ["configmaps"]}]
- level: Request
  resources: [{group: "", resources: ["secrets"]}]
- level: Metadata
`

// writeAuditPolicy writes policy into a file of the test's and returns its path.
func writeAuditPolicy(t *testing.T, policy string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(p, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// readAuditLog parses the JSON lines of an audit log.
func readAuditLog(t *testing.T, path string) []auditv1.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []auditv1.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 10<<20)
	for sc.Scan() {
		var ev auditv1.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}

// withAuditID has every request of cfg carry the Audit-ID header id, which
// kube-apiserver takes as the request's audit ID.
func withAuditID(cfg *rest.Config, id string) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("Audit-ID", id)
			return rt.RoundTrip(r)
		})
	})
	return cfg
}

func TestAuditLogRecordsRequestsByPolicy(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit", "audit.log")
	cp := fakeplane.Start(t, fakeplane.WithoutAnonymous(), fakeplane.WithAudit(fakeplane.AuditOptions{
		PolicyFile: writeAuditPolicy(t, auditTestPolicy),
		Log:        fakeplane.AuditLogOptions{Path: logPath},
	}))
	ctx := context.Background()
	client := func(t *testing.T, cfg *rest.Config, id string) kubernetes.Interface {
		t.Helper()
		c, err := kubernetes.NewForConfig(withAuditID(cfg, id))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	alice, err := cp.AddUser("alice")
	if err != nil {
		t.Fatal(err)
	}
	bogus := rest.AnonymousClientConfig(cp.RESTConfig())
	bogus.BearerToken = "not-a-token"

	type want struct {
		stages        []auditv1.Stage
		level         auditv1.Level
		verb          string
		user          string
		objectRef     *auditv1.ObjectReference
		code          int32
		decision      string // authorization.k8s.io/decision
		requestObject bool
		response      bool
	}
	tests := []struct {
		name string
		do   func(t *testing.T, id string)
		want want
	}{{
		name: "create at RequestResponse records both objects without managedFields",
		do: func(t *testing.T, id string) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm1"}, Data: map[string]string{"k": "v"}}
			if _, err := client(t, cp.RESTConfig(), id).CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}, level: auditv1.LevelRequestResponse,
			verb: "create", user: fakeplane.AdminUser, code: 201, decision: "allow", requestObject: true, response: true,
			objectRef: &auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", Name: "cm1", APIVersion: "v1"}},
	}, {
		name: "patch at RequestResponse records the patch",
		do: func(t *testing.T, id string) {
			if _, err := client(t, cp.RESTConfig(), id).CoreV1().ConfigMaps("default").Patch(ctx, "cm1", types.MergePatchType,
				[]byte(`{"data":{"k":"w"}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}, level: auditv1.LevelRequestResponse,
			verb: "patch", user: fakeplane.AdminUser, code: 200, decision: "allow", requestObject: true, response: true,
			objectRef: &auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", Name: "cm1", APIVersion: "v1"}},
	}, {
		name: "get at Metadata omits RequestReceived and the objects",
		do: func(t *testing.T, id string) {
			if _, err := client(t, cp.RESTConfig(), id).CoreV1().ConfigMaps("default").Get(ctx, "cm1", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageResponseComplete}, level: auditv1.LevelMetadata, verb: "get", user: fakeplane.AdminUser,
			code: 200, decision: "allow", objectRef: &auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", Name: "cm1", APIVersion: "v1"}},
	}, {
		name: "watch has a ResponseStarted stage",
		do: func(t *testing.T, id string) {
			timeout := int64(1)
			w, err := client(t, cp.RESTConfig(), id).CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{TimeoutSeconds: &timeout})
			if err != nil {
				t.Fatal(err)
			}
			for range w.ResultChan() {
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageResponseStarted, auditv1.StageResponseComplete}, level: auditv1.LevelMetadata,
			verb: "watch", user: fakeplane.AdminUser, code: 200, decision: "allow",
			objectRef: &auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", APIVersion: "v1"}},
	}, {
		name: "forbidden request is audited with its 403 and the decision",
		do: func(t *testing.T, id string) {
			_, err := client(t, alice, id).CoreV1().Secrets("default").List(ctx, metav1.ListOptions{})
			if !apierrors.IsForbidden(err) {
				t.Fatalf("list secrets as alice: %v, want Forbidden", err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}, level: auditv1.LevelRequest,
			verb: "list", user: "alice", code: 403, decision: "forbid",
			objectRef: &auditv1.ObjectReference{Resource: "secrets", Namespace: "default", APIVersion: "v1"}},
	}, {
		name: "unauthenticated request is audited at ResponseStarted with its 401",
		do: func(t *testing.T, id string) {
			_, err := client(t, bogus, id).CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
			if !apierrors.IsUnauthorized(err) {
				t.Fatalf("get with a bad token: %v, want Unauthorized", err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageResponseStarted}, level: auditv1.LevelMetadata, verb: "get", code: 401,
			objectRef: &auditv1.ObjectReference{Resource: "namespaces", Namespace: "default", Name: "default", APIVersion: "v1"}},
	}, {
		name: "None rule audits nothing",
		do: func(t *testing.T, id string) {
			if _, err := client(t, cp.RESTConfig(), id).CoreV1().Endpoints("default").List(ctx, metav1.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		want: want{},
	}}
	for _, tc := range tests {
		tc.do(t, "audit-"+strings.ReplaceAll(tc.name, " ", "-"))
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	events := readAuditLog(t, logPath)
	if os.Getenv("AUDIT_DUMP") != "" {
		b, _ := os.ReadFile(logPath)
		t.Logf("%s", b)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := types.UID("audit-" + strings.ReplaceAll(tc.name, " ", "-"))
			var got []auditv1.Event
			for _, ev := range events {
				if ev.AuditID == id {
					got = append(got, ev)
				}
			}
			var stages []auditv1.Stage
			for _, ev := range got {
				stages = append(stages, ev.Stage)
			}
			if !slices.Equal(stages, tc.want.stages) {
				t.Fatalf("stages %v, want %v", stages, tc.want.stages)
			}
			for _, ev := range got {
				if ev.Level != tc.want.level || ev.Verb != tc.want.verb || ev.User.Username != tc.want.user {
					t.Errorf("%s: level %s verb %s user %q, want %s %s %q", ev.Stage, ev.Level, ev.Verb, ev.User.Username, tc.want.level, tc.want.verb, tc.want.user)
				}
				if len(ev.SourceIPs) == 0 || ev.UserAgent == "" || ev.RequestReceivedTimestamp.IsZero() || ev.StageTimestamp.IsZero() {
					t.Errorf("%s: sourceIPs %v userAgent %q timestamps %v %v", ev.Stage, ev.SourceIPs, ev.UserAgent, ev.RequestReceivedTimestamp, ev.StageTimestamp)
				}
				if ev.Stage == auditv1.StageRequestReceived {
					// Before the request is authorized and its body read:
					// no decision, no request object, the objectRef of its
					// path (a create's has no name yet).
					if len(ev.Annotations) > 0 || ev.RequestObject != nil || ev.ObjectRef == nil || ev.ObjectRef.Resource != tc.want.objectRef.Resource {
						t.Errorf("%s: annotations %v requestObject %v objectRef %+v", ev.Stage, ev.Annotations, ev.RequestObject, ev.ObjectRef)
					}
					continue
				}
				if ref := ev.ObjectRef; ref == nil || ref.Resource != tc.want.objectRef.Resource || ref.Namespace != tc.want.objectRef.Namespace ||
					ref.Name != tc.want.objectRef.Name || ref.APIVersion != tc.want.objectRef.APIVersion || ref.APIGroup != tc.want.objectRef.APIGroup {
					t.Errorf("%s: objectRef %+v, want %+v", ev.Stage, ref, tc.want.objectRef)
				}
				if d := ev.Annotations["authorization.k8s.io/decision"]; d != tc.want.decision {
					t.Errorf("%s: decision %q, want %q", ev.Stage, d, tc.want.decision)
				}
				if (ev.RequestObject != nil) != tc.want.requestObject {
					t.Errorf("%s: requestObject %v", ev.Stage, ev.RequestObject)
				}
				if ev.ResponseStatus == nil || ev.ResponseStatus.Code != tc.want.code {
					t.Errorf("%s: responseStatus %+v, want code %d", ev.Stage, ev.ResponseStatus, tc.want.code)
				}
				if (ev.ResponseObject != nil) != (tc.want.response && ev.Stage == auditv1.StageResponseComplete) {
					t.Errorf("%s: responseObject %v", ev.Stage, ev.ResponseObject)
				}
				if ev.ResponseObject != nil && strings.Contains(string(ev.ResponseObject.Raw), "managedFields") {
					t.Errorf("%s: responseObject has managedFields despite omitManagedFields: %s", ev.Stage, ev.ResponseObject.Raw)
				}
			}
		})
	}
}
