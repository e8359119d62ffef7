package fakeplane_test

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"
	"golang.org/x/net/websocket"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	pluginbuffered "k8s.io/apiserver/plugin/pkg/audit/buffered"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// auditTestPolicy audits configmaps' writes at RequestResponse (without
// managedFields), their reads at Metadata without the RequestReceived
// stage, secrets at Request, pods and namespaces at Metadata without
// RequestReceived, endpoints not at all, and the rest at Metadata.
const auditTestPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  resources: [{group: "", resources: ["endpoints"]}]
- level: RequestResponse
  omitStages: ["RequestReceived"]
  nonResourceURLs: ["/apis/apps"]
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
  omitStages: ["RequestReceived"]
  resources: [{group: "", resources: ["pods", "namespaces"]}]
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
		impersonated  string
		annotations   map[string]string
		// status is responseStatus.status; requestContains is in the
		// requestObject.
		status, requestContains, responseContains string
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
		name: "server-side apply records the applied configuration as JSON",
		do: func(t *testing.T, id string) {
			cm := corev1ac.ConfigMap("cm2", "default").WithData(map[string]string{"a": "b"})
			if _, err := client(t, cp.RESTConfig(), id).CoreV1().ConfigMaps("default").Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "test"}); err != nil {
				t.Fatal(err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}, level: auditv1.LevelRequestResponse,
			verb: "patch", user: fakeplane.AdminUser, code: 201, decision: "allow", requestObject: true, response: true,
			requestContains: `"data":{"a":"b"}`,
			objectRef:       &auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", Name: "cm2", APIVersion: "v1"}},
	}, {
		name: "delete records its options and the Status it answers",
		do: func(t *testing.T, id string) {
			if err := client(t, cp.RESTConfig(), id).CoreV1().ConfigMaps("default").Delete(ctx, "cm2", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}, level: auditv1.LevelRequestResponse,
			verb: "delete", user: fakeplane.AdminUser, code: 200, status: metav1.StatusSuccess, decision: "allow", requestObject: true, response: true,
			requestContains: `"kind":"DeleteOptions"`,
			objectRef:       &auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", Name: "cm2", APIVersion: "v1"}},
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
		name: "impersonation records the impersonated user",
		do: func(t *testing.T, id string) {
			cfg := rest.CopyConfig(cp.RESTConfig())
			cfg.Impersonate = rest.ImpersonationConfig{UserName: "bob"}
			if _, err := client(t, cfg, id).CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
				t.Fatalf("get as bob: %v, want Forbidden", err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageResponseComplete}, level: auditv1.LevelMetadata, verb: "get", user: fakeplane.AdminUser,
			impersonated: "bob", code: 403, decision: "forbid",
			objectRef: &auditv1.ObjectReference{Resource: "namespaces", Namespace: "default", Name: "default", APIVersion: "v1"}},
	}, {
		name: "pod create carries PodSecurity's annotation",
		do: func(t *testing.T, id string) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
			if _, err := client(t, cp.RESTConfig(), id).CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageResponseComplete}, level: auditv1.LevelMetadata, verb: "create", user: fakeplane.AdminUser,
			code: 201, decision: "allow", annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "privileged:latest"},
			objectRef: &auditv1.ObjectReference{Resource: "pods", Namespace: "default", Name: "p", APIVersion: "v1"}},
	}, {
		name: "a deprecated version is annotated",
		do: func(t *testing.T, id string) {
			if _, err := client(t, cp.RESTConfig(), id).CoreV1().ComponentStatuses().List(ctx, metav1.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}, level: auditv1.LevelMetadata, verb: "list",
			user: fakeplane.AdminUser, code: 200, decision: "allow", annotations: map[string]string{"k8s.io/deprecated": "true"},
			objectRef: &auditv1.ObjectReference{Resource: "componentstatuses", APIVersion: "v1"}},
	}, {
		name: "a discovery document is a response object",
		do: func(t *testing.T, id string) {
			if err := client(t, cp.RESTConfig(), id).Discovery().RESTClient().Get().AbsPath("/apis/apps").Do(ctx).Error(); err != nil {
				t.Fatal(err)
			}
		},
		want: want{stages: []auditv1.Stage{auditv1.StageResponseComplete}, level: auditv1.LevelRequestResponse, verb: "get",
			user: fakeplane.AdminUser, code: 200, decision: "allow", response: true, responseContains: `"kind":"APIGroup"`},
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
					if len(ev.Annotations) > 0 || ev.RequestObject != nil || (tc.want.objectRef != nil && (ev.ObjectRef == nil || ev.ObjectRef.Resource != tc.want.objectRef.Resource)) {
						t.Errorf("%s: annotations %v requestObject %v objectRef %+v", ev.Stage, ev.Annotations, ev.RequestObject, ev.ObjectRef)
					}
					continue
				}
				if tc.want.objectRef == nil {
					if ev.ObjectRef != nil {
						t.Errorf("%s: objectRef %+v of a non-resource request", ev.Stage, ev.ObjectRef)
					}
				} else if ref := ev.ObjectRef; ref == nil || ref.Resource != tc.want.objectRef.Resource || ref.Namespace != tc.want.objectRef.Namespace ||
					ref.Name != tc.want.objectRef.Name || ref.APIVersion != tc.want.objectRef.APIVersion || ref.APIGroup != tc.want.objectRef.APIGroup {
					t.Errorf("%s: objectRef %+v, want %+v", ev.Stage, ref, tc.want.objectRef)
				}
				if d := ev.Annotations["authorization.k8s.io/decision"]; d != tc.want.decision {
					t.Errorf("%s: decision %q, want %q", ev.Stage, d, tc.want.decision)
				}
				for k, v := range tc.want.annotations {
					if got, ok := ev.Annotations[k]; !ok || got != v {
						t.Errorf("%s: annotation %s %q, want %q", ev.Stage, k, got, v)
					}
				}
				if got := ev.ImpersonatedUser; (got == nil && tc.want.impersonated != "") || (got != nil && got.Username != tc.want.impersonated) {
					t.Errorf("%s: impersonatedUser %+v, want %q", ev.Stage, got, tc.want.impersonated)
				}
				if (ev.RequestObject != nil) != tc.want.requestObject {
					t.Errorf("%s: requestObject %v", ev.Stage, ev.RequestObject)
				}
				if ev.ResponseStatus == nil || ev.ResponseStatus.Code != tc.want.code || (tc.want.status != "" && ev.ResponseStatus.Status != tc.want.status) {
					t.Errorf("%s: responseStatus %+v, want code %d, status %q", ev.Stage, ev.ResponseStatus, tc.want.code, tc.want.status)
				}
				if ev.ResponseObject != nil && !strings.Contains(string(ev.ResponseObject.Raw), tc.want.responseContains) {
					t.Errorf("%s: responseObject %s lacks %s", ev.Stage, ev.ResponseObject.Raw, tc.want.responseContains)
				}
				if ev.RequestObject != nil && !strings.Contains(string(ev.RequestObject.Raw), tc.want.requestContains) {
					t.Errorf("%s: requestObject %s lacks %s", ev.Stage, ev.RequestObject.Raw, tc.want.requestContains)
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

// auditWebhook is an HTTPS audit webhook for tests: it keeps the
// EventLists it receives, and a kubeconfig naming it.
type auditWebhook struct {
	srv        *httptest.Server
	kubeconfig string
	mu         sync.Mutex
	lists      []auditv1.EventList
}

func newAuditWebhook(t *testing.T) *auditWebhook {
	t.Helper()
	h := &auditWebhook{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var l auditv1.EventList
		if err := json.NewDecoder(r.Body).Decode(&l); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.lists = append(h.lists, l)
		h.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(h.srv.Close)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
	kc := clientcmdapi.NewConfig()
	kc.Clusters["audit"] = &clientcmdapi.Cluster{Server: h.srv.URL, CertificateAuthorityData: caPEM}
	kc.AuthInfos["apiserver"] = &clientcmdapi.AuthInfo{Token: "audit-token"}
	kc.Contexts["audit"] = &clientcmdapi.Context{Cluster: "audit", AuthInfo: "apiserver"}
	kc.CurrentContext = "audit"
	h.kubeconfig = filepath.Join(t.TempDir(), "audit-webhook.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, h.kubeconfig); err != nil {
		t.Fatal(err)
	}
	return h
}

// events are the events received with the audit ID id, in order.
func (h *auditWebhook) events(id types.UID) (lists int, events []auditv1.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.lists {
		if l.Kind != "EventList" || l.APIVersion != "audit.k8s.io/v1" {
			continue
		}
		lists++
		for _, ev := range l.Items {
			if ev.AuditID == id {
				events = append(events, ev)
			}
		}
	}
	return lists, events
}

func TestAuditWebhookReceivesEventLists(t *testing.T) {
	policy := writeAuditPolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
	for _, tc := range []struct {
		name  string
		mode  string
		batch *pluginbuffered.BatchConfig
	}{
		{"in batch mode, with the batches left sent at Stop", fakeplane.AuditModeBatch,
			&pluginbuffered.BatchConfig{BufferSize: 100, MaxBatchSize: 400, MaxBatchWait: time.Hour, ThrottleEnable: false, AsyncDelegate: true}},
		{"in blocking mode, one event a call", fakeplane.AuditModeBlocking, nil},
		{"in blocking-strict mode", fakeplane.AuditModeBlockingStrict, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hook := newAuditWebhook(t)
			cp := fakeplane.Start(t, fakeplane.WithAudit(fakeplane.AuditOptions{PolicyFile: policy,
				Webhook: fakeplane.AuditWebhookOptions{ConfigFile: hook.kubeconfig, Mode: tc.mode, Batch: tc.batch}}))
			c, err := kubernetes.NewForConfig(withAuditID(cp.RESTConfig(), "webhook-get"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := cp.Stop(); err != nil {
				t.Fatal(err)
			}
			lists, events := hook.events("webhook-get")
			var stages []auditv1.Stage
			for _, ev := range events {
				stages = append(stages, ev.Stage)
				if ev.Verb != "get" || ev.Level != auditv1.LevelMetadata || ev.ObjectRef == nil || ev.ObjectRef.Name != "default" {
					t.Errorf("event %+v", ev)
				}
			}
			if want := []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}; !slices.Equal(stages, want) {
				t.Errorf("stages %v, want %v", stages, want)
			}
			if tc.mode == fakeplane.AuditModeBatch && lists != 1 {
				t.Errorf("%d EventLists, want the one batch sent at Stop", lists)
			}
		})
	}
}

func TestAuditIDHeaderIsTheClientsOrANewOne(t *testing.T) {
	for _, tc := range []struct {
		name    string
		audited bool
	}{{"without auditing", false}, {"with auditing, as its events' auditID", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []fakeplane.Option
			logPath := filepath.Join(t.TempDir(), "audit.log")
			if tc.audited {
				opts = append(opts, fakeplane.WithAudit(fakeplane.AuditOptions{
					PolicyFile: writeAuditPolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  omitStages: [RequestReceived]\n"),
					Log:        fakeplane.AuditLogOptions{Path: logPath},
				}))
			}
			cp := fakeplane.Start(t, opts...)
			hc, err := rest.HTTPClientFor(cp.RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			get := func(id string) string {
				req, err := http.NewRequest(http.MethodGet, cp.URL()+"/api/v1/namespaces/default", nil)
				if err != nil {
					t.Fatal(err)
				}
				if id != "" {
					req.Header.Set("Audit-ID", id)
				}
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.Header.Get("Audit-Id")
			}
			if got := get("my-own-id"); got != "my-own-id" {
				t.Errorf("Audit-Id %q, want the client's my-own-id", got)
			}
			fresh := get("")
			if _, err := uuid.Parse(fresh); err != nil {
				t.Errorf("Audit-Id %q without the client's: %v", fresh, err)
			}
			if !tc.audited {
				return
			}
			if err := cp.Stop(); err != nil {
				t.Fatal(err)
			}
			var ids []types.UID
			for _, ev := range readAuditLog(t, logPath) {
				if ev.RequestURI == "/api/v1/namespaces/default" {
					ids = append(ids, ev.AuditID)
				}
			}
			if want := []types.UID{"my-own-id", types.UID(fresh)}; !slices.Equal(ids, want) {
				t.Errorf("events' auditIDs %v, want %v", ids, want)
			}
		})
	}
}

func TestAuditLogLegacyFormatIsOneLineOfText(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.log")
	cp := fakeplane.Start(t, fakeplane.WithAudit(fakeplane.AuditOptions{
		PolicyFile: writeAuditPolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  omitStages: [RequestReceived]\n"),
		Log:        fakeplane.AuditLogOptions{Path: logPath, Format: fakeplane.AuditLogFormatLegacy},
	}))
	c, err := kubernetes.NewForConfig(withAuditID(cp.RESTConfig(), "legacy-get"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Namespaces().Get(context.Background(), "kube-system", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `id="legacy-get"`) {
			line = l
		}
	}
	for _, want := range []string{` AUDIT: id="legacy-get" stage="ResponseComplete" `, ` method="get" user="` + fakeplane.AdminUser + `" `,
		` namespace="kube-system" uri="/api/v1/namespaces/kube-system" response="200"`} {
		if !strings.Contains(line, want) {
			t.Errorf("legacy line %q lacks %q", line, want)
		}
	}
}

func TestAuditStopLeavesNoGoroutineAndClosesTheLog(t *testing.T) {
	// Not parallel: goleak compares with the goroutines from before the test.
	hook := newAuditWebhook(t)
	before := goleak.IgnoreCurrent()
	logPath := filepath.Join(t.TempDir(), "audit.log")
	cp, err := fakeplane.New(fakeplane.WithKubeconfigPath(filepath.Join(t.TempDir(), "kc")), fakeplane.WithAudit(fakeplane.AuditOptions{
		PolicyFile: writeAuditPolicy(t, auditTestPolicy),
		Log:        fakeplane.AuditLogOptions{Path: logPath, Mode: fakeplane.AuditModeBatch},
		Webhook:    fakeplane.AuditWebhookOptions{ConfigFile: hook.kubeconfig},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := kubernetes.NewForConfigOrDie(withAuditID(cp.RESTConfig(), "leak-create"))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "leak"}}
	if _, err := c.CoreV1().ConfigMaps("default").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	opts := append([]goleak.Option{before,
		// The test's own webhook server.
		goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
		goleak.IgnoreAnyFunction("net/http/httptest.(*Server).goServe.func1"),
	}, goroutinesOutsideFakeplane...)
	if err := goleak.Find(opts...); err != nil {
		t.Errorf("goroutines outlived Stop: %v", err)
	}
	// Both backends got the create's events before Stop returned.
	var stages []auditv1.Stage
	for _, ev := range readAuditLog(t, logPath) {
		if ev.AuditID == "leak-create" {
			stages = append(stages, ev.Stage)
		}
	}
	if len(stages) != 2 {
		t.Errorf("log: create's stages %v, want RequestReceived and ResponseComplete", stages)
	}
	if _, events := hook.events("leak-create"); len(events) != 2 {
		t.Errorf("webhook: create's events %v, want 2", events)
	}
	// The log file is closed: /proc/self/fd names it no more.
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == logPath {
				t.Errorf("the audit log is still open (fd %s)", fd.Name())
			}
		}
	}
}

func TestAuditRecordsAdmissionWebhooksAnnotations(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.log")
	cp := fakeplane.Start(t, fakeplane.WithAudit(fakeplane.AuditOptions{
		PolicyFile: writeAuditPolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  omitStages: [RequestReceived]\n"),
		Log:        fakeplane.AuditLogOptions{Path: logPath},
	}))
	admin := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	hook := serveWebhook(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: true, AuditAnnotations: map[string]string{"checked": "yes"}}
	})
	reviewed := func() error {
		n := len(hook.Reviews())
		if _, err := admin.CoreV1().Pods("default").Create(context.Background(), testPod("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return err
		}
		if len(hook.Reviews()) == n {
			return errors.New("not reviewed yet")
		}
		return nil
	}
	createMutatingWebhook(t, admin, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "audit-mutate"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "audit-mutate.example.com", ClientConfig: urlWebhookConfig(hook, "/"),
			Rules:       []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		}},
	}, reviewed)
	createValidatingWebhook(t, admin, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "audit-validate"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "audit-validate.example.com", ClientConfig: urlWebhookConfig(hook, "/"),
			Rules:       []admissionregistrationv1.RuleWithOperations{podRule(admissionregistrationv1.Create)},
			SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		// Both configurations review: two more reviews a create.
		n := len(hook.Reviews())
		if err := reviewed(); err != nil {
			return err
		}
		if len(hook.Reviews()) < n+2 {
			return errors.New("the validating webhook is not in force yet")
		}
		return nil
	})
	c := kubernetes.NewForConfigOrDie(withAuditID(cp.RESTConfig(), "admission-create"))
	if _, err := c.CoreV1().Pods("default").Create(context.Background(), testPod("audited", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	for _, ev := range readAuditLog(t, logPath) {
		if ev.AuditID == "admission-create" {
			got = ev.Annotations
		}
	}
	for k, v := range map[string]string{
		"audit-mutate.example.com/checked":                  "yes",
		"audit-validate.example.com/checked":                "yes",
		"mutation.webhook.admission.k8s.io/round_0_index_0": `{"configuration":"audit-mutate","webhook":"audit-mutate.example.com","mutated":false}`,
	} {
		if got[k] != v {
			t.Errorf("annotation %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

func TestAuditWithoutPolicyRecordsNothing(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "logs", "audit.log")
	cp := fakeplane.Start(t, fakeplane.WithAudit(fakeplane.AuditOptions{Log: fakeplane.AuditLogOptions{Path: logPath}}))
	if _, err := kubernetes.NewForConfigOrDie(cp.RESTConfig()).CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	// As kube-apiserver: the file is made, and nothing written to it.
	fi, err := os.Stat(logPath)
	if err != nil || fi.Size() != 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("audit log without a policy: %v %v", fi, err)
	}
}

func TestAuditWebSocketWatchIsRecordedAsSwitchingProtocols(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.log")
	cp := fakeplane.Start(t, fakeplane.WithAudit(fakeplane.AuditOptions{
		PolicyFile: writeAuditPolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  omitStages: [RequestReceived]\n"),
		Log:        fakeplane.AuditLogOptions{Path: logPath},
	}))
	tlsCfg, err := rest.TLSConfigFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg.NextProtos = []string{"http/1.1"}
	cfg, err := websocket.NewConfig(strings.Replace(cp.URL(), "https://", "wss://", 1)+"/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", "http://localhost")
	if err != nil {
		t.Fatal(err)
	}
	cfg.TlsConfig = tlsCfg
	cfg.Header.Set("Audit-ID", "websocket-watch")
	ws, err := websocket.DialConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	for websocket.Message.Receive(ws, &msg) == nil {
	}
	ws.Close()
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range readAuditLog(t, logPath) {
		if ev.AuditID == "websocket-watch" && ev.ResponseStatus != nil {
			got = append(got, string(ev.Stage)+" "+strconv.Itoa(int(ev.ResponseStatus.Code)))
		}
	}
	if want := []string{"ResponseStarted 101", "ResponseComplete 101"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

func TestAuditIDReachesTheExtensionServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		audited bool
		// clientID is the Audit-ID the client sends ("" for none).
		clientID string
	}{
		{"without auditing", false, ""},
		{"without auditing, the client's", false, "client-id"},
		{"with auditing", true, ""},
		{"with auditing, the client's", true, "client-id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []fakeplane.Option
			if tc.audited {
				opts = append(opts, fakeplane.WithAudit(fakeplane.AuditOptions{
					PolicyFile: writeAuditPolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"),
					Log:        fakeplane.AuditLogOptions{Path: filepath.Join(t.TempDir(), "audit.log")},
				}))
			}
			cp, ext := startWardle(t, opts...)
			hc, err := rest.HTTPClientFor(cp.RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest(http.MethodGet, cp.URL()+"/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.clientID != "" {
				req.Header.Set("Audit-ID", tc.clientID)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			// As kube-apiserver's proxy: the extension server is given the
			// request's audit ID, the one the answer names.
			id := resp.Header.Get("Audit-Id")
			if got := ext.LastHeaders().Get("Audit-Id"); resp.StatusCode != http.StatusOK || id == "" || got != id || (tc.clientID != "" && id != tc.clientID) {
				t.Errorf("%d with Audit-Id %q; the extension server was given %q", resp.StatusCode, id, got)
			}
		})
	}
}
