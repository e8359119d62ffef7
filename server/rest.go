package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/fakeplane/fakeplane/registry"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/store"
)

// call is one resource request being served over HTTP: the pipeline's
// request, with the response writer, the HTTP request and the answer's
// negotiated media type.
type call struct {
	*registry.Request
	w     http.ResponseWriter
	r     *http.Request
	media mediaChoice
	// listed are the stored objects a list answers with, in order, so a
	// Table can decode them from their cached protobuf messages.
	listed []store.Object
	// read is the stored object a get answers with, so a protobuf answer
	// can use its cached message.
	read *store.Object
}

// serveResource routes a resource request to its verb.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, info *apirequest.RequestInfo, u user.Info) {
	res, ok := s.Resources().Lookup(info.APIGroup, info.APIVersion, info.Resource)
	if _, known := s.Resources().Preferred(info.APIGroup); !known {
		// kube-aggregator answers paths of unknown groups with a plain 404.
		http.NotFound(w, r)
		return
	}
	if !s.Resources().IsBuiltinGroup(info.APIGroup) {
		// apiextensions' handler serves CRD groups: a resource it does not
		// serve (or not yet: a CRD waiting for its names) falls through to a
		// plain 404, a subresource the CRD lacks is a NotFound of the object.
		if !ok {
			http.NotFound(w, r)
			return
		}
		// A path whose scope is not the CRD's goes to the delegate too:
		// a cluster-scoped resource's under a namespace, and a namespaced
		// one's without a namespace, but for a list or watch.
		if (!res.Namespaced && info.Namespace != "") || (res.Namespaced && info.Namespace == "" && info.Verb != "list" && info.Verb != "watch") {
			http.NotFound(w, r)
			return
		}
		if info.Subresource != "" && !res.HasSub(info.Subresource) {
			writeError(w, r, apierrors.NewNotFound(res.GR, info.Name))
			return
		}
	}
	if !ok || (info.Subresource != "" && !res.HasSub(info.Subresource)) || (res.CRD == "" && !builtinRouteExists(r, info, res)) {
		writeError(w, r, registry.NotFoundPath())
		return
	}
	c := &call{Request: &registry.Request{GoCtx: r.Context(), UserAgent: r.UserAgent(), Info: info, Res: res, User: u, Namespace: info.Namespace}, w: w, r: r}
	if !res.Namespaced {
		c.Namespace = ""
	}
	// A proxy subresource answers what its backend answers, to any of the
	// methods upstream's proxy takes.
	proxied := info.Subresource == "proxy" && slices.Contains(proxyMethods, r.Method)
	// A method the resource does not serve is refused before the Accept
	// header is looked at, as go-restful matches a route's method first.
	// Routes a collection does not have: no PUT or PATCH, and on the
	// all-namespaces path of a namespaced resource only GET (list, watch).
	// kube-apiserver's go-restful answers 405 (apiextensions' handler
	// answered a custom resource's all-namespaces path above).
	if !proxied && info.Name == "" && info.Subresource == "" {
		allNamespaces := res.Namespaced && info.Namespace == ""
		switch {
		case res.Typed != nil && (r.Method == http.MethodPut || r.Method == http.MethodPatch || (allNamespaces && r.Method != http.MethodGet)):
			writeError(w, r, c.ErrMethodNotSupported())
			return
		case res.Typed == nil && r.Method == http.MethodPut:
			// apiextensions' update handler asks the URL for the name
			// before it reads the body.
			writeError(w, r, apierrors.NewBadRequest("name must be provided"))
			return
		}
	}
	// go-restful has no HEAD routes: a built-in resource refuses it. A
	// watch of a resource that lists but cannot watch (componentstatuses)
	// takes the list route, whose handler refuses it.
	if !proxied && (!s.VerbAllowed(c.Request) || (r.Method == http.MethodHead && res.Typed != nil)) &&
		!(res.Virtual && info.Verb == "watch" && info.Subresource == "" && slices.Contains(res.Verbs, "list")) {
		writeError(w, r, c.ErrMethodNotSupported())
		return
	}
	if res.Typed != nil && !proxied {
		if produces := resourceRouteProduces(info, r.Method); !routeAccepts(r.Header.Get("Accept"), produces) {
			writeError(w, r, errRouteNotAcceptable(produces))
			return
		}
	}
	// The deprecation warning comes from the route's handler: after the
	// route is matched, before it negotiates.
	addWarnings(w, res.Warnings)
	if audit.AuditContextFrom(r.Context()) != nil {
		// As upstream's route instrumentation, once the handler is done.
		defer auditDeprecation(r, res)
	}
	// Upstream's storage converts to a Table for a resource (ComponentStatus
	// too, not the reviews), its status and its scale.
	tableOK := (!res.Virtual || res.GR.Resource == "componentstatuses") &&
		(info.Subresource == "" || info.Subresource == "status" || info.Subresource == "scale")
	media, ok := negotiateFor(r.Header.Get("Accept"), res.Typed != nil, tableOK)
	if !ok && !proxied {
		writeError(w, r, errNotAcceptable(acceptedMediaTypes))
		return
	}
	c.media = media
	var err error
	switch info.Subresource {
	case "":
		err = s.serveMain(c)
	case "status":
		err = s.serveStatus(c)
	case "scale":
		err = s.serveScale(c)
	case "binding":
		err = s.serveBinding(c)
	case "eviction":
		err = s.serveEviction(c)
	case "finalize":
		err = s.serveFinalize(c)
	case "approval", "ephemeralcontainers", "resize":
		err = s.serveApproval(c)
	case "token":
		err = s.serveTokenRequest(c)
	case "log":
		err = s.servePodLog(c)
	case "exec", "attach", "portforward":
		err = s.servePodStream(c)
	case "proxy":
		err = s.serveProxy(c)
	default:
		err = c.ErrMethodNotSupported()
	}
	if err != nil {
		writeError(w, r, err)
	}
}

