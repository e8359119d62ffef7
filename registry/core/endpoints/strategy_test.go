package endpoints

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEndpointsStrategyDefaultsTheProtocol(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto corev1.Protocol
		want  corev1.Protocol
	}{
		{name: "defaulted", want: corev1.ProtocolTCP},
		{name: "kept", proto: corev1.ProtocolUDP, want: corev1.ProtocolUDP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{
				Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}},
				Ports:     []corev1.EndpointPort{{Port: 53, Protocol: tc.proto}},
			}}}
			Strategy.Default(ep)
			if got := ep.Subsets[0].Ports[0].Protocol; got != tc.want {
				t.Errorf("protocol %q, want %q", got, tc.want)
			}
			if errs := Strategy.Validate(context.Background(), ep); len(errs) != 0 {
				t.Errorf("errors: %v", errs)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestEndpointsSubsetsAreValidatedAsUpstream(t *testing.T) {
	addr := func(ip string) []corev1.EndpointAddress { return []corev1.EndpointAddress{{IP: ip}} }
	tcp := func(name string, port int32) corev1.EndpointPort {
		return corev1.EndpointPort{Name: name, Port: port, Protocol: corev1.ProtocolTCP}
	}
	for _, tc := range []struct {
		name    string
		subsets []corev1.EndpointSubset
		want    []string
	}{
		{name: "a subset with an address and a port is valid", subsets: []corev1.EndpointSubset{{Addresses: addr("10.1.2.3"), Ports: []corev1.EndpointPort{tcp("", 80)}}}},
		{name: "a subset without addresses", subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{tcp("", 80)}}},
			want: []string{"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`"}},
		{name: "not an IP", subsets: []corev1.EndpointSubset{{Addresses: addr("nope")}},
			want: []string{
				`subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
				`subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address`,
			}},
		{name: "loopback, unspecified and link-local IPs", subsets: []corev1.EndpointSubset{{
			Addresses:         addr("127.0.0.1"),
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "0.0.0.0"}, {IP: "169.254.1.1"}, {IP: "224.0.0.1"}},
		}},
			want: []string{
				`subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
				`subsets[0].notReadyAddresses[0].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
				`subsets[0].notReadyAddresses[1].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
				`subsets[0].notReadyAddresses[2].ip: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`,
			}},
		{name: "a hostname and a node name that are not names", subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1", Hostname: "A_B", NodeName: ptr("N_1")}},
		}},
			want: []string{
				`subsets[0].addresses[0].hostname: Invalid value: "A_B": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`subsets[0].addresses[0].nodeName: Invalid value: "N_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			}},
		{name: "several ports must be named; port, protocol and appProtocol", subsets: []corev1.EndpointSubset{{
			Addresses: addr("10.0.0.1"),
			Ports: []corev1.EndpointPort{
				{Port: 0, Protocol: "HTTP"},
				{Name: "b", Port: 80, AppProtocol: ptr("a/b/c")},
			},
		}},
			want: []string{
				`subsets[0].ports[0].name: Required value`,
				`subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`,
				`subsets[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
				`subsets[0].ports[1].protocol: Required value`,
				`subsets[0].ports[1].appProtocol: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Strategy.Validate(context.Background(), &corev1.Endpoints{Subsets: tc.subsets}) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("errors:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
}

func TestEndpointsUpdateKeepsSubsetsThatDidNotChange(t *testing.T) {
	old := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "127.0.0.1"}}}}}
	same := old.DeepCopy()
	same.Labels = map[string]string{"a": "b"}
	if errs := Strategy.ValidateUpdate(context.Background(), same, old); len(errs) != 0 {
		t.Errorf("an update that keeps stored subsets: %v", errs)
	}
	changed := old.DeepCopy()
	changed.Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "10.0.0.2"}}
	if errs := Strategy.ValidateUpdate(context.Background(), changed, old); len(errs) != 1 {
		t.Errorf("an update that changes invalid subsets: %v, want the loopback error", errs)
	}
}

func TestEndpointsWarnAboutNonStandardIPs(t *testing.T) {
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{
		Addresses:         []corev1.EndpointAddress{{IP: "10.0.0.1"}, {IP: "2001:db8:0::1"}},
		NotReadyAddresses: []corev1.EndpointAddress{{IP: "::ffff:10.0.0.3"}},
	}}}
	want := []string{
		`subsets[0].addresses[1].ip: IPv6 address "2001:db8:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`,
		`subsets[0].notReadyAddresses[0].ip: non-standard IP address "::ffff:10.0.0.3" is invalid: use "10.0.0.3"`,
	}
	if got := Strategy.WarningsOnCreate(context.Background(), ep); !reflect.DeepEqual(got, want) {
		t.Errorf("create warnings:\n%q\nwant:\n%q", got, want)
	}
	if got := Strategy.WarningsOnUpdate(context.Background(), ep, ep); !reflect.DeepEqual(got, want) {
		t.Errorf("update warnings:\n%q\nwant:\n%q", got, want)
	}
	ep.ObjectMeta = metav1.ObjectMeta{Labels: map[string]string{"endpoints.kubernetes.io/managed-by": "endpoint-controller"}}
	if got := Strategy.WarningsOnCreate(context.Background(), ep); got != nil {
		t.Errorf("the controller's own Endpoints: %q, want none", got)
	}
}
