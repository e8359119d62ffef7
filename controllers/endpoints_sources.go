package controllers

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fakeplane/fakeplane/store"
)

const servicesBucket = "/services"

// endpointSources are what the Endpoints and EndpointSlice controllers
// compute from: the Services and pods, and which Services a change
// concerns.
type endpointSources struct {
	services *jobCache[corev1.Service]
	pods     *jobCache[corev1.Pod]
	// byNamespace has the Service and pod keys of each namespace.
	servicesIn, podsIn map[string]map[string]bool
	// dirty are the Service keys to sync; gone the deleted ones.
	dirty map[string]bool
}

func newEndpointSources() *endpointSources {
	return &endpointSources{
		services:   newJobCache[corev1.Service](),
		pods:       newJobCache[corev1.Pod](),
		servicesIn: map[string]map[string]bool{},
		podsIn:     map[string]map[string]bool{},
		dirty:      map[string]bool{},
	}
}

func endpointIndex(idx map[string]map[string]bool, key string, present bool) {
	ns, _ := splitKey(key)
	if present {
		if idx[ns] == nil {
			idx[ns] = map[string]bool{}
		}
		idx[ns][key] = true
		return
	}
	delete(idx[ns], key)
	if len(idx[ns]) == 0 {
		delete(idx, ns)
	}
}

// observe records a Service or pod event and marks the Services it
// concerns dirty. It reports false for other resources.
func (s *endpointSources) observe(ev store.Event) (bool, error) {
	switch ev.Resource {
	case servicesBucket:
		_, cur, ok, err := s.services.apply(ev)
		if err != nil || !ok {
			return true, err
		}
		endpointIndex(s.servicesIn, ev.Key, cur != nil)
		s.dirty[ev.Key] = true
	case podsBucket:
		old, cur, ok, err := s.pods.apply(ev)
		if err != nil || !ok {
			return true, err
		}
		endpointIndex(s.podsIn, ev.Key, cur != nil)
		ns, _ := splitKey(ev.Key)
		for sk := range s.servicesIn[ns] {
			svc := s.services.get(sk)
			if svc == nil || svc.Spec.Selector == nil {
				continue
			}
			sel := labels.Set(svc.Spec.Selector).AsSelectorPreValidated()
			if (old != nil && sel.Matches(labels.Set(old.Labels))) || (cur != nil && sel.Matches(labels.Set(cur.Labels))) {
				s.dirty[sk] = true
			}
		}
	default:
		return false, nil
	}
	return true, nil
}

// podsFor returns the pods of the Service's namespace its selector
// matches, by name.
func (s *endpointSources) podsFor(svc *corev1.Service) []*corev1.Pod {
	sel := labels.Set(svc.Spec.Selector).AsSelectorPreValidated()
	var out []*corev1.Pod
	for _, pk := range sortedKeys(s.podsIn[svc.Namespace]) {
		if p := s.pods.get(pk); p != nil && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// endpointServiceIPSet reports whether the Service has a cluster IP (is
// not headless).
func endpointServiceIPSet(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP != corev1.ClusterIPNone && svc.Spec.ClusterIP != ""
}

// endpointWantsIPv6 says which family the Service's endpoints are of: its
// first IP family, else its cluster IP's, else IPv4.
func endpointWantsIPv6(svc *corev1.Service) bool {
	if len(svc.Spec.IPFamilies) > 0 {
		return svc.Spec.IPFamilies[0] == corev1.IPv6Protocol
	}
	return strings.Contains(svc.Spec.ClusterIP, ":")
}
