// Package event holds the events.k8s.io Event strategy: kube-apiserver
// serves these Events from pkg/registry/core/event's storage, with the
// strict rules of events.k8s.io/v1.
package event

import (
	"context"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	coreevent "github.com/fakeplane/fakeplane/registry/core/event"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the events.k8s.io Event strategy.
var Strategy = eventStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, NameRuleOnCreateOnly: true}}

type eventStrategy struct{ strategy.Base }

// Validate checks a new Event with the legacy and the strict rules.
func (eventStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return coreevent.ValidateEventsV1Create(obj.(*eventsv1.Event))
}

// ValidateUpdate lets only the series change.
func (s eventStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	if p, ok := old.(*eventsv1.Event); ok {
		return coreevent.ValidateEventsV1Update(obj.(*eventsv1.Event), p)
	}
	return s.Validate(ctx, obj)
}
