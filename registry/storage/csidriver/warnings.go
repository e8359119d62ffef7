package csidriver

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

// tokenInSecretsWarning is upstream's warning for a driver that asks for
// service account tokens and does not say where they go.
const tokenInSecretsWarning = "spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to true to prevent possible logging of tokens in volume attributes"

// WarningsOnCreate returns upstream's warning for a new CSIDriver with
// token requests and no serviceAccountTokenInSecrets (its
// CSIServiceAccountTokenSecrets gate is GA in v1.37).
func (csiDriverStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	spec := &obj.(*storagev1.CSIDriver).Spec
	if len(spec.TokenRequests) > 0 && spec.ServiceAccountTokenInSecrets == nil {
		return []string{tokenInSecretsWarning}
	}
	return nil
}

// WarningsOnUpdate returns it for an update that changes the token
// requests, as upstream: one that keeps them is not warned about.
func (csiDriverStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	spec, was := &obj.(*storagev1.CSIDriver).Spec, &old.(*storagev1.CSIDriver).Spec
	if len(spec.TokenRequests) > 0 && spec.ServiceAccountTokenInSecrets == nil &&
		!apiequality.Semantic.DeepEqual(was.TokenRequests, spec.TokenRequests) {
		return []string{tokenInSecretsWarning}
	}
	return nil
}
