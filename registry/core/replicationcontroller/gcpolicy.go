package replicationcontroller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// DefaultGarbageCollectionPolicy orphans a ReplicationController's pods
// when a v1 request deletes it without a policy, as upstream keeps for old
// clients; a call without a request (the server's own controllers)
// deletes them.
func (rcStrategy) DefaultGarbageCollectionPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	if info, ok := apirequest.RequestInfoFrom(ctx); ok && info.APIGroup == corev1.GroupName && info.APIVersion == corev1.SchemeGroupVersion.Version {
		return rest.OrphanDependents
	}
	return rest.DeleteDependents
}
