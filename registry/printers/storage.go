package printers

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// storage returns the printers of the storage.k8s.io group's resources, by resource.
func storage() map[string]Printer {
	return map[string]Printer{
		"volumeattachments": {
			cells: typed(func(va *storagev1.VolumeAttachment, now time.Time) []any {
				pv := ""
				if va.Spec.Source.PersistentVolumeName != nil {
					pv = *va.Spec.Source.PersistentVolumeName
				}
				return []any{va.Name, va.Spec.Attacher, pv, va.Spec.NodeName, va.Status.Attached, age(now, va.CreationTimestamp)}
			}),
		},
		"volumeattributesclasses": {
			cells: typed(func(c *storagev1.VolumeAttributesClass, now time.Time) []any {
				return []any{c.Name, c.DriverName, age(now, c.CreationTimestamp)}
			}),
		},
		"csidrivers": {
			cells: typed(func(d *storagev1.CSIDriver, now time.Time) []any {
				// Defaults: attach required, nothing else, Persistent volumes.
				boolOr := func(b *bool, def bool) bool {
					if b == nil {
						return def
					}
					return *b
				}
				tokens := "<unset>"
				if d.Spec.TokenRequests != nil {
					var audiences []string
					for _, t := range d.Spec.TokenRequests {
						audiences = append(audiences, t.Audience)
					}
					tokens = strings.Join(audiences, ",")
				}
				var modes []string
				for _, m := range d.Spec.VolumeLifecycleModes {
					modes = append(modes, string(m))
				}
				if len(modes) == 0 {
					modes = []string{string(storagev1.VolumeLifecyclePersistent)}
				}
				return []any{d.Name, boolOr(d.Spec.AttachRequired, true), boolOr(d.Spec.PodInfoOnMount, false), boolOr(d.Spec.StorageCapacity, false),
					tokens, boolOr(d.Spec.RequiresRepublish, false), strings.Join(modes, ","), age(now, d.CreationTimestamp)}
			}),
		},
		"csinodes": {
			cells: typed(func(n *storagev1.CSINode, now time.Time) []any {
				return []any{n.Name, int64(len(n.Spec.Drivers)), age(now, n.CreationTimestamp)}
			}),
		},
		"storageclasses": {
			cells: typed(func(sc *storagev1.StorageClass, now time.Time) []any {
				return storageClassCells(sc, "", now)
			}),
			// A list marks its effective default class: the most recently
			// created of those annotated as default (on a tie, the first name).
			list: func(objs []runtime.Object, now time.Time) ([]int, [][]any) {
				var def *storagev1.StorageClass
				for _, o := range objs {
					sc := o.(*storagev1.StorageClass)
					if sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" && sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] != "true" {
						continue
					}
					if def == nil || sc.CreationTimestamp.After(def.CreationTimestamp.Time) ||
						sc.CreationTimestamp.Equal(&def.CreationTimestamp) && sc.Name < def.Name {
						def = sc
					}
				}
				defName := ""
				if def != nil {
					defName = def.Name
				}
				order := make([]int, len(objs))
				cells := make([][]any, len(objs))
				for i, o := range objs {
					order[i] = i
					cells[i] = storageClassCells(o.(*storagev1.StorageClass), defName, now)
				}
				return order, cells
			},
		},
		"csistoragecapacities": {cells: createdAt},
	}
}

// storageClassCells prints a storage class, marked "(default)" when it is
// the list's effective default; unset fields print as their defaults.
func storageClassCells(sc *storagev1.StorageClass, effectiveDefault string, now time.Time) []any {
	name := sc.Name
	if effectiveDefault != "" && name == effectiveDefault {
		name += " (default)"
	}
	policy := string(corev1.PersistentVolumeReclaimDelete)
	if sc.ReclaimPolicy != nil {
		policy = string(*sc.ReclaimPolicy)
	}
	mode := string(storagev1.VolumeBindingImmediate)
	if sc.VolumeBindingMode != nil {
		mode = string(*sc.VolumeBindingMode)
	}
	expand := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	return []any{name, sc.Provisioner, policy, mode, expand, age(now, sc.CreationTimestamp)}
}
