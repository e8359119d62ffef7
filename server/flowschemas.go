package server

// API priority and fairness's classification: every request kube-apiserver
// admits past authentication is matched to a FlowSchema and its priority
// level, whose UIDs its answer carries in the X-Kubernetes-PF-FlowSchema-UID
// and X-Kubernetes-PF-PriorityLevel-UID headers. fakeplane classifies as
// kube-apiserver does and sets the headers; it does not queue or reject
// requests by priority level.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/store"
)

// The store buckets classification reads.
const (
	flowSchemasBucket    = "flowcontrol.apiserver.k8s.io/flowschemas"
	priorityLevelsBucket = "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations"
)

// flowClassifier matches requests to the stored FlowSchemas. It follows
// the commits to FlowSchemas and priority levels (observe), after loading
// those stored (load).
type flowClassifier struct {
	mu sync.Mutex
	// schemas are the FlowSchemas by name, levels the priority levels'
	// UIDs by name.
	schemas map[string]classifiedSchema
	levels  map[string]types.UID
	// ordered are the schemas whose priority level exists, in matching
	// order (by matchingPrecedence, then by name); nil once a commit
	// changed either map.
	ordered atomic.Pointer[[]classifiedSchema]
}

// classifiedSchema is what matching reads of a FlowSchema.
type classifiedSchema struct {
	name       string
	uid        types.UID
	precedence int32
	level      string
	rules      []flowcontrolv1.PolicyRulesWithSubjects
	// levelID is the UID of its priority level, set in ordered.
	levelID types.UID
}

// newFlowClassifier returns an empty classifier.
func newFlowClassifier() *flowClassifier {
	return &flowClassifier{schemas: map[string]classifiedSchema{}, levels: map[string]types.UID{}}
}

// load adds the FlowSchemas and priority levels stored in st. Call it
// before the first write that observe is told of.
func (c *flowClassifier) load(st store.Interface) error {
	for _, b := range []string{flowSchemasBucket, priorityLevelsBucket} {
		lst, err := st.List(b, store.ListOptions{})
		if err != nil {
			return fmt.Errorf("list %s: %w", b, err)
		}
		for _, it := range lst.Items {
			c.observe(b, it.Key, nil, it.Value, false)
		}
	}
	return nil
}

// observe records a committed write to a FlowSchema or a priority level:
// obj is the object in its Go type when the write path has it, data its
// stored JSON. It has the signature of registry.Hooks.CommitObserver. A
// FlowSchema's rules are kept as obj holds them: nothing changes a
// committed object.
func (c *flowClassifier) observe(bucket, key string, obj runtime.Object, data []byte, deleted bool) {
	if bucket != flowSchemasBucket && bucket != priorityLevelsBucket {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.ordered.Store(nil)
	if bucket == priorityLevelsBucket {
		delete(c.levels, key)
		if deleted {
			return
		}
		pl, ok := obj.(*flowcontrolv1.PriorityLevelConfiguration)
		if !ok {
			pl = &flowcontrolv1.PriorityLevelConfiguration{}
			if json.Unmarshal(data, pl) != nil {
				return
			}
		}
		c.levels[key] = pl.UID
		return
	}
	delete(c.schemas, key)
	if deleted {
		return
	}
	fs, ok := obj.(*flowcontrolv1.FlowSchema)
	if !ok {
		fs = &flowcontrolv1.FlowSchema{}
		if json.Unmarshal(data, fs) != nil {
			return
		}
	}
	precedence := fs.Spec.MatchingPrecedence
	if precedence == 0 { // as the API defaults it
		precedence = 1000
	}
	c.schemas[key] = classifiedSchema{name: fs.Name, uid: fs.UID, precedence: precedence,
		level: fs.Spec.PriorityLevelConfiguration.Name, rules: fs.Spec.Rules}
}

// current returns the schemas in matching order. A FlowSchema whose
// priority level does not exist is dangling: kube-apiserver does not
// match requests to it.
func (c *flowClassifier) current() []classifiedSchema {
	if p := c.ordered.Load(); p != nil {
		return *p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ordered := make([]classifiedSchema, 0, len(c.schemas))
	for _, s := range c.schemas {
		if id, ok := c.levels[s.level]; ok {
			s.levelID = id
			ordered = append(ordered, s)
		}
	}
	slices.SortFunc(ordered, func(a, b classifiedSchema) int {
		return cmp.Or(cmp.Compare(a.precedence, b.precedence), cmp.Compare(a.name, b.name))
	})
	c.ordered.Store(&ordered)
	return ordered
}

// classify returns the FlowSchema a request of u described by info
// matches and its priority level's UID; ok is false when none matches.
func (c *flowClassifier) classify(u user.Info, info *apirequest.RequestInfo) (schema, level types.UID, ok bool) {
	for _, s := range c.current() {
		if flowSchemaMatches(s.rules, u, info) {
			return s.uid, s.levelID, true
		}
	}
	return "", "", false
}

// withFlowSchemaHeaders sets the classification headers on the answer of
// every request that gets this far (authenticated, impersonation done).
func (s *Server) withFlowSchemaHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, okUser := apirequest.UserFrom(r.Context())
		info, okInfo := apirequest.RequestInfoFrom(r.Context())
		if okUser && okInfo {
			if fs, pl, ok := s.flows.classify(u, info); ok {
				w.Header().Set(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID, string(fs))
				w.Header().Set(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID, string(pl))
			}
		}
		h.ServeHTTP(w, r)
	})
}

