package fakeplane_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// kubeSystemAccounts are the ServiceAccounts in kube-system of refplane
// (kube-apiserver v1.37.2 with kube-controller-manager started with
// --use-service-account-credentials, as kubeadm and kind start it): one per
// controller client, and the namespace's default.
var kubeSystemAccounts = []string{
	"attachdetach-controller", "certificate-controller", "clusterrole-aggregation-controller", "cronjob-controller",
	"daemon-set-controller", "default", "deployment-controller", "device-taint-eviction-controller", "disruption-controller",
	"endpoint-controller", "endpointslice-controller", "endpointslicemirroring-controller", "ephemeral-volume-controller",
	"expand-controller", "generic-garbage-collector", "horizontal-pod-autoscaler", "job-controller",
	"kube-apiserver-serving-clustertrustbundle-publisher", "legacy-service-account-token-cleaner", "namespace-controller",
	"node-controller", "persistent-volume-binder", "pod-garbage-collector", "podcertificaterequestcleaner",
	"pv-protection-controller", "pvc-protection-controller", "replicaset-controller", "replication-controller",
	"resource-claim-controller", "resourcequota-controller", "root-ca-cert-publisher", "service-account-controller",
	"service-cidrs-controller", "statefulset-controller", "storage-version-migrator-controller",
	"ttl-after-finished-controller", "ttl-controller", "validatingadmissionpolicy-status-controller",
	"volumeattributesclass-protection-controller",
}

func TestKubeSystemHasTheControllersServiceAccounts(t *testing.T) {
	t.Parallel()
	without := func(names []string, drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
	}
	tests := []struct {
		name string
		opts []fakeplane.Option
		want []string
	}{
		{name: "every controller, as a cluster's", want: kubeSystemAccounts},
		{
			name: "a controller turned off has none, an account shared stays",
			opts: []fakeplane.Option{fakeplane.WithControllers("*", "-job-controller", "-taint-eviction-controller", "-certificatesigningrequest-signing-controller")},
			want: without(kubeSystemAccounts, "job-controller"),
		},
		{name: "envtest's kube-apiserver alone has none", opts: []fakeplane.Option{fakeplane.WithEnvtestShape()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tt.opts...)
			cs := clientset(t, cp)
			var got []string
			list := func(ctx context.Context) (bool, error) {
				l, err := cs.CoreV1().ServiceAccounts("kube-system").List(ctx, metav1.ListOptions{})
				if err != nil {
					return false, err
				}
				got = got[:0]
				for _, sa := range l.Items {
					got = append(got, sa.Name)
					if len(sa.Secrets) != 0 || len(sa.ManagedFields) != 0 || len(sa.Labels) != 0 {
						t.Errorf("%s has more than its name: %+v", sa.Name, sa)
					}
				}
				return slices.Equal(got, tt.want), nil
			}
			if len(tt.want) == 0 {
				// No controller runs that could create one later.
				if ok, err := list(ctxT(t)); err != nil || len(got) != 0 {
					t.Errorf("kube-system's ServiceAccounts: %q, %v (ok %v)", got, err, ok)
				}
				return
			}
			eventuallyT(t, "kube-system's ServiceAccounts "+strings.Join(tt.want, ","), list)
		})
	}
}
