// Package wardle is a small extension API server for tests and examples:
// it serves flunders (wardle.example.com/v1alpha1, namespaced, kept in
// memory) behind k8s.io/apiserver's own serving, authentication and
// authorization, unmodified: SecureServingInfo.Serve, the delegated
// authentication that reads kube-system/extension-apiserver-authentication
// (request-header and client CAs) and reviews tokens with TokenReview, and
// the delegated authorization that asks SubjectAccessReviews, both through
// a kubeconfig of the control plane it extends. That is what a
// k8s.io/apiserver based server such as sample-apiserver does; what it
// leaves out is the generic registry (it needs etcd).
package wardle

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	genericfilters "k8s.io/apiserver/pkg/endpoints/filters"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/apiserver/pkg/server/options"

	"github.com/fakeplane/fakeplane/internal/pki"
)

// Group, Version and Resource name what the server serves.
const (
	Group    = "wardle.example.com"
	Version  = "v1alpha1"
	Resource = "flunders"
)

// GroupVersion is wardle.example.com/v1alpha1.
var GroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// Server is one wardle extension API server.
type Server struct {
	ln       net.Listener
	ca       *pki.CA
	serving  pki.KeyPair
	flunders *flunderStore

	mu      sync.Mutex
	seen    []user.Info
	headers http.Header
	stop    chan struct{}
	stopped <-chan struct{}
	closed  bool
}

// New makes a CA and a serving certificate for <service>.<namespace>.svc
// and listens on a loopback port; nothing is served until Start.
func New(service, namespace string) (*Server, error) {
	ca, err := pki.NewCA("wardle-ca")
	if err != nil {
		return nil, err
	}
	dns := service + "." + namespace + ".svc"
	serving, err := ca.NewServingCert(dns, []string{dns}, nil)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &Server{ln: ln, ca: ca, serving: serving, flunders: newFlunderStore(), stop: make(chan struct{})}, nil
}

// Address is the IP:port the server listens on.
func (s *Server) Address() string { return s.ln.Addr().String() }

// ServingCert returns the serving certificate and key (PEM), for
// <service>.<namespace>.svc.
func (s *Server) ServingCert() (certPEM, keyPEM []byte) { return s.serving.CertPEM, s.serving.KeyPEM }

// CABundle is the PEM of the CA that signed the serving certificate.
func (s *Server) CABundle() []byte { return s.ca.CertPEM }

// Start sets up delegated authentication and authorization with the
// control plane that kubeconfig points at (what the server's service
// account may do there: read the extension-apiserver-authentication
// ConfigMap, create TokenReviews and SubjectAccessReviews) and serves
// until Stop. The caches of delegated decisions are off, so that a change
// of RBAC shows at once.
func (s *Server) Start(kubeconfig string) error {
	authn := options.NewDelegatingAuthenticationOptions()
	authn.RemoteKubeConfigFile = kubeconfig
	authn.CacheTTL = 0
	authz := options.NewDelegatingAuthorizationOptions()
	authz.RemoteKubeConfigFile = kubeconfig
	authz.AllowCacheTTL, authz.DenyCacheTTL = 0, 0

	cert, err := dynamiccertificates.NewStaticCertKeyContent("serving-cert", s.serving.CertPEM, s.serving.KeyPEM)
	if err != nil {
		return err
	}
	serving := &genericserver.SecureServingInfo{Listener: s.ln, Cert: cert}
	var authnInfo genericserver.AuthenticationInfo
	if err := authn.ApplyTo(&authnInfo, serving, nil); err != nil {
		return fmt.Errorf("wardle: delegated authentication: %w", err)
	}
	var authzInfo genericserver.AuthorizationInfo
	if err := authz.ApplyTo(&authzInfo); err != nil {
		return fmt.Errorf("wardle: delegated authorization: %w", err)
	}

	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	codecs := serializer.NewCodecFactory(scheme)
	var h http.Handler = http.HandlerFunc(s.serveAPI)
	h = genericfilters.WithAuthorization(h, authzInfo.Authorizer, codecs)
	h = genericfilters.WithAuthentication(h, authnInfo.Authenticator, genericfilters.Unauthorized(codecs), nil, authnInfo.RequestHeaderConfig)
	h = genericfilters.WithRequestInfo(h, &apirequest.RequestInfoFactory{
		APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api"),
	})
	h = s.recordHeaders(h)
	stopped, _, err := serving.Serve(h, time.Second, s.stop)
	if err != nil {
		return fmt.Errorf("wardle: serve: %w", err)
	}
	s.mu.Lock()
	s.stopped = stopped
	s.mu.Unlock()
	return nil
}

// Stop ends open watches and stops serving; it waits until the server has
// stopped. Safe to call more than once, and without Start.
func (s *Server) Stop() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stop)
	stopped := s.stopped
	s.mu.Unlock()
	if stopped == nil {
		_ = s.ln.Close()
		return
	}
	<-stopped
}

// Seen returns who the server took the callers of its flunder requests
// for, in order: the users the control plane named in the request headers.
func (s *Server) Seen() []user.Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]user.Info(nil), s.seen...)
}

func (s *Server) record(u user.Info) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, u)
}

// LastHeaders returns the headers of the last request for flunders as it
// arrived, before authentication.
func (s *Server) LastHeaders() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers.Clone()
}

// recordHeaders keeps the arriving headers of flunder requests.
func (s *Server) recordHeaders(next http.Handler) http.Handler {
	prefix := "/apis/" + Group + "/" + Version + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, prefix) {
			s.mu.Lock()
			s.headers = r.Header.Clone()
			s.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// Flunders returns how many flunders are stored.
func (s *Server) Flunders() int { return s.flunders.len() }

// context is a context done when the server stops or the request ends.
func (s *Server) context(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
