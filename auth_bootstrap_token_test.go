package fakeplane_test

import (
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// With --enable-bootstrap-token-auth (WithBootstrapTokenAuth), a bootstrap
// token authenticates as its Secret in kube-system says, as kubeadm's
// kube-apiserver does; an expired one, or any without the flag, gets 401.
func TestBootstrapTokenAuthentication(t *testing.T) {
	t.Parallel()
	bootstrapSecret := func(id string, data map[string]string) *corev1.Secret {
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "bootstrap-token-" + id},
			Type:       "bootstrap.kubernetes.io/token",
			StringData: map[string]string{"token-id": id, "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true"},
		}
		for k, v := range data {
			s.StringData[k] = v
		}
		return s
	}
	for _, tc := range []struct {
		name string
		opts []fakeplane.Option
		want *authenticationv1.UserInfo // nil: 401
	}{
		{name: "on", opts: []fakeplane.Option{fakeplane.WithBootstrapTokenAuth()}, want: &authenticationv1.UserInfo{
			Username: "system:bootstrap:abcdef",
			Groups:   []string{"system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token", "system:authenticated"},
		}},
		{name: "off by default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			admin := kubernetesClient(t, cp)
			ctx := ctxT(t)
			for _, s := range []*corev1.Secret{
				bootstrapSecret("abcdef", map[string]string{
					"auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token",
					"expiration":        time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
				}),
				bootstrapSecret("expird", map[string]string{"expiration": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}),
			} {
				if _, err := admin.CoreV1().Secrets("kube-system").Create(ctx, s, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := whoAmI(ctx, tokenClient(cp, "abcdef.0123456789abcdef"))
			switch {
			case tc.want == nil && !apierrors.IsUnauthorized(err):
				t.Fatalf("got %v %v, want 401", got, err)
			case tc.want != nil && err != nil:
				t.Fatal(err)
			case tc.want != nil && (got.Username != tc.want.Username || !slices.Equal(got.Groups, tc.want.Groups) || got.UID != "" || len(got.Extra) != 0):
				t.Fatalf("got %+v, want %+v", got, *tc.want)
			}
			if _, err := whoAmI(ctx, tokenClient(cp, "expird.0123456789abcdef")); !apierrors.IsUnauthorized(err) {
				t.Fatalf("an expired token: %v, want 401", err)
			}
		})
	}
}
