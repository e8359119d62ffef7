package registry

import (
	"encoding/json"
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/fakeplane/fakeplane/registry/printers"
)

// ScaleOf builds the autoscaling/v1 Scale view of a workload.
func ScaleOf(res *Resource, o *Object) (*autoscalingv1.Scale, error) {
	m, err := toMap(o.Obj)
	if err != nil {
		return nil, err
	}
	if sp := res.scalePaths; sp != nil {
		return crdScaleOf(sp, o, m), nil
	}
	sc := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: o.Meta.GetName(), Namespace: o.Meta.GetNamespace(), UID: o.Meta.GetUID(),
			ResourceVersion: o.Meta.GetResourceVersion(), CreationTimestamp: o.Meta.GetCreationTimestamp(),
		},
	}
	if v, ok := getField(m, "spec", "replicas"); ok {
		sc.Spec.Replicas = int32(toInt(v))
	} else {
		sc.Spec.Replicas = 1
	}
	if v, ok := getField(m, "status", "replicas"); ok {
		sc.Status.Replicas = int32(toInt(v))
	}
	if sel, ok := getField(m, "spec", "selector"); ok {
		switch t := sel.(type) {
		case map[string]any:
			if _, hasMatch := t["matchLabels"]; hasMatch || t["matchExpressions"] != nil {
				var ls metav1.LabelSelector
				b, _ := json.Marshal(t)
				if err := json.Unmarshal(b, &ls); err == nil {
					if s, err := metav1.LabelSelectorAsSelector(&ls); err == nil {
						sc.Status.Selector = s.String()
					}
				}
			} else {
				// ReplicationControllers use a plain map selector.
				ls := metav1.LabelSelector{MatchLabels: map[string]string{}}
				for k, v := range t {
					if s, ok := v.(string); ok {
						ls.MatchLabels[k] = s
					}
				}
				if s, err := metav1.LabelSelectorAsSelector(&ls); err == nil {
					sc.Status.Selector = s.String()
				}
			}
		}
	}
	return sc, nil
}

func toInt(v any) int64 {
	switch t := v.(type) {
	case int64:
		return t
	case float64:
		return int64(t)
	case int:
		return int64(t)
	}
	return 0
}

// SetReplicas writes spec.replicas of a workload.
func SetReplicas(res *Resource, o *Object, n int32) error {
	m, err := toMap(o.Obj)
	if err != nil {
		return err
	}
	path := []string{"spec", "replicas"}
	if res.scalePaths != nil {
		path = jsonPathFields(res.scalePaths.SpecReplicasPath)
	}
	if err := unstructured.SetNestedField(m, int64(n), path...); err != nil {
		return err
	}
	return setFromMap(o.Obj, m)
}

// jsonPathFields splits a simple JSON path (.spec.replicas) into fields.
func jsonPathFields(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "."), ".")
}

// crdScaleOf builds the Scale of a custom resource from the CRD's scale paths.
func crdScaleOf(sp *apiextensionsv1.CustomResourceSubresourceScale, o *Object, m map[string]any) *autoscalingv1.Scale {
	sc := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: o.Meta.GetName(), Namespace: o.Meta.GetNamespace(), UID: o.Meta.GetUID(),
			ResourceVersion: o.Meta.GetResourceVersion(), CreationTimestamp: o.Meta.GetCreationTimestamp(),
		},
	}
	if v, ok := getField(m, jsonPathFields(sp.SpecReplicasPath)...); ok {
		sc.Spec.Replicas = int32(toInt(v))
	}
	if v, ok := getField(m, jsonPathFields(sp.StatusReplicasPath)...); ok {
		sc.Status.Replicas = int32(toInt(v))
	}
	if sp.LabelSelectorPath != nil {
		if v, ok := getField(m, jsonPathFields(*sp.LabelSelectorPath)...); ok {
			if s, ok := v.(string); ok {
				sc.Status.Selector = s
			}
		}
	}
	return sc
}

// ScaleTable converts the resource's Scale to a Table: a built-in
// resource's with printers.Scale, a custom resource's with the convertor
// built as its CRD was served (crdScaleTable).
func (res *Resource) ScaleTable() (rest.TableConvertor, error) {
	if res.CRD == "" {
		return printers.Scale, nil
	}
	if res.scaleTable == nil {
		return nil, fmt.Errorf("%s has no scale table", res.GR)
	}
	return res.scaleTable, nil
}

// crdScaleTable is a CRD version's Scale convertor, as apiextensions' scale
// storage builds it: its table convertor over Desired and Available (where
// the CRD names the replicas paths) and Age. Nil if the convertor cannot be
// built (it always can: its paths are fixed).
func crdScaleTable(sp *apiextensionsv1.CustomResourceSubresourceScale) rest.TableConvertor {
	var cols []apiextensionsv1.CustomResourceColumnDefinition
	if sp.SpecReplicasPath != "" {
		cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{Name: "Desired", Type: "integer", Description: "Number of desired replicas", JSONPath: ".spec.replicas"})
	}
	if sp.StatusReplicasPath != "" {
		cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{Name: "Available", Type: "integer", Description: "Number of actual replicas", JSONPath: ".status.replicas"})
	}
	cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{Name: "Age", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"], JSONPath: ".metadata.creationTimestamp"})
	tc, err := tableconvertor.New(cols)
	if err != nil {
		return nil
	}
	return tc
}
