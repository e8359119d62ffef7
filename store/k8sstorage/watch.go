package k8sstorage

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"

	"github.com/fakeplane/fakeplane/store"
)

// watchExpired is the message of the 410 Gone of a watch from a compacted
// revision, as kube-apiserver words it.
const watchExpired = "The resourceVersion for the provided watch is too old."

// resultBuffer is how many events a watch holds for a slow reader before
// it stops reading the store's (etcd3's outgoing buffer).
const resultBuffer = 100

// initialPage is how many objects a watch's initial list reads at a time.
const initialPage = 500

// Watch implements storage.Interface, with etcd3's semantics:
//
//   - resourceVersion "0" or unset without sendInitialEvents (the legacy
//     watch), and sendInitialEvents=true: ADDED events for the current
//     objects, then (sendInitialEvents with allowWatchBookmarks) a bookmark
//     annotated k8s.io/initial-events-end at the list's revision, then the
//     changes after it;
//   - sendInitialEvents=false without a resourceVersion: the changes from
//     now on;
//   - a resourceVersion R: the changes after R. R older than the compacted
//     revision (or than the store's event log) gives a 410 Gone ERROR
//     event; R newer than the current revision waits for the changes after
//     R.
//
// Changes are filtered by the predicate: an object that starts (stops)
// matching is ADDED (DELETED). With ProgressNotify, an idle watch gets a
// bookmark at the current revision every ProgressNotifyInterval and after
// RequestWatchProgress. An error (an undecodable object) ends the watch
// with an ERROR event.
func (a *Storage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	full, skey, err := a.prepareKey(key, opts.Recursive)
	if err != nil {
		return nil, err
	}
	rev, err := a.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if opts.ProgressNotify && a.newFunc == nil {
		return nil, apierrors.NewInternalError(errors.New("progressNotify for watch is unsupported by the storage because no newFunc was provided"))
	}
	w := &watcher{
		a:              a,
		full:           full,
		skey:           skey,
		recursive:      opts.Recursive,
		pred:           opts.Predicate,
		progressNotify: opts.ProgressNotify,
		recordTime:     opts.RecordTimestamps,
		startRev:       int64(rev),
		initialEvents:  initialEventsRequired(rev, opts),
		endBookmark:    initialEventsEndBookmarkRequired(opts),
		result:         make(chan watch.Event, resultBuffer),
	}
	if w.pred.Empty() {
		w.pred = storage.Everything
	}
	if w.progressNotify {
		// Taken here, so that a RequestWatchProgress after Watch returns
		// reaches the watch however late its goroutine starts.
		w.progress = a.progressRequested()
	}
	if rev == 0 && !w.initialEvents {
		// From now: pinned here, so no change made after Watch returns is
		// missed however late the watch goroutine starts.
		w.startRev = a.s.CurrentRevision()
	}
	a.mu.Lock()
	if a.base.Err() != nil {
		a.mu.Unlock()
		return nil, storage.NewUnreachableError(full, 0)
	}
	a.watches.Add(1)
	a.mu.Unlock()
	w.ctx, w.cancel = context.WithCancel(ctx)
	if w.startRev == 0 && !w.initialEvents {
		// The store has had no write yet, and its watches "from now"
		// start when they are opened: open it here.
		w.openEarly()
	}
	stopOnClose := context.AfterFunc(a.base, w.cancel)
	go func() {
		defer a.watches.Done()
		defer stopOnClose()
		w.run()
	}()
	// As etcd3: the watch counts as initialized for API priority and
	// fairness once it is set up.
	utilflowcontrol.WatchInitialized(ctx)
	return w, nil
}

// initialEventsRequired reports whether a watch starts with the current
// objects: the legacy watch (resourceVersion 0, no sendInitialEvents) and
// sendInitialEvents=true.
func initialEventsRequired(rev uint64, opts storage.ListOptions) bool {
	if opts.SendInitialEvents == nil && rev == 0 {
		return true
	}
	if !utilfeature.DefaultFeatureGate.Enabled(features.WatchList) {
		return false
	}
	return opts.SendInitialEvents != nil && *opts.SendInitialEvents
}

// initialEventsEndBookmarkRequired reports whether the initial events end
// with the k8s.io/initial-events-end bookmark.
func initialEventsEndBookmarkRequired(opts storage.ListOptions) bool {
	if !utilfeature.DefaultFeatureGate.Enabled(features.WatchList) {
		return false
	}
	return opts.SendInitialEvents != nil && *opts.SendInitialEvents && opts.Predicate.AllowWatchBookmarks
}

// watcher is one watch: a goroutine reading the store's watch and
// delivering decoded, filtered events to result.
type watcher struct {
	a              *Storage
	full, skey     string
	recursive      bool
	pred           storage.SelectionPredicate
	progressNotify bool
	recordTime     bool
	startRev       int64 // events after it are delivered
	initialEvents  bool
	endBookmark    bool

	// progress is closed by the next RequestWatchProgress (nil without
	// progressNotify).
	progress <-chan struct{}
	// early is the store watch opened "from now" while the store was at
	// revision 0, when there is no revision to watch after (see
	// openEarly); earlyErr its error.
	early    store.Watcher
	earlyErr error

	ctx    context.Context
	cancel context.CancelFunc
	result chan watch.Event
}

