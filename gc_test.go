package fakeplane_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// ownedBy is an owner reference to a ConfigMap.
func ownedBy(cm *corev1.ConfigMap, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID, BlockOwnerDeletion: ptr.To(block)}
}

func mkConfigMap(t *testing.T, cs kubernetes.Interface, name string, finalizers []string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners, Finalizers: finalizers},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func gone(cs kubernetes.Interface, name string) func() bool {
	return func() bool {
		_, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}
}

func TestGarbageCollectionBackground(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	parent := mkConfigMap(t, cs, "parent", nil)
	other := mkConfigMap(t, cs, "other", nil)
	mkConfigMap(t, cs, "only-child", nil, ownedBy(parent, false))
	mkConfigMap(t, cs, "shared-child", nil, ownedBy(parent, false), ownedBy(other, false))
	grandchildOwner := mkConfigMap(t, cs, "child-with-child", nil, ownedBy(parent, false))
	mkConfigMap(t, cs, "grandchild", nil, ownedBy(grandchildOwner, false))

	// The default propagation (background) deletes the owner at once.
	if err := cs.CoreV1().ConfigMaps("default").Delete(ctx, "parent", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !gone(cs, "parent")() {
		t.Fatal("owner not deleted at once")
	}
	waitFor(t, gone(cs, "only-child"))
	waitFor(t, gone(cs, "child-with-child"))
	waitFor(t, gone(cs, "grandchild"))
	// A dependent with another owner stays, without the reference to the
	// deleted one.
	waitFor(t, func() bool {
		cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "shared-child", metav1.GetOptions{})
		return err == nil && len(cm.OwnerReferences) == 1 && cm.OwnerReferences[0].UID == other.UID
	})
	// An object whose owner never existed (or was recreated) is collected too.
	mkConfigMap(t, cs, "stray", nil, metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "other", UID: types.UID("not-the-uid")})
	waitFor(t, gone(cs, "stray"))
	if gone(cs, "other")() {
		t.Error("an owner was deleted")
	}
}

// TestGarbageCollectorReportsOwnersInOtherNamespaces checks the warning
// kube-controller-manager's garbage collector records (recorded from
// refplane) for an owner reference naming an object of another namespace:
// a namespaced dependent's is collected as an orphan, a cluster-scoped
// one's is left alone; both get an OwnerRefInvalidNamespace event, the
// cluster-scoped one's in the default namespace.
func TestGarbageCollectorReportsOwnersInOtherNamespaces(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	for _, ns := range []string{"gc-here", "gc-there"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	owner, err := cs.CoreV1().ConfigMaps("gc-there").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}
	if _, err := cs.CoreV1().ConfigMaps("gc-here").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "child", OwnerReferences: []metav1.OwnerReference{ref}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gc-child", OwnerReferences: []metav1.OwnerReference{ref}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events := func(ns string) func() bool {
		return func() bool {
			l, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=OwnerRefInvalidNamespace"})
			return err == nil && len(l.Items) == 1
		}
	}
	waitFor(t, events("gc-here"))
	waitFor(t, events("default"))
	for _, tc := range []struct{ ns, kind, apiVersion, name, childNS string }{
		{"gc-here", "ConfigMap", "v1", "child", "gc-here"},
		{"default", "ClusterRole", "rbac.authorization.k8s.io/v1", "gc-child", ""},
	} {
		l, err := cs.CoreV1().Events(tc.ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=OwnerRefInvalidNamespace"})
		if err != nil {
			t.Fatal(err)
		}
		ev := l.Items[0]
		want := `ownerRef [v1/ConfigMap, namespace: ` + tc.childNS + `, name: owner, uid: ` + string(owner.UID) + `] does not exist in namespace "` + tc.childNS + `"`
		if ev.Message != want || ev.Type != corev1.EventTypeWarning || ev.Source.Component != "garbage-collector-controller" ||
			ev.InvolvedObject.Kind != tc.kind || ev.InvolvedObject.APIVersion != tc.apiVersion || ev.InvolvedObject.Name != tc.name || ev.InvolvedObject.Namespace != tc.childNS {
			t.Errorf("event in %s: %s %s %q from %s about %+v, want Warning %q from garbage-collector-controller about the %s %s", tc.ns, ev.Type, ev.Reason, ev.Message, ev.Source.Component, ev.InvolvedObject, want, tc.kind, tc.name)
		}
	}
	waitFor(t, func() bool {
		_, err := cs.CoreV1().ConfigMaps("gc-here").Get(ctx, "child", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if got, err := cs.RbacV1().ClusterRoles().Get(ctx, "gc-child", metav1.GetOptions{}); err != nil || got.UID != role.UID {
		t.Errorf("the cluster-scoped dependent: %v, want it left alone", err)
	}
}

func TestGarbageCollectionForeground(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	parent := mkConfigMap(t, cs, "parent", nil)
	mkConfigMap(t, cs, "blocking", []string{"example.com/hold"}, ownedBy(parent, true))
	mkConfigMap(t, cs, "not-blocking", nil, ownedBy(parent, false))

	if err := cs.CoreV1().ConfigMaps("default").Delete(ctx, "parent", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
		t.Fatal(err)
	}
	// The owner waits, marked, for its blocking dependent.
	p, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "parent", metav1.GetOptions{})
	if err != nil || p.DeletionTimestamp == nil || len(p.Finalizers) != 1 || p.Finalizers[0] != metav1.FinalizerDeleteDependents {
		t.Fatalf("owner in foreground deletion: %v %+v", err, p)
	}
	waitFor(t, gone(cs, "not-blocking"))
	waitFor(t, func() bool {
		cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "blocking", metav1.GetOptions{})
		return err == nil && cm.DeletionTimestamp != nil
	})
	if gone(cs, "parent")() {
		t.Fatal("owner deleted before its blocking dependent")
	}
	// Releasing the dependent lets both go.
	if _, err := cs.CoreV1().ConfigMaps("default").Patch(ctx, "blocking", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, gone(cs, "blocking"))
	waitFor(t, gone(cs, "parent"))
}

func TestGarbageCollectionOrphan(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	parent := mkConfigMap(t, cs, "parent", nil)
	mkConfigMap(t, cs, "child", nil, ownedBy(parent, true))
	if err := cs.CoreV1().ConfigMaps("default").Delete(ctx, "parent", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationOrphan)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, gone(cs, "parent"))
	cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "child", metav1.GetOptions{})
	if err != nil || len(cm.OwnerReferences) != 0 {
		t.Errorf("orphaned dependent: %v %+v", err, cm)
	}
}

