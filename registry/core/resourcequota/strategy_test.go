package resourcequota

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestResourceQuotaStrategy(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec corev1.ResourceQuotaSpec
		want []string
	}{
		{name: "valid", spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": resource.MustParse("10"), "requests.cpu": resource.MustParse("1")}}},
		{name: "not a quota resource", spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"storage": resource.MustParse("1")}},
			want: []string{`spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota`}},
		{name: "conflicting scopes", spec: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"BestEffort", "NotBestEffort"}},
			want: []string{`spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &corev1.ResourceQuota{Spec: tc.spec}
			var got []string
			for _, e := range Strategy.ValidateUpdate(context.Background(), q, q) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestResourceQuotaScopesImmutable(t *testing.T) {
	sel := func(scope corev1.ResourceQuotaScope) *corev1.ScopeSelector {
		return &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{ScopeName: scope, Operator: corev1.ScopeSelectorOpExists}}}
	}
	for _, tc := range []struct {
		name     string
		old, new corev1.ResourceQuotaSpec
		want     []string
	}{
		{name: "scopes changed", old: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"BestEffort"}},
			new:  corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"NotBestEffort"}},
			want: []string{`spec.scopes: Invalid value: ["NotBestEffort"]: field is immutable`}},
		{name: "scopes removed", old: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"BestEffort"}},
			want: []string{`spec.scopes: Invalid value: null: field is immutable`}},
		{name: "scopes added", new: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"BestEffort"}},
			want: []string{`spec.scopes: Invalid value: ["BestEffort"]: field is immutable`}},
		{name: "same scopes in another order", old: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"Terminating", "BestEffort"}},
			new: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"BestEffort", "Terminating"}}},
		{name: "scope selector may change", old: corev1.ResourceQuotaSpec{ScopeSelector: sel("BestEffort")},
			new: corev1.ResourceQuotaSpec{ScopeSelector: sel("NotBestEffort")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Strategy.ValidateUpdate(context.Background(), &corev1.ResourceQuota{Spec: tc.new}, &corev1.ResourceQuota{Spec: tc.old}) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
