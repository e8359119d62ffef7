package job

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// orphanWarning is upstream's warning for a batch/v1 delete of Jobs that
// names no propagation policy.
const orphanWarning = "child pods are preserved by default when jobs are deleted; " +
	"set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"

// DefaultGarbageCollectionPolicy orphans a Job's pods when a batch/v1
// request deletes it without a policy, as upstream keeps for old clients;
// a call without a request (the server's own controllers) deletes them.
func (jobStrategy) DefaultGarbageCollectionPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	if isBatchV1(ctx) {
		return rest.OrphanDependents
	}
	return rest.DeleteDependents
}

// WarningsOnDelete warns that a batch/v1 delete without a propagation
// policy leaves the pods.
func (s jobStrategy) WarningsOnDelete(ctx context.Context, opts *metav1.DeleteOptions) []string {
	//nolint:staticcheck // OrphanDependents still counts as a policy upstream
	if opts != nil && opts.PropagationPolicy == nil && opts.OrphanDependents == nil && isBatchV1(ctx) {
		return []string{orphanWarning}
	}
	return nil
}

// isBatchV1 reports whether ctx is a request to batch/v1.
func isBatchV1(ctx context.Context) bool {
	info, ok := apirequest.RequestInfoFrom(ctx)
	return ok && info.APIGroup == batchv1.GroupName && info.APIVersion == batchv1.SchemeGroupVersion.Version
}
