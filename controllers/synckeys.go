package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// syncKeys syncs the objects whose keys are in dirty, in key order, with
// sync: a key whose object is gone (objects has none) or whose sync
// succeeds leaves dirty; one whose sync fails stays, and so does one whose
// sync asks for another after a delay. It returns the failures, each named
// by kind and key, or a Requeue for the soonest asked-for sync.
func syncKeys[T any](ctx context.Context, kind string, dirty map[string]bool, objects map[string]T, sync func(context.Context, T) (time.Duration, error)) error {
	var errs []error
	var wait time.Duration
	for _, key := range sortedKeys(dirty) {
		obj, ok := objects[key]
		if !ok {
			delete(dirty, key)
			continue
		}
		after, err := sync(ctx, obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", kind, key, err))
			continue
		}
		delete(dirty, key)
		if after > 0 {
			dirty[key] = true
			if wait == 0 || after < wait {
				wait = after
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if wait > 0 {
		return &Requeue{After: wait}
	}
	return nil
}
