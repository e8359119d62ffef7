//go:build ignore

// The OpenAPI paths of the built-in resources, as kube-apiserver v1.37 builds
// them: its API installer (k8s.io/apiserver/pkg/endpoints) registers the
// go-restful routes of each resource and subresource according to the rest
// interfaces its storage implements, and kube-openapi's builders turn the
// routes into /openapi/v2 paths and the paths of each /openapi/v3
// group/version document. Here each storage is a stand-in that implements
// the interfaces kube-apiserver's storage for that resource implements (see
// storageFor); nothing in it is ever called.
package main

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/endpoints"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	endpointsopenapi "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/kube-openapi/pkg/aggregator"
	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/common/restfuladapter"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// builtinResource is one entry of hack/builtinresources' output (fakeplane's
// internal/builtin.Resource).
type builtinResource struct {
	Group, Version, Resource, Kind, SingularName string
	Namespaced                                   bool
	Verbs                                        []string
	Subresources                                 []struct {
		Name, Group, Version, Kind string
		Verbs                      []string
	}
}

// pathsDoc is the generated file: the built-in paths of /openapi/v2 with
// their shared parameters, and the paths of each /openapi/v3 group/version
// document (keyed "api/v1", "apis/apps/v1").
type pathsDoc struct {
	V2 struct {
		Paths      map[string]spec.PathItem  `json:"paths"`
		Parameters map[string]spec.Parameter `json:"parameters"`
	} `json:"v2"`
	V3 map[string]map[string]*spec3.Path `json:"v3"`
	// definitions are the v2 definitions of the models the routes use
	// (written to their own file).
	definitions spec.Definitions
}

// server names the API server of kube-apiserver's delegation chain that
// serves a group: the aggregator (apiregistration.k8s.io), kube-apiserver
// itself, or apiextensions-apiserver (apiextensions.k8s.io). Each builds its
// own /openapi/v2 spec, which the aggregator merges in this order.
func server(group string) int {
	switch group {
	case "apiregistration.k8s.io":
		return 0
	case "apiextensions.k8s.io":
		return 2
	}
	return 1
}

