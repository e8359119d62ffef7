package printers

import (
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// apiextensions returns the printers of the apiextensions.k8s.io group's resources, by resource.
func apiextensions() map[string]Printer {
	return map[string]Printer{
		"customresourcedefinitions": {
			cells: typed(func(crd *apiextensionsv1.CustomResourceDefinition, now time.Time) []any {
				var versions []string
				for _, v := range crd.Spec.Versions {
					if !v.Served {
						continue
					}
					if v.Storage {
						versions = append(versions, v.Name+"(storage)")
					} else {
						versions = append(versions, v.Name)
					}
				}
				ts, _ := crd.CreationTimestamp.MarshalQueryParameter()
				established := false
				for _, c := range crd.Status.Conditions {
					if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
						established = true
					}
				}
				return []any{crd.Name, string(crd.Spec.Scope), strings.Join(versions, ","), ts, crd.Spec.Group, crd.Spec.Names.Kind, strings.Join(crd.Spec.Names.ShortNames, ","), established}
			}),
		},
	}
}
