package admission

import (
	"context"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// AuthorizedForSigner reports whether authz lets u do verb (approve,
// sign, attest) on the synthetic certificates.k8s.io resource "signers"
// named signerName, or else on its domain's wildcard ("example.com/*"
// for "example.com/signer"), as kube-apiserver's certificate plugins ask.
// An authorizer's error counts as a refusal.
func AuthorizedForSigner(ctx context.Context, authz authorizer.Authorizer, u user.Info, verb, signerName string) bool {
	domain, _, _ := strings.Cut(signerName, "/")
	for _, name := range []string{signerName, domain + "/*"} {
		decision, _, err := authz.Authorize(ctx, authorizer.AttributesRecord{
			User:            u,
			Verb:            verb,
			Name:            name,
			APIGroup:        "certificates.k8s.io",
			APIVersion:      "*",
			Resource:        "signers",
			ResourceRequest: true,
		})
		if err == nil && decision == authorizer.DecisionAllow {
			return true
		}
	}
	return false
}
