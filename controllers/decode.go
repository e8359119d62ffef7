package controllers

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/store"
)

// decodeEvent decodes the object an event carries (for Deleted, its final
// state) into a new T.
func decodeEvent[T any](ev store.Event) (*T, error) {
	obj := new(T)
	if err := json.Unmarshal(ev.Value, obj); err != nil {
		return nil, fmt.Errorf("decode %s %s: %w", ev.Resource, ev.Key, err)
	}
	return obj, nil
}

// keepControlled records in objects o, the object an event carries, whose
// controller may be of kind (apps/v1): it is kept while that kind controls
// it, and its controller's key is marked in dirty (when dirty is not nil).
func keepControlled[PT metav1.Object](ev store.Event, o PT, kind string, objects map[string]PT, dirty map[string]bool) {
	ref := metav1.GetControllerOfNoCopy(o)
	if ref == nil || ref.Kind != kind || ref.APIVersion != "apps/v1" {
		delete(objects, ev.Key)
		return
	}
	if ev.Type == store.Deleted {
		delete(objects, ev.Key)
	} else {
		objects[ev.Key] = o
	}
	if dirty != nil {
		dirty[o.GetNamespace()+"/"+ref.Name] = true
	}
}

// trackEvent keeps objects, a controller's copy of one resource by store
// key, up to date with ev: the decoded object is stored, or removed on a
// delete. It returns the object (nil after a delete).
func trackEvent[T any](objects map[string]*T, ev store.Event) (*T, error) {
	if ev.Type == store.Deleted {
		delete(objects, ev.Key)
		return nil, nil
	}
	obj, err := decodeEvent[T](ev)
	if err != nil {
		return nil, err
	}
	objects[ev.Key] = obj
	return obj, nil
}
