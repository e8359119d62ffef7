package crd

import (
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/version"
)

// DeprecationWarning is the warning kube-apiserver sends with every request
// to version v of a CRD with the given spec, and whether v is deprecated at
// all. It is v's own deprecationWarning when it has one; otherwise
// upstream's default, which suggests the newest served, not deprecated
// version newer than v.
func DeprecationWarning(spec apiextensionsv1.CustomResourceDefinitionSpec, v apiextensionsv1.CustomResourceDefinitionVersion) (string, bool) {
	if !v.Deprecated {
		return "", false
	}
	if v.DeprecationWarning != nil {
		return *v.DeprecationWarning, true
	}
	return defaultDeprecationWarning(v.Name, spec), true
}

// defaultDeprecationWarning is upstream's warning for a deprecated CRD
// version without its own.
func defaultDeprecationWarning(deprecated string, spec apiextensionsv1.CustomResourceDefinitionSpec) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", spec.Group, deprecated, spec.Names.Kind)
	var newer []string
	for _, v := range spec.Versions {
		if v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(deprecated, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0 })
	return msg + fmt.Sprintf("; use %s/%s %s", spec.Group, newer[0], spec.Names.Kind)
}

// storageVersion is the name of the CRD version objects are stored in.
func storageVersion(spec apiextensionsv1.CustomResourceDefinitionSpec) string {
	storage := ""
	for _, v := range spec.Versions {
		if v.Storage {
			storage = v.Name
		}
	}
	return storage
}
