package endpointslice

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
)

func TestEndpointSliceStrategy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		es, old *discoveryv1.EndpointSlice
		want    []string
	}{
		{name: "valid", es: &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}}, Ports: []discoveryv1.EndpointPort{{}}}},
		{name: "no address type", es: &discoveryv1.EndpointSlice{}, want: []string{"addressType: Required value"}},
		{name: "bad address", es: &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"x"}}}},
			want: []string{`endpoints[0].addresses[0]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{name: "IPv4 address with leading zeros (strict validation)", es: &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"010.0.0.1"}}}},
			want: []string{`endpoints[0].addresses[0]: Invalid value: "010.0.0.1": must not have leading 0s`}},
		{name: "address type changed", old: &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4}, es: &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv6},
			want: []string{`addressType: Invalid value: null: field is immutable`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.es)
			errs := Strategy.Validate(context.Background(), tc.es)
			if tc.old != nil {
				errs = Strategy.ValidateUpdate(context.Background(), tc.es, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
}
