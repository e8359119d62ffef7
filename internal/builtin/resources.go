package builtin

import "strings"

// Subresource describes one subresource of a Resource as discovery lists it
// (e.g. "pods/status").
type Subresource struct {
	// Name is the subresource name, e.g. "status", "scale", "binding",
	// "eviction", "log", "exec", "token", "finalize", "approval",
	// "ephemeralcontainers", "resize", "proxy", "attach", "portforward".
	Name string
	// Group, Version and Kind identify the kind the subresource takes and
	// returns. Discovery reports the kind of the subresource's storage
	// object; it only spells out the group and version when they differ from
	// the containing group/version (scale -> autoscaling/v1 Scale, eviction
	// -> policy/v1 Eviction, token -> authentication.k8s.io/v1 TokenRequest).
	// Here Group and Version are always filled in, with the containing
	// group/version when discovery leaves them empty (status -> the parent's
	// kind; binding -> v1 Binding; log -> v1 Pod, because upstream's LogREST
	// reports Pod; exec -> v1 PodExecOptions; proxy -> v1 PodProxyOptions,
	// NodeProxyOptions or ServiceProxyOptions).
	Group, Version, Kind string
	// Verbs are the verbs discovery lists, sorted as upstream sorts them.
	Verbs []string
}

// Resource describes one served resource of one served group/version.
type Resource struct {
	// Group is the API group, "" for the core group.
	Group string
	// Version is the API version, e.g. "v1".
	Version string
	// Resource is the plural resource name, e.g. "deployments".
	Resource string
	// Kind is the kind discovery reports for the resource.
	Kind string
	// SingularName is discovery's singularName (lowercase kind, except that
	// upstream uses "endpoints" for Endpoints).
	SingularName string
	// Namespaced is true for namespace-scoped resources.
	Namespaced bool
	// ShortNames are discovery's shortNames, in upstream's order.
	ShortNames []string
	// Categories are discovery's categories, e.g. "all", "api-extensions".
	Categories []string
	// Verbs are exactly the verbs upstream discovery lists, in upstream's
	// (sorted) order, e.g. create delete deletecollection get list patch
	// update watch.
	Verbs []string
	// Subresources are the resource's subresources, sorted by name.
	Subresources []Subresource
	// StorageResource names the storage bucket of the resource as
	// "group/resource" of the storage owner, or just "resource" when the
	// owner is in the core group (e.g. "events" for both core/v1 events and
	// events.k8s.io/v1 events; "autoscaling/horizontalpodautoscalers" for
	// autoscaling/v1 and v2). It is set for every stored resource, so two
	// resources share storage exactly when their StorageResource is equal.
	// It is empty for Virtual resources.
	StorageResource string
	// StorageVersion is the group/version upstream encodes the objects in
	// when writing them to storage, e.g. "autoscaling/v2", or "v1" for the
	// core group. It is empty for Virtual resources.
	StorageVersion string
	// Virtual is true for resources without storage: the create-only review
	// resources (tokenreviews, selfsubjectreviews, subjectaccessreviews,
	// selfsubjectaccessreviews, localsubjectaccessreviews,
	// selfsubjectrulesreviews), bindings (which writes to pods), and
	// componentstatuses (computed on every get/list by probing components).
	Virtual bool
}

// StorageGroupResource splits StorageResource into its group ("" for the
// core group) and resource. Both are empty for Virtual resources.
func (r Resource) StorageGroupResource() (group, resource string) {
	if i := strings.LastIndex(r.StorageResource, "/"); i >= 0 {
		return r.StorageResource[:i], r.StorageResource[i+1:]
	}
	return "", r.StorageResource
}

// GroupVersion names a served API group/version; Group is "" for the core
// group.
type GroupVersion struct {
	// Group is the API group, "" for the core group.
	Group string
	// Version is the API version.
	Version string
}

