package registry

import (
	"bytes"
	"slices"
	"strings"
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

// TestProtobufListEnvelopeIsTheEnvelopeOfTheList checks that the list
// envelope written in one buffer is the envelope of the list message.
func TestProtobufListEnvelopeIsTheEnvelopeOfTheList(t *testing.T) {
	remaining := int64(5)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}, Data: map[string]string{"k": strings.Repeat("v", 300)}}
	msg, err := cm.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lm    metav1.ListMeta
		items [][]byte
	}{
		{metav1.ListMeta{ResourceVersion: "12"}, nil},
		{metav1.ListMeta{}, [][]byte{{}}},
		{metav1.ListMeta{ResourceVersion: "12", Continue: "tok", RemainingItemCount: &remaining}, [][]byte{msg, msg, msg}},
		{metav1.ListMeta{ResourceVersion: "99"}, slices.Repeat([][]byte{msg}, 100)},
	} {
		list, err := ProtobufListMessage(&tc.lm, tc.items)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ProtobufEnvelope("v1", "ConfigMapList", list)
		if err != nil {
			t.Fatal(err)
		}
		u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, Raw: list}
		plain, err := u.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, append([]byte("k8s\x00"), plain...)) {
			t.Fatalf("%d items: ProtobufEnvelope is not the magic and runtime.Unknown's encoding", len(tc.items))
		}
		got, err := ProtobufListEnvelope("v1", "ConfigMapList", &tc.lm, tc.items)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d items: list envelope\n%q\nwant\n%q", len(tc.items), got, want)
		}
	}
}
