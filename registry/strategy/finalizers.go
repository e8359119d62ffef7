package strategy

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// standardFinalizers are the finalizer names that need no domain.
var standardFinalizers = sets.New(string(corev1.FinalizerKubernetes), metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents)

// KubeFinalizerErrors is the check kube-apiserver's own types add to a
// finalizer's name (the core group's validateKubeFinalizerName): a name
// without a domain must be a standard one.
func KubeFinalizerErrors(name string, fld *field.Path) field.ErrorList {
	if !strings.Contains(name, "/") && !standardFinalizers.Has(name) {
		return field.ErrorList{field.Invalid(fld, name, "name is neither a standard finalizer name nor is it fully qualified")}
	}
	return nil
}