// buildPaths builds the paths of every built-in resource.
func buildPaths(scheme *runtime.Scheme, resources []builtinResource, namer func(string) (string, spec.Extensions), getDefs common.GetOpenAPIDefinitions) (*pathsDoc, error) {
	codecs := serializer.NewCodecFactory(scheme)
	type gvKey = schema.GroupVersion
	storages := map[gvKey]map[string]rest.Storage{}
	var gvs []gvKey
	for _, r := range resources {
		gv := gvKey{Group: r.Group, Version: r.Version}
		if storages[gv] == nil {
			storages[gv] = map[string]rest.Storage{}
			gvs = append(gvs, gv)
		}
		st, err := storageFor(scheme, r)
		if err != nil {
			return nil, err
		}
		storages[gv][r.Resource] = st
		for _, sub := range r.Subresources {
			st, err := subresourceStorageFor(scheme, r, sub.Name, schema.GroupVersionKind{Group: sub.Group, Version: sub.Version, Kind: sub.Kind})
			if err != nil {
				return nil, err
			}
			storages[gv][r.Resource+"/"+sub.Name] = st
		}
	}

	// The web services of each server, as its generic API server installs
	// them: version, /apis, and for each group its discovery and its
	// group/version's resources; kube-apiserver also has /api and the
	// service account issuer's OpenID documents.
	containers := [3]*restful.Container{restful.NewContainer(), restful.NewContainer(), restful.NewContainer()}
	for i, c := range containers {
		routes.Version{Version: &version.Info{}}.Install(c)
		c.Add(discovery.NewRootAPIsHandler(discovery.DefaultAddresses{}, codecs).WebService())
		if i == 1 {
			c.Add(discovery.NewLegacyRootAPIHandler(discovery.DefaultAddresses{}, codecs, "/api").WebService())
			installOpenID(c)
		}
	}
	v3ws := map[string]*restful.WebService{}
	groups := map[string]bool{}
	for _, gv := range gvs {
		c := containers[server(gv.Group)]
		root := "/apis"
		if gv.Group == "" {
			root = "/api"
		} else if !groups[gv.Group] {
			groups[gv.Group] = true
			c.Add(discovery.NewAPIGroupHandler(codecs, metav1.APIGroup{Name: gv.Group}).WebService())
		}
		g := &endpoints.APIGroupVersion{
			Storage:                    storages[gv],
			Root:                       root,
			GroupVersion:               gv,
			Serializer:                 codecs,
			ParameterCodec:             runtime.NewParameterCodec(scheme),
			Typer:                      scheme,
			Creater:                    scheme,
			Convertor:                  scheme,
			Defaulter:                  scheme,
			UnsafeConvertor:            runtime.UnsafeObjectConvertor(scheme),
			TypeConverter:              managedfields.NewDeducedTypeConverter(),
			EquivalentResourceRegistry: runtime.NewEquivalentResourceRegistry(),
		}
		if gv.Group == "" {
			g.OptionsExternalVersion = &schema.GroupVersion{Version: "v1"}
		}
		if _, _, err := g.InstallREST(c); err != nil {
			return nil, fmt.Errorf("installing %s: %w", gv, err)
		}
	}
	// Each web service is an /openapi/v3 document of its own, named by its
	// root path ("api/v1", "apis/apps", "version"), as the generic API
	// server's InstallV3 builds them; the servers' discovery documents
	// (/apis, /version) are the same, the first is kept.
	for _, c := range containers {
		for _, ws := range c.RegisteredWebServices() {
			if key := strings.TrimPrefix(ws.RootPath(), "/"); v3ws[key] == nil {
				v3ws[key] = ws
			}
		}
	}

	security := &spec.SecurityDefinitions{"BearerToken": &spec.SecurityScheme{SecuritySchemeProps: spec.SecuritySchemeProps{
		Type: "apiKey", Name: "authorization", In: "header", Description: "Bearer Token authentication"}}}
	var merged *spec.Swagger
	defs := spec.Definitions{}
	for _, c := range containers {
		cfg := &common.Config{
			ProtocolList:          []string{"https"},
			IgnorePrefixes:        []string{},
			Info:                  &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes"}},
			DefaultResponse:       &spec.Response{ResponseProps: spec.ResponseProps{Description: "Default Response."}},
			GetOperationIDAndTags: endpointsopenapi.GetOperationIDAndTags,
			GetDefinitionName:     namer,
			GetDefinitions:        getDefs,
			SecurityDefinitions:   security,
			DefaultSecurity:       []map[string][]string{{"BearerToken": {}}},
			// As the generic API server's config completes it when
			// authentication sets security definitions.
			CommonResponses: map[int]spec.Response{http.StatusUnauthorized: {ResponseProps: spec.ResponseProps{Description: "Unauthorized"}}},
		}
		sw, err := builder.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices(c.RegisteredWebServices()), cfg)
		if err != nil {
			return nil, fmt.Errorf("building /openapi/v2: %w", err)
		}
		// The definitions are the same models in every server's spec
		// (hence never renamed in the merge); they are kept apart, without
		// defaults as the generic API server serves them.
		for name, def := range handler.PruneDefaults(sw.Definitions) {
			defs[name] = def
		}
		sw.Definitions = nil
		if merged == nil {
			merged = &spec.Swagger{}
		}
		if err := aggregator.MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters(merged, sw); err != nil {
			return nil, fmt.Errorf("merging /openapi/v2: %w", err)
		}
	}
	doc := &pathsDoc{V3: map[string]map[string]*spec3.Path{}, definitions: defs}
	doc.V2.Paths = merged.Paths.Paths
	doc.V2.Parameters = merged.Parameters

	cfg3 := &common.OpenAPIV3Config{
		IgnorePrefixes:        []string{},
		Info:                  &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes"}},
		DefaultResponse:       &spec3.Response{ResponseProps: spec3.ResponseProps{Description: "Default Response."}},
		GetOperationIDAndTags: endpointsopenapi.GetOperationIDAndTags,
		GetDefinitionName:     namer,
		GetDefinitions:        getDefs,
		CommonResponses:       map[int]*spec3.Response{http.StatusUnauthorized: {ResponseProps: spec3.ResponseProps{Description: "Unauthorized"}}},
	}
	cfg3.Definitions = getDefs(func(name string) spec.Ref {
		n, _ := namer(name)
		return spec.MustCreateRef("#/components/schemas/" + common.EscapeJsonPointer(n))
	})
	keys := make([]string, 0, len(v3ws))
	for k := range v3ws {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		o, err := builder3.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices([]*restful.WebService{v3ws[key]}), cfg3)
		if err != nil {
			return nil, fmt.Errorf("building /openapi/v3/%s: %w", key, err)
		}
		doc.V3[key] = o.Paths.Paths
	}
	return doc, nil
}

