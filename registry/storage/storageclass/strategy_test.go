package storageclass

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
)

func TestStorageClassStrategy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sc, old *storagev1.StorageClass
		want    []string
	}{
		{name: "defaulted", sc: &storagev1.StorageClass{Provisioner: "example.com/disk"}},
		{name: "no provisioner, empty parameter", sc: &storagev1.StorageClass{Parameters: map[string]string{"": "x"}},
			want: []string{"provisioner: Required value", `parameters: Invalid value: "": field can not be empty.`}},
		{name: "parameters changed", old: &storagev1.StorageClass{Provisioner: "p", Parameters: map[string]string{"a": "1"}},
			sc:   &storagev1.StorageClass{Provisioner: "p", Parameters: map[string]string{"a": "2"}},
			want: []string{`parameters: Invalid value: {"a":"2"}: field is immutable`}},
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