// String returns "group/version", or just "version" for the core group.
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// groupVersions is the internal, never modified copy of GroupVersions.
var groupVersions = []GroupVersion{
	{"", "v1"},
	{"apiregistration.k8s.io", "v1"},       // aggregator's own group, always first in /apis
	{"apps", "v1"},                         // 17800
	{"events.k8s.io", "v1"},                // 17750
	{"authentication.k8s.io", "v1"},        // 17700
	{"authorization.k8s.io", "v1"},         // 17600
	{"autoscaling", "v2"},                  // 17500, version priority 30
	{"autoscaling", "v1"},                  // 17500, version priority 15
	{"batch", "v1"},                        // 17400
	{"certificates.k8s.io", "v1"},          // 17300
	{"networking.k8s.io", "v1"},            // 17200
	{"policy", "v1"},                       // 17100
	{"rbac.authorization.k8s.io", "v1"},    // 17000
	{"storage.k8s.io", "v1"},               // 16800
	{"admissionregistration.k8s.io", "v1"}, // 16700, name sorts before apiextensions
	{"apiextensions.k8s.io", "v1"},         // 16700
	{"scheduling.k8s.io", "v1"},            // 16600
	{"coordination.k8s.io", "v1"},          // 16500
	{"node.k8s.io", "v1"},                  // 16300
	{"discovery.k8s.io", "v1"},             // 16200, name sorts before resource
	{"resource.k8s.io", "v1"},              // 16200
	{"flowcontrol.apiserver.k8s.io", "v1"}, // 16100
	{"storagemigration.k8s.io", "v1"},      // 15800
}

// GroupVersions lists every served group/version in the order /apis (and
// aggregated discovery) list them on a v1.37 server, preferred version
// first within a group; core "v1" first. Every call returns a fresh copy.
func GroupVersions() []GroupVersion { return append([]GroupVersion(nil), groupVersions...) }

type gvrKey struct {
	group, version, resource string
}

var (
	// table is the internal, never modified resource table.
	table = buildTable()
	// index maps group/version/resource to a position in table.
	index = buildIndex(table)
	// preferred maps a group to its preferred version.
	preferred = buildPreferred(groupVersions)
)

// Resources lists every served resource (main resources only; subresources
// are inside), ordered by group/version as GroupVersions and by resource
// name within a group/version, as discovery lists them. Every call returns
// a fresh deep copy.
func Resources() []Resource {
	out := make([]Resource, len(table))
	for i := range table {
		out[i] = table[i].clone()
	}
	return out
}

// Lookup returns the served resource group/version/resource (plural
// resource name, no subresource), as a fresh copy.
func Lookup(group, version, resource string) (Resource, bool) {
	i, ok := index[gvrKey{group, version, resource}]
	if !ok {
		return Resource{}, false
	}
	return table[i].clone(), true
}

// PreferredVersion returns the preferred (first listed) served version of
// group ("" for the core group, which is "v1"), or "" if the group is not
// served.
func PreferredVersion(group string) string {
	return preferred[group]
}

func buildIndex(rs []Resource) map[gvrKey]int {
	m := make(map[gvrKey]int, len(rs))
	for i, r := range rs {
		m[gvrKey{r.Group, r.Version, r.Resource}] = i
	}
	return m
}

func buildPreferred(gvs []GroupVersion) map[string]string {
	m := map[string]string{}
	for _, gv := range gvs {
		if _, ok := m[gv.Group]; !ok {
			m[gv.Group] = gv.Version
		}
	}
	return m
}

