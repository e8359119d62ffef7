package server

// Auditing, as kube-apiserver audits: upstream's filters (WithAuditInit,
// WithAudit, WithFailedAuthenticationAudit, and WithRequestDeadline's audit
// of a refused timeout) make and send the events; the handlers record the
// request and response objects where upstream's handlers call
// audit.LogRequestObject, LogRequestPatch and LogResponseObject. Without a
// policy and a backend none of it is in the chain, and the handlers' hooks
// find no audit context in the request's: nothing is allocated.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/endpoints/deprecation"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane/registry"
)

// AuditConfig configures auditing, as kube-apiserver's --audit-* flags do:
// both fields set, every request is audited by the policy's rules; either
// nil, nothing is.
type AuditConfig struct {
	// Policy gives each request its audit level and the stages left out
	// (upstream's evaluator of an audit.k8s.io/v1 Policy).
	Policy audit.PolicyRuleEvaluator
	// Sink receives the events (the log and webhook backends). The server
	// neither runs nor shuts it down: its owner does.
	Sink audit.Sink
}

// enabled says requests are audited.
func (a AuditConfig) enabled() bool { return a.Policy != nil && a.Sink != nil }

// auditSerializer encodes the objects of audit events: upstream's JSON
// encoder over the built-in types' scheme, made on first use.
var auditSerializer = sync.OnceValue(func() runtime.NegotiatedSerializer {
	return serializer.NewCodecFactory(registry.TypesScheme()).WithoutConversion()
})

// auditLevel is the audit level of the request whose context ctx is, and
// its audit context; LevelNone (and nil) when it is not audited.
func auditLevel(ctx context.Context) (*audit.AuditContext, auditinternal.Level) {
	ac := audit.AuditContextFrom(ctx)
	if ac == nil || !ac.Enabled() {
		return nil, auditinternal.LevelNone
	}
	return ac, ac.GetEventLevel()
}

// auditRequestObject records the decoded (and defaulted) request body obj
// of resource res, as upstream's create and update handlers do: its
// namespace, name, uid and resourceVersion fill the event's objectRef
// where the path left them empty, and at level Request and above the
// object is the event's requestObject.
func auditRequestObject(c *call, res *registry.Resource, obj runtime.Object) {
	if ac, _ := auditLevel(c.r.Context()); ac == nil {
		return
	}
	gv := res.GVK.GroupVersion()
	audit.LogRequestObject(c.r.Context(), obj, gv, gv.WithResource(res.GR.Resource), c.Info.Subresource, auditSerializer())
}

// auditRequestJSON records a request body that is not an object of the
// resource (a patch, DeleteOptions) as the event's requestObject, at level
// Request and above.
func auditRequestJSON(r *http.Request, body []byte) {
	if ac, level := auditLevel(r.Context()); ac != nil && !level.Less(auditinternal.LevelRequest) {
		ac.LogRequestPatch(body)
	}
}

// auditWantsRequest says the request's body is recorded (level Request and
// above).
func auditWantsRequest(r *http.Request) bool {
	ac, level := auditLevel(r.Context())
	return ac != nil && !level.Less(auditinternal.LevelRequest)
}

// auditRequestYAML is auditRequestJSON for an apply patch in YAML, which
// upstream records as JSON.
func auditRequestYAML(r *http.Request, body []byte) {
	if ac, level := auditLevel(r.Context()); ac != nil && !level.Less(auditinternal.LevelRequest) {
		if j, err := yaml.YAMLToJSON(body); err == nil {
			ac.LogRequestPatch(j)
		}
	}
}

// auditWantsResponse says the request's response object is recorded (level
// RequestResponse).
func auditWantsResponse(r *http.Request) bool {
	if r == nil {
		return false
	}
	ac, level := auditLevel(r.Context())
	return ac != nil && !level.Less(auditinternal.LevelRequestResponse)
}

// auditResponseJSON records the JSON of the object a request is answered
// with as the event's responseObject (level RequestResponse), without its
// managedFields when the policy's rule says so. Callers check
// auditWantsResponse first when data costs to make.
func auditResponseJSON(r *http.Request, data []byte) {
	if !auditWantsResponse(r) {
		return
	}
	var obj runtime.Object = &runtime.Unknown{Raw: data, ContentType: runtime.ContentTypeJSON}
	var gv schema.GroupVersion // an Unknown is written as it is
	if bytes.Contains(data, []byte(`"managedFields"`)) {
		// Upstream's LogResponseObject drops them from an object or a
		// list's items, which an Unknown hides: decode it, into its Go
		// type when it is a built-in kind (encoded back in its fields'
		// order, as upstream encodes it), else as unstructured.
		var tm metav1.TypeMeta
		if err := json.Unmarshal(data, &tm); err == nil {
			gvk := tm.GroupVersionKind()
			gv = gvk.GroupVersion()
			if typed, err := registry.TypesScheme().New(gvk); err == nil {
				if json.Unmarshal(data, typed) == nil {
					obj = typed
				}
			} else if u := (&unstructured.Unstructured{}); u.UnmarshalJSON(data) == nil {
				obj = u
				if u.IsList() {
					if l, err := u.ToList(); err == nil {
						obj = l
					}
				}
			}
		}
	}
	audit.LogResponseObject(r.Context(), obj, gv, auditSerializer())
}

// auditResponseStatus records the Status a request is answered with: its
// status, message, reason, details and code are the event's
// responseStatus, and at level RequestResponse it is the responseObject.
func auditResponseStatus(r *http.Request, st *metav1.Status) {
	if r == nil {
		return
	}
	if ac, _ := auditLevel(r.Context()); ac == nil {
		return
	}
	audit.LogResponseObject(r.Context(), st, schema.GroupVersion{Version: "v1"}, auditSerializer())
}

// auditDeprecation adds upstream's k8s.io/deprecated annotation to the
// event of a request to a deprecated version (a built-in prerelease
// version past its deprecation, with k8s.io/removed-release when it has
// one, or a CRD version marked deprecated).
func auditDeprecation(r *http.Request, res *registry.Resource) {
	switch {
	case res.CRD != "":
		if len(res.Warnings) > 0 { // only a deprecated version's
			audit.AddAuditAnnotation(r.Context(), "k8s.io/deprecated", "true")
		}
	case res.Typed != nil:
		obj := res.Typed()
		obj.GetObjectKind().SetGroupVersionKind(res.GVK)
		if !deprecation.IsDeprecated(obj, emulatedMajor, emulatedMinor) {
			return
		}
		audit.AddAuditAnnotation(r.Context(), "k8s.io/deprecated", "true")
		if removed := deprecation.RemovedRelease(obj); removed != "" {
			audit.AddAuditAnnotation(r.Context(), "k8s.io/removed-release", removed)
		}
	}
}

// emulatedMajor and emulatedMinor are the release fakeplane answers as.
const emulatedMajor, emulatedMinor = 1, 37
