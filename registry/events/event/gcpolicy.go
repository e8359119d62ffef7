package event

import (
	"context"

	"k8s.io/apiserver/pkg/registry/rest"
)

// DefaultGarbageCollectionPolicy is Unsupported: events.k8s.io Events are
// core's Events upstream, whose deletes neither orphan nor wait for
// dependents, whatever they ask.
func (eventStrategy) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.Unsupported
}
