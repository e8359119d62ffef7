package controllers

import (
	"fmt"
	"slices"
)

// Names of the kube-controller-manager controllers fakeplane runs, as
// kube-controller-manager's --controllers spells them.
const (
	ClusterRoleAggregationName = "clusterrole-aggregation-controller"
	// ClusterTrustBundlePublisherName publishes kube-apiserver's serving CA.
	ClusterTrustBundlePublisherName = "kube-apiserver-serving-clustertrustbundle-publisher-controller"
	CronJobName                     = "cronjob-controller"
	CSRApprovingName                = "certificatesigningrequest-approving-controller"
	CSRCleanerName                  = "certificatesigningrequest-cleaner-controller"
	CSRSigningName                  = "certificatesigningrequest-signing-controller"
	DaemonSetName                   = "daemonset-controller"
	DeploymentName                  = "deployment-controller"
	DeviceTaintEvictionName         = "device-taint-eviction-controller"
	DisruptionName                  = "disruption-controller"
	EndpointsName                   = "endpoints-controller"
	EndpointSliceName               = "endpointslice-controller"
	EndpointSliceMirroringName      = "endpointslice-mirroring-controller"
	EphemeralVolumeName             = "ephemeral-volume-controller"
	GarbageCollectorName            = "garbage-collector-controller"
	HorizontalPodAutoscalerName     = "horizontal-pod-autoscaler-controller"
	JobName                         = "job-controller"
	LegacyTokenCleanerName          = "legacy-serviceaccount-token-cleaner-controller"
	NamespaceName                   = "namespace-controller"
	NodeLifecycleName               = "node-lifecycle-controller"
	PersistentVolumeBinderName      = "persistentvolume-binder-controller"
	PVCProtectionName               = "persistentvolumeclaim-protection-controller"
	PVProtectionName                = "persistentvolume-protection-controller"
	VACProtectionName               = "volumeattributesclass-protection-controller"
	// PolicyStatusName is the ValidatingAdmissionPolicy type-checking
	// status controller, which package admission runs.
	PolicyStatusName               = "validatingadmissionpolicy-status-controller"
	PodGarbageCollectorName        = "pod-garbage-collector-controller"
	PCRCleanerName                 = "podcertificaterequest-cleaner-controller"
	ReplicaSetName                 = "replicaset-controller"
	ReplicationControllerName      = "replicationcontroller-controller"
	ResourceClaimName              = "resourceclaim-controller"
	ResourceQuotaName              = "resourcequota-controller"
	RootCACertificatePublisherName = "root-ca-certificate-publisher-controller"
	ServiceAccountName             = "serviceaccount-controller"
	ServiceAccountTokenName        = "serviceaccount-token-controller"
	ServiceCIDRName                = "service-cidr-controller"
	StatefulSetName                = "statefulset-controller"
	TaintEvictionName              = "taint-eviction-controller"
	TTLAfterFinishedName           = "ttl-after-finished-controller"
	TTLName                        = "ttl-controller"
)

// aliases maps the older names kube-controller-manager still accepts to
// the canonical ones.
var aliases = map[string]string{
	"clusterrole-aggregation":              ClusterRoleAggregationName,
	"cronjob":                              CronJobName,
	"csrapproving":                         CSRApprovingName,
	"csrcleaner":                           CSRCleanerName,
	"csrsigning":                           CSRSigningName,
	"daemonset":                            DaemonSetName,
	"deployment":                           DeploymentName,
	"disruption":                           DisruptionName,
	"endpoint":                             EndpointsName,
	"endpointslice":                        EndpointSliceName,
	"endpointslicemirroring":               EndpointSliceMirroringName,
	"ephemeral-volume":                     EphemeralVolumeName,
	"garbagecollector":                     GarbageCollectorName,
	"horizontalpodautoscaling":             HorizontalPodAutoscalerName,
	"job":                                  JobName,
	"legacy-service-account-token-cleaner": LegacyTokenCleanerName,
	"namespace":                            NamespaceName,
	"nodelifecycle":                        NodeLifecycleName,
	"persistentvolume-binder":              PersistentVolumeBinderName,
	"pvc-protection":                       PVCProtectionName,
	"pv-protection":                        PVProtectionName,
	"podgc":                                PodGarbageCollectorName,
	"replicaset":                           ReplicaSetName,
	"replicationcontroller":                ReplicationControllerName,
	"resourcequota":                        ResourceQuotaName,
	"root-ca-cert-publisher":               RootCACertificatePublisherName,
	"serviceaccount":                       ServiceAccountName,
	"serviceaccount-token":                 ServiceAccountTokenName,
	"statefulset":                          StatefulSetName,
	"ttl-after-finished":                   TTLAfterFinishedName,
	"ttl":                                  TTLName,
	"resource-claim-controller":            ResourceClaimName,
}

