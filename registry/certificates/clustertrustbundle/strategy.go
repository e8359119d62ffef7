// Package clustertrustbundle holds the ClusterTrustBundle strategy: the flags of kube-apiserver's
// pkg/registry/certificates/clustertrustbundle strategy and storage. Its validation is the
// object metadata validation the server runs for every resource, with
// upstream's name rule (NameRule); upstream's rules for the rest of a
// ClusterTrustBundle are not reimplemented.
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

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ClusterTrustBundle strategy.
var Strategy = clusterTrustBundleStrategy{strategy.Base{}}

type clusterTrustBundleStrategy struct{ strategy.Base }

// Validate adds nothing to the metadata validation of a new ClusterTrustBundle.
func (clusterTrustBundleStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return nil
}

// ValidateUpdate adds nothing to the metadata validation of an update.
func (clusterTrustBundleStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// NameRule is upstream's ClusterTrustBundle name rule: a bundle for a
// signer is named with the signer's name (its "/" as ":") and ":" before
// a DNS subdomain; one without a signer is a DNS subdomain without ":".
func (clusterTrustBundleStrategy) NameRule(obj runtime.Object) validation.ValidateNameFunc {
	var signer string
	switch b := obj.(type) {
	case *certificatesv1.ClusterTrustBundle:
		signer = b.Spec.SignerName
	case *certificatesv1beta1.ClusterTrustBundle:
		signer = b.Spec.SignerName
	}
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
