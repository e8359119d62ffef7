package admission

import (
	"sort"

	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
)

// DefaultIngressClass is kube-apiserver's DefaultIngressClass plugin on a
// new Ingress: one that names no class (neither spec.ingressClassName nor
// the kubernetes.io/ingress.class annotation) gets the IngressClass
// annotated ingressclass.kubernetes.io/is-default-class "true", the newest
// one if several are (ties broken by name).
func DefaultIngressClass(ing *networkingv1.Ingress, classes []networkingv1.IngressClass) {
	if ing.Spec.IngressClassName != nil {
		return
	}
	if _, ok := ing.Annotations[networkingv1beta1.AnnotationIngressClass]; ok {
		return
	}
	var defaults []networkingv1.IngressClass
	for _, c := range classes {
		if c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
			defaults = append(defaults, c)
		}
	}
	if len(defaults) == 0 {
		return
	}
	sort.Slice(defaults, func(i, j int) bool {
		a, b := defaults[i].CreationTimestamp.UnixNano(), defaults[j].CreationTimestamp.UnixNano()
		if a == b {
			return defaults[i].Name < defaults[j].Name
		}
		return a > b
	})
	name := defaults[0].Name
	ing.Spec.IngressClassName = &name
}
