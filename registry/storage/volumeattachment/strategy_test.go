package volumeattachment

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

const subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

// caseless is the message for an attacher that is no DNS subdomain in any
// case.
const caseless = "an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'Example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

// attachment returns a valid VolumeAttachment, changed by edit.
func attachment(edit func(*storagev1.VolumeAttachment)) *storagev1.VolumeAttachment {
	va := &storagev1.VolumeAttachment{
		ObjectMeta: metav1.ObjectMeta{Name: "va"},
		Spec:       storagev1.VolumeAttachmentSpec{Attacher: "csi.example.com", NodeName: "n1", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr.To("pv")}},
	}
	if edit != nil {
		edit(va)
	}
	return va
}

// TestVolumeAttachmentValidation checks upstream's rules for a new
// VolumeAttachment with upstream's messages and order (those a v1.37
// kube-apiserver answered): the attacher's errors, declarative (beta), come
// last.
func TestVolumeAttachmentValidation(t *testing.T) {
	inline := func(spec corev1.PersistentVolumeSpec) func(*storagev1.VolumeAttachment) {
		return func(va *storagev1.VolumeAttachment) {
			va.Spec.Source = storagev1.VolumeAttachmentSource{InlineVolumeSpec: &spec}
		}
	}
	for _, tc := range []struct {
		name string
		va   *storagev1.VolumeAttachment
		want []string
	}{
		{name: "a valid attachment", va: attachment(nil)},
		{name: "an empty spec", va: attachment(func(va *storagev1.VolumeAttachment) { va.Spec = storagev1.VolumeAttachmentSpec{} }), want: []string{
			"spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
			`spec.nodeName: Invalid value: "": ` + subdomain,
			"spec.attacher: Required value",
		}},
		{name: "names are DNS subdomains, the attacher's in any case", va: attachment(func(va *storagev1.VolumeAttachment) {
			va.Spec = storagev1.VolumeAttachmentSpec{Attacher: "Bad_Attacher", NodeName: "Bad_Node", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr.To("")}}
		}), want: []string{
			"spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName",
			`spec.nodeName: Invalid value: "Bad_Node": ` + subdomain,
			`spec.source.persistentVolumeName: Invalid value: "": ` + subdomain,
			`spec.attacher: Invalid value: "Bad_Attacher": ` + caseless,
		}},
		{name: "an attacher has at most 63 characters", va: attachment(func(va *storagev1.VolumeAttachment) { va.Spec.Attacher = strings.Repeat("a", 63) + "_" }), want: []string{
			`spec.attacher: Invalid value: "` + strings.Repeat("a", 63) + `_": ` + caseless,
			"spec.attacher: Too long: may not be more than 63 characters",
		}},
		{name: "one source", va: attachment(func(va *storagev1.VolumeAttachment) { va.Spec.Source.InlineVolumeSpec = &corev1.PersistentVolumeSpec{} }),
			want: []string{"spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName"}},
		{name: "an empty inline volume", va: attachment(inline(corev1.PersistentVolumeSpec{})), want: []string{
			"spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes",
			"spec.source.inlineVolumeSpec.accessModes: Required value",
			"spec.source.inlineVolumeSpec: Required value: must specify a volume type",
		}},
		{name: "what an inline volume may not have", va: attachment(inline(corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}, ClaimRef: &corev1.ObjectReference{Name: "c"},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{"ReadWriteOnce", "Bogus", "ReadWriteOncePod"},
			PersistentVolumeReclaimPolicy: "Delete", NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{}},
			StorageClassName: "sc", VolumeMode: ptr.To(corev1.PersistentVolumeBlock), VolumeAttributesClassName: ptr.To(""),
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}, NFS: &corev1.NFSVolumeSource{Server: "s", Path: "p"}},
		})), want: []string{
			"spec.source.inlineVolumeSpec.claimRef: Forbidden: may not be specified in the context of inline volumes",
			"spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes",
			"spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes",
			`spec.source.inlineVolumeSpec.accessModes: Unsupported value: "Bogus": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
			"spec.source.inlineVolumeSpec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
			"spec.source.inlineVolumeSpec.persistentVolumeReclaimPolicy: Forbidden: may only be Retain in the context of inline volumes",
			"spec.source.inlineVolumeSpec.nodeAffinity: Forbidden: may not be specified in the context of inline volumes",
			"spec.source.inlineVolumeSpec.nfs: Forbidden: may not specify more than 1 volume type",
			"spec.source.inlineVolumeSpec.storageClassName: Forbidden: may not be specified in the context of inline volumes",
			"spec.source.inlineVolumeSpec.volumeMode: Forbidden: may not specify volumeMode other than Filesystem in the context of inline volumes",
		}},
		{name: "an inline csi source", va: attachment(inline(corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{"ReadWriteOnce"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{NodePublishSecretRef: &corev1.SecretReference{}}}})), want: []string{
			"spec.source.inlineVolumeSpec.csi.driver: Required value",
			"spec.source.inlineVolumeSpec.csi.volumeHandle: Required value",
			"spec.source.inlineVolumeSpec.csi.nodePublishSecretRef.name: Required value",
			"spec.source.inlineVolumeSpec.csi.nodePublishSecretRef.namespace: Required value",
		}},
		{name: "a valid inline volume", va: attachment(inline(corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{"ReadWriteOnce"},
			PersistentVolumeReclaimPolicy: "Retain", VolumeMode: ptr.To(corev1.PersistentVolumeFilesystem),
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "d.io", VolumeHandle: "h"}}}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), tc.va), tc.want)
		})
	}
}

// TestVolumeAttachmentUpdateValidation checks that updates keep the spec,
// whose declarative error shows no value, and that a write to /status
// checks the status: messages of at most 1024 bytes, error codes of at
// least 0.
func TestVolumeAttachmentUpdateValidation(t *testing.T) {
	stored := attachment(nil)
	for _, tc := range []struct {
		name   string
		va     *storagev1.VolumeAttachment
		status bool
		want   []string
	}{
		{name: "labels may change", va: attachment(func(va *storagev1.VolumeAttachment) { va.Labels = map[string]string{"a": "b"} })},
		{name: "the node may not", va: attachment(func(va *storagev1.VolumeAttachment) { va.Spec.NodeName = "n2" }),
			want: []string{"spec: Invalid value: null: field is immutable"}},
		{name: "nor the attacher, which is still required", va: attachment(func(va *storagev1.VolumeAttachment) { va.Spec.Attacher = "" }),
			want: []string{"spec.attacher: Required value", "spec: Invalid value: null: field is immutable"}},
		{name: "the status's errors", status: true, va: attachment(func(va *storagev1.VolumeAttachment) {
			va.Status = storagev1.VolumeAttachmentStatus{Attached: true,
				AttachError: &storagev1.VolumeError{Message: strings.Repeat("m", 1025), ErrorCode: ptr.To[int32](-1)},
				DetachError: &storagev1.VolumeError{ErrorCode: ptr.To[int32](-2)}}
		}), want: []string{
			"status.attachError.message: Too long: may not be more than 1024 bytes",
			"status.attachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive",
			"status.detachError.errorCode: Invalid value: -2: must be between 0 and 2147483647, inclusive",
		}},
		{name: "a valid status", status: true, va: attachment(func(va *storagev1.VolumeAttachment) {
			va.Status = storagev1.VolumeAttachmentStatus{Attached: true, AttachError: &storagev1.VolumeError{Message: "m", ErrorCode: ptr.To[int32](5)}}
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validate := Strategy.ValidateUpdate
			if tc.status {
				validate = Strategy.ValidateStatusUpdate
			}
			validatetest.ExpectErrors(t, validate(context.Background(), tc.va, stored), tc.want)
		})
	}
}
