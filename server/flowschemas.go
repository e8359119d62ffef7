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

// flowClassifier matches requests to the stored FlowSchemas. It reads
// them again, on the next request, after a commit changed a FlowSchema or
// a priority level.
type flowClassifier struct {
	store store.Interface
	// stale is set when the schemas must be read again.
	stale atomic.Bool
	// schemas are the FlowSchemas whose priority level exists, in
	// matching order: by matchingPrecedence, then by name.
	schemas atomic.Pointer[[]classifiedSchema]
	// rebuild serializes the reads of the schemas.
	rebuild sync.Mutex
}

// classifiedSchema is a FlowSchema and the UID of its priority level.
type classifiedSchema struct {
	fs      *flowcontrolv1.FlowSchema
	levelID types.UID
}

// newFlowClassifier returns a classifier of the FlowSchemas in st.
func newFlowClassifier(st store.Interface) *flowClassifier {
	c := &flowClassifier{store: st}
	c.stale.Store(true)
	return c
}

// observe marks the schemas stale after a commit to either bucket.
func (c *flowClassifier) observe(bucket, _ string, _ runtime.Object, _ []byte, _ bool) {
	if bucket == flowSchemasBucket || bucket == priorityLevelsBucket {
		c.stale.Store(true)
	}
}

// current returns the schemas in matching order, reading them first when
// they are stale. A FlowSchema whose priority level does not exist is
// dangling: kube-apiserver does not match requests to it.
func (c *flowClassifier) current() []classifiedSchema {
	if !c.stale.Load() {
		if p := c.schemas.Load(); p != nil {
			return *p
		}
	}
	c.rebuild.Lock()
	defer c.rebuild.Unlock()
	if !c.stale.Swap(false) {
		if p := c.schemas.Load(); p != nil {
			return *p
		}
	}
	levels := map[string]types.UID{}
	if l, err := c.store.List(priorityLevelsBucket, store.ListOptions{}); err == nil {
		for _, it := range l.Items {
			var pl flowcontrolv1.PriorityLevelConfiguration
			if json.Unmarshal(it.Value, &pl) == nil {
				levels[pl.Name] = pl.UID
			}
		}
	} else {
		c.stale.Store(true)
	}
	var schemas []classifiedSchema
	if l, err := c.store.List(flowSchemasBucket, store.ListOptions{}); err == nil {
		for _, it := range l.Items {
			fs := &flowcontrolv1.FlowSchema{}
			if json.Unmarshal(it.Value, fs) != nil {
				continue
			}
			if id, ok := levels[fs.Spec.PriorityLevelConfiguration.Name]; ok {
				schemas = append(schemas, classifiedSchema{fs: fs, levelID: id})
			}
		}
	} else {
		c.stale.Store(true)
	}
	slices.SortFunc(schemas, func(a, b classifiedSchema) int {
		return cmp.Or(cmp.Compare(precedence(a.fs), precedence(b.fs)), cmp.Compare(a.fs.Name, b.fs.Name))
	})
	c.schemas.Store(&schemas)
	return schemas
}

// precedence is a FlowSchema's matchingPrecedence (1000 when unset, as
// the API defaults it).
func precedence(fs *flowcontrolv1.FlowSchema) int32 {
	if fs.Spec.MatchingPrecedence == 0 {
		return 1000
	}
	return fs.Spec.MatchingPrecedence
}

// classify returns the FlowSchema a request of u described by info
// matches and its priority level's UID; ok is false when none matches.
func (c *flowClassifier) classify(u user.Info, info *apirequest.RequestInfo) (schema, level types.UID, ok bool) {
	for _, s := range c.current() {
		if flowSchemaMatches(s.fs, u, info) {
			return s.fs.UID, s.levelID, true
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

// flowSchemaMatches reports whether one of fs's rules matches the request:
// one of its subjects is the user, and one of its resource rules (for a
// resource request) or non-resource rules (for another) covers it.
func flowSchemaMatches(fs *flowcontrolv1.FlowSchema, u user.Info, info *apirequest.RequestInfo) bool {
	for i := range fs.Spec.Rules {
		rule := &fs.Spec.Rules[i]
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
