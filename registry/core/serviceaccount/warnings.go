package serviceaccount

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// enforceMountableSecretsAnnotation is the annotation of upstream's
// ServiceAccount admission plugin that limits a pod's secrets to the
// account's.
const enforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"

// WarningsOnCreate returns upstream's warning for a new ServiceAccount with
// the enforce-mountable-secrets annotation.
func (serviceAccountStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return mountableSecretsWarnings(obj.(*corev1.ServiceAccount), nil)
}

// WarningsOnUpdate returns it for an update that adds the annotation: one
// that keeps it is not warned about.
func (serviceAccountStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	return mountableSecretsWarnings(obj.(*corev1.ServiceAccount), old.(*corev1.ServiceAccount))
}

// mountableSecretsWarnings is upstream's
// warnIfHasEnforceMountableSecretsAnnotation (old nil on create).
func mountableSecretsWarnings(sa, old *corev1.ServiceAccount) []string {
	if old != nil {
		if _, ok := old.Annotations[enforceMountableSecretsAnnotation]; ok {
			return nil
		}
	}
	if _, ok := sa.Annotations[enforceMountableSecretsAnnotation]; !ok {
		return nil
	}
	return []string{fmt.Sprintf("metadata.annotations[%s]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets", enforceMountableSecretsAnnotation)}
}