func TestGarbageCollectionClusterScopedOwnerAndDeleteCollection(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cr, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "owner", Labels: map[string]string{"gc": "yes"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mkConfigMap(t, cs, "owned-by-cluster-role", nil, metav1.OwnerReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "owner", UID: cr.UID})
	if err := cs.RbacV1().ClusterRoles().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "gc=yes"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, gone(cs, "owned-by-cluster-role"))
}

func TestKubectlDeleteDeploymentCascades(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	labels := map[string]string{"app": "web"}
	dep, err := cs.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// What the deployment and replica set controllers would create.
	controller := func(apiVersion, kind, name string, uid types.UID) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	}
	rs, err := cs.AppsV1().ReplicaSets("default").Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Labels: labels, OwnerReferences: controller("apps/v1", "Deployment", "web", dep.UID)},
		Spec:       appsv1.ReplicaSetSpec{Selector: dep.Spec.Selector, Template: dep.Spec.Template},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1-a", Labels: labels, OwnerReferences: controller("apps/v1", "ReplicaSet", "web-1", rs.UID)},
		Spec:       dep.Spec.Template.Spec,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wantLine(t, "delete", mustKubectl(t, cp, "delete", "deployment", "web"), `deployment.apps "web" deleted`)
	waitFor(t, func() bool {
		_, err1 := cs.AppsV1().ReplicaSets("default").Get(ctx, "web-1", metav1.GetOptions{})
		_, err2 := cs.CoreV1().Pods("default").Get(ctx, "web-1-a", metav1.GetOptions{})
		return apierrors.IsNotFound(err1) && apierrors.IsNotFound(err2)
	})
}

