package admission

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/lru"
)

// EventRateLimitPluginName is the name of upstream's EventRateLimit plugin.
const EventRateLimitPluginName = "EventRateLimit"

// EventRateLimitConfigGroupVersion is the group and version of
// EventRateLimitConfig (kind Configuration).
var EventRateLimitConfigGroupVersion = schema.GroupVersion{Group: "eventratelimit.admission.k8s.io", Version: "v1alpha1"}

// EventRateLimitType is the type of a limit: what its buckets are per.
type EventRateLimitType string

// The types of limits.
const (
	// EventRateLimitServer is one bucket for all events.
	EventRateLimitServer EventRateLimitType = "Server"
	// EventRateLimitNamespace is one bucket per namespace.
	EventRateLimitNamespace EventRateLimitType = "Namespace"
	// EventRateLimitUser is one bucket per user name.
	EventRateLimitUser EventRateLimitType = "User"
	// EventRateLimitSourceAndObject is one bucket per event source and
	// involved object.
	EventRateLimitSourceAndObject EventRateLimitType = "SourceAndObject"
)

// eventRateLimitTypes are the valid types, in the order the validation
// error lists them (upstream lists them in a map's random order).
var eventRateLimitTypes = []EventRateLimitType{EventRateLimitServer, EventRateLimitNamespace, EventRateLimitUser, EventRateLimitSourceAndObject}

// eventRateLimitDefaultCacheSize is the number of buckets of a limit (but a
// Server one) whose cacheSize is 0.
const eventRateLimitDefaultCacheSize = 4096

// EventRateLimitConfig is upstream EventRateLimit's configuration,
// eventratelimit.admission.k8s.io/v1alpha1 Configuration.
type EventRateLimitConfig struct {
	metav1.TypeMeta `json:""`

	// Limits are the limits events are subject to (at least one).
	Limits []EventRateLimitLimit `json:"limits"`
}