// Stop implements watch.Interface.
func (w *watcher) Stop() { w.cancel() }

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// run delivers the watch's events until the watch ends, then closes
// result.
func (w *watcher) run() {
	defer close(w.result)
	defer w.cancel()
	defer func() {
		if w.early != nil {
			w.early.Stop()
		}
	}()
	if w.ctx.Err() != nil {
		return
	}
	a := w.a
	if w.initialEvents {
		if w.startRev > 0 {
			if cur := a.s.CurrentRevision(); w.startRev > cur {
				w.sendError(storage.NewTooLargeResourceVersionError(uint64(w.startRev), uint64(cur), 1))
				return
			}
		}
		if a.s.CurrentRevision() == 0 {
			// The list may be at revision 0: the changes after it are
			// those after now.
			w.openEarly()
		}
		rev, err := w.sendInitialEvents()
		if err != nil {
			w.sendError(err)
			return
		}
		w.startRev = rev
	}
	if w.endBookmark {
		if !w.sendBookmark(w.startRev, true) {
			return
		}
	}
	var sw store.Watcher
	var err error
	if w.startRev == 0 {
		// Revision 0: nothing was ever written before the watch (or its
		// list) began, and openEarly opened the store watch then.
		sw, err = w.early, w.earlyErr
	} else {
		if w.early != nil {
			w.early.Stop()
		}
		if w.startRev < a.s.CompactedRevision() {
			w.sendError(apierrors.NewResourceExpired(watchExpired))
			return
		}
		// A watch from a future revision reads from now and skips the
		// changes up to it.
		from := min(w.startRev, a.s.CurrentRevision())
		sw, err = a.s.Watch(w.ctx, a.resource, store.WatchOptions{Prefix: w.skey, FromRevision: from})
	}
	if err != nil {
		var compacted *store.CompactedError
		if errors.As(err, &compacted) {
			err = apierrors.NewResourceExpired(watchExpired)
		}
		w.sendError(err)
		return
	}
	defer sw.Stop()

	var tick <-chan time.Time
	if w.progressNotify {
		t := time.NewTicker(a.progressEvery)
		defer t.Stop()
		tick = t.C
	}
	// progressDue is set when a bookmark is owed but events are pending.
	progressDue := false
	// received is the revision of the last event received from sw.
	var received int64
	for {
		select {
		case ev, ok := <-sw.Events():
			if !ok {
				// Ended by Stop or the context (nil), the store closing,
				// or the watch being too slow: the client re-watches
				// from its last resourceVersion.
				if err := sw.Err(); err != nil && !errors.Is(err, store.ErrClosed) && !errors.Is(err, store.ErrTooSlow) {
					w.sendError(err)
				}
				return
			}
			received = ev.Revision
			if ev.Revision <= w.startRev || (!w.recursive && ev.Key != w.skey) {
				continue
			}
			res, err := w.transform(ev)
			if err != nil {
				w.sendError(err)
				return
			}
			if res != nil && !w.send(*res) {
				return
			}
		case <-tick:
			progressDue = true
		case <-w.progress:
			w.progress = a.progressRequested()
			progressDue = true
		case <-w.ctx.Done():
			return
		}
		if progressDue {
			// Every event up to the current revision has been queued
			// for sw when CurrentRevision returns: if the last one
			// queued was received, this watch has delivered them all.
			rev := a.s.CurrentRevision()
			if received >= sw.Sent() && rev >= w.startRev {
				progressDue = false
				if !w.sendBookmark(rev, false) {
					return
				}
			}
		}
	}
}

// openEarly opens the store watch from now, for a watch of the changes
// after revision 0: the store cannot be asked for the changes after 0 (0
// means from now).
func (w *watcher) openEarly() {
	w.early, w.earlyErr = w.a.s.Watch(w.ctx, w.a.resource, store.WatchOptions{Prefix: w.skey})
}

// sendInitialEvents sends an ADDED event for each current object that
// matches the predicate, and returns the revision of the list.
func (w *watcher) sendInitialEvents() (int64, error) {
	a := w.a
	opts := store.ListOptions{Prefix: w.skey, Limit: initialPage}
	if !w.recursive {
		opts.Limit = 0
		opts.Filter = func(o store.Object) bool { return o.Key == w.skey }
	}
	for {
		res, err := a.s.List(a.resource, opts)
		if err != nil {
			var compacted *store.CompactedError
			if errors.As(err, &compacted) {
				return 0, apierrors.NewResourceExpired(listExpired)
			}
			return 0, a.storeError(err, w.full)
		}
		for _, o := range res.Items {
			obj, err := w.decode(o.Value, o.Key, o.Revision)
			if err != nil {
				return 0, err
			}
			if !w.matches(obj) {
				continue
			}
			if !w.send(watch.Event{Type: watch.Added, Object: obj}) {
				return 0, w.ctx.Err()
			}
		}
		if !res.More {
			return res.Revision, nil
		}
		opts.Revision = res.Revision
		opts.StartAfter = res.Items[len(res.Items)-1].Key
	}
}