// serveMain serves verbs on the main resource.
func (s *Server) serveMain(c *call) error {
	if c.Res.Virtual {
		return s.serveVirtual(c)
	}
	switch c.Info.Verb {
	case "get":
		return s.get(c)
	case "list":
		return s.list(c)
	case "watch":
		return s.watch(c)
	case "create":
		if c.Info.Name != "" && c.Res.CRD == "" {
			// kube-apiserver has no POST route for a named built-in
			// object; apiextensions' handler creates a custom resource
			// there as at its collection, named by its body.
			return c.ErrMethodNotSupported()
		}
		return s.create(c)
	case "update":
		return s.update(c, false)
	case "patch":
		return s.patch(c, false)
	case "delete":
		return s.delete(c)
	case "deletecollection":
		return s.deleteCollection(c)
	}
	return c.ErrMethodNotSupported()
}

// serveStatus serves the status subresource: get, update and patch.
func (s *Server) serveStatus(c *call) error {
	switch c.Info.Verb {
	case "get":
		return s.get(c)
	case "update":
		return s.update(c, true)
	case "patch":
		return s.patch(c, true)
	}
	return c.ErrMethodNotSupported()
}

// writeObject answers with one stored (JSON) object in the negotiated format.
func (s *Server) writeObject(c *call, code int, data []byte) error {
	if c.media.as == asPartial || c.media.as == asPartialList {
		return writePartial(c, code, data)
	}
	if c.media.as == "Table" {
		t, err := s.tableFor(c, [][]byte{data}, nil)
		if err != nil {
			return err
		}
		return writeEncoded(c, code, t)
	}
	auditResponseJSON(c.r, data)
	if c.media.kind == mediaProtobuf {
		return s.writeProtobufObject(c, code, data)
	}
	writeBytes(c.w, c.r, code, c.media.kind, data)
	return nil
}

// writeEncoded marshals v and writes it in the negotiated format: a
// Status in protobuf when protobuf was negotiated (as kube-apiserver
// answers a delete or an eviction), anything else in JSON or YAML.
func writeEncoded(c *call, code int, v any) error {
	if st, ok := v.(*metav1.Status); ok {
		auditResponseStatus(c.r, st)
	} else if auditWantsResponse(c.r) {
		if b, err := json.Marshal(v); err == nil {
			auditResponseJSON(c.r, b)
		}
	}
	if st, ok := v.(*metav1.Status); ok && c.media.kind == mediaProtobuf && c.media.as == "" {
		if b, err := statusProtobuf(st); err == nil {
			writeBytes(c.w, c.r, code, mediaProtobuf, b)
			return nil
		}
	}
	writeJSONOrYAML(c.w, c.r, code, v)
	return nil
}

