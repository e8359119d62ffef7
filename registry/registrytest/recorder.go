package registrytest

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
)

// Recorder is a registry.Interface for controllers' unit tests: it records
// the writes made through it, keeping the objects of one cluster-scoped
// resource by name. Get and List are not implemented.
type Recorder struct {
	// Objects are the objects by name; Create adds to it, Update reads and
	// replaces.
	Objects map[string]runtime.Object
	// Writes lists each write as "create NAME", "update NAME" or "delete NAME".
	Writes []string
	// Fail, when set, is the error every write returns (after recording it).
	Fail error
	// Users lists each write's "user/field manager".
	Users []string
}

var _ registry.Interface = (*Recorder)(nil)

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{Objects: map[string]runtime.Object{}} }

func (f *Recorder) record(ctx context.Context, w string) error {
	u, _ := apirequest.UserFrom(ctx)
	f.Users = append(f.Users, u.GetName()+"/"+registry.FieldManagerFrom(ctx))
	f.Writes = append(f.Writes, w)
	return f.Fail
}

// Get is not implemented.
func (f *Recorder) Get(context.Context, schema.GroupVersionResource, string, string) (runtime.Object, error) {
	return nil, errors.New("not used")
}

// List is not implemented.
func (f *Recorder) List(context.Context, schema.GroupVersionResource, string, metav1.ListOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

// Create records the write and keeps obj.
func (f *Recorder) Create(ctx context.Context, _ schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error) {
	name := obj.(metav1.Object).GetName()
	if err := f.record(ctx, "create "+name); err != nil {
		return nil, err
	}
	f.Objects[name] = obj
	return obj, nil
}

// Update records the write and keeps what tryUpdate makes of the object.
func (f *Recorder) Update(ctx context.Context, _ schema.GroupVersionResource, _, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	if err := f.record(ctx, "update "+name); err != nil {
		return nil, err
	}
	obj, err := tryUpdate(f.Objects[name].DeepCopyObject())
	if err != nil {
		return nil, err
	}
	f.Objects[name] = obj
	return obj, nil
}

// UpdateSubresource is Update.
func (f *Recorder) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, _, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	return f.Update(ctx, gvr, ns, name, tryUpdate)
}

// Delete records the write.
func (f *Recorder) Delete(ctx context.Context, _ schema.GroupVersionResource, _, name string, _ metav1.DeleteOptions) (runtime.Object, error) {
	return nil, f.record(ctx, "delete "+name)
}
