package registry

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// SetLabel sets the label key to value on the object namespace/name of gvr
// through api, provided its UID is still uid, as the merge patch
// {"metadata":{"uid":uid,"labels":{key:value}}} upstream's components send
// does: another UID is a Conflict worded as upstream's UID precondition.
func SetLabel(ctx context.Context, api Interface, gvr schema.GroupVersionResource, namespace, name string, uid types.UID, key, value string) error {
	_, err := api.Update(ctx, gvr, namespace, name, func(cur runtime.Object) (runtime.Object, error) {
		m, err := meta.Accessor(cur)
		if err != nil {
			return nil, err
		}
		if m.GetUID() != uid {
			return nil, apierrors.NewConflict(gvr.GroupResource(), name,
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, m.GetUID()))
		}
		labels := m.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[key] = value
		m.SetLabels(labels)
		return cur, nil
	})
	return err
}
