package endpointslice

import (
	"context"
	"slices"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEndpointSliceWarnings(t *testing.T) {
	badIPs := []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}, {Addresses: []string{"10.0.0.2", "010.0.0.3"}}}
	for _, tc := range []struct {
		name        string
		addressType discoveryv1.AddressType
		managedBy   string
		endpoints   []discoveryv1.Endpoint
		wantCreate  []string
		wantUpdate  []string
	}{
		{name: "standard IPv4 addresses warn of nothing", addressType: discoveryv1.AddressTypeIPv4, endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}}},
		{name: "non-standard IPv4 address (which only an older stored slice can hold)", addressType: discoveryv1.AddressTypeIPv4, endpoints: badIPs,
			wantCreate: []string{`endpoints[1].addresses[1]: non-standard IP address "010.0.0.3" is invalid: use "10.0.0.3"`},
			wantUpdate: []string{`endpoints[1].addresses[1]: non-standard IP address "010.0.0.3" is invalid: use "10.0.0.3"`}},
		{name: "non-canonical IPv6 address", addressType: discoveryv1.AddressTypeIPv6, endpoints: []discoveryv1.Endpoint{{Addresses: []string{"2001:db8:0::1"}}},
			wantCreate: []string{`endpoints[0].addresses[0]: IPv6 address "2001:db8:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`},
			wantUpdate: []string{`endpoints[0].addresses[0]: IPv6 address "2001:db8:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`}},
		{name: "slice of the EndpointSlice controller is not checked", addressType: discoveryv1.AddressTypeIPv4, managedBy: "endpointslice-controller.k8s.io", endpoints: badIPs},
		{name: "slice of the mirroring controller is not checked", addressType: discoveryv1.AddressTypeIPv4, managedBy: "endpointslicemirroring-controller.k8s.io", endpoints: badIPs},
		{name: "slice of another manager is checked", addressType: discoveryv1.AddressTypeIPv4, managedBy: "example.com/mine", endpoints: badIPs,
			wantCreate: []string{`endpoints[1].addresses[1]: non-standard IP address "010.0.0.3" is invalid: use "10.0.0.3"`},
			wantUpdate: []string{`endpoints[1].addresses[1]: non-standard IP address "010.0.0.3" is invalid: use "10.0.0.3"`}},
		{name: "FQDN address type is deprecated on create", addressType: discoveryv1.AddressTypeFQDN, endpoints: []discoveryv1.Endpoint{{Addresses: []string{"a.example.com"}}},
			wantCreate: []string{"spec.addressType: FQDN endpoints are deprecated"}},
		{name: "FQDN address that parses as an IP", addressType: discoveryv1.AddressTypeFQDN, endpoints: []discoveryv1.Endpoint{{Addresses: []string{"010.1.2.3"}}},
			wantCreate: []string{"spec.addressType: FQDN endpoints are deprecated", `endpoints[0].addresses[0]: non-standard IP address "010.1.2.3" is invalid: use "10.1.2.3"`},
			wantUpdate: []string{`endpoints[0].addresses[0]: non-standard IP address "010.1.2.3" is invalid: use "10.1.2.3"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := &discoveryv1.EndpointSlice{AddressType: tc.addressType, Endpoints: tc.endpoints}
			if tc.managedBy != "" {
				es.ObjectMeta = metav1.ObjectMeta{Labels: map[string]string{"endpointslice.kubernetes.io/managed-by": tc.managedBy}}
			}
			if got := Strategy.WarningsOnCreate(context.Background(), es); !slices.Equal(got, tc.wantCreate) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.wantCreate)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), es, es.DeepCopy()); !slices.Equal(got, tc.wantUpdate) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.wantUpdate)
			}
		})
	}
}
