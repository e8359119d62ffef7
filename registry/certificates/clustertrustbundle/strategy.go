// Package clustertrustbundle holds the ClusterTrustBundle strategy: the flags of kube-apiserver's
// pkg/registry/certificates/clustertrustbundle strategy and storage. Its validation is the
// object metadata validation the server runs for every resource; upstream's
// rules for the rest of a ClusterTrustBundle are not reimplemented.
package clustertrustbundle

import (
	"context"

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
