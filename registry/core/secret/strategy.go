// Package secret holds the Secret strategy: kube-apiserver's
// pkg/registry/core/secret rules.
package secret

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Secret strategy.
var Strategy = secretStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true}}

type secretStrategy struct{ strategy.Base }

// Validate checks a new Secret's keys, size and the keys its type requires.
func (secretStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateSecret(obj.(*corev1.Secret))
}

// ValidateUpdate also keeps the type, and an immutable Secret's data.
func (secretStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*corev1.Secret), old.(*corev1.Secret)
	var errs field.ErrorList
	errs = append(errs, validate.ImmutableField(n.Type, p.Type, field.NewPath("type"))...)
	errs = append(errs, validate.ImmutableData(n.Immutable, p.Immutable,
		validate.Kept{Path: field.NewPath("data"), New: n.Data, Old: p.Data})...)
	return append(errs, validateSecret(n)...)
}

func validateSecret(sec *corev1.Secret) field.ErrorList {
	var errs field.ErrorList
	data := field.NewPath("data")
	size := 0
	for _, k := range validate.SortedKeys(sec.Data) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(data.Key(k), k, msg))
		}
		size += len(sec.Data[k])
	}
	if size > validate.MaxConfigSize {
		errs = append(errs, field.TooLong(data, "", validate.MaxConfigSize))
	}
	jsonKey := func(key string) {
		b, ok := sec.Data[key]
		if !ok {
			errs = append(errs, field.Required(data.Key(key), ""))
			return
		}
		if err := json.Unmarshal(b, &map[string]any{}); err != nil {
			errs = append(errs, field.Invalid(data.Key(key), "<secret contents redacted>", err.Error()))
		}
	}
	switch sec.Type {
	case corev1.SecretTypeServiceAccountToken:
		if sec.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		jsonKey(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		jsonKey(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, user := sec.Data[corev1.BasicAuthUsernameKey]
		_, pass := sec.Data[corev1.BasicAuthPasswordKey]
		if !user && !pass {
			errs = append(errs, field.Required(data.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(data.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(sec.Data[corev1.SSHAuthPrivateKey]) == 0 {
			errs = append(errs, field.Required(data.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		if _, ok := sec.Data[corev1.TLSCertKey]; !ok {
			errs = append(errs, field.Required(data.Key(corev1.TLSCertKey), ""))
		}
		if _, ok := sec.Data[corev1.TLSPrivateKeyKey]; !ok {
			errs = append(errs, field.Required(data.Key(corev1.TLSPrivateKeyKey), ""))
		}
	}
	return errs
}
