package registry

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/registry/admissionregistration/mutatingwebhookconfiguration"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/validatingwebhookconfiguration"
	"github.com/fakeplane/fakeplane/registry/apps/daemonset"
	"github.com/fakeplane/fakeplane/registry/apps/deployment"
	"github.com/fakeplane/fakeplane/registry/apps/replicaset"
	"github.com/fakeplane/fakeplane/registry/apps/statefulset"
	"github.com/fakeplane/fakeplane/registry/autoscaling/horizontalpodautoscaler"
	"github.com/fakeplane/fakeplane/registry/batch/cronjob"
	"github.com/fakeplane/fakeplane/registry/batch/job"
	"github.com/fakeplane/fakeplane/registry/certificates/certificatesigningrequest"
	"github.com/fakeplane/fakeplane/registry/coordination/lease"
	"github.com/fakeplane/fakeplane/registry/core/configmap"
	"github.com/fakeplane/fakeplane/registry/core/endpoints"
	"github.com/fakeplane/fakeplane/registry/core/event"
	"github.com/fakeplane/fakeplane/registry/core/limitrange"
	"github.com/fakeplane/fakeplane/registry/core/namespace"
	"github.com/fakeplane/fakeplane/registry/core/node"
	"github.com/fakeplane/fakeplane/registry/core/persistentvolume"
	"github.com/fakeplane/fakeplane/registry/core/persistentvolumeclaim"
	"github.com/fakeplane/fakeplane/registry/core/pod"
	"github.com/fakeplane/fakeplane/registry/core/podtemplate"
	"github.com/fakeplane/fakeplane/registry/core/replicationcontroller"
	"github.com/fakeplane/fakeplane/registry/core/resourcequota"
	"github.com/fakeplane/fakeplane/registry/core/secret"
	"github.com/fakeplane/fakeplane/registry/core/service"
	"github.com/fakeplane/fakeplane/registry/discovery/endpointslice"
	eventsevent "github.com/fakeplane/fakeplane/registry/events/event"
	"github.com/fakeplane/fakeplane/registry/networking/ingress"
	"github.com/fakeplane/fakeplane/registry/networking/ingressclass"
	"github.com/fakeplane/fakeplane/registry/networking/networkpolicy"
	"github.com/fakeplane/fakeplane/registry/policy/poddisruptionbudget"
	"github.com/fakeplane/fakeplane/registry/rbac/clusterrole"
	"github.com/fakeplane/fakeplane/registry/rbac/clusterrolebinding"
	"github.com/fakeplane/fakeplane/registry/rbac/role"
	"github.com/fakeplane/fakeplane/registry/rbac/rolebinding"
	"github.com/fakeplane/fakeplane/registry/scheduling/priorityclass"
	"github.com/fakeplane/fakeplane/registry/storage/storageclass"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// strategies is the table of built-in strategies, built once and only read
// afterwards.
var strategies = sync.OnceValue(func() map[schema.GroupResource]strategy.Strategy {
	return map[schema.GroupResource]strategy.Strategy{
		{Group: "", Resource: "configmaps"}:                                                  configmap.Strategy,
		{Group: "", Resource: "endpoints"}:                                                   endpoints.Strategy,
		{Group: "", Resource: "events"}:                                                      event.Strategy,
		{Group: "", Resource: "limitranges"}:                                                 limitrange.Strategy,
		{Group: "", Resource: "namespaces"}:                                                  namespace.Strategy,
		{Group: "", Resource: "nodes"}:                                                       node.Strategy,
		{Group: "", Resource: "persistentvolumes"}:                                           persistentvolume.Strategy,
		{Group: "", Resource: "persistentvolumeclaims"}:                                      persistentvolumeclaim.Strategy,
		{Group: "", Resource: "pods"}:                                                        pod.Strategy,
		{Group: "", Resource: "podtemplates"}:                                                podtemplate.Strategy,
		{Group: "", Resource: "replicationcontrollers"}:                                      replicationcontroller.Strategy,
		{Group: "", Resource: "resourcequotas"}:                                              resourcequota.Strategy,
		{Group: "", Resource: "secrets"}:                                                     secret.Strategy,
		{Group: "", Resource: "services"}:                                                    service.Strategy,
		{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:   mutatingwebhookconfiguration.Strategy,
		{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}: validatingwebhookconfiguration.Strategy,
		{Group: "apps", Resource: "daemonsets"}:                                              daemonset.Strategy,
		{Group: "apps", Resource: "deployments"}:                                             deployment.Strategy,
		{Group: "apps", Resource: "replicasets"}:                                             replicaset.Strategy,
		{Group: "apps", Resource: "statefulsets"}:                                            statefulset.Strategy,
		{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:                         horizontalpodautoscaler.Strategy,
		{Group: "batch", Resource: "cronjobs"}:                                               cronjob.Strategy,
		{Group: "batch", Resource: "jobs"}:                                                   job.Strategy,
		{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}:               certificatesigningrequest.Strategy,
		{Group: "coordination.k8s.io", Resource: "leases"}:                                   lease.Strategy,
		{Group: "discovery.k8s.io", Resource: "endpointslices"}:                              endpointslice.Strategy,
		{Group: "events.k8s.io", Resource: "events"}:                                         eventsevent.Strategy,
		{Group: "networking.k8s.io", Resource: "ingressclasses"}:                             ingressclass.Strategy,
		{Group: "networking.k8s.io", Resource: "ingresses"}:                                  ingress.Strategy,
		{Group: "networking.k8s.io", Resource: "networkpolicies"}:                            networkpolicy.Strategy,
		{Group: "policy", Resource: "poddisruptionbudgets"}:                                  poddisruptionbudget.Strategy,
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}:                clusterrolebinding.Strategy,
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}:                       clusterrole.Strategy,
		{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}:                       rolebinding.Strategy,
		{Group: "rbac.authorization.k8s.io", Resource: "roles"}:                              role.Strategy,
		{Group: "scheduling.k8s.io", Resource: "priorityclasses"}:                            priorityclass.Strategy,
		{Group: "storage.k8s.io", Resource: "storageclasses"}:                                storageclass.Strategy,
	}
})

// For returns the strategy of a built-in resource.
func For(gr schema.GroupResource) (strategy.Strategy, bool) {
	s, ok := strategies()[gr]
	return s, ok
}
