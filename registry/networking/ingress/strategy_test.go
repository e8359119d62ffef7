package ingress

import (
	"context"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/utils/ptr"
)

func TestIngressStrategy(t *testing.T) {
	backend := &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "s", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	rule := func(path string, pt networkingv1.PathType) networkingv1.IngressRule {
		return networkingv1.IngressRule{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: ptr.To(pt), Backend: *backend}},
		}}}
	}
	for _, tc := range []struct {
		name string
		spec networkingv1.IngressSpec
		want []string
	}{
		{name: "default backend", spec: networkingv1.IngressSpec{DefaultBackend: backend}},
		{name: "prefix path", spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{rule("/a", networkingv1.PathTypePrefix)}}},
		{name: "empty", want: []string{"spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"}},
		{name: "relative path", spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{rule("a", networkingv1.PathTypePrefix)}},
			want: []string{`spec.rules[0].http.paths[0].path: Invalid value: "a": must be an absolute path`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ing := &networkingv1.Ingress{Spec: tc.spec}
			var got []string
			for _, e := range Strategy.ValidateUpdate(context.Background(), ing, ing) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
