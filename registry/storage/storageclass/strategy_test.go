package storageclass

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

func TestStorageClassStrategy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sc, old *storagev1.StorageClass
		want    []string
	}{
		{name: "defaulted", sc: &storagev1.StorageClass{Provisioner: "example.com/disk"}},
		{name: "no provisioner, empty parameter: the declarative required error last", sc: &storagev1.StorageClass{Parameters: map[string]string{"": "x"}},
			want: []string{`parameters: Invalid value: "": field can not be empty.`, "provisioner: Required value"}},
		{name: "parameters changed: declarative immutability names no value", old: &storagev1.StorageClass{Provisioner: "p", Parameters: map[string]string{"a": "1"}},
			sc:   &storagev1.StorageClass{Provisioner: "p", Parameters: map[string]string{"a": "2"}},
			want: []string{`parameters: Invalid value: null: field is immutable`}},
		{name: "all immutable fields changed: in field order", old: &storagev1.StorageClass{Provisioner: "a.b/c"},
			sc: &storagev1.StorageClass{Provisioner: "a.b/d", Parameters: map[string]string{"x": "y"},
				ReclaimPolicy: ptr(corev1.PersistentVolumeReclaimRetain), VolumeBindingMode: ptr(storagev1.VolumeBindingWaitForFirstConsumer)},
			want: []string{"provisioner: Invalid value: null: field is immutable", "parameters: Invalid value: null: field is immutable",
				"reclaimPolicy: Invalid value: null: field is immutable", "volumeBindingMode: Invalid value: null: field is immutable"}},
		{name: "update validates the class as new first", old: &storagev1.StorageClass{Provisioner: "a.b/c"},
			sc: &storagev1.StorageClass{Provisioner: "a b", VolumeBindingMode: ptr(storagev1.VolumeBindingMode("Bad"))},
			want: []string{`provisioner: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
				`volumeBindingMode: Unsupported value: "Bad": supported values: "Immediate", "WaitForFirstConsumer"`,
				"provisioner: Invalid value: null: field is immutable", "volumeBindingMode: Invalid value: null: field is immutable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.sc)
			errs := Strategy.Validate(context.Background(), tc.sc)
			if tc.old != nil {
				Strategy.Default(tc.old)
				errs = Strategy.ValidateUpdate(context.Background(), tc.sc, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
}

func ptr[T any](v T) *T { return &v }
