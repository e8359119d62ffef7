package fakeplane_test

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// An object over what etcd's default --max-request-bytes (1.5 MiB) lets
// through is refused as kube-apiserver refuses it: a 500 with etcd's
// message, nothing written. Measured on refplane (kube-apiserver v1.37.2,
// etcd v3.7.0): a custom resource with a 1,500,000-byte field is stored,
// one with 1,600,000 bytes gets `500 etcdserver: request is too large`.
func TestObjectOverEtcdRequestLimitIsRefused(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithControllers())
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	createCRD(t, ctx, dyn, &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "blobs.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "blobs", Singular: "blob", Kind: "Blob"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	})
	blobs := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "blobs"}).Namespace("default")
	blob := func(name string, size int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Blob",
			"metadata": map[string]any{"name": name}, "data": strings.Repeat("x", size)}}
	}
	var created *unstructured.Unstructured
	eventually(t, "the CRD serves", func() error {
		var err error
		created, err = blobs.Create(ctx, blob("fits", 1_500_000), metav1.CreateOptions{})
		return err
	})
	tooLarge := func(what string, err error) {
		t.Helper()
		var st apierrors.APIStatus
		if !errors.As(err, &st) || st.Status().Code != 500 || st.Status().Message != "etcdserver: request is too large" || st.Status().Reason != "" {
			t.Fatalf("%s: got %v, want 500 etcdserver: request is too large", what, err)
		}
	}
	_, err := blobs.Create(ctx, blob("over", 1_600_000), metav1.CreateOptions{})
	tooLarge("create", err)
	if _, err := blobs.Get(ctx, "over", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the refused object was stored: %v", err)
	}
	created.Object["data"] = strings.Repeat("y", 1_600_000)
	_, err = blobs.Update(ctx, created, metav1.UpdateOptions{})
	tooLarge("update", err)
	got, err := blobs.Get(ctx, "fits", metav1.GetOptions{})
	if err != nil || got.GetResourceVersion() != created.GetResourceVersion() || got.Object["data"] != strings.Repeat("x", 1_500_000) {
		t.Fatalf("the refused update changed the object: %v", err)
	}
}