// installOpenID adds the routes of the service account issuer's OpenID
// discovery document and key set, as kube-apiserver's
// pkg/routes/openidmetadata.go registers them.
func installOpenID(c *restful.Container) {
	cfg := new(restful.WebService).Produces(restful.MIME_JSON)
	cfg.Path("/.well-known/openid-configuration").Route(cfg.GET("").To(func(*restful.Request, *restful.Response) {}).
		Doc("get service account issuer OpenID configuration, also known as the 'OIDC discovery doc'").
		Operation("getServiceAccountIssuerOpenIDConfiguration").
		Returns(http.StatusOK, "OK", ""))
	c.Add(cfg)
	jwks := new(restful.WebService).Produces("application/jwk-set+json")
	jwks.Path("/openid/v1/jwks").Route(jwks.GET("").To(func(*restful.Request, *restful.Response) {}).
		Doc("get service account issuer OpenID JSON Web Key Set (contains public token verification keys)").
		Operation("getServiceAccountIssuerOpenIDKeyset").
		Returns(http.StatusOK, "OK", ""))
	c.Add(jwks)
}

// returnsDeletedObject lists the resources whose kube-apiserver storage
// answers a delete with the deleted object (genericregistry.Store's
// ReturnDeletedObject, k8s.io/kubernetes/pkg/registry/*/*/storage): their
// delete operations return the kind, the others a Status. Namespaces' store
// sets it too, but their REST wraps the store without exposing it.
var returnsDeletedObject = map[schema.GroupResource]bool{
	{Resource: "pods"}: true, {Resource: "services"}: true, {Resource: "serviceaccounts"}: true,
	{Resource: "persistentvolumes"}: true, {Resource: "persistentvolumeclaims"}: true,
	{Resource: "podtemplates"}: true, {Resource: "resourcequotas"}: true,
	{Group: "storage.k8s.io", Resource: "csidrivers"}: true, {Group: "storage.k8s.io", Resource: "csinodes"}: true,
	{Group: "storage.k8s.io", Resource: "storageclasses"}: true, {Group: "storage.k8s.io", Resource: "volumeattachments"}: true,
	{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}: true,
	{Group: "resource.k8s.io", Resource: "deviceclasses"}:          true, {Group: "resource.k8s.io", Resource: "resourceclaims"}: true,
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}: true, {Group: "resource.k8s.io", Resource: "resourceslices"}: true,
	{Group: "resource.k8s.io", Resource: "resourcepoolstatusrequests"}: true,
}

