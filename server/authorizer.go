package server

import "k8s.io/apiserver/pkg/authorization/authorizer"

// Authorizer is the server's authorizer (RBAC or AlwaysAllow), for the
// authorizer variable of admission policies' CEL expressions.
func (s *Server) Authorizer() authorizer.Authorizer { return s.auth.authz }
