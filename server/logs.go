package server

import (
	"errors"
	"net/http"
	"os"
	"path"
	"strings"
	"syscall"
)

// logDir is the directory kube-apiserver's /logs handler serves.
const logDir = "/var/log"

// isLogsPath reports whether path is the logs handler's (/logs, /logs/...).
func isLogsPath(p string) bool { return p == "/logs" || strings.HasPrefix(p, "/logs/") }

// serveLogs answers /logs/ with the host's /var/log, as kube-apiserver's
// handler with --enable-logs-handler (upstream's routes.Logs): a file, or
// a directory's listing; GET only, other methods its go-restful route's
// 405 Status.
func (s *Server) serveLogs(w http.ResponseWriter, r *http.Request) {
	if !routeMethodAllowed(w, r) {
		return
	}
	rel := strings.TrimPrefix(r.URL.Path, "/logs")
	if rel == "" || rel == "/" {
		http.ServeFile(w, r, logDir)
		return
	}
	actual := path.Join(logDir, rel)
	// As upstream: a name too long for the file system is its 404.
	var perr *os.PathError
	if _, err := os.Stat(actual); errors.As(err, &perr) && errors.Is(perr.Err, syscall.ENAMETOOLONG) {
		http.Error(w, "file not found", http.StatusNotFound)
		return
	}
	http.ServeFile(w, r, actual)
}
