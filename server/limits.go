package server

// kube-apiserver's request limits: --request-timeout for requests that are
// not long-running (upstream's WithRequestDeadline and
// WithTimeoutForNonLongRunningRequests filters), and
// --max-requests-inflight / --max-mutating-requests-inflight.

import (
	"errors"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/filters"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
)

// Defaults of kube-apiserver's flags.
const (
	DefaultRequestTimeout              = time.Minute
	DefaultMaxRequestsInFlight         = 400
	DefaultMaxMutatingRequestsInFlight = 200
)

// LimitsConfig sets kube-apiserver's request limits.
type LimitsConfig struct {
	// RequestTimeout bounds requests that are not long-running (watches,
	// proxies, exec, attach, port-forward and logs are); a client's
	// ?timeout= may shorten it. 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight bound the
	// read-only and the mutating requests served at once; those over are
	// answered 429 with Retry-After. 0 means the default; negative means
	// no limit.
	MaxRequestsInFlight, MaxMutatingRequestsInFlight int
	// MinRequestTimeout is kube-apiserver's --min-request-timeout: a watch
	// that names no timeout ends after a random time between it and twice
	// it; 0 lets such a watch run until its client ends it. nil means
	// DefaultMinRequestTimeout.
	MinRequestTimeout *time.Duration
	// GoawayChance is kube-apiserver's --goaway-chance: the probability
	// (0 to 0.02) that an HTTP/2 request other than a watch is answered
	// with GOAWAY, so that clients behind a load balancer spread over
	// servers. 0, the default, sends none.
	GoawayChance float64
}

// DefaultMinRequestTimeout is kube-apiserver's --min-request-timeout
// default.
const DefaultMinRequestTimeout = 1800 * time.Second

// Validate checks the limits as kube-apiserver checks its flags.
func (c LimitsConfig) Validate() error {
	if c.MinRequestTimeout != nil && *c.MinRequestTimeout < 0 {
		return errors.New("--min-request-timeout can not be negative value")
	}
	if c.GoawayChance < 0 || c.GoawayChance > 0.02 {
		return errors.New("--goaway-chance can not be less than 0 or greater than 0.02")
	}
	return nil
}

// longRunning is kube-apiserver's long-running request check: watches and
// proxies, and the attach, exec, proxy, log and portforward subresources.
var longRunning = genericfilters.BasicLongRunningRequestCheck(sets.NewString("watch", "proxy"), sets.NewString("attach", "exec", "proxy", "log", "portforward"))

// withRequestTimeout is kube-apiserver's pair of filters: a deadline on
// the request's context (the client's timeout, at most the server's) and
// a 504 once it passes.
//
// A request refused for its timeout is audited by sink and policy (none
// when nil), as kube-apiserver audits it.
func withRequestTimeout(h http.Handler, timeout time.Duration, codecs runtime.NegotiatedSerializer, sink audit.Sink, policy audit.PolicyRuleEvaluator) http.Handler {
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	h = genericfilters.WithTimeoutForNonLongRunningRequests(withGrownStack(h), longRunning)
	return filters.WithRequestDeadline(h, sink, policy, longRunning, codecs, timeout)
}

// withMaxInFlight is kube-apiserver's max-in-flight limit (its
// WithMaxInFlightLimit, without the usage watermarks it keeps in
// process-wide metrics): long-running requests and members of
// system:masters are not limited; the others wait for nothing, they are
// refused with 429 and Retry-After: 1 when the limit of their kind
// (mutating or read-only) is reached.
func withMaxInFlight(h http.Handler, readOnly, mutating int) http.Handler {
	if readOnly == 0 {
		readOnly = DefaultMaxRequestsInFlight
	}
	if mutating == 0 {
		mutating = DefaultMaxMutatingRequestsInFlight
	}
	var readOnlyCh, mutatingCh chan struct{}
	if readOnly > 0 {
		readOnlyCh = make(chan struct{}, readOnly)
	}
	if mutating > 0 {
		mutatingCh = make(chan struct{}, mutating)
	}
	if readOnlyCh == nil && mutatingCh == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		info, ok := apirequest.RequestInfoFrom(ctx)
		if !ok || longRunning(r, info) {
			h.ServeHTTP(w, r)
			return
		}
		ch := readOnlyCh
		if !nonMutatingVerbs.Has(info.Verb) {
			ch = mutatingCh
		}
		if ch == nil {
			h.ServeHTTP(w, r)
			return
		}
		if u, ok := apirequest.UserFrom(ctx); ok {
			for _, g := range u.GetGroups() {
				if g == user.SystemPrivilegedGroup {
					h.ServeHTTP(w, r)
					return
				}
			}
		}
		select {
		case ch <- struct{}{}:
			defer func() { <-ch }()
			h.ServeHTTP(w, r)
		default:
			// As upstream's tooManyRequests: plain text, not a Status.
			w.Header().Set("Retry-After", "1")
			http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
		}
	})
}

// nonMutatingVerbs are the verbs the read-only limit counts.
var nonMutatingVerbs = sets.NewString("get", "list", "watch")
