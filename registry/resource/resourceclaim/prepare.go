package resourceclaim

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/resource"
)

// PrepareForCreate clears the status, as Base does, and the spec's fields
// of feature gates that are off, as upstream's PrepareForCreate.
func (s resourceClaimStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Base.PrepareForCreate(ctx, obj)
	resource.DropDisabledClaimSpecFields(&obj.(*resourcev1.ResourceClaim).Spec, nil)
}

// PrepareForUpdate clears the spec's fields of feature gates that are off
// unless the stored claim uses them, as upstream's PrepareForUpdate.
func (resourceClaimStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	resource.DropDisabledClaimSpecFields(&obj.(*resourcev1.ResourceClaim).Spec, &old.(*resourcev1.ResourceClaim).Spec)
}

// PrepareForStatusUpdate clears the status's fields of feature gates that
// are off unless the stored claim uses them, as upstream's status
// strategy's PrepareForUpdate.
func (resourceClaimStrategy) PrepareForStatusUpdate(_ context.Context, obj, old runtime.Object) {
	resource.DropDisabledClaimStatusFields(obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim))
}
