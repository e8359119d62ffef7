package fakeplane_test

import (
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
