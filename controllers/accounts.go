package controllers

import "slices"

// controllerAccounts maps kube-controller-manager's controllers (canonical
// names) to the kube-system ServiceAccount whose credentials each one's
// client uses, as v1.37's kube-controller-manager names them. Controllers
// it runs with its own credentials (the service account token controller)
// are not listed. The attach/detach, expander and storage version migrator
// controllers are on by default upstream, so their accounts exist on a
// cluster, though fakeplane does not run them.
var controllerAccounts = map[string]string{
	ClusterRoleAggregationName:      "clusterrole-aggregation-controller",
	ClusterTrustBundlePublisherName: "kube-apiserver-serving-clustertrustbundle-publisher",
	CronJobName:                     "cronjob-controller",
	CSRApprovingName:                csrUser,
	CSRCleanerName:                  csrUser,
	CSRSigningName:                  csrUser,
	DaemonSetName:                   "daemon-set-controller",
	DeploymentName:                  "deployment-controller",
	DeviceTaintEvictionName:         "device-taint-eviction-controller",
	DisruptionName:                  "disruption-controller",
	EndpointsName:                   "endpoint-controller",
	EndpointSliceName:               "endpointslice-controller",
	EndpointSliceMirroringName:      "endpointslicemirroring-controller",
	EphemeralVolumeName:             "ephemeral-volume-controller",
	GarbageCollectorName:            "generic-garbage-collector",
	HorizontalPodAutoscalerName:     "horizontal-pod-autoscaler",
	JobName:                         "job-controller",
	LegacyTokenCleanerName:          "legacy-service-account-token-cleaner",
	NamespaceName:                   "namespace-controller",
	NodeLifecycleName:               "node-controller",
	PCRCleanerName:                  "podcertificaterequestcleaner",
	PersistentVolumeBinderName:      "persistent-volume-binder",
	PodGarbageCollectorName:         "pod-garbage-collector",
	PolicyStatusName:                "validatingadmissionpolicy-status-controller",
	PVCProtectionName:               "pvc-protection-controller",
	PVProtectionName:                "pv-protection-controller",
	ReplicaSetName:                  "replicaset-controller",
	ReplicationControllerName:       "replication-controller",
	ResourceClaimName:               "resource-claim-controller",
	ResourceQuotaName:               "resourcequota-controller",
	RootCACertificatePublisherName:  "root-ca-cert-publisher",
	ServiceAccountName:              "service-account-controller",
	ServiceCIDRName:                 "service-cidrs-controller",
	StatefulSetName:                 "statefulset-controller",
	TaintEvictionName:               "node-controller",
	TTLAfterFinishedName:            "ttl-after-finished-controller",
	TTLName:                         "ttl-controller",
	VACProtectionName:               "volumeattributesclass-protection-controller",
	"persistentvolume-attach-detach-controller": "attachdetach-controller",
	"persistentvolume-expander-controller":      "expand-controller",
	"storage-version-migrator-controller":       "storage-version-migrator-controller",
}

// ControllerServiceAccountNames returns, sorted, the kube-system
// ServiceAccounts kube-controller-manager with
// --use-service-account-credentials (kubeadm's and kind's) creates for the
// controllers sel runs. They carry nothing but their names; tokens for
// them are requested, not stored.
func ControllerServiceAccountNames(sel Selection) []string {
	var names []string
	for controller, account := range controllerAccounts {
		if sel.Enabled(controller) && !slices.Contains(names, account) {
			names = append(names, account)
		}
	}
	slices.Sort(names)
	return names
}
