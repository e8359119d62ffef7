package fakeplane_test

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/fakeplane/fakeplane"
)

// kubernetesNodePortFields are the managedFields of the kubernetes Service
// that kube-apiserver v1.37.2 created with --kubernetes-service-node-port
// (recorded on refplane).
const kubernetesNodePortFields = `{"f:metadata":{"f:labels":{".":{},"f:component":{},"f:provider":{}}},` +
	`"f:spec":{"f:clusterIP":{},"f:externalTrafficPolicy":{},"f:internalTrafficPolicy":{},"f:ipFamilyPolicy":{},` +
	`"f:ports":{".":{},"k:{\"port\":443,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:nodePort":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},` +
	`"f:sessionAffinity":{},"f:type":{}}}`

// TestKubernetesServiceNodePort starts a control plane with
// --kubernetes-service-node-port: the kubernetes Service is of type
// NodePort on that port, with the fields and managedFields kube-apiserver
// gives it, and the port is taken; a restart on the same data without the
// option leaves the Service as it was, as kube-apiserver does.
func TestKubernetesServiceNodePort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := ctxDataDir(t)
	cp1 := startOnDataDir(ctx, t, dir, fakeplane.WithKubernetesServiceNodePort(30443))
	check := func(cs typedcorev1.ServiceInterface, when string) {
		t.Helper()
		svc, err := cs.Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ports := svc.Spec.Ports
		if svc.Spec.Type != corev1.ServiceTypeNodePort || len(ports) != 1 || ports[0].NodePort != 30443 || ports[0].Port != 443 ||
			ports[0].Name != "https" || svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
			t.Fatalf("%s: the kubernetes Service is %s with ports %+v and externalTrafficPolicy %q, want NodePort on 30443, Cluster",
				when, svc.Spec.Type, ports, svc.Spec.ExternalTrafficPolicy)
		}
		mf := svc.ManagedFields
		if len(mf) != 1 || mf[0].Manager != "kube-apiserver" || mf[0].Operation != metav1.ManagedFieldsOperationUpdate || mf[0].FieldsV1 == nil {
			t.Fatalf("%s: managedFields %+v, want one kube-apiserver Update", when, mf)
		}
		var got, want any
		if err := json.Unmarshal(mf[0].FieldsV1.GetRawBytes(), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(kubernetesNodePortFields), &want); err != nil {
			t.Fatal(err)
		}
		if g, _ := json.Marshal(got); string(g) != string(mustJSON(t, want)) {
			t.Fatalf("%s: managedFields\n%s\nwant kube-apiserver's\n%s", when, g, mustJSON(t, want))
		}
	}
	services := clientset(t, cp1).CoreV1().Services("default")
	check(services, "first start")
	_, err := services.Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "x"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: 30443}}},
	}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated") {
		t.Fatalf("a Service asking for the kubernetes Service's node port: %v, want 422 provided port is already allocated", err)
	}
	if err := cp1.Stop(); err != nil {
		t.Fatal(err)
	}

	cp2 := startOnDataDir(ctx, t, dir)
	defer cp2.Stop()
	check(clientset(t, cp2).CoreV1().Services("default"), "restart without the option")
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKubernetesServiceNodePortIsChecked checks the option as kube-apiserver
// checks --kubernetes-service-node-port, with its errors (recorded from
// kube-apiserver v1.37.2).
func TestKubernetesServiceNodePortIsChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		port     int
		portsArg string
		want     string
	}{
		{-1, "", "--kubernetes-service-node-port -1 must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP"},
		{70000, "", "[--kubernetes-service-node-port 70000 must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP, kubernetes service node port range 30000-32767 doesn't contain 70000]"},
		{80, "", "kubernetes service node port range 30000-32767 doesn't contain 80"},
		{30080, "1-100", "kubernetes service node port range 1-100 doesn't contain 30080"},
	} {
		opts := []fakeplane.Option{fakeplane.WithKubernetesServiceNodePort(tc.port)}
		if tc.portsArg != "" {
			opts = append(opts, fakeplane.WithServiceNodePortRange(tc.portsArg))
		}
		_, err := fakeplane.New(opts...)
		if want := "fakeplane: " + tc.want; err == nil || err.Error() != want {
			t.Errorf("port %d, range %q: %v, want %q", tc.port, tc.portsArg, err, want)
		}
	}
}
