package ingressclass

import (
	"context"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
)

// TestIngressClassStrategy checks the default scope of parameters, and that
// a class so defaulted is valid.
func TestIngressClassStrategy(t *testing.T) {
	for _, tc := range []struct {
		name      string
		class     *networkingv1.IngressClass
		wantScope string
	}{
		{name: "no parameters", class: &networkingv1.IngressClass{Spec: networkingv1.IngressClassSpec{Controller: "example.com/x"}}},
		{name: "parameters", class: &networkingv1.IngressClass{Spec: networkingv1.IngressClassSpec{Controller: "example.com/x", Parameters: &networkingv1.IngressClassParametersReference{Kind: "K", Name: "n"}}}, wantScope: "Cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.class)
			scope := ""
			if p := tc.class.Spec.Parameters; p != nil && p.Scope != nil {
				scope = *p.Scope
			}
			if scope != tc.wantScope {
				t.Errorf("scope %q, want %q", scope, tc.wantScope)
			}
			if errs := Strategy.Validate(context.Background(), tc.class); len(errs) != 0 {
				t.Errorf("errors: %v", errs)
			}
		})
	}
}
