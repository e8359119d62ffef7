package resourceclaimtemplate

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/resource"
)

// PrepareForCreate runs Base's and clears the claim spec's fields of
// feature gates that are off, as upstream's PrepareForCreate.
func (s resourceClaimTemplateStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Base.PrepareForCreate(ctx, obj)
	resource.DropDisabledClaimSpecFields(&obj.(*resourcev1.ResourceClaimTemplate).Spec.Spec, nil)
}

// PrepareForUpdate clears the claim spec's fields of feature gates that are
// off unless the stored template uses them, as upstream's PrepareForUpdate.
func (resourceClaimTemplateStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	resource.DropDisabledClaimSpecFields(&obj.(*resourcev1.ResourceClaimTemplate).Spec.Spec, &old.(*resourcev1.ResourceClaimTemplate).Spec.Spec)
}
