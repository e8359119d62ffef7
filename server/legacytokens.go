package server

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/registry"
)

// tokenObjectGetter is what service-account tokens read: ServiceAccounts,
// Secrets, Pods and Nodes.
type tokenObjectGetter interface {
	auth.Getter
	auth.NodeGetter
}

// tokenObjects is what the service-account token authenticator reads, and
// the one write kube-apiserver's makes: the last-used label of a legacy
// token's Secret, written as the API server itself.
type tokenObjects struct {
	tokenObjectGetter
	api registry.Interface
}

var _ auth.SecretLabeler = tokenObjects{}

// LabelSecret sets label key to value on Secret ns/name if its UID is
// still uid, as kube-apiserver's loopback client patches it (user
// system:apiserver, field manager kube-apiserver). The write does not share
// the authenticated request's context: its warnings and cancellation are
// not the client's.
func (o tokenObjects) LabelSecret(_ context.Context, ns, name string, uid types.UID, key, value string) error {
	u := &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}}
	ctx := registry.WithFieldManager(apirequest.WithUser(context.Background(), u), "kube-apiserver")
	err := registry.SetLabel(ctx, o.api, corev1.SchemeGroupVersion.WithResource("secrets"), ns, name, uid, key, value)
	if err != nil {
		return fmt.Errorf("label secret %s/%s: %w", ns, name, err)
	}
	return nil
}
