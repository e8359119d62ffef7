package server

import (
	"net/http"
)

// The service account issuer discovery documents (kube-apiserver's
// ServiceAccountIssuerDiscovery): the OpenID Connect configuration and the
// key set that verify service-account tokens, for relying parties outside
// the cluster. RBAC's bootstrap policy lets service accounts read them
// (system:service-account-issuer-discovery).
const (
	openIDConfigPath = "/.well-known/openid-configuration"
	openIDKeysPath   = "/openid/v1/jwks"
	// openIDCacheControl lets clients keep the documents for an hour, as
	// kube-apiserver's.
	openIDCacheControl = "public, max-age=3600"
)

// serveOpenID serves one of the discovery documents.
func (s *Server) serveOpenID(w http.ResponseWriter, r *http.Request, path string) {
	if !routeMethodAllowed(w, r) {
		return
	}
	tokens := s.auth.tokens
	var (
		body []byte
		err  error
	)
	contentType := "application/json"
	if path == openIDConfigPath {
		// The key set is named by the address the server is reached at,
		// as kube-apiserver's default --service-account-jwks-uri.
		uri := s.cfg.Auth.ServiceAccountJWKSURI
		if uri == "" {
			uri = "https://" + s.cfg.ServerAddress + openIDKeysPath
		}
		body, err = tokens.OpenIDConfiguration(uri)
	} else {
		body, err = tokens.JWKS()
		contentType = "application/jwk-set+json"
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", openIDCacheControl)
	_, _ = w.Write(body)
}
