package controllers

import (
	"encoding/json"
	"fmt"

	"github.com/fakeplane/fakeplane/store"
)

// decodeEvent decodes the object an event carries (for Deleted, its final
// state) into a new T.
func decodeEvent[T any](ev store.Event) (*T, error) {
	obj := new(T)
	if err := json.Unmarshal(ev.Value, obj); err != nil {
		return nil, fmt.Errorf("decode %s %s: %w", ev.Resource, ev.Key, err)
	}
	return obj, nil
}
