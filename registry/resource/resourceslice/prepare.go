package resourceslice

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/resource"
)

// PrepareForCreate clears the fields of feature gates that are off, as
// upstream's PrepareForCreate.
func (s resourceSliceStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Base.PrepareForCreate(ctx, obj)
	resource.DropDisabledSliceFields(obj.(*resourcev1.ResourceSlice), nil)
}

// PrepareForUpdate clears the fields of feature gates that are off unless
// the stored slice uses them, as upstream's PrepareForUpdate.
func (resourceSliceStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	resource.DropDisabledSliceFields(obj.(*resourcev1.ResourceSlice), old.(*resourcev1.ResourceSlice))
}
