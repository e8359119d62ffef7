package ingress

import (
	"context"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Upstream's status strategy warns about writes to /status too.
var _ strategy.StatusWarner = ingressStrategy{}

// ingressClassAnnotation is the annotation that named an Ingress's class
// before spec.ingressClassName.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

// WarningsOnCreate returns upstream's warning for a new Ingress that names
// its class with the deprecated annotation and not spec.ingressClassName.
func (ingressStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	ing := obj.(*networkingv1.Ingress)
	if _, ok := ing.Annotations[ingressClassAnnotation]; ok && ing.Spec.IngressClassName == nil {
		return []string{fmt.Sprintf("annotation %q is deprecated, please use 'spec.ingressClassName' instead", ingressClassAnnotation)}
	}
	return nil
}

// WarningsOnUpdate returns none: upstream warns about the annotation on
// create only.
func (ingressStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// WarningsOnStatusUpdate implements strategy.StatusWarner as upstream's
// ingress status strategy: the load balancer's ingress IPs that are not in
// their standard form, under a path that names the ingress point.
func (ingressStrategy) WarningsOnStatusUpdate(_ context.Context, obj, _ runtime.Object) []string {
	var warnings []string
	fld := field.NewPath("status", "loadBalancer", "ingress")
	for i, in := range obj.(*networkingv1.Ingress).Status.LoadBalancer.Ingress {
		if in.IP != "" {
			warnings = append(warnings, validate.IPWarnings(fld.Index(i), in.IP)...)
		}
	}
	return warnings
}
