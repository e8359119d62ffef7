package fakeplane_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// A Secret-based service-account token is valid while its Secret and
// ServiceAccount are there, as kube-apiserver's --service-account-lookup
// (default true) has it; with --service-account-lookup=false its signature
// and claims are enough, so it outlives both.
func TestServiceAccountLookup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		opts      []fakeplane.Option
		validGone bool // the token still authenticates once its objects are gone
	}{
		{name: "lookup by default"},
		{name: "no lookup", opts: []fakeplane.Option{fakeplane.WithServiceAccountLookup(false)}, validGone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			admin := clientset(t, cp)
			ctx := ctxT(t)
			if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := admin.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: "robot-token", Annotations: map[string]string{corev1.ServiceAccountNameKey: "robot"}},
				Type:       corev1.SecretTypeServiceAccountToken,
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			var token string
			eventuallyT(t, "the token controller's token", func(ctx context.Context) (bool, error) {
				s, err := admin.CoreV1().Secrets("default").Get(ctx, "robot-token", metav1.GetOptions{})
				token = string(s.Data[corev1.ServiceAccountTokenKey])
				return token != "", err
			})
			if err := admin.CoreV1().Secrets("default").Delete(ctx, "robot-token", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := admin.CoreV1().ServiceAccounts("default").Delete(ctx, "robot", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			got, err := whoAmI(ctx, tokenClient(cp, token))
			switch {
			case tc.validGone && err != nil:
				t.Fatalf("the token of deleted objects: %v, want it valid", err)
			case tc.validGone && got.Username != "system:serviceaccount:default:robot":
				t.Fatalf("the token of deleted objects is %q", got.Username)
			case !tc.validGone && !apierrors.IsUnauthorized(err):
				t.Fatalf("the token of deleted objects: %v %v, want 401", got, err)
			}
		})
	}
}
