package fakeplane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// TestServiceAllocationAsKubeAPIServer checks a Service's ClusterIP and node
// port allocation against kube-apiserver v1.37's answers (recorded with
// refplane, --service-cluster-ip-range 10.0.0.0/24): an address outside the
// range, or its network or broadcast address, is refused as upstream's
// MetaAllocator refuses it; a dry run checks an address against the range
// alone, answers the network address for one it picks, and picks node ports
// from 32769 up (its dry-run port allocator's dummy numbers), checking one
// asked for only against the ports held and the ones it picked.
func TestServiceAllocationAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	svcs := "/api/v1/namespaces/default/services"
	svc := func(name, spec string) string {
		return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	runWriteCases(t, cp, []writeCase{
		{"an address outside the range", "POST", svcs, svc("a", `{"clusterIP":"192.168.0.5","ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: spec.clusterIPs: Invalid value: ["192.168.0.5"]: failed to allocate IP 192.168.0.5: the provided network does not match the current range`},
		{"the network address", "POST", svcs, svc("a", `{"clusterIP":"10.0.0.0","ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.0"]: failed to allocate IP 10.0.0.0: the provided network does not match the current range`},
		{"the broadcast address", "POST", svcs, svc("a", `{"clusterIP":"10.0.0.255","ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.255"]: failed to allocate IP 10.0.0.255: the provided network does not match the current range`},
		{"the kubernetes Service's address", "POST", svcs, svc("a", `{"clusterIP":"10.0.0.1","ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.1"]: failed to allocate IP 10.0.0.1: provided IP is already allocated`},
		{"a dry run's address outside the range", "POST", svcs + "?dryRun=All", svc("a", `{"clusterIP":"10.0.0.0","ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.0"]: failed to allocate IP 10.0.0.0: the provided IP (10.0.0.0) is not in the valid range. The range of valid IPs is 10.0.0.0/24`},
		{"a dry run's held address", "POST", svcs + "?dryRun=All", svc("a", `{"clusterIP":"10.0.0.1","ports":[{"port":80}]}`), 201, ""},
		{"a node port", "POST", svcs, svc("np", `{"type":"NodePort","ports":[{"port":80,"nodePort":30050}]}`), 201, ""},
		{"a dry run's held node port", "POST", svcs + "?dryRun=All", svc("a", `{"type":"NodePort","ports":[{"port":80,"nodePort":30050}]}`), 422,
			`Service "a" is invalid: spec.ports[0].nodePort: Invalid value: 30050: provided port is already allocated`},
		{"a dry run's node port it picked", "POST", svcs + "?dryRun=All", svc("a", `{"type":"NodePort","ports":[{"port":80},{"port":81},{"port":82,"nodePort":32770}]}`), 422,
			`Service "a" is invalid: spec.ports[2].nodePort: Invalid value: 32770: provided port is already allocated`},
		// The cluster is single-stack IPv4: dual-stack and IPv6 are
		// refused before allocation (and before validation, which then
		// does not report the bad port), unless the Service is headless
		// without a selector.
		{"dual-stack required", "POST", svcs, svc("a", `{"ipFamilyPolicy":"RequireDualStack","selector":{"a":"b"},"ports":[{"port":0}]}`), 422,
			`Service "a" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services`},
		{"an IPv6 family", "POST", svcs, svc("a", `{"ipFamilyPolicy":"PreferDualStack","ipFamilies":["IPv6","IPv4"],"selector":{"a":"b"},"ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster`},
		{"an IPv6 address", "POST", svcs, svc("a", `{"clusterIP":"fd00::10","selector":{"a":"b"},"ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: spec.clusterIPs[0]: Invalid value: ["fd00::10"]: IPv6 is not configured on this cluster`},
		{"two addresses, single-stack", "POST", svcs, svc("a", `{"clusterIP":"10.0.0.88","clusterIPs":["10.0.0.88","fd00::10"],"ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: [spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified, spec.clusterIPs[1]: Invalid value: ["10.0.0.88","fd00::10"]: IPv6 is not configured on this cluster]`},
		{"clusterIPs not matching clusterIP, before the ports", "POST", svcs, svc("a", `{"clusterIP":"10.0.0.90","clusterIPs":["10.0.0.91"],"ports":[{"port":0}]}`), 422,
			`Service "a" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.91"]: first value must match ` + "`clusterIP`"},
		{"headless without a selector, dual-stack", "POST", svcs, svc("hl", `{"clusterIP":"None","ipFamilies":["IPv6"],"ports":[{"port":80}]}`), 201, ""},
		{"headless with a selector, dual-stack", "POST", svcs, svc("a", `{"clusterIP":"None","ipFamilyPolicy":"RequireDualStack","selector":{"a":"b"},"ports":[{"port":80}]}`), 422,
			`Service "a" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services`},
	})
	hl, err := clientset(t, cp).CoreV1().Services("default").Get(ctxT(t), "hl", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%v %v", hl.Spec.IPFamilies, *hl.Spec.IPFamilyPolicy); got != "[IPv6 IPv4] RequireDualStack" {
		t.Errorf("a headless Service without a selector asking for IPv6: families and policy %s, want [IPv6 IPv4] RequireDualStack", got)
	}

	for _, tc := range []struct {
		name, spec string
		clusterIP  string
		nodePorts  []int32
	}{
		{"picked", `{"type":"NodePort","ports":[{"name":"a","port":80},{"name":"b","port":81}]}`, "10.0.0.0", []int32{32769, 32770}},
		{"after one asked for", `{"type":"NodePort","ports":[{"name":"a","port":80,"nodePort":30100},{"name":"b","port":81}]}`, "10.0.0.0", []int32{30100, 30101}},
		{"out of the range", `{"type":"NodePort","ports":[{"port":80,"nodePort":80}]}`, "10.0.0.0", []int32{80}},
	} {
		t.Run("a dry run's allocation, "+tc.name, func(t *testing.T) {
			code, _, out := rawRequest(t, cp, "POST", svcs+"?dryRun=All", "application/json", []byte(svc("dry", tc.spec)), nil)
			var got corev1.Service
			if err := json.Unmarshal(out, &got); code != 201 || err != nil {
				t.Fatalf("%d %v: %s", code, err, out)
			}
			var ports []int32
			for _, p := range got.Spec.Ports {
				ports = append(ports, p.NodePort)
			}
			if got.Spec.ClusterIP != tc.clusterIP || len(ports) != len(tc.nodePorts) || (len(ports) > 0 && ports[0] != tc.nodePorts[0]) || ports[len(ports)-1] != tc.nodePorts[len(tc.nodePorts)-1] {
				t.Errorf("clusterIP %s, node ports %v; want %s, %v", got.Spec.ClusterIP, ports, tc.clusterIP, tc.nodePorts)
			}
		})
	}
}

// TestServiceNodePortRangeAsKubeAPIServer allocates node ports from a
// --service-node-port-range of two ports, as a real v1.37 kube-apiserver
// (refplane, restarted with --service-node-port-range=31000-31001)
// answered: the range is used up, a port outside it is refused with the
// range in the message, and a dry run answers its placeholder ports.
func TestServiceNodePortRangeAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithServiceNodePortRange("31000-31001"))
	svcs := "/api/v1/namespaces/default/services"
	nodePort := func(name, ports string) string {
		return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + name + `"},"spec":{"type":"NodePort","ports":` + ports + `}}`
	}
	runWriteCases(t, cp, []writeCase{
		{"a port outside the range", "POST", svcs, nodePort("np-f", `[{"port":80,"nodePort":30000}]`), 422,
			`Service "np-f" is invalid: spec.ports[0].nodePort: Invalid value: 30000: provided port is not in the valid range. The range of valid ports is 31000-31001`},
		{"the first port", "POST", svcs, nodePort("np-a", `[{"port":80}]`), 201, ""},
		{"the second port", "POST", svcs, nodePort("np-b", `[{"port":80}]`), 201, ""},
		{"none left", "POST", svcs, nodePort("np-c", `[{"port":80}]`), 500, "Internal error occurred: failed to allocate a nodePort: range is full"},
		{"a dry run outside the range", "POST", svcs + "?dryRun=All", nodePort("np-d", `[{"port":80,"nodePort":30000}]`), 201, ""},
	})
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	var got []int32
	for _, name := range []string{"np-a", "np-b"} {
		s, err := client.CoreV1().Services("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Spec.Ports[0].NodePort)
	}
	slices.Sort(got)
	if !slices.Equal(got, []int32{31000, 31001}) {
		t.Errorf("node ports %v, want 31000 and 31001", got)
	}
	dry, err := client.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "np-e"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		Ports: []corev1.ServicePort{{Name: "a", Port: 80}, {Name: "b", Port: 81, NodePort: 31005}, {Name: "c", Port: 82}}}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if got := []int32{dry.Spec.Ports[0].NodePort, dry.Spec.Ports[1].NodePort, dry.Spec.Ports[2].NodePort}; !slices.Equal(got, []int32{32769, 31005, 32770}) {
		t.Errorf("dry run's node ports %v, want kube-apiserver's 32769, 31005, 32770", got)
	}
	if _, err := fakeplane.New(fakeplane.WithServiceNodePortRange("31001-31000")); err == nil || !strings.Contains(err.Error(), "service-node-port-range") {
		t.Errorf("New with an inverted range: %v", err)
	}
}
