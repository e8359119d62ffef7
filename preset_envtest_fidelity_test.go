package fakeplane_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// The expected answers in this file were recorded from a kube-apiserver
// v1.37.2 started with envtest's flags (controller-runtime v0.25.2:
// --disable-admission-plugins=ServiceAccount, --authorization-mode=RBAC,
// --service-cluster-ip-range=10.0.0.0/24, --allow-privileged=true) and no
// kube-controller-manager, with the same requests in the same order.

// In envtest's shape, a ResourceQuota is kube-apiserver's alone: nothing
// fills its status, the admission plugin limits what status.hard names,
// refuses while status.used lacks a name ("status unknown"), charges
// status.used on each admitted create (as the manager kube-apiserver, on
// the status subresource) and gives nothing back on deletes.
func TestEnvtestPresetResourceQuotaIsAdmissionOnly(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape())
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := createNamespace(t, cs, "quota")
	quotas := cs.CoreV1().ResourceQuotas(ns)
	q, err := quotas.Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "q1"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"configmaps": resource.MustParse("2"), "pods": resource.MustParse("1")}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q.Status.Hard != nil || q.Status.Used != nil {
		t.Errorf("new quota's status: %+v, want empty", q.Status)
	}
	createCM := func(name string) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		return err
	}
	// spec.hard alone limits nothing: no one computed status.hard.
	for _, name := range []string{"c1", "c2", "c3"} {
		if err := createCM(name); err != nil {
			t.Fatalf("create %s under a quota without status: %v", name, err)
		}
	}
	if q, err = quotas.Get(ctx, "q1", metav1.GetOptions{}); err != nil || q.Status.Hard != nil || q.Status.Used != nil {
		t.Fatalf("quota after creates: status %+v, err %v; want empty", q.Status, err)
	}
	patchStatus := func(patch string) {
		t.Helper()
		if _, err := quotas.Patch(ctx, "q1", types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
	}
	patchStatus(`{"status":{"hard":{"configmaps":"4","pods":"1"}}}`)
	wantForbidden := func(err error, msg string) {
		t.Helper()
		if !apierrors.IsForbidden(err) || err.Error() != msg {
			t.Errorf("got %v, want Forbidden %q", err, msg)
		}
	}
	wantForbidden(createCM("c4"), `configmaps "c4" is forbidden: status unknown for quota: q1, resources: configmaps`)
	patchStatus(`{"status":{"used":{"configmaps":"3","pods":"1"}}}`)
	if err := createCM("c5"); err != nil {
		t.Fatalf("create c5 under used 3 of 4: %v", err)
	}
	q, err = quotas.Get(ctx, "q1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Status.Used["configmaps"]; got.String() != "4" {
		t.Errorf("status.used.configmaps after an admitted create: %s, want 4", got.String())
	}
	if got := q.Status.Used["pods"]; got.String() != "1" {
		t.Errorf("status.used.pods: %s, want 1 (as written)", got.String())
	}
	// The entries' order depends on the client's manager name (entries of
	// the same second sort by it), so the charge's is looked up by manager.
	charged := slices.IndexFunc(q.ManagedFields, func(e metav1.ManagedFieldsEntry) bool { return e.Manager == "kube-apiserver" })
	if n := len(q.ManagedFields); n != 3 || charged < 0 ||
		q.ManagedFields[charged].Operation != metav1.ManagedFieldsOperationUpdate || q.ManagedFields[charged].Subresource != "status" ||
		string(q.ManagedFields[charged].FieldsV1.Raw) != `{"f:status":{"f:used":{"f:configmaps":{}}}}` {
		t.Errorf("managedFields after the charge: %+v, want a third entry kube-apiserver Update status f:used.f:configmaps", q.ManagedFields)
	}
	wantForbidden(createCM("c6"), `configmaps "c6" is forbidden: exceeded quota: q1, requested: configmaps=1, used: configmaps=4, limited: configmaps=4`)
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "c1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if q, err = quotas.Get(ctx, "q1", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := q.Status.Used["configmaps"]; got.String() != "4" {
		t.Errorf("status.used.configmaps after a delete: %s, want 4 (nothing gives it back)", got.String())
	}
	_, err = cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p2"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	wantForbidden(err, `pods "p2" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=1, limited: pods=1`)
	// A dry run is checked and charges nothing.
	_, err = cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s1"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Errorf("dry-run create of a secret the quota does not limit: %v", err)
	}
}

