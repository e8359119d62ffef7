package fakeplane_test

import (
	"context"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracev1 "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// A client's trace context: trace 4bf92f35..., span 00f067aa..., sampled.
const (
	clientTraceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID      = "00f067aa0ba902b7"
	clientTraceparent = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

// withTraceparent is a client of cp whose requests carry clientTraceparent.
func withTraceparent(t *testing.T, cp *fakeplane.ControlPlane) kubernetes.Interface {
	t.Helper()
	cfg := cp.RESTConfig()
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("traceparent", clientTraceparent)
			return rt.RoundTrip(r)
		})
	})
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// spanCollector is an OpenTelemetry collector (OTLP over gRPC) that keeps
// the spans it is sent.
type spanCollector struct {
	coltrace.UnimplementedTraceServiceServer
	addr string
	mu   sync.Mutex
	got  []*tracev1.ResourceSpans
}

func startSpanCollector(t *testing.T) *spanCollector {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &spanCollector{addr: ln.Addr().String()}
	srv := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(srv, c)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return c
}

func (c *spanCollector) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	c.got = append(c.got, req.ResourceSpans...)
	c.mu.Unlock()
	return &coltrace.ExportTraceServiceResponse{}, nil
}

// span returns the span named name and the attributes of its resource, or
// nil.
func (c *spanCollector) span(name string) (*tracev1.Span, map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range c.got {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if s.Name == name {
					res := map[string]string{}
					for _, a := range rs.Resource.GetAttributes() {
						res[a.Key] = a.Value.GetStringValue()
					}
					return s, res
				}
			}
		}
	}
	return nil, nil
}

// TestTracingConfigFileSendsSpans checks kube-apiserver's
// --tracing-config-file: a request is a span of the service "apiserver"
// sent to the collector the configuration names, named and attributed as
// kube-apiserver's request filter names it (as refplane's were, seen by
// the same kind of collector), in the trace of the client's traceparent,
// whose span is its parent.
func TestTracingConfigFileSendsSpans(t *testing.T) {
	t.Parallel()
	collector := startSpanCollector(t)
	config := filepath.Join(t.TempDir(), "tracing.yaml")
	if err := os.WriteFile(config, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: "+collector.addr+"\nsamplingRatePerMillion: 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := fakeplane.New(fakeplane.WithTracingConfigFile(config))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	ctx := context.Background()
	hook := configMapWebhook(t, clientset(t, cp))
	client := withTraceparent(t, cp)
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "traced"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ConfigMaps("default").Get(ctx, "traced", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	// Stop sends the spans still buffered.
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, target string }{
		{"POST /api/v1/namespaces/{:namespace}/configmaps", "/api/v1/namespaces/default/configmaps"},
		{"GET /api/v1/namespaces/{:namespace}/configmaps/{:name}", "/api/v1/namespaces/default/configmaps/traced"},
	} {
		span, res := collector.span(tc.name)
		if span == nil {
			t.Errorf("no span %q reached the collector", tc.name)
			continue
		}
		attrs := map[string]string{}
		for _, a := range span.Attributes {
			attrs[a.Key] = a.Value.GetStringValue()
		}
		if hex.EncodeToString(span.TraceId) != clientTraceID || hex.EncodeToString(span.ParentSpanId) != clientSpanID || span.Kind != tracev1.Span_SPAN_KIND_SERVER {
			t.Errorf("%s: trace %x, parent %x, kind %v; want the client's trace and span, a server span", tc.name, span.TraceId, span.ParentSpanId, span.Kind)
		}
		if attrs["http.target"] != tc.target || attrs["http.request.method"] != strings.Fields(tc.name)[0] || attrs["audit-id"] == "" {
			t.Errorf("%s: attributes %v", tc.name, attrs)
		}
		if res["service.name"] != "apiserver" || !strings.HasPrefix(res["service.instance.id"], "apiserver-") {
			t.Errorf("%s: resource %v, want service apiserver and the server's identity", tc.name, res)
		}
	}
	// The webhook call is a client span of the create's trace, whose
	// context the webhook gets (refplane's webhook got the client's trace
	// and a span of its own).
	headers := hook.Headers()
	parts := strings.Split(headers[len(headers)-1].Get("traceparent"), "-")
	call, _ := collector.span("HTTP POST")
	if len(parts) != 4 || parts[1] != clientTraceID || parts[2] == clientSpanID || call == nil ||
		hex.EncodeToString(call.SpanId) != parts[2] || call.Kind != tracev1.Span_SPAN_KIND_CLIENT {
		t.Errorf("the webhook got traceparent %v; the webhook call's span %v", parts, call)
	}
}

// TestTracingConfigFileIsChecked checks that a tracing configuration that
// kube-apiserver refuses is refused at start with its errors.
func TestTracingConfigFileIsChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{"", "tracing-config-file " + filepath.Join(dir, "0.yaml") + " does not exist"},
		{"apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: -1\n",
			"failed to validate tracing configuration: samplingRatePerMillion: Invalid value: -1: sampling rate must be positive"},
		{"apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000\n",
			"failed to validate tracing configuration: samplingRatePerMillion: Invalid value: 2000000: sampling rate per million must be less than or equal to one million"},
		{"apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRate: 5\n",
			`failed to read tracing config: unable to decode tracing configuration data: strict decoding error: unknown field "samplingRate"`},
	} {
		path := filepath.Join(dir, "0.yaml")
		if tc.content != "" {
			path = filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cp, err := fakeplane.New(fakeplane.WithTracingConfigFile(path))
		if err == nil {
			err = cp.Start(context.Background())
			_ = cp.Stop()
		}
		if want := "fakeplane: " + tc.want; err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", tc.content, err, want)
		}
	}
}

// TestTraceContextReachesWebhooks checks that a request's trace context
// reaches the admission webhooks it calls, as kube-apiserver's does
// without a tracing configuration (refplane's webhook got the client's
// traceparent as it was sent).
func TestTraceContextReachesWebhooks(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	admin := clientset(t, cp)
	hook := configMapWebhook(t, admin)
	if got := hook.Headers()[0].Get("traceparent"); got != "" {
		t.Errorf("a request without a trace context: the webhook got traceparent %q", got)
	}
	if _, err := withTraceparent(t, cp).CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "traced"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	headers := hook.Headers()
	if got := headers[len(headers)-1].Get("traceparent"); got != clientTraceparent {
		t.Errorf("the webhook got traceparent %q, want the client's %q", got, clientTraceparent)
	}
}

// configMapWebhook serves a validating webhook that allows every
// ConfigMap create, registers it with admin and waits until it reviews
// creates.
func configMapWebhook(t *testing.T, admin kubernetes.Interface) *testWebhook {
	t.Helper()
	hook := serveWebhook(t, allow)
	createValidatingWebhook(t, admin, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "traced"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "traced.example.com",
			ClientConfig:            urlWebhookConfig(hook, "/validate"),
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, func() error {
		if len(hook.Reviews()) == 0 {
			_, err := admin.CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil {
				return errors.New("not reviewed yet")
			}
			return err
		}
		return nil
	})
	return hook
}