func TestClusterIPsAreIPAddressObjects(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	// The kubernetes Service's address is there from the start.
	addr, err := cs.NetworkingV1().IPAddresses().Get(ctx, "10.0.0.1", metav1.GetOptions{})
	if err != nil || addr.Spec.ParentRef == nil || addr.Spec.ParentRef.Name != "kubernetes" || addr.Labels["ipaddress.kubernetes.io/managed-by"] != "ipallocator.k8s.io" {
		t.Fatalf("10.0.0.1: %v %+v", err, addr)
	}
	svc, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	addr, err = cs.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{})
	if err != nil || addr.Spec.ParentRef.Resource != "services" || addr.Spec.ParentRef.Namespace != "default" || addr.Spec.ParentRef.Name != "web" ||
		addr.Labels["ipaddress.kubernetes.io/ip-family"] != "IPv4" {
		t.Fatalf("%s: %v %+v", svc.Spec.ClusterIP, err, addr)
	}
	// An IPAddress object reserves its address (one the Service was not
	// given: its address is random).
	reserved := "10.0.0.77"
	if svc.Spec.ClusterIP == reserved {
		reserved = "10.0.0.78"
	}
	if _, err := cs.NetworkingV1().IPAddresses().Create(ctx, &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: reserved},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "gateways", Group: "example.com", Name: "g"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "taken"},
		Spec: corev1.ServiceSpec{ClusterIP: reserved, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Errorf("service on a reserved address: %v", err)
	}
	// Deleting the Service releases its address.
	if err := cs.CoreV1().Services("default").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("address after service deletion: %v", err)
	}
	// So does turning it into an ExternalName Service.
	other, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "other"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ip := other.Spec.ClusterIP
	other.Spec.Type, other.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.com"
	other.Spec.ClusterIP, other.Spec.ClusterIPs = "", nil
	if _, err := cs.CoreV1().Services("default").Update(ctx, other, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("address after the Service turned ExternalName: %v", err)
	}
}

// startInDataDir starts a control plane keeping its state in dir; stop
// stops it (at most once; the test's cleanup stops it otherwise).
func startInDataDir(t *testing.T, dir string) (cp *fakeplane.ControlPlane, stop func()) {
	t.Helper()
	cp, err := fakeplane.New(fakeplane.WithDataDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(ctxDataDir(t)); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := cp.Stop(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	return cp, stop
}

func TestGarbageCollectionAfterDataDirRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cp1, stop1 := startInDataDir(t, dir)
	cs := clientset(t, cp1)
	parent := mkConfigMap(t, cs, "parent", nil)
	mkConfigMap(t, cs, "child", nil, ownedBy(parent, false))
	stop1()

	// The owner references stored before the restart are indexed: the
	// owner's deletion takes its dependent along.
	cp2, _ := startInDataDir(t, dir)
	cs = clientset(t, cp2)
	if err := cs.CoreV1().ConfigMaps("default").Delete(ctxT(t), "parent", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, gone(cs, "child"))
}

// TestGarbageCollectorOff turns garbage collection off
// (--enable-garbage-collector=false), recorded on refplane with the flag:
// a foreground or orphan delete adds no finalizer, so the owner is gone
// once the delete returns and its dependent keeps its owner reference; a
// namespace still gets the orphan finalizer, as kube-apiserver's namespace
// REST adds it; the garbage collector does not run (its ServiceAccount,
// which kube-controller-manager makes for the controllers it starts, is
// not made).
func TestGarbageCollectorOff(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithGarbageCollector(false))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		parent := mkConfigMap(t, cs, "parent-"+strings.ToLower(string(policy)), nil)
		child := mkConfigMap(t, cs, "child-"+strings.ToLower(string(policy)), nil, ownedBy(parent, true))
		if err := cs.CoreV1().ConfigMaps("default").Delete(ctx, parent.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(policy)}); err != nil {
			t.Fatal(err)
		}
		if !gone(cs, parent.Name)() {
			t.Errorf("%s delete without garbage collection: the owner is still there", policy)
		}
		cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, child.Name, metav1.GetOptions{})
		if err != nil || len(cm.OwnerReferences) != 1 {
			t.Errorf("%s delete without garbage collection: the dependent %v %+v, want it with its owner reference", policy, err, cm)
		}
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gc-off"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "gc-off", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationOrphan)}); err != nil {
		t.Fatal(err)
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "gc-off", metav1.GetOptions{})
	if err != nil || !slices.Equal(ns.Finalizers, []string{metav1.FinalizerOrphanDependents}) {
		t.Errorf("namespace deleted with orphan: %v, finalizers %v; want [orphan]", err, ns.Finalizers)
	}
	if _, err := cs.CoreV1().ServiceAccounts("kube-system").Get(ctx, "generic-garbage-collector", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the garbage collector's ServiceAccount: %v, want none (the controller does not run)", err)
	}
	on := clientset(t, fakeplane.Start(t))
	if _, err := on.CoreV1().ServiceAccounts("kube-system").Get(ctx, "generic-garbage-collector", metav1.GetOptions{}); err != nil {
		t.Errorf("the garbage collector's ServiceAccount with garbage collection on: %v", err)
	}
}
