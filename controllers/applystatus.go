package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/fakeplane/fakeplane/registry"
)

// apiserverUser is kube-apiserver's loopback identity, which its own
// controllers write as.
func apiserverUser() user.Info {
	return &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}}
}

// applyStatusCondition applies, with force, the one condition to the
// status of the cluster-scoped object name of gvr (of kind), as the
// context's field manager: kube-apiserver's own controllers write their
// conditions so (ApplyStatus).
func applyStatusCondition(ctx context.Context, applier registry.Applier, gvr schema.GroupVersionResource, kind, name string, condition map[string]any) (runtime.Object, error) {
	applied := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(),
		"kind":       kind,
		"metadata":   map[string]any{"name": name},
		"status":     map[string]any{"conditions": []any{condition}},
	}}
	return applier.ApplySubresource(ctx, gvr, "status", "", name, applied, true)
}
