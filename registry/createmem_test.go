package registry

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/utils/ptr"
)

// TestCreatesRecordWhatAFreshFieldManagerRecords creates objects through
// TrackManagedFields, which remembers what a create recorded by the
// object's shape, and checks each against upstream's field manager run
// afresh: objects that differ only in name, generateName, namespace, uid
// and the like share an entry, others do not, an object that brings its
// own managedFields or fails the conversion is handled as before.
func TestCreatesRecordWhatAFreshFieldManagerRecords(t *testing.T) {
	reg, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	cmRes, _ := reg.Lookup("", "v1", "configmaps")
	podRes, _ := reg.Lookup("", "v1", "pods")
	deployRes, _ := reg.Lookup("apps", "v1", "deployments")
	widget := &Resource{GVK: appsv1.SchemeGroupVersion.WithKind("Widget"), CRD: "widgets.example.com", managed: newCRDFieldManagers(widgetCRD(apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"size": {Type: "integer"},
			"tags": {Type: "array", XListType: ptr.To("set"), Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
		}},
	}}))}
	widget.GVK.Group = "example.com"

	cm := func(name, ns string, data map[string]string) runtime.Object {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": "x"}}, Data: data}
	}
	pod := func(generateName, uid string, containers ...corev1.Container) runtime.Object {
		return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{GenerateName: generateName, Namespace: "ns", UID: types.UID("u" + uid),
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs-uid"}}},
			Spec: corev1.PodSpec{Containers: containers}}
	}
	replicas := int32(2)
	deploy := func(name string, image string) runtime.Object {
		return &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Generation: 3, ResourceVersion: "12", CreationTimestamp: metav1.Unix(1700000000, 0)},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}}}}
	}
	w := func(name string, spec map[string]any) runtime.Object {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": name, "namespace": "ns"}, "spec": spec}}
	}
	withFields := func(obj runtime.Object) runtime.Object {
		mustAccessor(t, obj).SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "mine", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:a":{}}}`)}}})
		return obj
	}

	for _, tc := range []struct {
		name    string
		res     *Resource
		objs    []runtime.Object
		shapes  int  // distinct shapes remembered at the end
		noneFor bool // the objects get no managedFields
	}{
		{"configmaps differing in name and namespace", cmRes,
			[]runtime.Object{cm("a", "ns", map[string]string{"k": "v"}), cm("b", "ns", map[string]string{"k": "v"}), cm("c", "other", map[string]string{"k": "v"})}, 1, false},
		{"configmaps differing in data", cmRes,
			[]runtime.Object{cm("a", "ns", map[string]string{"k": "v"}), cm("a", "ns", map[string]string{"k": "w"}), cm("a", "ns", map[string]string{"j": "v"}), cm("a", "ns", nil)}, 4, false},
		{"configmaps with their own managedFields", cmRes,
			[]runtime.Object{withFields(cm("a", "ns", map[string]string{"a": "1"})), withFields(cm("b", "ns", map[string]string{"a": "1"}))}, 0, false},
		{"pods of one template", podRes,
			[]runtime.Object{pod("rs-", "1", corev1.Container{Name: "c", Image: "i"}), pod("rs-", "2", corev1.Container{Name: "c", Image: "i"}), pod("rs-", "3", corev1.Container{Name: "c", Image: "i"})}, 1, false},
		{"pods with and without generateName", podRes,
			[]runtime.Object{pod("rs-", "1", corev1.Container{Name: "c", Image: "i"}), pod("", "2", corev1.Container{Name: "c", Image: "i"}), pod("other-", "3", corev1.Container{Name: "c", Image: "i"})}, 3, false},
		{"pods whose containers differ", podRes,
			[]runtime.Object{pod("rs-", "1", corev1.Container{Name: "c", Image: "i"}), pod("rs-", "1", corev1.Container{Name: "d", Image: "i"})}, 2, false},
		{"pods with unnamed containers", podRes,
			[]runtime.Object{pod("rs-", "1", corev1.Container{Image: "i"}, corev1.Container{Image: "j"}), pod("rs-", "2", corev1.Container{Image: "i"}, corev1.Container{Image: "j"})}, 1, false},
		{"pods with an unnamed pull secret", podRes,
			[]runtime.Object{unkeyed(pod("rs-", "1", corev1.Container{Name: "c"})), unkeyed(pod("rs-", "2", corev1.Container{Name: "c"}))}, 1, false},
		{"deployments with server-set metadata", deployRes,
			[]runtime.Object{deploy("d1", "i"), deploy("d2", "i"), deploy("d3", "j")}, 2, false},
		{"an object with only a name", cmRes,
			[]runtime.Object{&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "a"}},
				&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "b", UID: "u"}}}, 1, true},
		{"custom resources with a mistyped generation", widget,
			[]runtime.Object{badGeneration(w("a", map[string]any{"size": int64(1)})), badGeneration(w("b", map[string]any{"size": int64(1)}))}, 0, true},
		{"custom resources", widget,
			[]runtime.Object{w("a", map[string]any{"size": int64(1)}), w("b", map[string]any{"size": int64(1)}), w("c", map[string]any{"size": int64(2), "tags": []any{"x"}})}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.managed.created = createdFieldsMemo{}
			conv := &objectConvertor{res: tc.res}
			newFM := managedfields.NewDefaultFieldManager
			tc2, err := tc.res.managed.typeConverter()
			if err != nil {
				t.Fatal(err)
			}
			if tc.res.CRD != "" {
				newFM = managedfields.NewDefaultCRDFieldManager
			}
			fresh, err := newFM(tc2, conv, conv, conv, tc.res.GVK, tc.res.GVK.GroupVersion(), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 2 { // the second round hits what the first remembered
				for i, obj := range tc.objs {
					c := &Request{Res: tc.res, Info: &apirequest.RequestInfo{}, UserAgent: "tester/1.0"}
					o := &Object{Obj: obj.DeepCopyObject(), Meta: mustAccessor(t, obj.DeepCopyObject())}
					o.Meta = mustAccessor(t, o.Obj)
					before := time.Now().UTC().Truncate(time.Second) // (unstructured times keep seconds)
					c.TrackManagedFields(nil, o, "")

					empty := tc.res.NewObject()
					empty.GetObjectKind().SetGroupVersionKind(tc.res.GVK)
					want := fresh.UpdateNoErrors(empty, obj.DeepCopyObject(), "tester")
					if got, w := timeless(t, o.Obj), timeless(t, want); got != w {
						t.Fatalf("round %d, object %d:\n got %s\nwant %s", round, i, got, w)
					}
					got, wantMF := o.Meta.GetManagedFields(), mustAccessor(t, want).GetManagedFields()
					if (got == nil) != (wantMF == nil) || (got == nil) != tc.noneFor {
						t.Fatalf("round %d, object %d: managedFields %v, fresh %v (none expected: %v)", round, i, got, wantMF, tc.noneFor)
					}
					for j, e := range got {
						if (e.Time == nil) != (wantMF[j].Time == nil) || e.Time != nil && e.Time.Time.Before(before) {
							t.Errorf("round %d, object %d: entry %d time %v, fresh %v, created after %v", round, i, j, e.Time, wantMF[j].Time, before)
						}
					}
				}
			}
			if n := len(tc.res.managed.created.m); n != tc.shapes {
				t.Errorf("%d shapes remembered, want %d", n, tc.shapes)
			}
		})
	}
}

// badGeneration gives a custom resource a generation that is not an integer,
// which the typed conversion refuses.
func badGeneration(obj runtime.Object) runtime.Object {
	obj.(*unstructured.Unstructured).Object["metadata"].(map[string]any)["generation"] = "one"
	return obj
}

// unkeyed gives a pod an image pull secret without a name, the key of its
// list.
func unkeyed(obj runtime.Object) runtime.Object {
	obj.(*corev1.Pod).Spec.ImagePullSecrets = []corev1.LocalObjectReference{{}}
	return obj
}

// widgetCRD is the namespaced CRD widgets.example.com, serving and storing
// v1 with the schema openAPI.
func widgetCRD(openAPI apiextensionsv1.JSONSchemaProps) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &openAPI}}},
		},
	}
}