// flowSchemaMatches reports whether one of a FlowSchema's rules matches the
// request: one of its subjects is the user, and one of its resource rules
// (for a resource request) or non-resource rules (for another) covers it.
func flowSchemaMatches(rules []flowcontrolv1.PolicyRulesWithSubjects, u user.Info, info *apirequest.RequestInfo) bool {
	for i := range rules {
		rule := &rules[i]
		if !slices.ContainsFunc(rule.Subjects, func(s flowcontrolv1.Subject) bool { return subjectIs(s, u) }) {
			continue
		}
		if info.IsResourceRequest {
			if slices.ContainsFunc(rule.ResourceRules, func(r flowcontrolv1.ResourcePolicyRule) bool { return resourceRuleCovers(r, info) }) {
				return true
			}
		} else if slices.ContainsFunc(rule.NonResourceRules, func(r flowcontrolv1.NonResourcePolicyRule) bool { return nonResourceRuleCovers(r, info) }) {
			return true
		}
	}
	return false
}

// subjectIs reports whether subject s names user u: by user name, by one of
// its groups ("*" for any), or as a service account (name "*" for any in
// the namespace).
func subjectIs(s flowcontrolv1.Subject, u user.Info) bool {
	switch s.Kind {
	case flowcontrolv1.SubjectKindUser:
		return s.User != nil && (s.User.Name == flowcontrolv1.NameAll || s.User.Name == u.GetName())
	case flowcontrolv1.SubjectKindGroup:
		return s.Group != nil && (s.Group.Name == flowcontrolv1.NameAll || slices.Contains(u.GetGroups(), s.Group.Name))
	case flowcontrolv1.SubjectKindServiceAccount:
		if s.ServiceAccount == nil {
			return false
		}
		if s.ServiceAccount.Name != flowcontrolv1.NameAll {
			return serviceaccount.MatchesUsername(s.ServiceAccount.Namespace, s.ServiceAccount.Name, u.GetName())
		}
		rest, ok := strings.CutPrefix(u.GetName(), serviceaccount.ServiceAccountUsernamePrefix)
		if !ok {
			return false
		}
		rest, ok = strings.CutPrefix(rest, s.ServiceAccount.Namespace)
		return ok && strings.HasPrefix(rest, serviceaccount.ServiceAccountUsernameSeparator)
	}
	return false
}

// resourceRuleCovers reports whether r covers the resource request info:
// its verb, resource (resource/subresource), API group, and namespace (a
// request without one needs clusterScope).
func resourceRuleCovers(r flowcontrolv1.ResourcePolicyRule, info *apirequest.RequestInfo) bool {
	resource := info.Resource
	if info.Subresource != "" {
		resource += "/" + info.Subresource
	}
	if !listHas(r.Verbs, info.Verb, flowcontrolv1.VerbAll) || !listHas(r.Resources, resource, flowcontrolv1.ResourceAll) ||
		!listHas(r.APIGroups, info.APIGroup, flowcontrolv1.APIGroupAll) {
		return false
	}
	if info.Namespace == "" {
		return r.ClusterScope
	}
	return listHas(r.Namespaces, info.Namespace, flowcontrolv1.NamespaceEvery)
}

// nonResourceRuleCovers reports whether r covers the non-resource request
// info: its verb, and its path, which a URL of the rule names exactly or
// as a prefix (a trailing "*" dropped, a "/" added if missing), or "*".
func nonResourceRuleCovers(r flowcontrolv1.NonResourcePolicyRule, info *apirequest.RequestInfo) bool {
	if !listHas(r.Verbs, info.Verb, flowcontrolv1.VerbAll) {
		return false
	}
	for _, url := range r.NonResourceURLs {
		if url == flowcontrolv1.NonResourceAll || url == info.Path {
			return true
		}
		prefix := strings.TrimSuffix(url, "*")
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		if strings.HasPrefix(info.Path, prefix) {
			return true
		}
	}
	return false
}

// listHas reports whether list holds x, or is the wildcard alone.
func listHas(list []string, x, wildcard string) bool {
	if len(list) == 1 && list[0] == wildcard {
		return true
	}
	return slices.Contains(list, x)
}