// EventRateLimitLimit is one limit: a token bucket of Burst tokens
// refilled at QPS per second, per key of its type, the CacheSize (0:
// 4096) most recently used buckets kept (a Server limit has one bucket).
type EventRateLimitLimit struct {
	Type      EventRateLimitType `json:"type"`
	QPS       int32              `json:"qps"`
	Burst     int32              `json:"burst"`
	CacheSize int32              `json:"cacheSize,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (c *EventRateLimitConfig) DeepCopyObject() runtime.Object {
	if c == nil {
		return nil
	}
	out := &EventRateLimitConfig{TypeMeta: c.TypeMeta}
	if c.Limits != nil {
		out.Limits = append([]EventRateLimitLimit{}, c.Limits...)
	}
	return out
}

// eventRateLimitCodecs decode the configuration.
var eventRateLimitCodecs = pluginConfigCodecs(EventRateLimitConfigGroupVersion, &EventRateLimitConfig{})

// LoadEventRateLimitConfig reads EventRateLimit's configuration as upstream
// does from the plugin's part of --admission-control-config-file and
// validates it as upstream does when it builds the plugin: a nil reader is
// the default, no limits; otherwise a YAML or JSON
// eventratelimit.admission.k8s.io/v1alpha1 Configuration (fields matched by
// case, unknown ones ignored), refused with the decoder's error. A
// configuration without limits, or with a limit of an unknown type, a qps
// or burst that is not positive, or a negative cacheSize (but a Server
// limit's) is refused with upstream's aggregate of field errors, e.g.
// `limits: Invalid value: null: must not be empty` (so the default is
// refused: the plugin needs a configuration) or `[limits[0].burst: Invalid
// value: 0: must be positive, ...]`; kube-apiserver then fails to start.
func LoadEventRateLimitConfig(r io.Reader) (*EventRateLimitConfig, error) {
	cfg := &EventRateLimitConfig{}
	if r != nil {
		var err error
		if cfg, err = decodePluginConfig[*EventRateLimitConfig](r, eventRateLimitCodecs); err != nil {
			return nil, err
		}
		cfg.TypeMeta = metav1.TypeMeta{}
	}
	if errs := validateEventRateLimitConfig(cfg); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return cfg, nil
}

// validateEventRateLimitConfig is upstream's ValidateConfiguration.
func validateEventRateLimitConfig(cfg *EventRateLimitConfig) field.ErrorList {
	var errs field.ErrorList
	limitsPath := field.NewPath("limits")
	if len(cfg.Limits) == 0 {
		errs = append(errs, field.Invalid(limitsPath, cfg.Limits, "must not be empty"))
	}
	for i, l := range cfg.Limits {
		p := limitsPath.Index(i)
		known := false
		for _, t := range eventRateLimitTypes {
			known = known || l.Type == t
		}
		if !known {
			errs = append(errs, field.NotSupported(p.Child("type"), l.Type, eventRateLimitTypes))
		}
		if l.Burst <= 0 {
			errs = append(errs, field.Invalid(p.Child("burst"), l.Burst, "must be positive"))
		}
		if l.QPS <= 0 {
			errs = append(errs, field.Invalid(p.Child("qps"), l.QPS, "must be positive"))
		}
		if l.Type != EventRateLimitServer && l.CacheSize < 0 {
			errs = append(errs, field.Invalid(p.Child("cacheSize"), l.CacheSize, "must not be negative"))
		}
	}
	return errs
}

// EventRateLimit is upstream's EventRateLimit plugin (validating only): one
// set of token buckets per configured limit, kept across requests. It is
// safe for concurrent use and starts no goroutine.
type EventRateLimit struct {
	limits []*eventRateLimitEnforcer
}

// eventRateLimitEnforcer holds one limit's buckets.
type eventRateLimitEnforcer struct {
	typ    EventRateLimitType
	newTB  func() flowcontrol.PassiveRateLimiter
	single flowcontrol.PassiveRateLimiter // a Server limit's one bucket
	mu     sync.Mutex                     // makes a lookup and its insertion one step
	cache  *lru.Cache
}

// eventRateLimitClock is a flowcontrol clock reading now.
type eventRateLimitClock func() time.Time

func (c eventRateLimitClock) Now() time.Time                  { return c() }
func (c eventRateLimitClock) Since(t time.Time) time.Duration { return c().Sub(t) }

// NewEventRateLimit builds the plugin for cfg (as LoadEventRateLimitConfig
// returns it; a limit of an unknown type is ignored), its buckets full.
// now is the clock the buckets refill by (nil: time.Now).
func NewEventRateLimit(cfg *EventRateLimitConfig, now func() time.Time) *EventRateLimit {
	if now == nil {
		now = time.Now
	}
	clk := eventRateLimitClock(now)
	p := &EventRateLimit{}
	if cfg == nil {
		return p
	}
	for _, l := range cfg.Limits {
		qps, burst := float32(l.QPS), int(l.Burst)
		e := &eventRateLimitEnforcer{typ: l.Type, newTB: func() flowcontrol.PassiveRateLimiter {
			return flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(qps, burst, clk)
		}}
		switch l.Type {
		case EventRateLimitServer:
			e.single = e.newTB()
		case EventRateLimitNamespace, EventRateLimitUser, EventRateLimitSourceAndObject:
			size := int(l.CacheSize)
			if size == 0 {
				size = eventRateLimitDefaultCacheSize
			}
			e.cache = lru.New(size)
		default:
			continue
		}
		p.limits = append(p.limits, e)
	}
	return p
}

// Validate admits a as upstream's plugin: a Create or Update (of any
// subresource) whose kind is the core group's Event (events.k8s.io's are
// not), and that is not a dry run, takes a token from its bucket of every
// limit (from all of them, even when one is empty). When some are empty it
// is a 429 TooManyRequests `Too many requests: limit reached on type
// <type> for key <key>` (with several: `Too many requests: [limit reached
// on ..., limit reached on ...]`, in the configuration's order). The keys:
// none for Server, the request's namespace, the user's name, or for
// SourceAndObject the event's source component and host and involved
// object's kind, namespace, name, uid and apiVersion run together (empty
// when the object is not a *corev1.Event).
func (p *EventRateLimit) Validate(a k8sadmission.Attributes) error {
	if p == nil || !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update) {
		return nil
	}
	if a.GetKind().GroupKind() != (schema.GroupKind{Kind: "Event"}) || a.IsDryRun() {
		return nil
	}
	var errs []error
	for _, e := range p.limits {
		key := eventRateLimitKey(e.typ, a)
		if !e.bucket(key).TryAccept() {
			errs = append(errs, fmt.Errorf("limit reached on type %v for key %v", e.typ, key))
		}
	}
	if agg := utilerrors.NewAggregate(errs); agg != nil {
		return apierrors.NewTooManyRequestsError(agg.Error())
	}
	return nil
}

// bucket is key's bucket, a full new one when the cache has none for it
// (any more).
func (e *eventRateLimitEnforcer) bucket(key string) flowcontrol.PassiveRateLimiter {
	if e.single != nil {
		return e.single
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.cache.Get(key); ok {
		return v.(flowcontrol.PassiveRateLimiter)
	}
	tb := e.newTB()
	e.cache.Add(key, tb)
	return tb
}

// eventRateLimitKey is a's bucket key for a limit of type t.
func eventRateLimitKey(t EventRateLimitType, a k8sadmission.Attributes) string {
	switch t {
	case EventRateLimitNamespace:
		return a.GetNamespace()
	case EventRateLimitUser:
		if u := a.GetUserInfo(); u != nil {
			return u.GetName()
		}
	case EventRateLimitSourceAndObject:
		if ev, ok := a.GetObject().(*corev1.Event); ok && ev != nil {
			o := ev.InvolvedObject
			return strings.Join([]string{ev.Source.Component, ev.Source.Host, o.Kind, o.Namespace, o.Name, string(o.UID), o.APIVersion}, "")
		}
	}
	return ""
}
