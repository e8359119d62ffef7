package registry

import (
	"bytes"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// TestProtobufEnvelopeOfMessageIsTheEncoding checks that wrapping an
// object's cached protobuf message in the envelope gives the bytes the
// protobuf serializer writes for the object, which a protobuf get or write
// answer relies on.
func TestProtobufEnvelopeOfMessageIsTheEncoding(t *testing.T) {
	for _, obj := range []runtime.Object{
		&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", Labels: map[string]string{"a": "b"}}, Data: map[string]string{"k": "v"}},
		&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}},
		&appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: "d", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](3), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}},
	} {
		want, err := ProtobufEncode(obj)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := obj.(protoMarshaler).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		gvk := obj.GetObjectKind().GroupVersionKind()
		got, err := ProtobufEnvelope(gvk.GroupVersion().String(), gvk.Kind, msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: envelope of the message\n%q\nwant the serializer's\n%q", gvk.Kind, got, want)
		}
	}
}
