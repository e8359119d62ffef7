package fakeplane_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/etcdtest"
)

// TestControlPlanesShareOneEtcd runs two control planes on one etcd prefix,
// as two kube-apiservers of one cluster: what is written through one is
// enforced and served by the other (RBAC, CRDs), allocations made through
// both at once never collide, kube-controller-manager's controllers run in
// one of them only (the holder of the kube-system/kube-controller-manager
// Lease), and the other takes over when it stops.
func TestControlPlanesShareOneEtcd(t *testing.T) {
	srv := etcdtest.Start(t)
	on := []fakeplane.Option{
		fakeplane.WithEtcdServers(srv.Endpoints), fakeplane.WithEtcdPrefix(etcdtest.Prefix(t)),
		fakeplane.WithLeaderElection(fakeplane.LeaderElection{LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond}),
	}
	ctx := context.Background()
	first := fakeplane.Start(t, on...)
	second := fakeplane.Start(t, on...)
	ca, cb := kubernetesClient(t, first), kubernetesClient(t, second)

	t.Run("RBAC written through one is enforced by the other", func(t *testing.T) {
		alice := userClient(t, second, "alice").CoreV1().ConfigMaps("default")
		if _, err := alice.List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Fatalf("alice lists config maps before any binding: %v, want 403", err)
		}
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "cm-reader", Namespace: "default"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}}}
		if _, err := ca.RbacV1().Roles("default").Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice", Namespace: "default"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "cm-reader"},
			Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "alice"}}}
		if _, err := ca.RbacV1().RoleBindings("default").Create(ctx, rb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "alice lists config maps through the other control plane", func() error {
			_, err := alice.List(ctx, metav1.ListOptions{})
			return err
		})
		if err := ca.RbacV1().RoleBindings("default").Delete(ctx, "alice", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "alice is refused again once the binding is deleted", func() error {
			if _, err := alice.List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
				return fmt.Errorf("list: %v, want 403", err)
			}
			return nil
		})
	})

	t.Run("a CRD created through one is served by the other", func(t *testing.T) {
		def := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "gadgets.shared.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "shared.example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
						Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object",
							Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("3")}}}}}}}}},
			},
		}
		createCRD(t, ctx, dynamic.NewForConfigOrDie(first.RESTConfig()), def)
		gadgets := dynamic.NewForConfigOrDie(first.RESTConfig()).Resource(schema.GroupVersionResource{Group: "shared.example.com", Version: "v1", Resource: "gadgets"})
		other := dynamic.NewForConfigOrDie(second.RESTConfig()).Resource(schema.GroupVersionResource{Group: "shared.example.com", Version: "v1", Resource: "gadgets"}).Namespace("default")
		g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "shared.example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": "g1"}, "spec": map[string]any{"unknown": true}}}
		var created *unstructured.Unstructured
		eventually(t, "create a Gadget through the other control plane", func() (err error) {
			created, err = other.Create(ctx, g, metav1.CreateOptions{})
			return err
		})
		// The other one applies the CRD's schema: pruned and defaulted.
		if size, _, _ := unstructured.NestedInt64(created.Object, "spec", "size"); size != 3 {
			t.Errorf("spec.size = %d, want the default 3", size)
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(created.Object, "spec", "unknown"); found {
			t.Errorf("spec.unknown was kept, want it pruned")
		}
		crds := dynamic.NewForConfigOrDie(second.RESTConfig()).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
		if err := crds.Delete(ctx, def.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the first control plane stops serving gadgets once the CRD is gone", func() error {
			_, err := gadgets.Namespace("default").Get(ctx, "g1", metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("get: %v, want 404", err)
			}
			if _, err := crds.Get(ctx, def.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("the CRD: %v, want 404", err)
			}
			return nil
		})
	})

	t.Run("allocations through both at once never collide", func(t *testing.T) {
		const perSide = 12
		var wg sync.WaitGroup
		var mu sync.Mutex
		var svcs []*corev1.Service
		for i := range 2 * perSide {
			c := ca
			if i%2 == 1 {
				c = cb
			}
			wg.Go(func() {
				svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s%d", i)}, Spec: corev1.ServiceSpec{
					Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}}}}
				got, err := c.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{})
				if err != nil {
					t.Errorf("create service s%d: %v", i, err)
					return
				}
				mu.Lock()
				svcs = append(svcs, got)
				mu.Unlock()
			})
		}
		wg.Wait()
		ips, ports := map[string]string{}, map[int32]string{}
		for _, s := range svcs {
			if other, ok := ips[s.Spec.ClusterIP]; ok {
				t.Errorf("%s and %s both have ClusterIP %s", s.Name, other, s.Spec.ClusterIP)
			}
			ips[s.Spec.ClusterIP] = s.Name
			p := s.Spec.Ports[0].NodePort
			if other, ok := ports[p]; ok {
				t.Errorf("%s and %s both have node port %d", s.Name, other, p)
			}
			ports[p] = s.Name
		}
		// A ClusterIP one holds is refused through the other.
		taken := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "taken"}, Spec: corev1.ServiceSpec{
			ClusterIP: svcs[0].Spec.ClusterIP, Ports: []corev1.ServicePort{{Port: 80}}}}
		for _, c := range []kubernetes.Interface{ca, cb} {
			if _, err := c.CoreV1().Services("default").Create(ctx, taken, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
				t.Errorf("create with the held ClusterIP %s: %v, want 422", taken.Spec.ClusterIP, err)
			}
		}
	})

	t.Run("one controller manager runs, and the other takes over", func(t *testing.T) {
		lease, err := cb.CoordinationV1().Leases("kube-system").Get(ctx, "kube-controller-manager", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			t.Fatalf("the kube-controller-manager Lease has no holder: %+v", lease.Spec)
		}
		dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}}
		if _, err := cb.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		webPods := func(c kubernetes.Interface, want int) func() error {
			return func() error {
				d, err := c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if d.Status.ObservedGeneration != d.Generation || d.Status.Replicas != int32(want) {
					return fmt.Errorf("deployment status %+v at generation %d, want %d replicas", d.Status, d.Generation, want)
				}
				rss, err := c.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
				if err != nil {
					return err
				}
				pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
				if err != nil {
					return err
				}
				if len(rss.Items) != 1 || len(pods.Items) != want {
					return fmt.Errorf("%d ReplicaSets and %d pods, want 1 and %d", len(rss.Items), len(pods.Items), want)
				}
				return nil
			}
		}
		eventually(t, "the deployment's pods", webPods(ca, 3))

		// The first control plane started first and leads; once it stops,
		// the second takes the Lease and runs the controllers.
		first.Stop()
		eventually(t, "the second control plane takes the Lease", func() error {
			l, err := cb.CoordinationV1().Leases("kube-system").Get(ctx, "kube-controller-manager", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == *lease.Spec.HolderIdentity || *l.Spec.HolderIdentity == "" {
				return fmt.Errorf("holder %v, want a new one", l.Spec.HolderIdentity)
			}
			return nil
		})
		if _, err := cb.AppsV1().Deployments("default").Patch(ctx, "web", "application/merge-patch+json", []byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the scaled deployment's pods", webPods(cb, 5))
		// The garbage collector of the new leader knows the owners the old
		// one's controllers wrote.
		if err := cb.AppsV1().Deployments("default").Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the deployment's ReplicaSet and pods are collected", func() error {
			pods, err := cb.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
			if err != nil {
				return err
			}
			rss, err := cb.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
			if err != nil {
				return err
			}
			if len(pods.Items)+len(rss.Items) != 0 {
				return fmt.Errorf("%d pods and %d ReplicaSets left", len(pods.Items), len(rss.Items))
			}
			return nil
		})
	})
}
