package cafile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Retry bounds, as the rate limiter of kube-apiserver's CA file controller
// (5 ms doubling to 1000 s): how soon a content that did not load is read
// again, and how soon a watch that failed is set up again (its minute).
const (
	firstRetry = 5 * time.Millisecond
	lastRetry  = 1000 * time.Second
	rewatch    = time.Minute
)

// File is a CA bundle read from a file and read again when it changes.
// Open reads it; Run follows the file until its context ends.
type File struct {
	name string
	path string
	log  *slog.Logger
	cur  atomic.Pointer[Bundle]

	mu        sync.Mutex
	listeners []func()
}

var _ Source = (*File)(nil)

// Open reads the CA bundle in path, for purpose (kube-apiserver's names:
// "client-ca-bundle", "request-header"), with kube-apiserver's errors:
// the file's open error, or the bundle's (see Parse). log (nil:
// slog.Default()) gets the failed reads once Run follows the file.
func Open(purpose, path string, log *slog.Logger) (*File, error) {
	if path == "" {
		return nil, errors.New("missing filename for ca bundle")
	}
	if log == nil {
		log = slog.Default()
	}
	f := &File{name: purpose + "::" + path, path: path, log: log}
	if _, err := f.load(); err != nil {
		return nil, err
	}
	return f, nil
}

// Name is the bundle's name in messages: purpose::path.
func (f *File) Name() string { return f.name }

// Bundle implements Source: the last content that loaded.
func (f *File) Bundle() *Bundle { return f.cur.Load() }

// OnChange adds fn to what is called, on Run's goroutine, after a changed
// content loaded.
func (f *File) OnChange(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listeners = append(f.listeners, fn)
}

// load reads the file and keeps its content if it changed and loads,
// telling the listeners; it reports whether it changed.
func (f *File) load() (bool, error) {
	pem, err := os.ReadFile(f.path)
	if err != nil {
		return false, err
	}
	if cur := f.cur.Load(); cur != nil && bytes.Equal(cur.PEM, pem) {
		return false, nil
	}
	b, err := Parse(f.name, pem)
	if err != nil {
		return false, err
	}
	f.cur.Store(b)
	f.mu.Lock()
	listeners := f.listeners
	f.mu.Unlock()
	for _, fn := range listeners {
		fn()
	}
	return true, nil
}

// Run follows the file until ctx ends, and returns once it stopped
// following it: every change the file system reports is read at once, a
// content that does not load is logged and read again after a backoff, a
// watch that fails is set up again after a minute (the reads after a
// failure go on meanwhile).
func (f *File) Run(ctx context.Context) {
	r := &reloader{f: f, backoff: firstRetry}
	defer r.stop()
	for {
		if err := f.watch(ctx, r); err != nil {
			f.log.Error("Failed to watch CA file, will retry later", "name", f.name, "err", err)
		}
		t := time.NewTimer(rewatch)
		for waiting := true; waiting; {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-r.c:
				r.reload()
			case <-t.C:
				waiting = false
			}
		}
	}
}

// reloader reads the file again, and after a failed read, again after a
// growing delay (c fires) until a read succeeds.
type reloader struct {
	f       *File
	backoff time.Duration
	timer   *time.Timer
	c       <-chan time.Time
}

// reload reads the file now.
func (r *reloader) reload() {
	r.stop()
	if _, err := r.f.load(); err != nil {
		r.f.log.Error("Reading the CA file failed, the last good bundle stays in use", "name", r.f.name, "err", err)
		r.timer = time.NewTimer(r.backoff)
		r.c = r.timer.C
		r.backoff = min(2*r.backoff, lastRetry)
		return
	}
	r.backoff = firstRetry
}

// stop cancels the pending retry.
func (r *reloader) stop() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer, r.c = nil, nil
	}
}

// watch follows the file through one watcher until ctx ends (nil) or the
// watcher fails (its error). What changed before the watch began is read
// as it begins.
func (f *File) watch(ctx context.Context, r *reloader) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("error creating fsnotify watcher: %w", err)
	}
	defer w.Close()
	if err := w.Add(f.path); err != nil {
		r.reload()
		return fmt.Errorf("error adding watch for file %s: %w", f.path, err)
	}
	r.reload()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.Events:
			if !ok {
				return errors.New("fsnotify watcher closed")
			}
			if e.Has(fsnotify.Remove) || e.Has(fsnotify.Rename) {
				// A file replaced (renamed over, or removed and written
				// again) is watched anew.
				if err := w.Remove(f.path); err != nil && !errors.Is(err, fsnotify.ErrNonExistentWatch) {
					f.log.Info("Failed to remove file watch, it may have been deleted", "file", f.path, "err", err)
				}
				if err := w.Add(f.path); err != nil {
					r.reload()
					return fmt.Errorf("error adding watch for file %s: %w", f.path, err)
				}
			}
			r.reload()
		case <-r.c:
			r.reload()
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("fsnotify watcher closed")
			}
			return fmt.Errorf("received fsnotify error: %w", err)
		}
	}
}
