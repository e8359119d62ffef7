// Package clustertrustbundle holds the ClusterTrustBundle strategy: the flags of kube-apiserver's
// pkg/registry/certificates/clustertrustbundle strategy and storage, and its
// validation (upstream's ValidateClusterTrustBundle and
// ValidateClusterTrustBundleUpdate): the server checks the metadata with
// upstream's name rule (NameRule), the strategy the signer's name, its
// immutability and the trust bundle's PEM certificates (validation.go).
package clustertrustbundle

import (
	"context"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ClusterTrustBundle strategy.
var Strategy = clusterTrustBundleStrategy{strategy.Base{}}

type clusterTrustBundleStrategy struct{ strategy.Base }

// Validate checks a new ClusterTrustBundle's signer name and trust bundle.
func (clusterTrustBundleStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	signer, bundle := specOf(obj)
	return validateSpec(signer, bundle, true)
}

// ValidateUpdate checks an update as a new bundle, less the trust bundle
// when it is unchanged (upstream does not parse it again), then that the
// signer's name is unchanged.
func (clusterTrustBundleStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	signer, bundle := specOf(obj)
	oldSigner, oldBundle := specOf(old)
	errs := validateSpec(signer, bundle, bundle != oldBundle)
	return append(errs, validate.ImmutableField(signer, oldSigner, signerNamePath)...)
}

// specOf returns the signer's name and trust bundle of a ClusterTrustBundle
// of any version.
func specOf(obj runtime.Object) (signerName, trustBundle string) {
	switch b := obj.(type) {
	case *certificatesv1.ClusterTrustBundle:
		return b.Spec.SignerName, b.Spec.TrustBundle
	case *certificatesv1beta1.ClusterTrustBundle:
		return b.Spec.SignerName, b.Spec.TrustBundle
	}
	return "", ""
}

// NameRule is upstream's ClusterTrustBundle name rule: a bundle for a
// signer is named with the signer's name (its "/" as ":") and ":" before
// a DNS subdomain; one without a signer is a DNS subdomain without ":".
func (clusterTrustBundleStrategy) NameRule(obj runtime.Object) validation.ValidateNameFunc {
	signer, _ := specOf(obj)
	return func(name string, prefix bool) []string {
		if signer == "" {
			if strings.Contains(name, ":") {
				return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
			}
			return validation.NameIsDNSSubdomain(name, prefix)
		}
		required := strings.ReplaceAll(signer, "/", ":") + ":"
		if !strings.HasPrefix(name, required) {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signer, required)}
		}
		return validation.NameIsDNSSubdomain(strings.TrimPrefix(name, required), prefix)
	}
}
