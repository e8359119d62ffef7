package fakeplane_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/fakeplane/fakeplane"
)

// TestControlPlaneObjectsCarryManagedFields: what the control plane writes
// itself carries the managedFields entry of the component that writes it on
// a cluster: kube-apiserver for the bootstrap objects and IPAddresses,
// kube-controller-manager for kube-root-ca.crt. A Namespace's
// kubernetes.io/metadata.name label is set by defaulting, so its creator
// owns it.
func TestControlPlaneObjectsCarryManagedFields(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	if _, err := clientset(t, cp).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{FieldManager: "tester"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gvr             schema.GroupVersionResource
		ns, name        string
		manager, fields string
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", "default", "kube-apiserver", `"f:kubernetes.io/metadata.name"`},
		{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", "team-a", "tester", `"f:kubernetes.io/metadata.name"`},
		{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, "", "cluster-admin", "kube-apiserver", `"f:rules"`},
		{schema.GroupVersionResource{Version: "v1", Resource: "services"}, "default", "kubernetes", "kube-apiserver", `"f:ports"`},
		{schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}, "", "v1.apps", "kube-apiserver", `"f:groupPriorityMinimum"`},
		{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "team-a", "kube-root-ca.crt", "kube-controller-manager", `"f:ca.crt"`},
	} {
		var last string
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			obj, err := dyn.Resource(tc.gvr).Namespace(tc.ns).Get(ctx, tc.name, metav1.GetOptions{})
			if err != nil {
				last = err.Error()
				return false, nil
			}
			mf := obj.GetManagedFields()
			b, _ := json.Marshal(mf)
			last = string(b)
			return len(mf) == 1 && mf[0].Manager == tc.manager && mf[0].Operation == metav1.ManagedFieldsOperationUpdate &&
				mf[0].Time != nil && strings.Contains(string(mf[0].FieldsV1.Raw), tc.fields), nil
		})
		if err != nil {
			t.Errorf("%s %s/%s: managedFields %s, want one Update by %s with %s", tc.gvr.Resource, tc.ns, tc.name, last, tc.manager, tc.fields)
		}
	}
}