// In envtest's shape no node lifecycle controller runs: a new node keeps
// the not-ready taint kube-apiserver's TaintNodesByCondition gives it when
// it becomes Ready, and spec.unschedulable adds no taint. With the cluster
// preset the strategy stands in for the controller.
func TestEnvtestPresetNodeTaintsAreKubeAPIServers(t *testing.T) {
	t.Parallel()
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	now := time.Now().UTC().Format(time.RFC3339)
	ready := `{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"ok","lastHeartbeatTime":"` + now + `","lastTransitionTime":"` + now + `"}]}}`
	for _, tc := range []struct {
		name      string
		opts      []fakeplane.Option
		wantReady []corev1.Taint // after the Ready=True status
		wantCord  []corev1.Taint // after spec.unschedulable
	}{
		{"envtest", []fakeplane.Option{fakeplane.WithEnvtestShape()}, []corev1.Taint{notReady}, []corev1.Taint{notReady}},
		{"cluster", nil, nil, []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cs := clientset(t, fakeplane.Start(t, tc.opts...))
			ctx := ctxT(t)
			nodes := cs.CoreV1().Nodes()
			n, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !taintsEqual(n.Spec.Taints, []corev1.Taint{notReady}) {
				t.Errorf("new node's taints: %v, want the not-ready taint", n.Spec.Taints)
			}
			if n, err = nodes.Patch(ctx, "n1", types.MergePatchType, []byte(ready), metav1.PatchOptions{}, "status"); err != nil {
				t.Fatal(err)
			}
			if !taintsEqual(n.Spec.Taints, tc.wantReady) {
				t.Errorf("taints once Ready: %v, want %v", n.Spec.Taints, tc.wantReady)
			}
			if n, err = nodes.Patch(ctx, "n1", types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			if !taintsEqual(n.Spec.Taints, tc.wantCord) {
				t.Errorf("taints once unschedulable: %v, want %v", n.Spec.Taints, tc.wantCord)
			}
		})
	}
}

// In envtest's shape nothing but kube-apiserver runs: a pod gets no
// ServiceAccount name, a namespace no default ServiceAccount or
// kube-root-ca.crt, a Service no Endpoints or EndpointSlices, an owned
// object outlives its owner, and a deleted namespace stays Terminating.
func TestEnvtestPresetRunsNoControllers(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape())
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := createNamespace(t, cs, "plain")
	pod, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p1"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.ServiceAccountName != "" || pod.Spec.DeprecatedServiceAccount != "" || len(pod.Spec.Volumes) != 0 {
		t.Errorf("pod: serviceAccountName %q, volumes %v; want neither", pod.Spec.ServiceAccountName, pod.Spec.Volumes)
	}
	owner, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owned",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "svc"},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"a": "b"}, Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Give controllers, were any running, the time to act.
	time.Sleep(time.Second)
	if sas, err := cs.CoreV1().ServiceAccounts(ns).List(ctx, metav1.ListOptions{}); err != nil || len(sas.Items) != 0 {
		t.Errorf("ServiceAccounts: %v, err %v; want none", sas, err)
	}
	cms, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cms.Items {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"owned"}) {
		t.Errorf("ConfigMaps: %v, want [owned] (no kube-root-ca.crt, no garbage collection)", names)
	}
	if eps, err := cs.CoreV1().Endpoints(ns).List(ctx, metav1.ListOptions{}); err != nil || len(eps.Items) != 0 {
		t.Errorf("Endpoints: %v, err %v; want none", eps, err)
	}
	if eps, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{}); err != nil || len(eps.Items) != 0 {
		t.Errorf("EndpointSlices: %v, err %v; want none", eps, err)
	}
	got, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil || got.Status.Phase != corev1.NamespaceTerminating || !slices.Equal(got.Spec.Finalizers, []corev1.FinalizerName{corev1.FinalizerKubernetes}) {
		t.Errorf("deleted namespace: %+v, err %v; want Terminating with the kubernetes finalizer", got, err)
	}
}

// createNamespace creates a namespace of a name made from prefix.
func createNamespace(t *testing.T, cs kubernetes.Interface, prefix string) string {
	t.Helper()
	ns, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// taintsEqual compares taints by key and effect.
func taintsEqual(a, b []corev1.Taint) bool {
	return slices.EqualFunc(a, b, func(x, y corev1.Taint) bool { return x.Key == y.Key && x.Effect == y.Effect })
}

// In envtest's shape kube-apiserver runs without a front proxy (envtest
// passes no --requestheader-* or --proxy-client-* flags):
// kube-system/extension-apiserver-authentication holds the client CA alone,
// and there is no aggregator-reload-proxy-client-cert post-start hook. A
// default control plane has both, as a kubeadm cluster.
func TestEnvtestPresetHasNoFrontProxy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		opts      []fakeplane.Option
		keys      []string
		hookCode  int
		readyHook bool
	}{
		{"envtest shape", []fakeplane.Option{fakeplane.WithEnvtestShape()}, []string{"client-ca-file"}, 404, false},
		{"default", nil, []string{"client-ca-file", "requestheader-allowed-names", "requestheader-client-ca-file",
			"requestheader-extra-headers-prefix", "requestheader-group-headers", "requestheader-username-headers"}, 200, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			cs := clientset(t, cp)
			ctx := ctxT(t)
			var keys []string
			waitFor(t, func() bool {
				cm, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{})
				if err != nil {
					return false
				}
				keys = slices.Sorted(maps.Keys(cm.Data))
				return true
			})
			if !slices.Equal(keys, tc.keys) {
				t.Errorf("extension-apiserver-authentication keys %v, want %v", keys, tc.keys)
			}
			code, _, _ := rawRequest(t, cp, "GET", "/readyz/poststarthook/aggregator-reload-proxy-client-cert", "", nil, nil)
			if code != tc.hookCode {
				t.Errorf("GET /readyz/poststarthook/aggregator-reload-proxy-client-cert: %d, want %d", code, tc.hookCode)
			}
			_, _, out := rawRequest(t, cp, "GET", "/readyz?verbose", "", nil, nil)
			if got := strings.Contains(string(out), "aggregator-reload-proxy-client-cert"); got != tc.readyHook {
				t.Errorf("/readyz?verbose lists the proxy client certificate hook: %v, want %v:\n%s", got, tc.readyHook, out)
			}
		})
	}
}
