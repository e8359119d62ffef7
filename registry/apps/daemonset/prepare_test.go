package daemonset

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

func TestPrepareTemplateGeneration(t *testing.T) {
	ctx := context.Background()
	ds := &appsv1.DaemonSet{}
	Strategy.PrepareForCreate(ctx, ds)
	if got := TemplateGeneration(ds); got != 1 {
		t.Fatalf("create: template generation %d, want 1", got)
	}
	same := ds.DeepCopy()
	same.Annotations = nil
	Strategy.PrepareForUpdate(ctx, same, ds)
	if got := TemplateGeneration(same); got != 1 {
		t.Errorf("update without a template change: %d, want 1", got)
	}
	changed := ds.DeepCopy()
	changed.Spec.Template.Labels = map[string]string{"a": "b"}
	Strategy.PrepareForUpdate(ctx, changed, ds)
	if got := TemplateGeneration(changed); got != 2 {
		t.Errorf("update of the template: %d, want 2", got)
	}
	status := changed.DeepCopy()
	status.Annotations = nil
	Strategy.PrepareForStatusUpdate(ctx, status, changed)
	if got := TemplateGeneration(status); got != 2 {
		t.Errorf("status update: %d, want the stored 2", got)
	}
}