// transform turns a store event into the event to deliver (nil: none).
func (w *watcher) transform(ev store.Event) (*watch.Event, error) {
	var cur, old runtime.Object
	var err error
	if ev.Type != store.Deleted {
		if cur, err = w.decode(ev.Value, ev.Key, ev.Revision); err != nil {
			return nil, err
		}
	}
	// The previous object is needed for a delete, and to tell whether an
	// update made the object start or stop matching.
	if ev.Prev != nil && (ev.Type == store.Deleted || !w.acceptAll()) {
		// The previous object, at the revision of the change.
		if old, err = w.decode(ev.Prev, ev.Key, ev.Revision); err != nil {
			if c, ok := asCorrupt(err); ok && ev.Type == store.Deleted {
				return nil, corruptDeletedError(c)
			}
			return nil, err
		}
	}
	var res *watch.Event
	switch ev.Type {
	case store.Deleted:
		if old != nil && w.matches(old) {
			res = &watch.Event{Type: watch.Deleted, Object: old}
		}
	case store.Added:
		if w.matches(cur) {
			res = &watch.Event{Type: watch.Added, Object: cur}
		}
	default:
		if w.acceptAll() {
			res = &watch.Event{Type: watch.Modified, Object: cur}
			break
		}
		curMatches := w.matches(cur)
		oldMatches := old != nil && w.matches(old)
		switch {
		case curMatches && oldMatches:
			res = &watch.Event{Type: watch.Modified, Object: cur}
		case curMatches:
			res = &watch.Event{Type: watch.Added, Object: cur}
		case oldMatches:
			res = &watch.Event{Type: watch.Deleted, Object: old}
		}
	}
	if res != nil && w.recordTime {
		res.Object = &timedObject{Object: res.Object, recordTime: time.Now()}
	}
	return res, nil
}

// decode decodes a stored value of the store key skey, at revision rev.
func (w *watcher) decode(stored []byte, skey string, rev int64) (runtime.Object, error) {
	a := w.a
	data, _, err := a.transformFromStorage(w.ctx, stored, a.fullKey(skey))
	if err != nil {
		return nil, err
	}
	obj, err := runtime.Decode(a.codec, data)
	if err != nil {
		return nil, &undecodable{err}
	}
	if err := a.versioner.UpdateObject(obj, uint64(rev)); err != nil {
		return nil, fmt.Errorf("failure to version api object (%d) %#v: %w", rev, obj, err)
	}
	return obj, nil
}

// acceptAll reports whether the predicate selects everything.
func (w *watcher) acceptAll() bool { return w.pred.Empty() }

// matches reports whether obj matches the predicate.
func (w *watcher) matches(obj runtime.Object) bool {
	if w.acceptAll() {
		return true
	}
	ok, err := w.pred.Matches(obj)
	return err == nil && ok
}

// sendBookmark sends a bookmark at rev (annotated as the end of the
// initial events with initialEnd), reporting false if the watch ended.
func (w *watcher) sendBookmark(rev int64, initialEnd bool) bool {
	obj := w.a.newFunc()
	if err := w.a.versioner.UpdateObject(obj, uint64(rev)); err != nil {
		w.sendError(fmt.Errorf("failed to propagate object resource version: %w", err))
		return false
	}
	if initialEnd {
		if err := storage.AnnotateInitialEventsEndBookmark(obj); err != nil {
			w.sendError(fmt.Errorf("error while accessing object's metadata gr: %v, obj: %#v, err: %w", w.a.groupResource, obj, err))
			return false
		}
	}
	return w.send(watch.Event{Type: watch.Bookmark, Object: obj})
}

// send delivers ev, reporting false if the watch ended first.
func (w *watcher) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// sendError delivers err as an ERROR event (unless the watch ended) and
// ends the watch.
func (w *watcher) sendError(err error) {
	defer w.cancel()
	if errors.Is(err, context.Canceled) {
		return
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		status = apierrors.NewInternalError(err)
	}
	s := status.Status()
	select {
	case w.result <- watch.Event{Type: watch.Error, Object: &s}:
	case <-w.ctx.Done():
	}
}

// timedObject is a watched object with the time the adapter decoded it,
// for the watch cache's latency metrics (ListOptions.RecordTimestamps).
type timedObject struct {
	runtime.Object
	recordTime time.Time
}

var _ storage.WatchEventWithRecordTime = &timedObject{}

// GetObjectMeta gives access to the wrapped object's metadata.
func (t *timedObject) GetObjectMeta() metav1.Object {
	m, _ := meta.Accessor(t.Object)
	return m
}

// DeepCopyObject implements runtime.Object.
func (t *timedObject) DeepCopyObject() runtime.Object {
	return &timedObject{Object: t.Object.DeepCopyObject(), recordTime: t.recordTime}
}

// RecordTime implements storage.WatchEventWithRecordTime.
func (t *timedObject) RecordTime() time.Time { return t.recordTime }

// Unwrap implements storage.WatchEventWithRecordTime.
func (t *timedObject) Unwrap() runtime.Object { return t.Object }
