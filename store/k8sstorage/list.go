package k8sstorage

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"

	"github.com/fakeplane/fakeplane/store"
)

// The messages of the 410 Gone errors of lists, as kube-apiserver words
// them.
const (
	listExpired = "The resourceVersion for the provided list is too old."
	// continueExpired is used when no continue token to go on with can be
	// made.
	continueExpired = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter."
	inconsistentContinue = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
)

// GetList implements storage.Interface. A recursive list reads the keys
// under key in one consistent read of the store (at the revision of the
// continue token or of an Exact resourceVersion, else the current one),
// decoding and filtering them as it goes: a page holds up to
// Predicate.Limit matching objects and has a continue token when more keys
// follow. A non-recursive list reads the single object at key.
func (a *Storage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	full, skey, err := a.prepareKey(key, opts.Recursive)
	if err != nil {
		return err
	}
	listPtr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(listPtr)
	if err != nil || v.Kind() != reflect.Slice {
		return fmt.Errorf("need ptr to slice: %v", err)
	}
	newItem := newItemFunc(listObj, v)
	withRev, continueKey, err := storage.ValidateListOptions(full, a.versioner, opts)
	if err != nil {
		return err
	}
	pred := opts.Predicate

	lo := store.ListOptions{Prefix: skey, Revision: withRev}
	if opts.Recursive {
		if continueKey != "" {
			lo.StartAfter = a.startAfter(continueKey)
		}
		if pred.Limit > 0 {
			lo.Limit = int(pred.Limit)
		}
	}
	// An object that cannot be read stops the list, which returns the
	// objects before it with the error; with corrupt objects told apart,
	// the list skips those and names them in its error (see corrupt.go).
	var itemErr error
	var itemErrs listErrors
	aggregate := corruptionHandled()
	fail := func(key string, err error) {
		if aggregate {
			itemErrs.add(key, err)
		} else {
			itemErr = err
		}
	}
	lo.Filter = func(o store.Object) bool {
		if itemErr != nil || itemErrs.stopped() || (!opts.Recursive && o.Key != skey) {
			return false
		}
		okey := a.fullKey(o.Key)
		data, _, err := a.transformFromStorage(ctx, o.Value, okey)
		if err != nil {
			fail(okey, storage.NewInternalError(fmt.Errorf("unable to transform key %q: %w", okey, err)))
			return false
		}
		if ctx.Err() != nil {
			fail(okey, storage.NewTimeoutError(okey, "request did not complete within requested timeout"))
			return false
		}
		obj, err := a.decodeNew(data, o.Revision, newItem)
		if err != nil {
			fail(okey, &undecodable{err})
			return false
		}
		if matched, err := pred.Matches(obj); err != nil || !matched {
			return false
		}
		v.Set(reflect.Append(v, reflect.ValueOf(obj).Elem()))
		return true
	}
	res, err := a.s.List(a.resource, lo)
	if err != nil {
		return a.listError(err, len(pred.Continue) > 0, continueKey, full)
	}
	if withRev == 0 {
		minRV, err := a.parseMinimumResourceVersion(opts.ResourceVersion)
		if err != nil {
			return err
		}
		if minRV > uint64(res.Revision) {
			return storage.NewTooLargeResourceVersionError(minRV, uint64(res.Revision), 0)
		}
	}
	if itemErr != nil {
		if u, ok := itemErr.(*undecodable); ok {
			return u.err
		}
		return itemErr
	}
	if err := a.listErr(&itemErrs); err != nil {
		return err
	}
	var lastKey string
	if n := len(res.Items); n > 0 {
		lastKey = a.fullKey(res.Items[n-1].Key)
	}
	count := int64(len(res.Items)) + res.Remaining
	continueValue, remaining, err := storage.PrepareContinueToken(lastKey, full, res.Revision, count, res.More, opts)
	if err != nil {
		return err
	}
	if v.IsNil() {
		// Never a nil Items.
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	if err := a.versioner.UpdateList(listObj, uint64(res.Revision), continueValue, remaining); err != nil {
		return err
	}
	pred.SetShardInfoOnList(listObj)
	return nil
}

// startAfter turns the start key of a continue token (the first key to
// list) into the store's StartAfter (the last key not to list). The
// adapter's own tokens start just after a key (key + "\x00"); a token made
// by hand may start at a key, which is then listed: since keys are UTF-8,
// which has no 0xff byte, the keys after the one before it (its last byte
// less one, then 0xff) are the keys from it on.
func (a *Storage) startAfter(continueKey string) string {
	start := continueKey[len(a.resourcePrefix):]
	n := len(start)
	switch {
	case n == 0:
		return ""
	case start[n-1] == 0:
		if n == 1 {
			return rootKey
		}
		return start[:n-1]
	default:
		return start[:n-1] + string([]byte{start[n-1] - 1, 0xff})
	}
}

// listError maps a store error of a list to what kube-apiserver answers:
// 410 Gone for a compacted revision (with a continue token at the current
// revision when paging), TooLargeResourceVersion for a future one.
func (a *Storage) listError(err error, paging bool, continueKey, keyPrefix string) error {
	var compacted *store.CompactedError
	if !errors.As(err, &compacted) {
		return a.storeError(err, keyPrefix)
	}
	if !paging {
		return apierrors.NewResourceExpired(listExpired)
	}
	// A continue token at revision -1 continues at the current revision.
	token, encErr := storage.EncodeContinue(continueKey, keyPrefix, -1)
	if encErr != nil {
		a.logger.Error("k8sstorage: cannot encode a continue token", "key", continueKey, "error", encErr)
		return apierrors.NewResourceExpired(continueExpired)
	}
	status := apierrors.NewResourceExpired(inconsistentContinue)
	status.ErrStatus.ListMeta.Continue = token
	return status
}

// newItemFunc returns a constructor for the items of listObj, keeping the
// apiVersion of an unstructured list.
func newItemFunc(listObj runtime.Object, v reflect.Value) func() runtime.Object {
	if u, ok := listObj.(*unstructured.UnstructuredList); ok {
		if apiVersion := u.GetAPIVersion(); apiVersion != "" {
			return func() runtime.Object {
				return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion}}
			}
		}
	}
	elem := v.Type().Elem()
	return func() runtime.Object {
		return reflect.New(elem).Interface().(runtime.Object)
	}
}
