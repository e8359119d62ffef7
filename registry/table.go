package registry

import (
	"sync"

	"github.com/fakeplane/fakeplane/registry/apiregistration/apiservice"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/registry/admissionregistration/mutatingadmissionpolicy"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/mutatingadmissionpolicybinding"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/mutatingwebhookconfiguration"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/validatingadmissionpolicy"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/validatingadmissionpolicybinding"
	"github.com/fakeplane/fakeplane/registry/admissionregistration/validatingwebhookconfiguration"
	"github.com/fakeplane/fakeplane/registry/apps/controllerrevision"
	"github.com/fakeplane/fakeplane/registry/apps/daemonset"
	"github.com/fakeplane/fakeplane/registry/apps/deployment"
	"github.com/fakeplane/fakeplane/registry/apps/replicaset"
	"github.com/fakeplane/fakeplane/registry/apps/statefulset"
	"github.com/fakeplane/fakeplane/registry/autoscaling/horizontalpodautoscaler"
	"github.com/fakeplane/fakeplane/registry/batch/cronjob"
	"github.com/fakeplane/fakeplane/registry/batch/job"
	"github.com/fakeplane/fakeplane/registry/certificates/certificatesigningrequest"
	"github.com/fakeplane/fakeplane/registry/certificates/clustertrustbundle"
	"github.com/fakeplane/fakeplane/registry/certificates/podcertificaterequest"
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
	"github.com/fakeplane/fakeplane/registry/core/serviceaccount"
	"github.com/fakeplane/fakeplane/registry/discovery/endpointslice"
	eventsevent "github.com/fakeplane/fakeplane/registry/events/event"
	"github.com/fakeplane/fakeplane/registry/flowcontrol/flowschema"
	"github.com/fakeplane/fakeplane/registry/flowcontrol/prioritylevelconfiguration"
	"github.com/fakeplane/fakeplane/registry/networking/ingress"
	"github.com/fakeplane/fakeplane/registry/networking/ingressclass"
	"github.com/fakeplane/fakeplane/registry/networking/ipaddress"
	"github.com/fakeplane/fakeplane/registry/networking/networkpolicy"
	"github.com/fakeplane/fakeplane/registry/networking/servicecidr"
	"github.com/fakeplane/fakeplane/registry/node/runtimeclass"
	"github.com/fakeplane/fakeplane/registry/policy/poddisruptionbudget"
	"github.com/fakeplane/fakeplane/registry/rbac/clusterrole"
	"github.com/fakeplane/fakeplane/registry/rbac/clusterrolebinding"
	"github.com/fakeplane/fakeplane/registry/rbac/role"
	"github.com/fakeplane/fakeplane/registry/rbac/rolebinding"
	"github.com/fakeplane/fakeplane/registry/resource/deviceclass"
	"github.com/fakeplane/fakeplane/registry/resource/devicetaintrule"
	"github.com/fakeplane/fakeplane/registry/resource/resourceclaim"
	"github.com/fakeplane/fakeplane/registry/resource/resourceclaimtemplate"
	"github.com/fakeplane/fakeplane/registry/resource/resourceslice"
	"github.com/fakeplane/fakeplane/registry/scheduling/priorityclass"
	"github.com/fakeplane/fakeplane/registry/storage/csidriver"
	"github.com/fakeplane/fakeplane/registry/storage/csinode"
	"github.com/fakeplane/fakeplane/registry/storage/csistoragecapacity"
	"github.com/fakeplane/fakeplane/registry/storage/storageclass"
	"github.com/fakeplane/fakeplane/registry/storage/volumeattachment"
	"github.com/fakeplane/fakeplane/registry/storage/volumeattributesclass"
	"github.com/fakeplane/fakeplane/registry/storagemigration/storageversionmigration"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// strategies is the table of built-in strategies, built once and only read
// afterwards.
var strategies = sync.OnceValue(func() map[schema.GroupResource]strategy.Strategy {
	return map[schema.GroupResource]strategy.Strategy{
		{Group: "apiregistration.k8s.io", Resource: "apiservices"}:                             apiservice.Strategy,
		{Group: "", Resource: "configmaps"}:                                                    configmap.Strategy,
		{Group: "", Resource: "endpoints"}:                                                     endpoints.Strategy,
		{Group: "", Resource: "events"}:                                                        event.Strategy,
		{Group: "", Resource: "limitranges"}:                                                   limitrange.Strategy,
		{Group: "", Resource: "namespaces"}:                                                    namespace.Strategy,
		{Group: "", Resource: "nodes"}:                                                         node.Strategy,
		{Group: "", Resource: "persistentvolumes"}:                                             persistentvolume.Strategy,
		{Group: "", Resource: "persistentvolumeclaims"}:                                        persistentvolumeclaim.Strategy,
		{Group: "", Resource: "pods"}:                                                          pod.Strategy,
		{Group: "", Resource: "podtemplates"}:                                                  podtemplate.Strategy,
		{Group: "", Resource: "replicationcontrollers"}:                                        replicationcontroller.Strategy,
		{Group: "", Resource: "resourcequotas"}:                                                resourcequota.Strategy,
		{Group: "", Resource: "secrets"}:                                                       secret.Strategy,
		{Group: "", Resource: "services"}:                                                      service.Strategy,
		{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     mutatingwebhookconfiguration.Strategy,
		{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   validatingwebhookconfiguration.Strategy,
		{Group: "apps", Resource: "daemonsets"}:                                                daemonset.Strategy,
		{Group: "apps", Resource: "deployments"}:                                               deployment.Strategy,
		{Group: "apps", Resource: "replicasets"}:                                               replicaset.Strategy,
		{Group: "apps", Resource: "statefulsets"}:                                              statefulset.Strategy,
		{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:                           horizontalpodautoscaler.Strategy,
		{Group: "batch", Resource: "cronjobs"}:                                                 cronjob.Strategy,
		{Group: "batch", Resource: "jobs"}:                                                     job.Strategy,
		{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}:                 certificatesigningrequest.Strategy,
		{Group: "coordination.k8s.io", Resource: "leases"}:                                     lease.Strategy,
		{Group: "discovery.k8s.io", Resource: "endpointslices"}:                                endpointslice.Strategy,
		{Group: "events.k8s.io", Resource: "events"}:                                           eventsevent.Strategy,
		{Group: "networking.k8s.io", Resource: "ingressclasses"}:                               ingressclass.Strategy,
		{Group: "networking.k8s.io", Resource: "ingresses"}:                                    ingress.Strategy,
		{Group: "networking.k8s.io", Resource: "networkpolicies"}:                              networkpolicy.Strategy,
		{Group: "policy", Resource: "poddisruptionbudgets"}:                                    poddisruptionbudget.Strategy,
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}:                  clusterrolebinding.Strategy,
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}:                         clusterrole.Strategy,
		{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}:                         rolebinding.Strategy,
		{Group: "rbac.authorization.k8s.io", Resource: "roles"}:                                role.Strategy,
		{Group: "scheduling.k8s.io", Resource: "priorityclasses"}:                              priorityclass.Strategy,
		{Group: "storage.k8s.io", Resource: "storageclasses"}:                                  storageclass.Strategy,
		{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         mutatingadmissionpolicy.Strategy,
		{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   mutatingadmissionpolicybinding.Strategy,
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       validatingadmissionpolicy.Strategy,
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: validatingadmissionpolicybinding.Strategy,
		{Group: "apps", Resource: "controllerrevisions"}:                                       controllerrevision.Strategy,
		{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}:                        clustertrustbundle.Strategy,
		{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:                     podcertificaterequest.Strategy,
		{Group: "", Resource: "serviceaccounts"}:                                               serviceaccount.Strategy,
		{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                       flowschema.Strategy,
		{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}:       prioritylevelconfiguration.Strategy,
		{Group: "networking.k8s.io", Resource: "ipaddresses"}:                                  ipaddress.Strategy,
		{Group: "networking.k8s.io", Resource: "servicecidrs"}:                                 servicecidr.Strategy,
		{Group: "node.k8s.io", Resource: "runtimeclasses"}:                                     runtimeclass.Strategy,
		{Group: "resource.k8s.io", Resource: "deviceclasses"}:                                  deviceclass.Strategy,
		{Group: "resource.k8s.io", Resource: "devicetaintrules"}:                               devicetaintrule.Strategy,
		{Group: "resource.k8s.io", Resource: "resourceclaims"}:                                 resourceclaim.Strategy,
		{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}:                         resourceclaimtemplate.Strategy,
		{Group: "resource.k8s.io", Resource: "resourceslices"}:                                 resourceslice.Strategy,
		{Group: "storage.k8s.io", Resource: "csidrivers"}:                                      csidriver.Strategy,
		{Group: "storage.k8s.io", Resource: "csinodes"}:                                        csinode.Strategy,
		{Group: "storage.k8s.io", Resource: "csistoragecapacities"}:                            csistoragecapacity.Strategy,
		{Group: "storage.k8s.io", Resource: "volumeattachments"}:                               volumeattachment.Strategy,
		{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}:                         volumeattributesclass.Strategy,
		{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}:               storageversionmigration.Strategy,
	}
})

// For returns the strategy of a built-in resource.
func For(gr schema.GroupResource) (strategy.Strategy, bool) {
	s, ok := strategies()[gr]
	return s, ok
}
