package fakeplane_test

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

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

// TestControllerWritesRecordFieldsAsOnACluster: the managedFields of what
// controllers write are refplane's for the same writes.
//   - kube-controller-manager sends built-in objects as protobuf, which has
//     no empty lists: a Service's placeholder EndpointSlice records neither
//     endpoints nor ports.
//   - The garbage collector's removal of an orphaned ReplicaSet's owner
//     reference is a write as kube-controller-manager, which takes the
//     reference out of every manager's fields.
//   - apiextensions-apiserver's finalizer sets a deleted CRD's Terminating
//     condition as kube-apiserver.
func TestControllerWritesRecordFieldsAsOnACluster(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "writers")

	svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "none"},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "none"}, Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var slices []discoveryv1.EndpointSlice
	eventuallyT(t, "the placeholder slice", func(context.Context) (bool, error) {
		slices = slicesOf(t, cs, ns, "none")
		return len(slices) == 1, nil
	})
	want := map[string]string{"kube-controller-manager ": `{"f:addressType":{},"f:metadata":{"f:annotations":{".":{},"f:endpoints.kubernetes.io/last-change-trigger-time":{}},` +
		`"f:generateName":{},"f:labels":{".":{},"f:endpointslice.kubernetes.io/managed-by":{},"f:kubernetes.io/service-name":{}},` +
		`"f:ownerReferences":{".":{},"k:{\"uid\":\"` + string(svc.UID) + `\"}":{}}}}`}
	if got := fieldsByManager(slices[0].ManagedFields); !maps.Equal(got, want) {
		t.Errorf("placeholder slice managedFields:\n got %v\nwant %v", got, want)
	}

	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "orphan"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "orphan"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "orphan"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the ReplicaSet", func(ctx context.Context) (bool, error) {
		l, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 1, err
	})
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, "orphan", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationOrphan)}); err != nil {
		t.Fatal(err)
	}
	var rs appsv1.ReplicaSet
	eventuallyT(t, "the orphaned ReplicaSet", func(ctx context.Context) (bool, error) {
		l, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) != 1 {
			return false, err
		}
		rs = l.Items[0]
		return len(rs.OwnerReferences) == 0, nil
	})
	for manager, fields := range fieldsByManager(rs.ManagedFields) {
		if strings.Contains(fields, "f:ownerReferences") {
			t.Errorf("orphaned ReplicaSet: %s still has the owner reference in %s", manager, fields)
		}
	}
	if _, ok := fieldsByManager(rs.ManagedFields)["kube-controller-manager "]; !ok {
		t.Errorf("orphaned ReplicaSet managedFields %v, want kube-controller-manager's entry", fieldsByManager(rs.ManagedFields))
	}

	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets.fin.example.com"},
		"spec": map[string]any{"group": "fin.example.com", "scope": "Namespaced",
			"names": map[string]any{"kind": "Gadget", "plural": "gadgets"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}},
	}}
	if _, err := dyn.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gadgets := schema.GroupVersionResource{Group: "fin.example.com", Version: "v1", Resource: "gadgets"}
	gadget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "fin.example.com/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "finalizers": []any{"x.example.com/hold"}}}}
	eventuallyT(t, "a Gadget", func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(gadgets).Namespace(ns).Create(ctx, gadget, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err := dyn.Resource(crds).Delete(ctx, crd.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	terminating := `"k:{\"type\":\"Terminating\"}":{"f:message":{},"f:reason":{}}`
	eventuallyT(t, "the CRD's Terminating condition, as kube-apiserver's", func(ctx context.Context) (bool, error) {
		got, err := dyn.Resource(crds).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return strings.Contains(fieldsByManager(got.GetManagedFields())["kube-apiserver status"], terminating), nil
	})
	if _, err := dyn.Resource(gadgets).Namespace(ns).Patch(ctx, "g", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// fieldsByManager maps each managedFields entry's "manager subresource" to
// its fieldsV1.
func fieldsByManager(mf []metav1.ManagedFieldsEntry) map[string]string {
	out := map[string]string{}
	for _, e := range mf {
		out[e.Manager+" "+e.Subresource] = string(e.FieldsV1.Raw)
	}
	return out
}
