package nullserver

import (
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane/registry"
)

// ProtobufType is the media type the answers are sent as: Kubernetes'
// protobuf, which client-go's typed clients ask for.
const ProtobufType = "application/vnd.kubernetes.protobuf"

// Answers are the bodies a Server answers with, each a protobuf object as
// kube-apiserver sends it.
type Answers struct {
	// Object answers a GET of one object, a PATCH and a DELETE.
	Object []byte
	// Lists answer a GET of a collection by its labelSelector parameter.
	Lists map[string][]byte
	// EmptyList answers a GET of a collection whose selector is not in
	// Lists.
	EmptyList []byte
}

// Server is a running null API server:
//   - a GET with watch=true opens a protobuf watch stream, which gets an
//     ADDED event for every POST;
//   - a POST sends its body as that event to every open watch and then
//     answers 201 with it, as a create that fans out before it answers;
//   - a PUT answers 200 with its body;
//   - any other request gets one of Answers.
type Server struct {
	answers Answers
	srv     *httptest.Server

	mu      sync.Mutex
	watches map[*stream]struct{}
}

// stream is an open watch: POSTs send it events on ch until done closes.
type stream struct {
	ch   chan []byte
	done chan struct{}
}

// Start starts a Server answering with answers.
func Start(answers Answers) *Server {
	s := &Server{answers: answers, watches: map[*stream]struct{}{}}
	s.srv = httptest.NewUnstartedServer(s)
	s.srv.EnableHTTP2 = true
	s.srv.StartTLS()
	return s
}

// Close stops the server, ending its watches.
func (s *Server) Close() { s.srv.Close() }

// RESTConfig returns a client configuration for the server, without
// client-side throttling.
func (s *Server) RESTConfig() *rest.Config {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	return &rest.Config{Host: s.srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}, QPS: -1}
}

// ServeHTTP answers r as the Server's documentation says.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		switch {
		case q.Get("watch") == "true":
			s.watch(w, r)
		case isCollection(r.URL.Path):
			body, ok := s.answers.Lists[q.Get("labelSelector")]
			if !ok {
				body = s.answers.EmptyList
			}
			write(w, http.StatusOK, body)
		default:
			write(w, http.StatusOK, s.answers.Object)
		}
	case http.MethodPost:
		obj, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		frame, err := registry.ProtobufWatchFrame("ADDED", obj)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s.mu.Lock()
		open := make([]*stream, 0, len(s.watches))
		for st := range s.watches {
			open = append(open, st)
		}
		s.mu.Unlock()
		for _, st := range open {
			select {
			case st.ch <- frame:
			case <-st.done:
			}
		}
		write(w, http.StatusCreated, obj)
	case http.MethodPut:
		obj, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		write(w, http.StatusOK, obj)
	default:
		write(w, http.StatusOK, s.answers.Object)
	}
}

// watchBuffer is how many events a watch holds for its stream: a POST
// blocks while a watch's buffer is full.
const watchBuffer = 64

// watch serves a watch stream until the client ends it.
func (s *Server) watch(w http.ResponseWriter, r *http.Request) {
	st := &stream{ch: make(chan []byte, watchBuffer), done: make(chan struct{})}
	s.mu.Lock()
	s.watches[st] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.watches, st)
		s.mu.Unlock()
		close(st.done)
	}()
	w.Header().Set("Content-Type", ProtobufType+";stream=watch")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case frame := <-st.ch:
			if _, err := w.Write(frame); err != nil {
				return
			}
			f.Flush()
		}
	}
}

// isCollection reports whether an API path names a collection
// (/api/v1/namespaces/ns/configmaps) rather than one object
// (/api/v1/namespaces/ns/configmaps/name): after the group and version, a
// collection's path has an odd number of segments.
func isCollection(path string) bool {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	n := len(segs) - 2 // api, v1
	if len(segs) > 0 && segs[0] == "apis" {
		n--
	}
	return n > 0 && n%2 == 1
}

// write answers with body as protobuf.
func write(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", ProtobufType)
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