func (r Resource) clone() Resource {
	r.ShortNames = cloneStrings(r.ShortNames)
	r.Categories = cloneStrings(r.Categories)
	r.Verbs = cloneStrings(r.Verbs)
	if r.Subresources != nil {
		subs := make([]Subresource, len(r.Subresources))
		for i, s := range r.Subresources {
			s.Verbs = cloneStrings(s.Verbs)
			subs[i] = s
		}
		r.Subresources = subs
	}
	return r
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

// Verb sets, as the discovery installer derives them from the interfaces a
// storage implements (pkg/endpoints/installer.go in k8s.io/apiserver) and
// sorts them.

// verbsAll is what a genericregistry.Store (or rest.StandardStorage)
// provides.
func verbsAll() []string {
	return []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
}

// verbsCreate is what a create-only storage (reviews, bindings, eviction,
// token) provides.
func verbsCreate() []string { return []string{"create"} }

// verbsGetPatchUpdate is what a Getter+Updater subresource (status, scale,
// approval, ephemeralcontainers, resize) provides; patch follows from
// Getter+Updater.
func verbsGetPatchUpdate() []string { return []string{"get", "patch", "update"} }

// verbsConnect is what a Connecter with GET and POST (exec, attach,
// portforward) provides.
func verbsConnect() []string { return []string{"create", "get"} }

// verbsProxy is what a Connecter with the proxy methods provides: GET POST
// PUT PATCH DELETE map to verbs, HEAD and OPTIONS are not listed.
func verbsProxy() []string { return []string{"create", "delete", "get", "patch", "update"} }

func status(group, version, kind string) Subresource {
	return Subresource{Name: "status", Group: group, Version: version, Kind: kind, Verbs: verbsGetPatchUpdate()}
}

func scale() Subresource {
	return Subresource{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: verbsGetPatchUpdate()}
}

func proxy(kind string) Subresource {
	return Subresource{Name: "proxy", Group: "", Version: "v1", Kind: kind, Verbs: verbsProxy()}
}

// stored fills in the storage fields: the storage owner "group/resource"
// (or "resource" for core) and the storage version.
func stored(r Resource, storageResource, storageVersion string) Resource {
	r.StorageResource = storageResource
	r.StorageVersion = storageVersion
	return r
}

// own marks r as stored in its own bucket, encoded as storageVersion.
func own(r Resource, storageVersion string) Resource {
	sr := r.Resource
	if r.Group != "" {
		sr = r.Group + "/" + r.Resource
	}
	return stored(r, sr, storageVersion)
}

// std returns a stored resource with the standard verbs, its own bucket and
// storage version group/version, and the field labels of fields.go.
func std(group, version, resource, kind, singular string, namespaced bool) Resource {
	r := Resource{
		Group:        group,
		Version:      version,
		Resource:     resource,
		Kind:         kind,
		SingularName: singular,
		Namespaced:   namespaced,
		Verbs:        verbsAll(),
	}
	return own(r, GroupVersion{group, version}.String())
}

// virtual returns a create-only resource without storage.
func virtual(group, version, resource, kind, singular string, namespaced bool) Resource {
	return Resource{
		Group:        group,
		Version:      version,
		Resource:     resource,
		Kind:         kind,
		SingularName: singular,
		Namespaced:   namespaced,
		Verbs:        verbsCreate(),
		Virtual:      true,
	}
}

func with(r Resource, f func(*Resource)) Resource {
	f(&r)
	return r
}

func names(s ...string) []string { return s }

// buildTable returns the resource table, a fresh value each call.
//
// Sources (k8s.io/kubernetes v1.37.1 unless noted):
//   - which resources: pkg/registry/core/rest/storage_core{,_generic}.go and
//     pkg/registry/<group>/rest/*.go, with the default feature gates;
//   - kind, singular name, scope, short names, categories, subresources:
//     pkg/registry/<group>/<resource>/storage/storage.go and strategy.go;
//   - storage: pkg/kubeapiserver/default_storage_factory_builder.go
//     (cohabitating resources, encoding overrides) and the scheme version
//     priorities in pkg/apis/<group>/install;
//   - apiextensions-apiserver@v0.37.2 pkg/apiserver/apiserver.go and
//     pkg/registry/customresourcedefinition;
//   - kube-aggregator@v0.37.2 pkg/registry/apiservice.
func buildTable() []Resource {
	const (
		ns      = true
		cluster = false
	)
	return []Resource{
		// ---- core v1 (/api/v1) ----
		virtual("", "v1", "bindings", "Binding", "binding", ns),
		with(Resource{
			Group: "", Version: "v1", Resource: "componentstatuses", Kind: "ComponentStatus",
			SingularName: "componentstatus", Namespaced: cluster,
			Verbs: []string{"get", "list"}, Virtual: true,
		}, func(r *Resource) { r.ShortNames = names("cs") }),
		with(std("", "v1", "configmaps", "ConfigMap", "configmap", ns), func(r *Resource) {
			r.ShortNames = names("cm")
		}),
		with(std("", "v1", "endpoints", "Endpoints", "endpoints", ns), func(r *Resource) {
			r.ShortNames = names("ep")
		}),
		with(std("", "v1", "events", "Event", "event", ns), func(r *Resource) {
			r.ShortNames = names("ev")
		}),
		with(std("", "v1", "limitranges", "LimitRange", "limitrange", ns), func(r *Resource) {
			r.ShortNames = names("limits")
		}),
		with(std("", "v1", "namespaces", "Namespace", "namespace", cluster), func(r *Resource) {
			r.ShortNames = names("ns")
			// No DeleteCollection on the namespace REST.
			r.Verbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
			r.Subresources = []Subresource{
				{Name: "finalize", Group: "", Version: "v1", Kind: "Namespace", Verbs: []string{"update"}},
				status("", "v1", "Namespace"),
			}
		}),
		with(std("", "v1", "nodes", "Node", "node", cluster), func(r *Resource) {
			r.ShortNames = names("no")
			r.Subresources = []Subresource{
				proxy("NodeProxyOptions"),
				status("", "v1", "Node"),
			}
		}),
		with(std("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", "persistentvolumeclaim", ns), func(r *Resource) {
			r.ShortNames = names("pvc")
			r.Subresources = []Subresource{status("", "v1", "PersistentVolumeClaim")}
		}),
		with(std("", "v1", "persistentvolumes", "PersistentVolume", "persistentvolume", cluster), func(r *Resource) {
			r.ShortNames = names("pv")
			r.Subresources = []Subresource{status("", "v1", "PersistentVolume")}
		}),
		with(std("", "v1", "pods", "Pod", "pod", ns), func(r *Resource) {
			r.ShortNames = names("po")
			r.Categories = names("all")
			r.Subresources = []Subresource{
				{Name: "attach", Group: "", Version: "v1", Kind: "PodAttachOptions", Verbs: verbsConnect()},
				{Name: "binding", Group: "", Version: "v1", Kind: "Binding", Verbs: verbsCreate()},
				{Name: "ephemeralcontainers", Group: "", Version: "v1", Kind: "Pod", Verbs: verbsGetPatchUpdate()},
				{Name: "eviction", Group: "policy", Version: "v1", Kind: "Eviction", Verbs: verbsCreate()},
				{Name: "exec", Group: "", Version: "v1", Kind: "PodExecOptions", Verbs: verbsConnect()},
				{Name: "log", Group: "", Version: "v1", Kind: "Pod", Verbs: []string{"get"}},
				{Name: "portforward", Group: "", Version: "v1", Kind: "PodPortForwardOptions", Verbs: verbsConnect()},
				proxy("PodProxyOptions"),
				// InPlacePodVerticalScaling is GA and on in v1.37.
				{Name: "resize", Group: "", Version: "v1", Kind: "Pod", Verbs: verbsGetPatchUpdate()},
				status("", "v1", "Pod"),
			}
		}),
		std("", "v1", "podtemplates", "PodTemplate", "podtemplate", ns),
		with(std("", "v1", "replicationcontrollers", "ReplicationController", "replicationcontroller", ns), func(r *Resource) {
			r.ShortNames = names("rc")
			r.Categories = names("all")
			r.Subresources = []Subresource{scale(), status("", "v1", "ReplicationController")}
		}),
		with(std("", "v1", "resourcequotas", "ResourceQuota", "resourcequota", ns), func(r *Resource) {
			r.ShortNames = names("quota")
			r.Subresources = []Subresource{status("", "v1", "ResourceQuota")}
		}),
		std("", "v1", "secrets", "Secret", "secret", ns),
		with(std("", "v1", "serviceaccounts", "ServiceAccount", "serviceaccount", ns), func(r *Resource) {
			r.ShortNames = names("sa")
			r.Subresources = []Subresource{
				{Name: "token", Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest", Verbs: verbsCreate()},
			}
		}),
		with(std("", "v1", "services", "Service", "service", ns), func(r *Resource) {
			r.ShortNames = names("svc")
			r.Categories = names("all")
			r.Subresources = []Subresource{proxy("ServiceProxyOptions"), status("", "v1", "Service")}
		}),

		// ---- apiregistration.k8s.io/v1 (kube-aggregator) ----
		with(std("apiregistration.k8s.io", "v1", "apiservices", "APIService", "apiservice", cluster), func(r *Resource) {
			r.Categories = names("api-extensions")
			r.Subresources = []Subresource{status("apiregistration.k8s.io", "v1", "APIService")}
		}),

		// ---- apps/v1 ----
		std("apps", "v1", "controllerrevisions", "ControllerRevision", "controllerrevision", ns),
		with(std("apps", "v1", "daemonsets", "DaemonSet", "daemonset", ns), func(r *Resource) {
			r.ShortNames = names("ds")
			r.Categories = names("all")
			r.Subresources = []Subresource{status("apps", "v1", "DaemonSet")}
		}),
		with(std("apps", "v1", "deployments", "Deployment", "deployment", ns), func(r *Resource) {
			r.ShortNames = names("deploy")
			r.Categories = names("all")
			r.Subresources = []Subresource{scale(), status("apps", "v1", "Deployment")}
		}),
		with(std("apps", "v1", "replicasets", "ReplicaSet", "replicaset", ns), func(r *Resource) {
			r.ShortNames = names("rs")
			r.Categories = names("all")
			r.Subresources = []Subresource{scale(), status("apps", "v1", "ReplicaSet")}
		}),
		with(std("apps", "v1", "statefulsets", "StatefulSet", "statefulset", ns), func(r *Resource) {
			r.ShortNames = names("sts")
			r.Categories = names("all")
			r.Subresources = []Subresource{scale(), status("apps", "v1", "StatefulSet")}
		}),

		// ---- events.k8s.io/v1 ----
		// Same REST as core events (short name ev); stored with core events.
		with(std("events.k8s.io", "v1", "events", "Event", "event", ns), func(r *Resource) {
			r.ShortNames = names("ev")
			r.StorageResource = "events"
			r.StorageVersion = "v1"
		}),

		// ---- authentication.k8s.io/v1 ----
		virtual("authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", "selfsubjectreview", cluster),
		virtual("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", "tokenreview", cluster),

		// ---- authorization.k8s.io/v1 ----
		virtual("authorization.k8s.io", "v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", "localsubjectaccessreview", ns),
		virtual("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", "selfsubjectaccessreview", cluster),
		virtual("authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", "selfsubjectrulesreview", cluster),
		virtual("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", "subjectaccessreview", cluster),

		// ---- autoscaling/v2 and autoscaling/v1 (one bucket, stored as v2) ----
		with(std("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", "horizontalpodautoscaler", ns), func(r *Resource) {
			r.ShortNames = names("hpa")
			r.Categories = names("all")
			r.Subresources = []Subresource{status("autoscaling", "v2", "HorizontalPodAutoscaler")}
		}),
		with(std("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", "horizontalpodautoscaler", ns), func(r *Resource) {
			r.ShortNames = names("hpa")
			r.Categories = names("all")
			r.Subresources = []Subresource{status("autoscaling", "v1", "HorizontalPodAutoscaler")}
			r.StorageVersion = "autoscaling/v2"
		}),

		// ---- batch/v1 ----
		with(std("batch", "v1", "cronjobs", "CronJob", "cronjob", ns), func(r *Resource) {
			r.ShortNames = names("cj")
			r.Categories = names("all")
			r.Subresources = []Subresource{status("batch", "v1", "CronJob")}
		}),
		with(std("batch", "v1", "jobs", "Job", "job", ns), func(r *Resource) {
			r.Categories = names("all")
			r.Subresources = []Subresource{status("batch", "v1", "Job")}
		}),

		// ---- certificates.k8s.io/v1 ----
		with(std("certificates.k8s.io", "v1", "certificatesigningrequests", "CertificateSigningRequest", "certificatesigningrequest", cluster), func(r *Resource) {
			r.ShortNames = names("csr")
			r.Subresources = []Subresource{
				{Name: "approval", Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest", Verbs: verbsGetPatchUpdate()},
				status("certificates.k8s.io", "v1", "CertificateSigningRequest"),
			}
		}),
		// ClusterTrustBundle and PodCertificateRequest are GA (gates on by
		// default) in v1.37, but still stored as v1beta1 for rollback safety.
		with(std("certificates.k8s.io", "v1", "clustertrustbundles", "ClusterTrustBundle", "clustertrustbundle", cluster), func(r *Resource) {
			r.StorageVersion = "certificates.k8s.io/v1beta1"
		}),
		with(std("certificates.k8s.io", "v1", "podcertificaterequests", "PodCertificateRequest", "podcertificaterequest", ns), func(r *Resource) {
			r.Subresources = []Subresource{status("certificates.k8s.io", "v1", "PodCertificateRequest")}
			r.StorageVersion = "certificates.k8s.io/v1beta1"
		}),

		// ---- networking.k8s.io/v1 ----
		std("networking.k8s.io", "v1", "ingressclasses", "IngressClass", "ingressclass", cluster),
		with(std("networking.k8s.io", "v1", "ingresses", "Ingress", "ingress", ns), func(r *Resource) {
			r.ShortNames = names("ing")
			r.Subresources = []Subresource{status("networking.k8s.io", "v1", "Ingress")}
		}),
		with(std("networking.k8s.io", "v1", "ipaddresses", "IPAddress", "ipaddress", cluster), func(r *Resource) {
			r.ShortNames = names("ip")
		}),
		with(std("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", "networkpolicy", ns), func(r *Resource) {
			r.ShortNames = names("netpol")
		}),
		with(std("networking.k8s.io", "v1", "servicecidrs", "ServiceCIDR", "servicecidr", cluster), func(r *Resource) {
			r.Subresources = []Subresource{status("networking.k8s.io", "v1", "ServiceCIDR")}
		}),

		// ---- policy/v1 ----
		with(std("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", "poddisruptionbudget", ns), func(r *Resource) {
			r.ShortNames = names("pdb")
			r.Subresources = []Subresource{status("policy", "v1", "PodDisruptionBudget")}
		}),

		// ---- rbac.authorization.k8s.io/v1 ----
		std("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", "clusterrolebinding", cluster),
		std("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", "clusterrole", cluster),
		std("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", "rolebinding", ns),
		std("rbac.authorization.k8s.io", "v1", "roles", "Role", "role", ns),

		// ---- storage.k8s.io/v1 ----
		std("storage.k8s.io", "v1", "csidrivers", "CSIDriver", "csidriver", cluster),
		with(std("storage.k8s.io", "v1", "csinodes", "CSINode", "csinode", cluster), func(r *Resource) {
			r.Subresources = []Subresource{status("storage.k8s.io", "v1", "CSINode")}
		}),
		std("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity", "csistoragecapacity", ns),
		with(std("storage.k8s.io", "v1", "storageclasses", "StorageClass", "storageclass", cluster), func(r *Resource) {
			r.ShortNames = names("sc")
		}),
		with(std("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", "volumeattachment", cluster), func(r *Resource) {
			r.Subresources = []Subresource{status("storage.k8s.io", "v1", "VolumeAttachment")}
		}),
		with(std("storage.k8s.io", "v1", "volumeattributesclasses", "VolumeAttributesClass", "volumeattributesclass", cluster), func(r *Resource) {
			r.ShortNames = names("vac")
		}),

		// ---- admissionregistration.k8s.io/v1 ----
		with(std("admissionregistration.k8s.io", "v1", "mutatingadmissionpolicies", "MutatingAdmissionPolicy", "mutatingadmissionpolicy", cluster), func(r *Resource) {
			r.Categories = names("api-extensions")
		}),
		with(std("admissionregistration.k8s.io", "v1", "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybinding", cluster), func(r *Resource) {
			r.Categories = names("api-extensions")
		}),
		with(std("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", "mutatingwebhookconfiguration", cluster), func(r *Resource) {
			r.Categories = names("api-extensions")
		}),
		with(std("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", "validatingadmissionpolicy", cluster), func(r *Resource) {
			r.Categories = names("api-extensions")
			r.Subresources = []Subresource{status("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy")}
		}),
		with(std("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybinding", cluster), func(r *Resource) {
			r.Categories = names("api-extensions")
		}),
		with(std("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", "validatingwebhookconfiguration", cluster), func(r *Resource) {
			r.Categories = names("api-extensions")
		}),

		// ---- apiextensions.k8s.io/v1 (apiextensions-apiserver) ----
		with(std("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", "customresourcedefinition", cluster), func(r *Resource) {
			r.ShortNames = names("crd", "crds")
			r.Categories = names("api-extensions")
			r.Subresources = []Subresource{status("apiextensions.k8s.io", "v1", "CustomResourceDefinition")}
		}),

		// ---- scheduling.k8s.io/v1 ----
		with(std("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", "priorityclass", cluster), func(r *Resource) {
			r.ShortNames = names("pc")
		}),

		// ---- coordination.k8s.io/v1 ----
		std("coordination.k8s.io", "v1", "leases", "Lease", "lease", ns),

		// ---- node.k8s.io/v1 ----
		std("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", "runtimeclass", cluster),

		// ---- discovery.k8s.io/v1 ----
		std("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", "endpointslice", ns),

		// ---- resource.k8s.io/v1 ----
		std("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", "deviceclass", cluster),
		// DeviceTaintRule is GA in v1.37 and registered unconditionally in
		// resource.k8s.io/v1; still stored as v1beta2.
		with(std("resource.k8s.io", "v1", "devicetaintrules", "DeviceTaintRule", "devicetaintrule", cluster), func(r *Resource) {
			r.Subresources = []Subresource{status("resource.k8s.io", "v1", "DeviceTaintRule")}
			r.StorageVersion = "resource.k8s.io/v1beta2"
		}),
		with(std("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", "resourceclaim", ns), func(r *Resource) {
			r.Subresources = []Subresource{status("resource.k8s.io", "v1", "ResourceClaim")}
		}),
		std("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", "resourceclaimtemplate", ns),
		std("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", "resourceslice", cluster),

		// ---- flowcontrol.apiserver.k8s.io/v1 ----
		with(std("flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "FlowSchema", "flowschema", cluster), func(r *Resource) {
			r.Subresources = []Subresource{status("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema")}
		}),
		with(std("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations", "PriorityLevelConfiguration", "prioritylevelconfiguration", cluster), func(r *Resource) {
			r.Subresources = []Subresource{status("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration")}
		}),

		// ---- storagemigration.k8s.io/v1 ----
		// StorageVersionMigrator is GA (on by default) in v1.37; still stored
		// as v1beta1.
		with(std("storagemigration.k8s.io", "v1", "storageversionmigrations", "StorageVersionMigration", "storageversionmigration", cluster), func(r *Resource) {
			r.Subresources = []Subresource{status("storagemigration.k8s.io", "v1", "StorageVersionMigration")}
			r.StorageVersion = "storagemigration.k8s.io/v1beta1"
		}),
	}
}