// storageFor returns the stand-in storage of a resource. Its interfaces
// follow from the verbs kube-apiserver's storage provides (the installer
// derives discovery's verbs from them, so the two agree): a
// genericregistry.Store has them all; namespaces' REST has no
// DeleteCollection; bindings' LegacyBindingREST and the review resources
// only create; componentstatuses' REST only gets and lists.
func storageFor(scheme *runtime.Scheme, r builtinResource) (rest.Storage, error) {
	gv := schema.GroupVersion{Group: r.Group, Version: r.Version}
	b, err := newBase(scheme, gv.WithKind(r.Kind))
	if err != nil {
		return nil, err
	}
	b.namespaced, b.singular = r.Namespaced, r.SingularName
	newLister := func() (lister, error) {
		_, err := scheme.New(gv.WithKind(r.Kind + "List"))
		return lister{newList: func() runtime.Object { o, _ := scheme.New(gv.WithKind(r.Kind + "List")); return o }}, err
	}
	del := deleter{returnDeleted: returnsDeletedObject[schema.GroupResource{Group: r.Group, Resource: r.Resource}]}
	switch verbs := strings.Join(r.Verbs, " "); verbs {
	case "create delete deletecollection get list patch update watch":
		l, err := newLister()
		return &storeStandIn{b, creater{}, getter{}, l, updater{}, del, collectionDeleter{}, watcher{}}, err
	case "create delete get list patch update watch":
		l, err := newLister()
		return &noCollectionStandIn{b, creater{}, getter{}, l, updater{}, del, watcher{}}, err
	case "create":
		return &createStandIn{b, creater{}}, nil
	case "get list":
		l, err := newLister()
		return &getListStandIn{b, getter{}, l}, err
	default:
		return nil, fmt.Errorf("%s %s: no stand-in storage has the verbs %q", gv, r.Resource, verbs)
	}
}

// subresourceStorageFor returns the stand-in storage of a subresource of r,
// with the interfaces of kube-apiserver's (pkg/registry/...):
//   - status, approval, ephemeralcontainers, resize: Getter and Updater
//     (StatusREST, ApprovalREST, EphemeralContainersREST, ResizeREST);
//   - scale: Getter, Updater and GroupVersionKindProvider (ScaleREST:
//     autoscaling/v1 Scale);
//   - finalize: Updater only (FinalizeREST);
//   - binding: NamedCreater (BindingREST);
//   - eviction, token: NamedCreater and GroupVersionKindProvider
//     (EvictionREST: policy/v1 Eviction; TokenREST: authentication/v1
//     TokenRequest);
//   - log: GetterWithOptions (PodLogOptions) and StorageMetadata (text/plain,
//     a string) (LogREST);
//   - exec, attach, portforward: Connecter with GET and POST and their
//     options, no subpath; proxy: Connecter with the proxy methods, the
//     pod's, node's or service's proxy options and a subpath.
func subresourceStorageFor(scheme *runtime.Scheme, r builtinResource, name string, gvk schema.GroupVersionKind) (rest.Storage, error) {
	b, err := newBase(scheme, gvk)
	if err != nil {
		return nil, err
	}
	opts := func() runtime.Object { o, _ := scheme.New(gvk); return o }
	switch name {
	case "status", "approval", "ephemeralcontainers", "resize":
		return &getUpdateStandIn{b, getter{}, updater{}}, nil
	case "scale":
		return &scaleStandIn{b, getter{}, updater{}, gvkProvider{gvk}}, nil
	case "finalize":
		return &updateStandIn{b, updater{}}, nil
	case "binding":
		return &namedCreateStandIn{b, namedCreater{}}, nil
	case "eviction", "token":
		return &namedCreateKindStandIn{b, namedCreater{}, gvkProvider{gvk}}, nil
	case "log":
		return &logStandIn{b, getterWithOptions{opts: func() runtime.Object {
			o, _ := scheme.New(schema.GroupVersionKind{Version: "v1", Kind: "PodLogOptions"})
			return o
		}}}, nil
	case "exec", "attach", "portforward":
		return &connectStandIn{b, connecter{methods: []string{"GET", "POST"}, opts: opts}}, nil
	case "proxy":
		return &connectStandIn{b, connecter{methods: []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}, opts: opts, subpath: true}}, nil
	}
	return nil, fmt.Errorf("%s/%s: no stand-in storage for the subresource", r.Resource, name)
}

// base is what every stand-in has: New, Destroy, and for resources
// NamespaceScoped and GetSingularName.
type base struct {
	newObj     func() runtime.Object
	namespaced bool
	singular   string
}

