package event

import (
	"context"

	"k8s.io/apiserver/pkg/registry/rest"
)

// DefaultGarbageCollectionPolicy is Unsupported: as upstream's, a delete of
// an Event neither orphans nor waits for dependents, whatever it asks.
func (eventStrategy) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.Unsupported
}