// KnownNames are the controllers a Selection can name, canonical names
// first; kube-controller-manager's other controllers are accepted and have
// no effect (fakeplane does not run them).
func KnownNames() []string {
	return []string{
		ClusterRoleAggregationName, CronJobName, DaemonSetName, DeploymentName, DisruptionName,
		EndpointsName, EndpointSliceName, GarbageCollectorName, JobName, NamespaceName,
		NodeLifecycleName, PersistentVolumeBinderName, PodGarbageCollectorName, ReplicaSetName,
		ReplicationControllerName, ResourceQuotaName, RootCACertificatePublisherName,
		ServiceAccountName, StatefulSetName, TTLAfterFinishedName, PVCProtectionName, PVProtectionName,
		VACProtectionName, PolicyStatusName, TTLName, HorizontalPodAutoscalerName, ServiceAccountTokenName, EndpointSliceMirroringName,
		TaintEvictionName, EphemeralVolumeName, ServiceCIDRName, ClusterTrustBundlePublisherName,
		CSRSigningName, CSRApprovingName, CSRCleanerName, ResourceClaimName, PCRCleanerName,
		LegacyTokenCleanerName, DeviceTaintEvictionName,
	}
}

// otherNames are kube-controller-manager controllers fakeplane has no use
// for (tokens, certificates, IPAM, volumes attached to machines, ...): a
// Selection accepts them, as a flag copied from a cluster's manifest
// names them.
var otherNames = []string{
	"bootstrap-signer-controller",
	"token-cleaner-controller", "node-ipam-controller",
	"persistentvolume-attach-detach-controller",
	"persistentvolume-expander-controller", "podgroup-protection-controller",
	"storageversion-garbage-collector-controller",
	"resourcepoolstatusrequest-controller",

	"storage-version-migrator-controller", "selinux-warning-controller",
	"bootstrapsigner", "tokencleaner", "nodeipam",
	"attachdetach", "persistentvolume-expander",
	"storage-version-gc",
}

// Selection is kube-controller-manager's --controllers: a list of
// controller names, where "*" turns on every controller that is on by
// default, "name" turns one on and "-name" turns one off. The first entry
// that names a controller decides for it. An empty Selection runs none;
// DefaultSelection, ["*"], runs all.
type Selection []string

// DefaultSelection is the flag's default: every controller.
var DefaultSelection = Selection{"*"}

// Validate reports the first entry that names no controller, with
// kube-controller-manager's message.
func (s Selection) Validate() error {
	for _, e := range s {
		name := e
		if len(name) > 0 && name[0] == '-' {
			name = name[1:]
		}
		if name == "*" {
			continue
		}
		if _, ok := aliases[name]; ok || slices.Contains(KnownNames(), name) || slices.Contains(otherNames, name) {
			continue
		}
		return fmt.Errorf("%q is not in the list of known controllers", e)
	}
	return nil
}

// Enabled reports whether s runs the controller of canonical name name.
func (s Selection) Enabled(name string) bool {
	hasStar := false
	for _, e := range s {
		off := len(e) > 0 && e[0] == '-'
		if off {
			e = e[1:]
		}
		if canon, ok := aliases[e]; ok {
			e = canon
		}
		switch {
		case e == name:
			return !off
		case e == "*" && !off:
			hasStar = true
		}
	}
	return hasStar
}
