package server

import (
	"net/http"

	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// handlerStack is the stack a request's handler goroutine starts with.
//
// The request timeout filter runs each request's handler in a goroutine of
// its own, which starts with a small stack. The write path is deep (the
// field manager's walks recurse down every object), so the stack doubled
// several times per request, each time copying the frames so far (and
// adjusting every pointer in them): 6% of a server-side apply's CPU.
// Growing it once, while it is shallow, costs one small copy.
const handlerStack = 32 << 10

// withGrownStack runs h, for the writes that go deep (create, update,
// patch), after growing the goroutine's stack to hold handlerStack bytes
// more. A stack that big is no longer taken from the per-P stack caches:
// a shallow request (a get, a delete) is faster growing as it goes.
func withGrownStack(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info, ok := apirequest.RequestInfoFrom(r.Context()); ok && deepVerbs[info.Verb] {
			growStack(r == nil)
		}
		h.ServeHTTP(w, r)
	})
}

// deepVerbs are the verbs whose handlers recurse deep: they convert, merge
// and compare whole objects.
var deepVerbs = map[string]bool{"create": true, "update": true, "patch": true}

// growStack has a frame of handlerStack bytes: calling it grows the stack
// to fit, and returning leaves it grown. The frame is used (and zeroed)
// only when never is true, which callers make sure it is not.
//
//go:noinline
func growStack(never bool) byte {
	if never {
		var frame [handlerStack]byte
		return touch(frame[:])
	}
	return 0
}

// touch reads b, so that growStack's frame is not optimized away.
//
//go:noinline
func touch(b []byte) byte { return b[len(b)-1] }
