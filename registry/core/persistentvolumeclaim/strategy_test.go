package persistentvolumeclaim

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestClaimStrategy(t *testing.T) {
	ctx := context.Background()
	valid := func() *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		}}
		Strategy.Default(c)
		return c
	}
	for _, tc := range []struct {
		name     string
		claim    func() *corev1.PersistentVolumeClaim
		old      func() *corev1.PersistentVolumeClaim
		wantErrs []string
	}{
		{name: "valid", claim: valid},
		{name: "no access mode, no storage", claim: func() *corev1.PersistentVolumeClaim {
			c := valid()
			c.Spec.AccessModes, c.Spec.Resources.Requests = nil, nil
			return c
		}, wantErrs: []string{"spec.accessModes: Required value: at least 1 access mode is required",
			"spec.resources[storage]: Required value"}},
		{name: "ReadWriteOncePod with others", claim: func() *corev1.PersistentVolumeClaim {
			c := valid()
			c.Spec.AccessModes = append(c.Spec.AccessModes, corev1.ReadWriteOncePod)
			return c
		}, wantErrs: []string{"spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"}},
		{name: "volume name may be set once", old: valid, claim: func() *corev1.PersistentVolumeClaim {
			c := valid()
			c.Spec.VolumeName = "pv1"
			return c
		}},
		{name: "unset storage class may be set", old: valid, claim: func() *corev1.PersistentVolumeClaim {
			c := valid()
			class := "fast"
			c.Spec.StorageClassName = &class
			return c
		}},
		{name: "storage class in the beta annotation may move to the field", old: func() *corev1.PersistentVolumeClaim {
			c := valid()
			c.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: "a"}
			return c
		}, claim: func() *corev1.PersistentVolumeClaim {
			c := valid()
			c.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: "a"}
			class := "a"
			c.Spec.StorageClassName = &class
			return c
		}},
		{name: "beta storage class annotation is immutable", old: func() *corev1.PersistentVolumeClaim {
			c := valid()
			c.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: "a"}
			return c
		}, claim: func() *corev1.PersistentVolumeClaim {
			c := valid()
			c.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: "b"}
			return c
		}, wantErrs: []string{`metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "b": field is immutable`}},
		{name: "set storage class may not change", old: func() *corev1.PersistentVolumeClaim {
			c := valid()
			class := "slow"
			c.Spec.StorageClassName = &class
			return c
		}, claim: func() *corev1.PersistentVolumeClaim {
			c := valid()
			class := "fast"
			c.Spec.StorageClassName = &class
			return c
		}, wantErrs: []string{"spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.claim()
			errs := Strategy.Validate(ctx, c)
			if tc.old != nil {
				errs = Strategy.ValidateUpdate(ctx, c, tc.old())
			}
			var got []string
			for _, e := range errs {
				// The first line: an immutable spec's message goes on
				// with a diff.
				got = append(got, strings.SplitN(e.Error(), "\n", 2)[0])
			}
			if strings.Join(got, "\n") != strings.Join(tc.wantErrs, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.wantErrs, "\n"))
			}
		})
	}
	if c := valid(); c.Spec.VolumeMode == nil || *c.Spec.VolumeMode != corev1.PersistentVolumeFilesystem {
		t.Errorf("volumeMode defaulted to %v", c.Spec.VolumeMode)
	}
}
