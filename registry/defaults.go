package registry

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/crd"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Built-in defaulting: the values kube-apiserver's defaulting functions put
// into the built-in types people create most, so that an object read back
// equals what a cluster stores, for the built-in types whose strategy does
// not default them yet (pods and workloads default in their strategies,
// registry/core/pod and the others).

// Defaults sets the upstream defaults of a decoded object of the resource:
// its strategy's when it has them, else those of applyDefaults.
func (r *Resource) Defaults(obj runtime.Object) {
	if st, ok := For(r.GR); ok {
		if d, ok := st.(strategy.Defaulter); ok {
			d.Default(obj)
			return
		}
	}
	applyDefaults(obj)
}

// applyDefaults sets the upstream defaults of a decoded built-in object.
func applyDefaults(obj runtime.Object) {
	applyMoreDefaults(obj)
	switch o := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		// Decoding defaults a CRD (spec.conversion and the rest), before
		// its managedFields are recorded: the writer owns the defaults.
		crd.Default(o)
	case *authenticationv1.TokenRequest:
		// SetDefaults_TokenRequestSpec: an hour.
		if o.Spec.ExpirationSeconds == nil {
			hour := int64(3600)
			o.Spec.ExpirationSeconds = &hour
		}
	case *corev1.Secret:
		// Upstream's conversion to the internal type writes stringData
		// over data; the type defaults to Opaque.
		for k, v := range o.StringData {
			if o.Data == nil {
				o.Data = map[string][]byte{}
			}
			o.Data[k] = []byte(v)
		}
		o.StringData = nil
		if o.Type == "" {
			o.Type = corev1.SecretTypeOpaque
		}
	}
}
