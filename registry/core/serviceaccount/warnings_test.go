package serviceaccount

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestServiceAccountWarnings(t *testing.T) {
	const warning = "metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets"
	withAnnotation := func(v string) *corev1.ServiceAccount {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa", Annotations: map[string]string{"kubernetes.io/enforce-mountable-secrets": v}}}
	}
	plain := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa", Annotations: map[string]string{"other": "x"}}}
	for _, tc := range []struct {
		name    string
		sa, old *corev1.ServiceAccount
		want    []string
	}{
		{name: "create without the annotation", sa: plain},
		{name: "create with the annotation", sa: withAnnotation("true"), want: []string{warning}},
		{name: "create with the annotation false", sa: withAnnotation("false"), want: []string{warning}},
		{name: "update that adds the annotation", sa: withAnnotation("true"), old: plain, want: []string{warning}},
		{name: "update that keeps the annotation", sa: withAnnotation("true"), old: withAnnotation("true")},
		{name: "update that changes the annotation's value", sa: withAnnotation("false"), old: withAnnotation("true")},
		{name: "update that removes the annotation", sa: plain, old: withAnnotation("true")},
		{name: "update without the annotation", sa: plain, old: plain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			if tc.old == nil {
				got = Strategy.WarningsOnCreate(context.Background(), tc.sa)
			} else {
				got = Strategy.WarningsOnUpdate(context.Background(), tc.sa, tc.old)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
