package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/net/websocket"
	"k8s.io/streaming/pkg/httpstream/wsstream"

	"github.com/fakeplane/fakeplane/registry"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/store"
)

// bookmarkInterval is how often a watch that allows bookmarks gets one:
// kube-apiserver's watch cache sends them about every minute
// (defaultBookmarkFrequency).
const bookmarkInterval = time.Minute

// watchTimeout is how long a watch runs, as kube-apiserver's list handler
// decides it: timeoutSeconds when given and not 0, otherwise a random time
// in [min, 2*min) (min the --min-request-timeout), so that watches started
// together do not all end together; 0 for none (a min of 0).
func watchTimeout(timeoutSeconds *int64, min time.Duration) time.Duration {
	if timeoutSeconds != nil && *timeoutSeconds != 0 {
		return time.Duration(*timeoutSeconds) * time.Second
	}
	return time.Duration(float64(min) * (rand.Float64() + 1))
}

// watchEncoder writes watch events as a JSON or protobuf stream.
type watchEncoder struct {
	c *call
	s *Server
	// emit sends one encoded event (a protobuf one with its length
	// prefix) and flushes it.
	emit func([]byte) error
	buf  bytes.Buffer
	// tableHeadersSent: a Table watch has sent its first event, the only
	// one whose Table carries the column definitions, as upstream's.
	tableHeadersSent bool
}

func (e *watchEncoder) send(typ string, obj []byte) error { return e.sendObject(typ, obj, "", 0) }

// sendObject sends one event; key and rev, when known, let a protobuf
// stream reuse the object's cached encoding.
func (e *watchEncoder) sendObject(typ string, obj []byte, key string, rev int64) error {
	e.buf.Reset()
	if (e.c.media.as == asPartial || e.c.media.as == asPartialList) && typ != "ERROR" {
		if e.c.media.kind == mediaProtobuf {
			raw, err := partialProtobuf(e.c.media.version, obj)
			if err != nil {
				return err
			}
			frame, err := registry.ProtobufWatchFrame(typ, raw)
			if err != nil {
				return err
			}
			return e.write(frame)
		}
		b, err := partialJSON(e.c.media.version, obj, e.c.Res.Typed == nil)
		if err != nil {
			return err
		}
		obj = b
	} else if e.c.media.as == "Table" && typ != "ERROR" && typ != "BOOKMARK" {
		t, err := e.s.tableFor(e.c, [][]byte{obj}, nil)
		if err != nil {
			return err
		}
		if e.tableHeadersSent {
			t.ColumnDefinitions = nil
		}
		e.tableHeadersSent = true
		// Each watch event carries a Table with one row.
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		obj = b
	}
	if e.c.media.kind == mediaProtobuf {
		frame, err := e.protobufFrame(typ, obj, key, rev)
		if err != nil {
			return err
		}
		return e.write(frame)
	}
	e.buf.WriteString(`{"type":`)
	e.buf.WriteString(strconv.Quote(typ))
	e.buf.WriteString(`,"object":`)
	e.buf.Write(obj)
	e.buf.WriteString("}\n")
	return e.write(e.buf.Bytes())
}

// write sends one encoded event to the client.
func (e *watchEncoder) write(b []byte) error { return e.emit(b) }

// httpEmitter writes each event to the response and flushes it.
func httpEmitter(w http.ResponseWriter, flusher http.Flusher) func([]byte) error {
	return func(b []byte) error {
		if _, err := w.Write(b); err != nil {
			return err
		}
		flusher.Flush()
		return nil
	}
}

// websocketEmitter sends each event as a message of its own, as
// kube-apiserver's watch over a WebSocket does: a text message for JSON,
// a binary one for protobuf, without the stream's length prefix.
func websocketEmitter(ws *websocket.Conn, protobuf bool) func([]byte) error {
	if protobuf {
		return func(b []byte) error { return websocket.Message.Send(ws, b[4:]) }
	}
	return func(b []byte) error { return websocket.Message.Send(ws, string(b)) }
}

