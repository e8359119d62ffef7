package validate

import (
	"context"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// authorizerKey is the context key of the server's authorizer.
type authorizerKey struct{}

// WithAuthorizer returns ctx carrying authz, the server's authorizer, for
// the strategies whose validation asks it (as upstream's
// PodCertificateRequest status strategy asks about the "sign" verb). A nil
// authz leaves ctx as it is.
func WithAuthorizer(ctx context.Context, authz authorizer.Authorizer) context.Context {
	if authz == nil {
		return ctx
	}
	return context.WithValue(ctx, authorizerKey{}, authz)
}

// AuthorizerFrom returns the authorizer WithAuthorizer put in ctx, or nil
// when the server has none (then there is no authorization to ask).
func AuthorizerFrom(ctx context.Context) authorizer.Authorizer {
	a, _ := ctx.Value(authorizerKey{}).(authorizer.Authorizer)
	return a
}
