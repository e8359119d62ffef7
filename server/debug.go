package server

import (
	"fmt"
	"io"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"

	"k8s.io/klog/v2"
)

// The debug endpoints kube-apiserver serves with --profiling (the
// default): Go's profiles under /debug/pprof/ (its index, profile, symbol
// and trace; not cmdline, which the index then calls an unknown profile),
// and /debug/flags/, whose one flag, v, a PUT sets: klog's verbosity, as
// kube-apiserver's handler sets it (klog is the process's, as there). With
// it, a DELETE of /metrics or /metrics/slis resets the metrics.

// isDebugPath reports whether path is one of the debug endpoints'.
func isDebugPath(path string) bool {
	return path == "/debug/pprof" || strings.HasPrefix(path, "/debug/pprof/") ||
		path == "/debug/flags" || strings.HasPrefix(path, "/debug/flags/")
}

// serveDebug answers the debug endpoints as upstream's routes.Profiling
// and routes.DebugFlags do, or 404 without --profiling.
func (s *Server) serveDebug(w http.ResponseWriter, r *http.Request) {
	if s.cfg.NoProfiling {
		http.NotFound(w, r)
		return
	}
	switch path := r.URL.Path; {
	case path == "/debug/pprof":
		http.Redirect(w, r, "/debug/pprof/", http.StatusFound)
	case path == "/debug/pprof/profile":
		pprof.Profile(w, r)
	case path == "/debug/pprof/symbol":
		pprof.Symbol(w, r)
	case path == "/debug/pprof/trace":
		pprof.Trace(w, r)
	case strings.HasPrefix(path, "/debug/pprof/"):
		pprof.Index(w, r)
	case path == "/debug/flags/v":
		serveVerbosityFlag(w, r)
	default:
		writeDebugFlagsIndex(w)
	}
}

// serveVerbosityFlag sets klog's verbosity to a PUT's body, as upstream's
// StringFlagPutHandler with logs.GlogSetter; another method is refused.
func serveVerbosityFlag(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut {
		writeFlagText(w, http.StatusNotAcceptable, "unsupported http method")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeFlagText(w, http.StatusBadRequest, "error reading request body: "+err.Error())
		return
	}
	val := string(body)
	if _, err := strconv.ParseUint(val, 10, 32); err != nil {
		writeFlagText(w, http.StatusBadRequest, err.Error())
		return
	}
	var level klog.Level
	if err := level.Set(val); err != nil {
		writeFlagText(w, http.StatusBadRequest, fmt.Sprintf("failed set klog.logging.verbosity %s: %v", val, err))
		return
	}
	writeFlagText(w, http.StatusOK, "successfully set klog.logging.verbosity to "+val)
}

// writeFlagText answers a flag request in plain text, as upstream's
// writePlainText.
func writeFlagText(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, text)
}

// writeDebugFlagsIndex writes the page /debug/flags/ answers: the flags a
// PUT may set (v alone).
func writeDebugFlagsIndex(w http.ResponseWriter) {
	_, _ = io.WriteString(w, "<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\nflags:<br>\n<table>\n"+
		"<tr>v<br>\n</table>\n<br>\nfull flags configurable<br>\n</body>\n</html>\n")
}

// DebugSocketHandler answers what kube-apiserver serves on its
// --debug-socket-path, unauthenticated, whatever --profiling says
// (upstream's routes.DebugSocket): Go's profiles under /debug/pprof/,
// cmdline included, and /debug/flags/ with its flag v; nothing else.
func DebugSocketHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/debug/pprof", http.RedirectHandler("/debug/pprof/", http.StatusFound))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	index := func(w http.ResponseWriter, _ *http.Request) { writeDebugFlagsIndex(w) }
	mux.HandleFunc("/debug/flags", index)
	mux.HandleFunc("/debug/flags/", index)
	mux.HandleFunc("/debug/flags/v", serveVerbosityFlag)
	return mux
}
