package auth

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestBootstrapTokensAuthenticateAsKubeAPIServer(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	secret := func(id string, edit func(s *corev1.Secret)) *corev1.Secret {
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "bootstrap-token-" + id},
			Type:       "bootstrap.kubernetes.io/token",
			Data: map[string][]byte{
				"token-id": []byte(id), "token-secret": []byte("0123456789abcdef"),
				"usage-bootstrap-authentication": []byte("true"),
			},
		}
		if edit != nil {
			edit(s)
		}
		return s
	}
	secrets := map[string]*corev1.Secret{}
	add := func(s *corev1.Secret) { secrets[s.Name] = s }
	add(secret("valid1", nil))
	add(secret("groups", func(s *corev1.Secret) {
		s.Data["auth-extra-groups"] = []byte("system:bootstrappers:kubeadm:default-node-token,system:bootstrappers:other")
	}))
	add(secret("future", func(s *corev1.Secret) { s.Data["expiration"] = []byte(now.Add(time.Hour).Format(time.RFC3339)) }))
	add(secret("expird", func(s *corev1.Secret) { s.Data["expiration"] = []byte(now.Add(-time.Second).Format(time.RFC3339)) }))
	add(secret("badexp", func(s *corev1.Secret) { s.Data["expiration"] = []byte("tomorrow") }))
	add(secret("notfor", func(s *corev1.Secret) { s.Data["usage-bootstrap-authentication"] = []byte("false") }))
	add(secret("nousag", func(s *corev1.Secret) { delete(s.Data, "usage-bootstrap-authentication") }))
	add(secret("badgrp", func(s *corev1.Secret) { s.Data["auth-extra-groups"] = []byte("system:masters") }))
	add(secret("gone00", func(s *corev1.Secret) { s.DeletionTimestamp = &metav1.Time{Time: now} }))
	add(secret("opaque", func(s *corev1.Secret) { s.Type = corev1.SecretTypeOpaque }))
	add(secret("idmiss", func(s *corev1.Secret) { s.Data["token-id"] = []byte("other0") }))
	failing := errors.New("store closed")
	b := &BootstrapTokens{Now: func() time.Time { return now }, Secret: func(ns, name string) (*corev1.Secret, error) {
		if name == "bootstrap-token-broken" {
			return nil, failing
		}
		if s, ok := secrets[name]; ok && ns == "kube-system" {
			return s, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
	}}
	for _, tc := range []struct {
		name, token string
		user        string // "" when not authenticated
		groups      []string
		err         error
	}{
		{name: "a valid token", token: "valid1.0123456789abcdef", user: "system:bootstrap:valid1", groups: []string{"system:bootstrappers"}},
		{name: "extra groups", token: "groups.0123456789abcdef", user: "system:bootstrap:groups",
			groups: []string{"system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token", "system:bootstrappers:other"}},
		{name: "expiring later", token: "future.0123456789abcdef", user: "system:bootstrap:future", groups: []string{"system:bootstrappers"}},
		{name: "expired", token: "expird.0123456789abcdef"},
		{name: "an expiration that does not parse", token: "badexp.0123456789abcdef"},
		{name: "not for authentication", token: "notfor.0123456789abcdef"},
		{name: "no usage", token: "nousag.0123456789abcdef"},
		{name: "an extra group outside system:bootstrappers", token: "badgrp.0123456789abcdef"},
		{name: "being deleted", token: "gone00.0123456789abcdef"},
		{name: "not of the bootstrap type", token: "opaque.0123456789abcdef"},
		{name: "its id not the token's", token: "idmiss.0123456789abcdef"},
		{name: "the wrong secret", token: "valid1.0123456789abcdee"},
		{name: "no such Secret", token: "nosuch.0123456789abcdef"},
		{name: "not a bootstrap token", token: "valid1.0123456789ABCDEF"},
		{name: "not a bootstrap token either", token: "eyJhbGciOiJSUzI1NiJ9.e30.sig"},
		{name: "the Secret cannot be read", token: "broken.0123456789abcdef", err: failing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, ok, err := b.AuthenticateToken(context.Background(), tc.token)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if ok != (tc.user != "") {
				t.Fatalf("authenticated %v, want %v", ok, tc.user != "")
			}
			if ok && (resp.User.GetName() != tc.user || !slices.Equal(resp.User.GetGroups(), tc.groups) || resp.User.GetUID() != "") {
				t.Fatalf("got %s %v %q, want %s %v", resp.User.GetName(), resp.User.GetGroups(), resp.User.GetUID(), tc.user, tc.groups)
			}
		})
	}
}