// protobufFrame encodes one event for a protobuf watch stream, from the
// object's cached encoding when its key and revision are known.
func (e *watchEncoder) protobufFrame(typ string, obj []byte, key string, rev int64) ([]byte, error) {
	if rev > 0 && typ != "ERROR" && typ != "BOOKMARK" {
		// Every watch of the resource sends the same frame for the
		// event: it is built once for all of them.
		return e.s.Encodings().WatchFrame(e.c.Res, key, rev, typ, func() ([]byte, error) {
			msg, err := e.s.Encodings().WatchProtoOf(e.c.Res, key, rev, obj)
			if err != nil {
				return nil, err
			}
			return protobufWatchFrameMsg(typ, e.c.Res.APIVersion(), e.c.Res.Kind, msg)
		})
	}
	var typed runtime.Object
	if typ == "ERROR" {
		st := &metav1.Status{}
		if err := json.Unmarshal(obj, st); err != nil {
			return nil, err
		}
		// An error event's Status is typed v1 Status (metav1's
		// unversioned registration), as upstream's watch encodes it.
		st.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Status"})
		typed = st
	} else {
		var err error
		if typed, err = e.c.Res.TypedFromStored(obj); err != nil {
			return nil, err
		}
	}
	return protobufWatchFrame(typ, typed)
}

// bookmark builds a BOOKMARK object: an empty object of the kind with only
// its resourceVersion (and annotations, for the initial-events-end marker).
// A built-in kind's is its type's encoding, as upstream's watch cache sends
// (a Pod's has its empty spec and status); a custom kind's is a map.
func (s *Server) bookmark(c *call, rv int64, initialEnd bool) []byte {
	var annotations map[string]string
	if initialEnd {
		annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	if c.Res.Typed != nil {
		obj := c.Res.NewObject()
		if acc, err := meta.Accessor(obj); err == nil {
			obj.GetObjectKind().SetGroupVersionKind(c.Res.GVK)
			acc.SetResourceVersion(strconv.FormatInt(rv, 10))
			acc.SetAnnotations(annotations)
			if b, err := registry.Encode(obj); err == nil {
				return b
			}
		}
	}
	m := map[string]any{"resourceVersion": strconv.FormatInt(rv, 10)}
	if annotations != nil {
		m["annotations"] = annotations
	}
	b, _ := json.Marshal(map[string]any{"kind": c.Res.Kind, "apiVersion": c.Res.APIVersion(), "metadata": m})
	return b
}

// watch streams events for a resource.
func (s *Server) watch(c *call) error {
	opts, err := s.listOptions(c)
	if err != nil {
		return err
	}
	if c.media.kind == mediaYAML {
		// YAML has no stream serializer: upstream's watch negotiates the
		// stream after the media type and refuses it.
		return errNotAcceptable([]string{mediaJSON + ";stream=watch", mediaProtobuf + ";stream=watch"})
	}
	flusher, ok := c.w.(http.Flusher)
	if !ok {
		return apierrors.NewInternalError(errors.New("streaming is not supported by this connection"))
	}
	sel := registry.NewSelection(c.Res, opts)
	minTimeout := DefaultMinRequestTimeout
	if m := s.cfg.Limits.MinRequestTimeout; m != nil {
		minTimeout = *m
	}
	timeout := watchTimeout(opts.TimeoutSeconds, minTimeout)
	ctx, cancel := context.WithCancel(c.r.Context())
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(c.r.Context(), timeout)
	}
	defer cancel()
	prefix := ""
	if c.Namespace != "" {
		prefix = c.Namespace + "/"
	}

	sendInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	legacyInitial := opts.SendInitialEvents == nil && (opts.ResourceVersion == "" || opts.ResourceVersion == "0")

	var initial [][]byte
	var initialKeys []string
	var initialRevs []int64
	var from int64
	// skipThrough is the revision a watch from the future waits for: the
	// events and bookmarks up to it are not sent.
	var skipThrough int64
	var startErr error // answered as the watch's only event
	switch {
	case sendInitial || legacyInitial:
		lst, err := s.ListSelected(c.Res, sel, prefix)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		for _, it := range lst.Items {
			served, err := s.Encodings().ServedOf(c.Res, it.Key, it.Revision, it.Value)
			if err != nil {
				return registry.ErrStorageRead(c.Res, it.Key, it.Revision, err)
			}
			initial = append(initial, served)
			initialKeys = append(initialKeys, it.Key)
			initialRevs = append(initialRevs, it.Revision)
		}
		from = lst.Revision
	case opts.ResourceVersion == "":
		// Without initial events: from now.
		from = s.Store().CurrentRevision()
	default:
		rv, err := registry.ParseWatchRV(opts.ResourceVersion)
		if err != nil {
			return err
		}
		from = rv
		if cur := s.Store().CurrentRevision(); rv > cur {
			// A revision still to come: as upstream's watch cache, the
			// watch opens at once and delivers the events after it.
			from, skipThrough = cur, rv
		}
	}
	wch, err := s.Store().Watch(ctx, c.Res.Bucket, store.WatchOptions{Prefix: prefix, FromRevision: from})
	if err == nil {
		defer wch.Stop()
	} else {
		var ce *store.CompactedError
		if !errors.As(err, &ce) {
			return apierrors.NewInternalError(err)
		}
		startErr = registry.ErrExpired(fmt.Sprintf("too old resource version: %d (%d)", ce.Requested, ce.Oldest))
	}

	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds < 0 {
		// A timeout that has passed: upstream's watch ends at once.
		startErr = &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Message: context.DeadlineExceeded.Error(), Reason: metav1.StatusReasonInternalError, Code: http.StatusInternalServerError}}
	}
	st := &watchStart{opts: opts, sel: sel, timeout: timeout, wch: wch, startErr: startErr,
		initial: initial, initialKeys: initialKeys, initialRevs: initialRevs, from: from, skipThrough: skipThrough, withInitial: sendInitial || legacyInitial}
	stream := func(ctx context.Context, enc *watchEncoder) { s.streamWatch(ctx, c, enc, st) }
	if wsstream.IsWebSocketRequest(c.r) {
		// As kube-apiserver's watch: the events go over the WebSocket
		// (golang.org/x/net/websocket's handshake, which wants an
		// Origin), until the watch ends or the client closes it.
		websocket.Handler(func(ws *websocket.Conn) {
			ctx, cancel := context.WithCancel(ctx)
			readerDone := make(chan struct{})
			go func() {
				defer close(readerDone)
				// The client sends nothing; its close ends the watch.
				wsstream.IgnoreReceives(ws, 0)
				cancel()
			}()
			defer func() {
				cancel()
				_ = ws.Close()
				<-readerDone
			}()
			stream(ctx, &watchEncoder{c: c, s: s, emit: websocketEmitter(ws, c.media.kind == mediaProtobuf)})
		}).ServeHTTP(c.w, c.r)
		return nil
	}
	ct := c.media.kind
	if ct == mediaProtobuf {
		ct += ";stream=watch"
	}
	c.w.Header().Set("Content-Type", ct)
	c.w.Header().Set("Cache-Control", "no-cache, private")
	c.w.Header().Set("Transfer-Encoding", "chunked")
	c.w.WriteHeader(http.StatusOK)
	flusher.Flush()
	stream(ctx, &watchEncoder{c: c, s: s, emit: httpEmitter(c.w, flusher)})
	return nil
}

