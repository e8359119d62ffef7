package csidriver

import (
	"context"
	"slices"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
)

func TestCSIDriverWarnings(t *testing.T) {
	want := []string{"spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to true to prevent possible logging of tokens in volume attributes"}
	vault := []storagev1.TokenRequest{{Audience: "vault"}}
	both := []storagev1.TokenRequest{{Audience: "vault"}, {Audience: "gcp", ExpirationSeconds: ptr.To[int64](3600)}}
	for _, tc := range []struct {
		name     string
		spec     storagev1.CSIDriverSpec
		old      *storagev1.CSIDriverSpec // nil: a create
		wantWarn bool
	}{
		{name: "create without token requests"},
		{name: "create with token requests and serviceAccountTokenInSecrets", spec: storagev1.CSIDriverSpec{TokenRequests: vault, ServiceAccountTokenInSecrets: ptr.To(false)}},
		{name: "create with token requests alone", spec: storagev1.CSIDriverSpec{TokenRequests: vault}, wantWarn: true},
		{name: "update that adds token requests", spec: storagev1.CSIDriverSpec{TokenRequests: vault}, old: &storagev1.CSIDriverSpec{}, wantWarn: true},
		{name: "update that changes token requests", spec: storagev1.CSIDriverSpec{TokenRequests: both}, old: &storagev1.CSIDriverSpec{TokenRequests: vault}, wantWarn: true},
		{name: "update that keeps token requests", spec: storagev1.CSIDriverSpec{TokenRequests: vault, PodInfoOnMount: ptr.To(true)}, old: &storagev1.CSIDriverSpec{TokenRequests: vault}},
		{name: "update that changes token requests with serviceAccountTokenInSecrets", spec: storagev1.CSIDriverSpec{TokenRequests: both, ServiceAccountTokenInSecrets: ptr.To(true)},
			old: &storagev1.CSIDriverSpec{TokenRequests: vault}},
		{name: "update that removes token requests", spec: storagev1.CSIDriverSpec{}, old: &storagev1.CSIDriverSpec{TokenRequests: vault}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &storagev1.CSIDriver{Spec: tc.spec}
			var got []string
			if tc.old == nil {
				got = Strategy.WarningsOnCreate(context.Background(), d)
			} else {
				got = Strategy.WarningsOnUpdate(context.Background(), d, &storagev1.CSIDriver{Spec: *tc.old})
			}
			var wantList []string
			if tc.wantWarn {
				wantList = want
			}
			if !slices.Equal(got, wantList) {
				t.Errorf("warnings:\n got %q\nwant %q", got, wantList)
			}
		})
	}
}
