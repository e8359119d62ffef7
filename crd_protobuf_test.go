package fakeplane_test

import (
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/fakeplane/fakeplane"
)

// TestCRDSchemaSentInProtobufAllowsItsAdditionalProperties creates and
// updates a CRD in protobuf, whose additionalProperties schemas carry the
// client's Go value (Allows false beside the schema), as apiextensions'
// own integration tests send them: the properties the schema allows are
// accepted, as by kube-apiserver, which reads such a schema as JSON would.
func TestCRDSchemaSentInProtobufAllowsItsAdditionalProperties(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cfg := cp.RESTConfig()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	crds := apiextensionsclient.NewForConfigOrDie(cfg).ApiextensionsV1().CustomResourceDefinitions()
	stringMap := func() apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}
	}
	def := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "maps.m.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "m.example.com", Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "maps", Singular: "map", Kind: "Map", ListKind: "MapList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"created": stringMap()}}}}},
		},
	}
	if _, err := crds.Create(ctx, def, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The naming and establishing controllers write the status meanwhile.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := crds.Get(ctx, def.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["updated"] = stringMap()
		_, err = crds.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	maps := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "m.example.com", Version: "v1", Resource: "maps"})
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "m.example.com/v1", "kind": "Map", "metadata": map[string]any{"name": "a"},
		"created": map[string]any{"k1": "v"}, "updated": map[string]any{"k2": "v"}}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Until the update is served, "updated" is pruned; once it is, it
		// must be kept.
		out, err := maps.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatalf("a map the schemas allow: %v", err)
		}
		if _, ok, _ := unstructured.NestedStringMap(out.Object, "updated"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the updated schema was not served: %v", out.Object)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
