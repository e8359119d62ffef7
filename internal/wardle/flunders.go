package wardle

import (
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// CreatedByAnnotation is set on a created flunder to the user the server
// took its creator for.
const CreatedByAnnotation = "wardle.example.com/created-by"

var flunderGR = schema.GroupResource{Group: Group, Resource: Resource}

// flunderStore keeps flunders in memory, with a revision counter and the
// open watches.
type flunderStore struct {
	mu       sync.Mutex
	rev      int64
	items    map[string]map[string]any  // by namespace/name
	watchers map[chan watchEvent]string // namespace ("" for all)
}

// watchEvent is one event of the watch stream.
type watchEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

func newFlunderStore() *flunderStore {
	return &flunderStore{items: map[string]map[string]any{}, watchers: map[chan watchEvent]string{}}
}

func (f *flunderStore) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.items)
}

// serveAPI answers discovery and the flunder requests that passed
// authentication and authorization.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	info, _ := apirequest.RequestInfoFrom(r.Context())
	if serveOpenAPI(w, r) {
		return
	}
	switch r.URL.Path {
	case "/apis", "/apis/":
		writeJSON(w, http.StatusOK, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{apiGroup()}})
		return
	case "/apis/" + Group:
		g := apiGroup()
		g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		writeJSON(w, http.StatusOK, g)
		return
	case "/apis/" + Group + "/" + Version:
		writeJSON(w, http.StatusOK, metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: GroupVersion.String(),
			APIResources: []metav1.APIResource{{
				Name: Resource, SingularName: "flunder", Namespaced: true, Kind: "Flunder",
				Verbs: metav1.Verbs{"create", "delete", "get", "list", "watch"},
			}},
		})
		return
	}
	if info == nil || !info.IsResourceRequest || info.APIGroup != Group || info.APIVersion != Version || info.Resource != Resource || info.Subresource != "" {
		writeStatus(w, apierrors.NewNotFound(schema.GroupResource{}, ""))
		return
	}
	if u, ok := apirequest.UserFrom(r.Context()); ok {
		s.record(u)
	}
	switch info.Verb {
	case "list":
		s.list(w, info.Namespace)
	case "watch":
		s.watch(w, r, info.Namespace)
	case "get":
		s.get(w, info.Namespace, info.Name)
	case "create":
		s.create(w, r, info.Namespace)
	case "delete":
		s.delete(w, info.Namespace, info.Name)
	default:
		writeStatus(w, apierrors.NewMethodNotSupported(flunderGR, info.Verb))
	}
}

func apiGroup() metav1.APIGroup {
	gv := metav1.GroupVersionForDiscovery{GroupVersion: GroupVersion.String(), Version: Version}
	return metav1.APIGroup{Name: Group, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}
}

func (s *Server) list(w http.ResponseWriter, ns string) {
	f := s.flunders
	f.mu.Lock()
	keys := make([]string, 0, len(f.items))
	for k, it := range f.items {
		if ns == "" || namespaceOf(it) == ns {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	items := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		items = append(items, f.items[k])
	}
	rev := f.rev
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"apiVersion": GroupVersion.String(), "kind": "FlunderList",
		"metadata": map[string]any{"resourceVersion": strconv.FormatInt(rev, 10)},
		"items":    items,
	})
}

func (s *Server) get(w http.ResponseWriter, ns, name string) {
	f := s.flunders
	f.mu.Lock()
	it, ok := f.items[ns+"/"+name]
	f.mu.Unlock()
	if !ok {
		writeStatus(w, apierrors.NewNotFound(flunderGR, name))
		return
	}
	writeJSON(w, http.StatusOK, it)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, ns string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	name, _ := md["name"].(string)
	if name == "" {
		writeStatus(w, apierrors.NewInvalid(schema.GroupKind{Group: Group, Kind: "Flunder"}, "", nil))
		return
	}
	u, _ := apirequest.UserFrom(r.Context())
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	if u != nil {
		ann[CreatedByAnnotation] = u.GetName()
	}
	f := s.flunders
	f.mu.Lock()
	key := ns + "/" + name
	if _, ok := f.items[key]; ok {
		f.mu.Unlock()
		writeStatus(w, apierrors.NewAlreadyExists(flunderGR, name))
		return
	}
	f.rev++
	md["name"], md["namespace"], md["annotations"] = name, ns, ann
	md["uid"] = string(uuid.NewUUID())
	md["resourceVersion"] = strconv.FormatInt(f.rev, 10)
	md["creationTimestamp"] = time.Now().UTC().Format(time.RFC3339)
	obj["metadata"], obj["apiVersion"], obj["kind"] = md, GroupVersion.String(), "Flunder"
	f.items[key] = obj
	f.notify("ADDED", obj)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, obj)
}

func (s *Server) delete(w http.ResponseWriter, ns, name string) {
	f := s.flunders
	f.mu.Lock()
	obj, ok := f.items[ns+"/"+name]
	if !ok {
		f.mu.Unlock()
		writeStatus(w, apierrors.NewNotFound(flunderGR, name))
		return
	}
	delete(f.items, ns+"/"+name)
	f.rev++
	f.notify("DELETED", obj)
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, obj)
}

// notify hands an event to the watches of its namespace; a watch that
// cannot keep up loses it (the test server keeps no history). Call with
// f.mu held.
func (f *flunderStore) notify(typ string, obj map[string]any) {
	for ch, ns := range f.watchers {
		if ns != "" && ns != namespaceOf(obj) {
			continue
		}
		select {
		case ch <- watchEvent{Type: typ, Object: obj}:
		default:
		}
	}
}

// watch streams the changes from now on (and, without a resourceVersion,
// the flunders present first, as ADDED events).
func (s *Server) watch(w http.ResponseWriter, r *http.Request, ns string) {
	ctx, cancel := s.context(r)
	defer cancel()
	f := s.flunders
	ch := make(chan watchEvent, 100)
	f.mu.Lock()
	var initial []watchEvent
	if rv := r.URL.Query().Get("resourceVersion"); rv == "" || rv == "0" {
		for _, it := range f.items {
			if ns == "" || namespaceOf(it) == ns {
				initial = append(initial, watchEvent{Type: "ADDED", Object: it})
			}
		}
	}
	f.watchers[ch] = ns
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.watchers, ch)
		f.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	send := func(ev watchEvent) bool {
		if err := enc.Encode(ev); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	for _, ev := range initial {
		if !send(ev) {
			return
		}
	}
	if flusher != nil {
		flusher.Flush()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-ch:
			if !send(ev) {
				return
			}
		}
	}
}

func namespaceOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	return ns
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, err *apierrors.StatusError) {
	st := err.Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	writeJSON(w, int(st.Code), st)
}
