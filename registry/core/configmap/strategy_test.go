package configmap

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestConfigMapStrategy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		cm, old  *corev1.ConfigMap
		wantErrs []string
	}{
		{name: "valid keys", cm: &corev1.ConfigMap{Data: map[string]string{"a.b": "x"}, BinaryData: map[string][]byte{"c": nil}}},
		{name: "bad key", cm: &corev1.ConfigMap{Data: map[string]string{"a/b": "x"}},
			wantErrs: []string{`data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`}},
		{name: "key in data and binaryData", cm: &corev1.ConfigMap{Data: map[string]string{"k": "x"}, BinaryData: map[string][]byte{"k": nil}},
			wantErrs: []string{`data[k]: Invalid value: "k": duplicate of key present in binaryData`}},
		{name: "too large", cm: &corev1.ConfigMap{Data: map[string]string{"k": strings.Repeat("x", 1<<20+1)}},
			wantErrs: []string{`[]: Too long: may not be more than 1048576 bytes`}},
		{name: "immutable data changed", old: &corev1.ConfigMap{Immutable: ptr.To(true), Data: map[string]string{"k": "1"}},
			cm:       &corev1.ConfigMap{Immutable: ptr.To(true), Data: map[string]string{"k": "2"}},
			wantErrs: []string{"data: Forbidden: field is immutable when `immutable` is set"}},
		{name: "immutable unset", old: &corev1.ConfigMap{Immutable: ptr.To(true)}, cm: &corev1.ConfigMap{},
			wantErrs: []string{"immutable: Forbidden: field is immutable when `immutable` is set"}},
		{name: "mutable data changed", old: &corev1.ConfigMap{Data: map[string]string{"k": "1"}}, cm: &corev1.ConfigMap{Data: map[string]string{"k": "2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := Strategy.Validate(ctx, tc.cm)
			if tc.old != nil {
				errs = Strategy.ValidateUpdate(ctx, tc.cm, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.wantErrs)
		})
	}
}
