package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// ControllerServiceAccountsName names the ControllerServiceAccounts
// controller in logs; it is not a kube-controller-manager controller.
const ControllerServiceAccountsName = "controller-service-accounts"

// controllerAccounts maps kube-controller-manager's controllers (canonical
// names) to the kube-system ServiceAccount whose credentials each one's
// client uses, as v1.37's kube-controller-manager names them. Controllers
// it runs with its own credentials (the service account token controller)
// are not listed. The attach/detach, expander and storage version migrator
// controllers are on by default upstream, so their accounts exist on a
// cluster, though fakeplane does not run them.
var controllerAccounts = map[string]string{
	ClusterRoleAggregationName:         "clusterrole-aggregation-controller",
	ClusterTrustBundlePublisherName:    "kube-apiserver-serving-clustertrustbundle-publisher",
	CronJobName:                        "cronjob-controller",
	CSRApprovingName:                   csrUser,
	CSRCleanerName:                     csrUser,
	CSRSigningName:                     csrUser,
	DaemonSetName:                      "daemon-set-controller",
	DeploymentName:                     "deployment-controller",
	"device-taint-eviction-controller": "device-taint-eviction-controller",
	DisruptionName:                     "disruption-controller",
	EndpointsName:                      "endpoint-controller",
	EndpointSliceName:                  "endpointslice-controller",
	EndpointSliceMirroringName:         "endpointslicemirroring-controller",
	EphemeralVolumeName:                "ephemeral-volume-controller",
	GarbageCollectorName:               "generic-garbage-collector",
	HorizontalPodAutoscalerName:        "horizontal-pod-autoscaler",
	JobName:                            "job-controller",
	LegacyTokenCleanerName:             "legacy-service-account-token-cleaner",
	NamespaceName:                      "namespace-controller",
	NodeLifecycleName:                  "node-controller",
	PCRCleanerName:                     "podcertificaterequestcleaner",
	PersistentVolumeBinderName:         "persistent-volume-binder",
	PodGarbageCollectorName:            "pod-garbage-collector",
	PolicyStatusName:                   "validatingadmissionpolicy-status-controller",
	PVCProtectionName:                  "pvc-protection-controller",
	PVProtectionName:                   "pv-protection-controller",
	ReplicaSetName:                     "replicaset-controller",
	ReplicationControllerName:          "replication-controller",
	ResourceClaimName:                  "resource-claim-controller",
	ResourceQuotaName:                  "resourcequota-controller",
	RootCACertificatePublisherName:     "root-ca-cert-publisher",
	ServiceAccountName:                 "service-account-controller",
	ServiceCIDRName:                    "service-cidrs-controller",
	StatefulSetName:                    "statefulset-controller",
	TaintEvictionName:                  "node-controller",
	TTLAfterFinishedName:               "ttl-after-finished-controller",
	TTLName:                            "ttl-controller",
	VACProtectionName:                  "volumeattributesclass-protection-controller",
	"persistentvolume-attach-detach-controller": "attachdetach-controller",
	"persistentvolume-expander-controller":      "expand-controller",
	"storage-version-migrator-controller":       "storage-version-migrator-controller",
}

// ControllerServiceAccountNames returns, sorted, the kube-system
// ServiceAccounts kube-controller-manager with
// --use-service-account-credentials (kubeadm's and kind's) creates for the
// controllers sel runs.
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

// ControllerServiceAccounts creates the kube-system ServiceAccounts of the
// controllers a control plane runs that are missing, once, as
// kube-controller-manager's client builder does for each controller it
// starts with --use-service-account-credentials. They carry nothing but
// their names; tokens for them are requested, not stored.
type ControllerServiceAccounts struct {
	reg   registry.Interface
	log   *slog.Logger
	names []string
	done  bool
}

// NewControllerServiceAccounts returns the controller that creates the
// ServiceAccounts names in kube-system, through reg, logging to log (nil:
// slog.Default()).
func NewControllerServiceAccounts(reg registry.Interface, names []string, log *slog.Logger) *ControllerServiceAccounts {
	if log == nil {
		log = slog.Default()
	}
	return &ControllerServiceAccounts{reg: reg, log: log, names: names}
}

// Name implements Controller.
func (c *ControllerServiceAccounts) Name() string { return ControllerServiceAccountsName }

// Resources implements Controller: it needs no feed, its one Sync lists
// what it needs.
func (c *ControllerServiceAccounts) Resources() []string { return nil }

// Sync implements Controller: the first call creates the missing accounts.
func (c *ControllerServiceAccounts) Sync(ctx context.Context, _ []store.Event) error {
	if c.done {
		return nil
	}
	// As kube-controller-manager's own credentials.
	u := &user.DefaultInfo{Name: "system:kube-controller-manager", Groups: []string{user.AllAuthenticated}}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, u), "kube-controller-manager")
	obj, err := c.reg.List(ctx, serviceAccountsGVR, metav1.NamespaceSystem, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list kube-system service accounts: %w", err)
	}
	list, ok := obj.(*corev1.ServiceAccountList)
	if !ok {
		return fmt.Errorf("list kube-system service accounts: a %T", obj)
	}
	have := map[string]bool{}
	for _, sa := range list.Items {
		have[sa.Name] = true
	}
	var errs []error
	for _, name := range c.names {
		if have[name] {
			continue
		}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: name}}
		if _, err := c.reg.Create(ctx, serviceAccountsGVR, sa); err != nil && !apierrors.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("create service account kube-system/%s: %w", name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c.done = true
	return nil
}