func newBase(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (base, error) {
	if _, err := scheme.New(gvk); err != nil {
		return base{}, err
	}
	return base{newObj: func() runtime.Object { o, _ := scheme.New(gvk); return o }}, nil
}

func (b base) New() runtime.Object     { return b.newObj() }
func (b base) Destroy()                {}
func (b base) NamespaceScoped() bool   { return b.namespaced }
func (b base) GetSingularName() string { return b.singular }

var errStandIn = fmt.Errorf("stand-in storage")

type creater struct{}

func (creater) Create(context.Context, runtime.Object, rest.ValidateObjectFunc, *metav1.CreateOptions) (runtime.Object, error) {
	return nil, errStandIn
}

type namedCreater struct{}

func (namedCreater) Create(context.Context, string, runtime.Object, rest.ValidateObjectFunc, *metav1.CreateOptions) (runtime.Object, error) {
	return nil, errStandIn
}

type getter struct{}

func (getter) Get(context.Context, string, *metav1.GetOptions) (runtime.Object, error) {
	return nil, errStandIn
}

type getterWithOptions struct{ opts func() runtime.Object }

func (getterWithOptions) Get(context.Context, string, runtime.Object) (runtime.Object, error) {
	return nil, errStandIn
}
func (g getterWithOptions) NewGetOptions() (runtime.Object, bool, string) { return g.opts(), false, "" }
func (getterWithOptions) ProducesMIMETypes(string) []string               { return []string{"text/plain"} }
func (getterWithOptions) ProducesObject(string) interface{}               { return "" }

type lister struct{ newList func() runtime.Object }

func (l lister) NewList() runtime.Object { return l.newList() }
func (lister) List(context.Context, *metainternalversion.ListOptions) (runtime.Object, error) {
	return nil, errStandIn
}
func (lister) ConvertToTable(context.Context, runtime.Object, runtime.Object) (*metav1.Table, error) {
	return nil, errStandIn
}

type updater struct{}

func (updater) Update(context.Context, string, rest.UpdatedObjectInfo, rest.ValidateObjectFunc, rest.ValidateObjectUpdateFunc, bool, *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return nil, false, errStandIn
}

type deleter struct{ returnDeleted bool }

func (deleter) Delete(context.Context, string, rest.ValidateObjectFunc, *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return nil, false, errStandIn
}
func (d deleter) DeleteReturnsDeletedObject() bool { return d.returnDeleted }

type collectionDeleter struct{}

func (collectionDeleter) DeleteCollection(context.Context, rest.ValidateObjectFunc, *metav1.DeleteOptions, *metainternalversion.ListOptions) (runtime.Object, error) {
	return nil, errStandIn
}

type watcher struct{}

func (watcher) Watch(context.Context, *metainternalversion.ListOptions) (watch.Interface, error) {
	return nil, errStandIn
}

type gvkProvider struct{ gvk schema.GroupVersionKind }

func (p gvkProvider) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return p.gvk }

type connecter struct {
	methods []string
	opts    func() runtime.Object
	subpath bool
}

func (c connecter) ConnectMethods() []string { return c.methods }
func (c connecter) NewConnectOptions() (runtime.Object, bool, string) {
	if c.subpath {
		return c.opts(), true, "path"
	}
	return c.opts(), false, ""
}
func (connecter) Connect(context.Context, string, runtime.Object, rest.Responder) (http.Handler, error) {
	return nil, errStandIn
}

// The stand-ins, one per set of interfaces.
type (
	storeStandIn struct {
		base
		creater
		getter
		lister
		updater
		deleter
		collectionDeleter
		watcher
	}
	noCollectionStandIn struct {
		base
		creater
		getter
		lister
		updater
		deleter
		watcher
	}
	createStandIn struct {
		base
		creater
	}
	getListStandIn struct {
		base
		getter
		lister
	}
	getUpdateStandIn struct {
		base
		getter
		updater
	}
	scaleStandIn struct {
		base
		getter
		updater
		gvkProvider
	}
	updateStandIn struct {
		base
		updater
	}
	namedCreateStandIn struct {
		base
		namedCreater
	}
	namedCreateKindStandIn struct {
		base
		namedCreater
		gvkProvider
	}
	logStandIn struct {
		base
		getterWithOptions
	}
	connectStandIn struct {
		base
		connecter
	}
)
