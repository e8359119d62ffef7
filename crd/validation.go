package crd

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// scheme converts CRDs and their schemas between v1 and the internal
// version that upstream's validation and schema packages take. Built once,
// read afterwards.
var scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
})

// Default applies to def the defaults kube-apiserver applies to a
// CustomResourceDefinition it decodes (upstream's generated
// SetObjectDefaults).
func Default(def *apiextensionsv1.CustomResourceDefinition) {
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(def)
}

// Validate runs upstream's validation of a CustomResourceDefinition: of a
// create when old is nil, of an update from old otherwise. def should be
// defaulted first (see Default). The field errors are those of the 422
// kube-apiserver answers; the error reports a CRD that cannot be converted
// to the internal version upstream's validation takes.
func Validate(ctx context.Context, def, old *apiextensionsv1.CustomResourceDefinition) (field.ErrorList, error) {
	internal := &apiextensions.CustomResourceDefinition{}
	if err := scheme().Convert(def, internal, nil); err != nil {
		return nil, fmt.Errorf("convert CustomResourceDefinition %q to the internal version: %w", def.Name, err)
	}
	if old == nil {
		return apiextensionsvalidation.ValidateCustomResourceDefinition(ctx, internal), nil
	}
	oldInternal := &apiextensions.CustomResourceDefinition{}
	if err := scheme().Convert(old, oldInternal, nil); err != nil {
		return nil, fmt.Errorf("convert CustomResourceDefinition %q to the internal version: %w", old.Name, err)
	}
	return apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate(ctx, internal, oldInternal), nil
}
