package secret

import (
	"context"
	"crypto/tls"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WarningsOnCreate returns upstream's warning for a new Secret
// (warningsForSecret): a TLS secret whose certificate and key do not make
// a key pair.
func (secretStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return secretWarnings(obj.(*corev1.Secret))
}

// WarningsOnUpdate returns the same warning for the updated Secret.
func (secretStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return secretWarnings(obj.(*corev1.Secret))
}

// secretWarnings is upstream's warningsForSecret: the error crypto/tls
// gives for a kubernetes.io/tls secret's tls.crt and tls.key.
func secretWarnings(s *corev1.Secret) []string {
	if s.Type != corev1.SecretTypeTLS {
		return nil
	}
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		return []string{err.Error()}
	}
	return nil
}