// writeList answers with a list of stored objects.
//
// With typedItems, the items are written without their kind and apiVersion,
// as kube-apiserver encodes the items of a built-in type's list; custom
// resources' items keep theirs.
func writeListJSON(buf *bytes.Buffer, apiVersion, kind string, lm metav1.ListMeta, items [][]byte, typedItems bool) {
	buf.WriteString(`{"kind":`)
	buf.WriteString(strconv.Quote(kind))
	buf.WriteString(`,"apiVersion":`)
	buf.WriteString(strconv.Quote(apiVersion))
	// ListMeta's fields, each omitted when empty (a computed list, such
	// as componentstatuses', has none).
	buf.WriteString(`,"metadata":{`)
	sep := ""
	if lm.ResourceVersion != "" {
		buf.WriteString(`"resourceVersion":`)
		buf.WriteString(strconv.Quote(lm.ResourceVersion))
		sep = ","
	}
	if lm.Continue != "" {
		buf.WriteString(sep + `"continue":`)
		buf.WriteString(strconv.Quote(lm.Continue))
		sep = ","
	}
	if lm.RemainingItemCount != nil {
		buf.WriteString(sep + `"remainingItemCount":`)
		buf.WriteString(strconv.FormatInt(*lm.RemainingItemCount, 10))
	}
	buf.WriteString(`},"items":[`)
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		if rest, ok := fieldsAfterTypeMeta(it); typedItems && ok {
			buf.WriteByte('{')
			buf.Write(rest)
			continue
		}
		buf.Write(it)
	}
	buf.WriteString("]}")
}

// fieldsAfterTypeMeta returns the text of a typed object's JSON after the
// kind and apiVersion its encoding starts with (TypeMeta comes first in
// every built-in type): its other fields and the closing brace. It reports
// false when item does not start with them. item is not changed (it may be
// a cached stored object).
func fieldsAfterTypeMeta(item []byte) ([]byte, bool) {
	rest, ok := skipStringField(item, `{"kind":"`)
	if !ok {
		return nil, false
	}
	if rest, ok = skipStringField(rest, `,"apiVersion":"`); !ok || len(rest) == 0 {
		return nil, false
	}
	switch rest[0] {
	case ',':
		return rest[1:], true
	case '}':
		return rest, true
	}
	return nil, false
}

// skipStringField returns what follows a JSON string field that data starts
// with, given the field's text up to its value's opening quote. Kinds and
// API versions hold no escaped quotes.
func skipStringField(data []byte, prefix string) ([]byte, bool) {
	if !bytes.HasPrefix(data, []byte(prefix)) {
		return nil, false
	}
	end := bytes.IndexByte(data[len(prefix):], '"')
	if end < 0 {
		return nil, false
	}
	return data[len(prefix)+end+1:], true
}

// builtinRouteExists reports whether kube-apiserver's go-restful has a
// route for a request to a built-in resource: a cluster-scoped resource is
// not under a namespace (but a namespace itself, and its status and
// finalize); a namespaced one is named only under its namespace (without
// one, only its collection lists and watches); a subresource path ends at
// the subresource, but a proxy's; and the legacy /proxy/ verb paths are
// gone.
func builtinRouteExists(r *http.Request, info *apirequest.RequestInfo, res *registry.Resource) bool {
	switch {
	case info.Verb == "proxy":
		return false
	case !res.Namespaced && info.Namespace != "":
		if info.Resource != "namespaces" || info.Name != info.Namespace {
			return false
		}
		rest, _ := strings.CutPrefix(r.URL.Path, "/api/v1/namespaces/"+info.Namespace)
		return rest == "" || rest == "/"+info.Subresource
	case res.Namespaced && info.Namespace == "" && len(info.Parts) > 1:
		// (A list's Name may come from a metadata.name field selector.)
		return false
	case info.Subresource != "" && info.Subresource != "proxy" && len(info.Parts) > 3:
		return false
	case info.Name != "" && info.Verb != "list" && info.Verb != "watch" && !slices.Contains(res.Verbs, "get"):
		// A create-only resource (the reviews, bindings) has routes for
		// its collection alone,
		return false
	case res.Namespaced && info.Namespace == "" && !slices.Contains(res.Verbs, "list"):
		// and a namespaced one only in a namespace: the all-namespaces
		// path is a list's.
		return false
	}
	return true
}
