package printers

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// apps returns the printers of the apps group's resources, by resource.
func apps() map[string]Printer {
	return map[string]Printer{
		"controllerrevisions": {
			cells: typed(func(cr *appsv1.ControllerRevision, now time.Time) []any {
				controller := "<none>"
				if ref := metav1.GetControllerOf(cr); ref != nil {
					gv, _ := schema.ParseGroupVersion(ref.APIVersion)
					controller = ref.Name
					if gk := gv.WithKind(ref.Kind).GroupKind(); !gk.Empty() {
						controller = strings.ToLower(gk.String()) + "/" + ref.Name
					}
				}
				return []any{cr.Name, controller, cr.Revision, age(now, cr.CreationTimestamp)}
			}),
		},
		"statefulsets": {
			cells: typed(func(ss *appsv1.StatefulSet, now time.Time) []any {
				want := int32(1)
				if ss.Spec.Replicas != nil {
					want = *ss.Spec.Replicas
				}
				names, images := containerNamesImages(ss.Spec.Template.Spec.Containers)
				return []any{ss.Name, fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, want), age(now, ss.CreationTimestamp), names, images}
			}),
		},
		"daemonsets": {
			cells: typed(func(ds *appsv1.DaemonSet, now time.Time) []any {
				st := ds.Status
				names, images := containerNamesImages(ds.Spec.Template.Spec.Containers)
				return []any{ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
					int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), selectorString(ds.Spec.Template.Spec.NodeSelector),
					age(now, ds.CreationTimestamp), names, images, labelSelectorString(ds.Spec.Selector)}
			}),
		},
		"replicasets": {
			cells: typed(func(rs *appsv1.ReplicaSet, now time.Time) []any {
				want := int32(1)
				if rs.Spec.Replicas != nil {
					want = *rs.Spec.Replicas
				}
				names, images := containerNamesImages(rs.Spec.Template.Spec.Containers)
				sel := labelSelectorString(rs.Spec.Selector)
				return []any{rs.Name, int64(want), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas), age(now, rs.CreationTimestamp), names, images, sel}
			}),
		},
		"deployments": {
			cells: typed(func(d *appsv1.Deployment, now time.Time) []any {
				want := int32(1)
				if d.Spec.Replicas != nil {
					want = *d.Spec.Replicas
				}
				names, images := containerNamesImages(d.Spec.Template.Spec.Containers)
				// Unlike other workloads', an empty selector prints empty.
				sel := "<invalid>"
				if selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
					sel = selector.String()
				}
				return []any{d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, want), int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas), age(now, d.CreationTimestamp), names, images, sel}
			}),
		},
	}
}
