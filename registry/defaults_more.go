package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// More of upstream's defaulting functions (pkg/apis/*/v1/defaults.go): volumes
// and claims. (The other resources' defaults are their strategies', in
// package registry.)

// applyMoreDefaults sets the upstream defaults of the types applyDefaults
// leaves to it.
func applyMoreDefaults(obj runtime.Object) {
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		if o.Spec.PersistentVolumeReclaimPolicy == "" {
			o.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
		}
		defaultVolumeMode(&o.Spec.VolumeMode)
		if hp := o.Spec.HostPath; hp != nil && hp.Type == nil {
			unset := corev1.HostPathUnset
			hp.Type = &unset
		}
		if r := o.Spec.RBD; r != nil {
			if r.RBDPool == "" {
				r.RBDPool = "rbd"
			}
			if r.RadosUser == "" {
				r.RadosUser = "admin"
			}
			if r.Keyring == "" {
				r.Keyring = "/etc/ceph/keyring"
			}
		}
		if i := o.Spec.ISCSI; i != nil && i.ISCSIInterface == "" {
			i.ISCSIInterface = "default"
		}
	}
}

func defaultVolumeMode(m **corev1.PersistentVolumeMode) {
	if *m == nil {
		fs := corev1.PersistentVolumeFilesystem
		*m = &fs
	}
}
