package endpoints

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestEndpointsStrategy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto corev1.Protocol
		want  corev1.Protocol
	}{
		{name: "defaulted", want: corev1.ProtocolTCP},
		{name: "kept", proto: corev1.ProtocolUDP, want: corev1.ProtocolUDP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Port: 53, Protocol: tc.proto}}}}}
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
