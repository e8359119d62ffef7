package admission

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestOptin2EventRateLimitConfigLoadsAndValidates(t *testing.T) {
	cases := []struct {
		name    string
		in      *string
		want    *EventRateLimitConfig
		wantErr string
	}{
		{name: "yaml", in: optin2Ptr(`apiVersion: eventratelimit.admission.k8s.io/v1alpha1
kind: Configuration
limits:
- type: Namespace
  qps: 50
  burst: 100
  cacheSize: 2000
- type: User
  qps: 10
  burst: 50
- type: Server
  qps: 1
  burst: 1
  cacheSize: -5
unknown: ignored
`), want: &EventRateLimitConfig{Limits: []EventRateLimitLimit{
			{Type: EventRateLimitNamespace, QPS: 50, Burst: 100, CacheSize: 2000},
			{Type: EventRateLimitUser, QPS: 10, Burst: 50},
			{Type: EventRateLimitServer, QPS: 1, Burst: 1, CacheSize: -5},
		}}},
		{name: "json", in: optin2Ptr(`{"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration","limits":[{"type":"SourceAndObject","qps":1,"burst":2}]}`),
			want: &EventRateLimitConfig{Limits: []EventRateLimitLimit{{Type: EventRateLimitSourceAndObject, QPS: 1, Burst: 2}}}},
		{name: "no config", wantErr: `limits: Invalid value: null: must not be empty`},
		{name: "no limits", in: optin2Ptr("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\n"), wantErr: `limits: Invalid value: null: must not be empty`},
		{name: "empty limits", in: optin2Ptr("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits: []\n"), wantErr: `limits: Invalid value: []: must not be empty`},
		{name: "fields match by case", in: optin2Ptr("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nLimits:\n- type: Server\n  qps: 1\n  burst: 1\n"),
			wantErr: `limits: Invalid value: null: must not be empty`},
		{name: "invalid limits", in: optin2Ptr(`apiVersion: eventratelimit.admission.k8s.io/v1alpha1
kind: Configuration
limits:
- type: Cluster
  qps: 0
  burst: -1
  cacheSize: -1
- type: User
  qps: 1
  burst: 1
  cacheSize: -2
`), wantErr: `[limits[0].type: Unsupported value: "Cluster": supported values: "Server", "Namespace", "User", "SourceAndObject", ` +
			`limits[0].burst: Invalid value: -1: must be positive, limits[0].qps: Invalid value: 0: must be positive, ` +
			`limits[0].cacheSize: Invalid value: -1: must not be negative, limits[1].cacheSize: Invalid value: -2: must not be negative]`},
		{name: "no kind", in: optin2Ptr("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n"), wantErr: "Object 'Kind' is missing in 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n'"},
		{name: "qps not an integer", in: optin2Ptr("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 1.5\n  burst: 1\n"),
			wantErr: "json: cannot unmarshal number 1.5 into Go struct field EventRateLimitLimit.limits.qps of type int32"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got *EventRateLimitConfig
			var err error
			if tc.in == nil {
				got, err = LoadEventRateLimitConfig(nil)
			} else {
				got, err = LoadEventRateLimitConfig(strings.NewReader(*tc.in))
			}
			checkLoaded(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func optin2Ptr(s string) *string { return &s }

// optin2EventAttrs is a Create of a core event in ns by user, from
// component about pod name.
func optin2EventAttrs(ns, userName, component, name string) k8sadmission.Attributes {
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: name, UID: "uid", APIVersion: "v1"},
		Source:         corev1.EventSource{Component: component, Host: "h"},
	}
	return k8sadmission.NewAttributesRecord(ev, nil, corev1.SchemeGroupVersion.WithKind("Event"), ns, "e",
		corev1.SchemeGroupVersion.WithResource("events"), "", k8sadmission.Create, nil, false, &user.DefaultInfo{Name: userName})
}

// optin2Clock is a settable clock.
type optin2Clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *optin2Clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *optin2Clock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestOptin2EventRateLimitRefusesWhenABucketIsEmpty(t *testing.T) {
	type req struct {
		attrs   k8sadmission.Attributes
		step    time.Duration // before the request
		wantErr string
	}
	ev := optin2EventAttrs
	cases := []struct {
		name   string
		limits []EventRateLimitLimit
		reqs   []req
	}{
		{name: "server bucket refills at qps",
			limits: []EventRateLimitLimit{{Type: EventRateLimitServer, QPS: 1, Burst: 2, CacheSize: -1}},
			reqs: []req{
				{attrs: ev("a", "u", "c", "p")},
				{attrs: ev("b", "v", "d", "q")},
				{attrs: ev("c", "w", "e", "r"), wantErr: "Too many requests: limit reached on type Server for key "},
				{attrs: ev("c", "w", "e", "r"), step: 999 * time.Millisecond, wantErr: "Too many requests: limit reached on type Server for key "},
				{attrs: ev("c", "w", "e", "r"), step: time.Millisecond},
				{attrs: ev("c", "w", "e", "r"), wantErr: "Too many requests: limit reached on type Server for key "},
				{attrs: ev("c", "w", "e", "r"), step: time.Hour},
				{attrs: ev("c", "w", "e", "r")},
				{attrs: ev("c", "w", "e", "r"), wantErr: "Too many requests: limit reached on type Server for key "},
			}},
		{name: "namespace buckets",
			limits: []EventRateLimitLimit{{Type: EventRateLimitNamespace, QPS: 1, Burst: 1}},
			reqs: []req{
				{attrs: ev("a", "u", "c", "p")},
				{attrs: ev("b", "u", "c", "p")},
				{attrs: ev("a", "v", "d", "q"), wantErr: "Too many requests: limit reached on type Namespace for key a"},
			}},
		{name: "user buckets",
			limits: []EventRateLimitLimit{{Type: EventRateLimitUser, QPS: 1, Burst: 1}},
			reqs: []req{
				{attrs: ev("a", "u", "c", "p")},
				{attrs: ev("a", "v", "c", "p")},
				{attrs: ev("b", "u", "d", "q"), wantErr: "Too many requests: limit reached on type User for key u"},
			}},
		{name: "source and object buckets",
			limits: []EventRateLimitLimit{{Type: EventRateLimitSourceAndObject, QPS: 1, Burst: 1}},
			reqs: []req{
				{attrs: ev("a", "u", "c", "p")},
				{attrs: ev("a", "u", "c", "q")},
				{attrs: ev("a", "v", "c", "p"), wantErr: "Too many requests: limit reached on type SourceAndObject for key chPodapuidv1"},
			}},
		{name: "an evicted bucket comes back full",
			limits: []EventRateLimitLimit{{Type: EventRateLimitNamespace, QPS: 1, Burst: 1, CacheSize: 1}},
			reqs: []req{
				{attrs: ev("a", "u", "c", "p")},
				{attrs: ev("b", "u", "c", "p")},
				{attrs: ev("a", "u", "c", "p")},
				{attrs: ev("a", "u", "c", "p"), wantErr: "Too many requests: limit reached on type Namespace for key a"},
			}},
		{name: "every limit takes a token, all empty ones are named",
			limits: []EventRateLimitLimit{{Type: EventRateLimitUser, QPS: 1, Burst: 1}, {Type: EventRateLimitNamespace, QPS: 1, Burst: 2}, {Type: EventRateLimitServer, QPS: 1, Burst: 1}},
			reqs: []req{
				{attrs: ev("a", "u", "c", "p")},
				{attrs: ev("a", "u", "c", "p"), wantErr: "Too many requests: [limit reached on type User for key u, limit reached on type Server for key ]"},
				{attrs: ev("a", "v", "c", "p"), wantErr: "Too many requests: [limit reached on type Namespace for key a, limit reached on type Server for key ]"},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := &optin2Clock{t: time.Unix(1000, 0)}
			p := NewEventRateLimit(&EventRateLimitConfig{Limits: tc.limits}, clk.now)
			for i, r := range tc.reqs {
				clk.step(r.step)
				err := p.Validate(r.attrs)
				if r.wantErr == "" {
					if err != nil {
						t.Fatalf("request %d: unexpected error %v", i, err)
					}
					continue
				}
				if err == nil || err.Error() != r.wantErr {
					t.Fatalf("request %d: error %v, want %s", i, err, r.wantErr)
				}
				if !apierrors.IsTooManyRequests(err) || err.(apierrors.APIStatus).Status().Code != http.StatusTooManyRequests {
					t.Fatalf("request %d: %#v is not a 429", i, err)
				}
			}
		})
	}
}

func TestOptin2EventRateLimitHandlesOnlyCoreEventWrites(t *testing.T) {
	clk := &optin2Clock{t: time.Unix(1000, 0)}
	p := NewEventRateLimit(&EventRateLimitConfig{Limits: []EventRateLimitLimit{{Type: EventRateLimitServer, QPS: 1, Burst: 1}}}, clk.now)
	u := &user.DefaultInfo{Name: "u"}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"}}
	eventKind, eventRes := corev1.SchemeGroupVersion.WithKind("Event"), corev1.SchemeGroupVersion.WithResource("events")
	ignored := []struct {
		name  string
		attrs k8sadmission.Attributes
	}{
		{"delete", k8sadmission.NewAttributesRecord(nil, ev, eventKind, "ns", "e", eventRes, "", k8sadmission.Delete, nil, false, u)},
		{"dry run", k8sadmission.NewAttributesRecord(ev, nil, eventKind, "ns", "e", eventRes, "", k8sadmission.Create, nil, true, u)},
		{"events.k8s.io", k8sadmission.NewAttributesRecord(&eventsv1.Event{}, nil, eventsv1.SchemeGroupVersion.WithKind("Event"), "ns", "e", eventsv1.SchemeGroupVersion.WithResource("events"), "", k8sadmission.Create, nil, false, u)},
		{"pods", k8sadmission.NewAttributesRecord(&corev1.Pod{}, nil, corev1.SchemeGroupVersion.WithKind("Pod"), "ns", "p", corev1.SchemeGroupVersion.WithResource("pods"), "", k8sadmission.Create, nil, false, u)},
	}
	for _, tc := range ignored {
		for i := 0; i < 3; i++ {
			if err := p.Validate(tc.attrs); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
	}
	// An Update counts as a Create does; the bucket is still full.
	update := k8sadmission.NewAttributesRecord(ev, ev, eventKind, "ns", "e", eventRes, "", k8sadmission.Update, nil, false, u)
	if err := p.Validate(update); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(update); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("second update: %v", err)
	}
	// A SourceAndObject key of an object that is not an event is empty.
	q := NewEventRateLimit(&EventRateLimitConfig{Limits: []EventRateLimitLimit{{Type: EventRateLimitSourceAndObject, QPS: 1, Burst: 1}}}, clk.now)
	var other runtime.Object = &corev1.Pod{}
	a := k8sadmission.NewAttributesRecord(other, nil, eventKind, "ns", "e", eventRes, "", k8sadmission.Create, nil, false, u)
	if err := q.Validate(a); err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(a); err == nil || err.Error() != "Too many requests: limit reached on type SourceAndObject for key " {
		t.Fatalf("error %v", err)
	}
}

func TestOptin2EventRateLimitIsSafeForConcurrentUse(t *testing.T) {
	clk := &optin2Clock{t: time.Unix(1000, 0)}
	// The server's bucket outlasts the 400 attempts: each takes a token
	// from both buckets in turn, so with a smaller one a request could
	// take one of the namespace's ten and then find the server's empty,
	// as with upstream's plugin.
	p := NewEventRateLimit(&EventRateLimitConfig{Limits: []EventRateLimitLimit{
		{Type: EventRateLimitNamespace, QPS: 1, Burst: 10, CacheSize: 2},
		{Type: EventRateLimitServer, QPS: 1, Burst: 1000},
	}}, clk.now)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if p.Validate(optin2EventAttrs("ns", "u", "c", "p")) == nil {
					mu.Lock()
					accepted++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if accepted != 10 {
		t.Fatalf("accepted %d, want 10", accepted)
	}
}
