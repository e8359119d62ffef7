package server

import (
	"fmt"
	"net/http"

	"github.com/fakeplane/fakeplane/auth"
)

// The service account issuer discovery documents (kube-apiserver's
// ServiceAccountIssuerDiscovery): the OpenID Connect configuration and the
// key set that verify service-account tokens, for relying parties outside
// the cluster. RBAC's bootstrap policy lets service accounts read them
// (system:service-account-issuer-discovery).
const (
	openIDConfigPath = "/.well-known/openid-configuration"
	openIDKeysPath   = auth.OpenIDKeySetPath
	// openIDCacheControl lets clients keep the documents for an hour, as
	// kube-apiserver's.
	openIDCacheControl = "public, max-age=3600"
)

// setupOpenID renders the discovery documents once, as kube-apiserver does
// at start, naming jwksURI (--service-account-jwks-uri) or, by default, the
// key set at the address the server is reached at. When kube-apiserver
// could not render them (an issuer that is not an https URL, ...), it logs
// kube-apiserver's error and returns nil: the documents are then neither
// served (404) nor listed at "/", as kube-apiserver leaves them out.
func (s *Server) setupOpenID(tokens *auth.ServiceAccountTokens, jwksURI string) *auth.OpenIDMetadata {
	md, err := tokens.OpenIDMetadata(jwksURI, s.cfg.ServerAddress)
	if err != nil {
		s.log.Error(fmt.Sprintf("Could not construct pre-rendered responses for ServiceAccountIssuerDiscovery endpoints. Endpoints will not be enabled. Error: %v", err))
		return nil
	}
	return md
}

// serveOpenID serves one of the discovery documents.
func (s *Server) serveOpenID(w http.ResponseWriter, r *http.Request, path string) {
	md := s.auth.openID
	if md == nil {
		http.NotFound(w, r)
		return
	}
	if !routeMethodAllowed(w, r) {
		return
	}
	body, contentType := md.Configuration, "application/json"
	if path == openIDKeysPath {
		body, contentType = md.KeySet, "application/jwk-set+json"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", openIDCacheControl)
	_, _ = w.Write(body)
}