// watchStart is what a watch found as it started: its options and
// selection, how long it runs, the store's watch (nil if it could not
// start: startErr says why), the initial events and the revision the
// changes are sent from (those through skipThrough are not).
type watchStart struct {
	opts              *metainternalversion.ListOptions
	sel               *registry.Selection
	timeout           time.Duration
	wch               store.Watcher
	startErr          error
	initial           [][]byte
	initialKeys       []string
	initialRevs       []int64
	from, skipThrough int64
	// withInitial: the initial events were asked for, or given by
	// default (no resourceVersion, or 0).
	withInitial bool
}

// streamWatch sends a watch's events through enc until ctx is done, the
// server stops or the store's watch ends: startErr alone if the watch
// could not start, else the initial events (with their bookmark when
// asked for), then the changes from revision from (those through
// skipThrough skipped) that the selection matches, with bookmarks.
func (s *Server) streamWatch(ctx context.Context, c *call, enc *watchEncoder, st *watchStart) {
	opts, sel, timeout, wch, startErr, initial := st.opts, st.sel, st.timeout, st.wch, st.startErr, st.initial
	from, skipThrough := st.from, st.skipThrough
	matches := s.FilterFor(c.Res, sel)
	if startErr != nil {
		st := statusOf(startErr)
		b, _ := json.Marshal(&st)
		_ = enc.send("ERROR", b)
		return
	}
	for i, obj := range initial {
		if err := enc.sendObject("ADDED", obj, st.initialKeys[i], st.initialRevs[i]); err != nil {
			return
		}
	}
	// As upstream's watch cache, a watch with initial events that allows
	// bookmarks gets one marking their end, whether it asked for them
	// (sendInitialEvents) or had them by default (no resourceVersion, or 0).
	if st.withInitial && opts.AllowWatchBookmarks {
		if err := enc.send("BOOKMARK", s.bookmark(c, from, true)); err != nil {
			return
		}
	}
	var tick, preTimeout <-chan time.Time
	if opts.AllowWatchBookmarks {
		t := time.NewTicker(bookmarkInterval)
		defer t.Stop()
		tick = t.C
		// As kube-apiserver's watch cache, a watch also gets a bookmark 2s
		// before it ends, so that the client resumes from as recent a
		// revision as it can; one shorter than 2s gets none.
		if timeout >= 2*time.Second {
			pt := time.NewTimer(timeout - 2*time.Second)
			defer pt.Stop()
			preTimeout = pt.C
		}
	}
	events := wch.Events()
	selEmpty := sel.Empty()
	// bookmarkDue is set when the pre-timeout bookmark found events
	// still to send: it goes out once they are.
	bookmarkDue := false
	// received is the revision of the last event received from events.
	var received int64
	// bookmark sends a bookmark at the current revision if every event up
	// to it has been sent (read the revision first: see store.Watch).
	bookmark := func() (sent bool, err error) {
		rv := s.Store().CurrentRevision()
		if received < wch.Sent() || rv < skipThrough {
			return false, nil
		}
		return true, enc.send("BOOKMARK", s.bookmark(c, rv, false))
	}
	for {
		if bookmarkDue {
			sent, err := bookmark()
			if err != nil {
				return
			}
			bookmarkDue = !sent
		}
		select {
		case <-ctx.Done():
			return
		case <-s.stopping:
			return
		case <-tick:
			if _, err := bookmark(); err != nil {
				return
			}
		case <-preTimeout:
			bookmarkDue = true
		case ev, ok := <-events:
			if !ok {
				return
			}
			received = ev.Revision
			if ev.Revision <= skipThrough {
				continue
			}
			typ := string(ev.Type)
			obj := ev.Value
			left := false // the event took the object out of the selection
			if !selEmpty {
				// (The filter reads labels from the encoding cache: parsed
				// once per revision, not once per watcher.)
				cur := matches(store.Object{Key: ev.Key, Value: ev.Value, Revision: ev.Revision})
				prev := ev.Prev != nil && matches(store.Object{Key: ev.Key, Value: ev.Prev, Revision: ev.PrevRevision})
				switch {
				case ev.Type == store.Modified && cur && !prev:
					typ = string(store.Added)
				case ev.Type == store.Modified && !cur && prev:
					typ, left = string(store.Deleted), true
				case ev.Type == store.Deleted && !prev && !cur:
					continue
				case !cur && ev.Type != store.Deleted:
					continue
				}
			}
			rev := ev.Revision
			if ev.Type == store.Deleted || left {
				rev = 0 // the final state is not cached, nor a previous one re-stamped
			}
			var served []byte
			var err error
			switch {
			case left:
				// As upstream's cacher: the object as it was before the
				// change, at the event's resourceVersion.
				if served, err = c.Res.FromStorage(ev.Prev); err == nil {
					served, err = registry.RestampResourceVersion(served, ev.Revision)
				}
			case rev > 0:
				served, err = s.Encodings().ServedOf(c.Res, ev.Key, rev, obj)
			default:
				served, err = c.Res.FromStorage(obj)
			}
			if err != nil {
				st := statusOf(registry.ErrStorageDecode(c.Res, ev.Key, ev.Revision, err))
				b, _ := json.Marshal(&st)
				_ = enc.send("ERROR", b)
				return
			}
			if err := enc.sendObject(typ, served, ev.Key, rev); err != nil {
				return
			}
		}
	}
}
