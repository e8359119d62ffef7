package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"fmt"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/filters/impersonation"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/auth"
)

// AuthConfig configures authentication and authorization, named after
// kube-apiserver's flags.
type AuthConfig struct {
	// ClientCA verifies client certificates (--client-ca-file).
	ClientCA *x509.CertPool
	// RequestHeader* configure the authenticating-proxy headers
	// (--requestheader-client-ca-file, --requestheader-allowed-names,
	// --requestheader-username-headers, --requestheader-group-headers,
	// --requestheader-extra-headers-prefix).
	RequestHeaderCA                  *x509.CertPool
	RequestHeaderAllowedNames        []string
	RequestHeaderUsernameHeaders     []string
	RequestHeaderGroupHeaders        []string
	RequestHeaderExtraHeaderPrefixes []string
	// Tokens are static bearer tokens (--token-auth-file).
	Tokens []auth.StaticToken
	// Anonymous lets requests without credentials in as system:anonymous
	// (--anonymous-auth); they then get what RBAC grants that user.
	Anonymous bool
	// AuthorizationMode is "RBAC" (the default) or "AlwaysAllow"
	// (--authorization-mode).
	AuthorizationMode string
	// ServiceAccountKey signs service-account tokens; nil generates one.
	ServiceAccountKey *ecdsa.PrivateKey
}

// authState is the server's authentication and authorization machinery.
type authState struct {
	authn    authenticator.Request
	authz    authorizer.Authorizer
	rules    authorizer.RuleResolver
	rbac     *auth.RBACAuthorizer
	tokens   *auth.ServiceAccountTokens
	audience authenticator.Audiences
}

// systemUser is the identity of the server's own writes and controllers.
var systemUser user.Info = &user.DefaultInfo{Name: "system:apiserver", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}

// setupAuth builds the authenticators, authorizers and the filter chain
// kube-apiserver puts in front of its handlers: request info,
// authentication, impersonation, authorization.
func (s *Server) setupAuth(cfg AuthConfig) (http.Handler, error) {
	mode := cfg.AuthorizationMode
	if mode == "" {
		mode = auth.ModeRBAC
	}
	tokens, err := auth.NewServiceAccountTokens(cfg.ServiceAccountKey, saGetter{s})
	if err != nil {
		return nil, fmt.Errorf("service account tokens: %w", err)
	}
	tokens.Now = s.now
	rbac := auth.NewRBACAuthorizer(s.rbacCache)
	authz, rules, err := auth.NewAuthorizer(mode, rbac)
	if err != nil {
		return nil, err
	}
	s.auth = authState{
		authn: auth.NewAuthenticator(auth.AuthenticatorConfig{
			ClientCA:                         cfg.ClientCA,
			RequestHeaderCA:                  cfg.RequestHeaderCA,
			RequestHeaderAllowedNames:        cfg.RequestHeaderAllowedNames,
			RequestHeaderUsernameHeaders:     cfg.RequestHeaderUsernameHeaders,
			RequestHeaderGroupHeaders:        cfg.RequestHeaderGroupHeaders,
			RequestHeaderExtraHeaderPrefixes: cfg.RequestHeaderExtraHeaderPrefixes,
			Tokens:                           cfg.Tokens,
			ServiceAccounts:                  tokens,
			Anonymous:                        cfg.Anonymous,
		}),
		authz:    authz,
		rules:    rules,
		rbac:     rbac,
		tokens:   tokens,
		audience: tokens.Audiences(),
	}
	codecs := serializer.NewCodecFactory(typesScheme()).WithoutConversion()
	var h http.Handler = http.HandlerFunc(s.serveAuthorized)
	h = filters.WithAuthorization(h, s.auth.authz, codecs)
	h = impersonation.WithImpersonation(h, s.auth.authz, codecs)
	unauthorized := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, apierrors.NewUnauthorized("Unauthorized"))
	})
	h = filters.WithAuthentication(h, s.auth.authn, unauthorized, s.auth.audience, nil)
	h = filters.WithRequestInfo(h, s.infos)
	return h, nil
}

// ServiceAccountTokens is the issuer and verifier of service-account tokens.
func (s *Server) ServiceAccountTokens() *auth.ServiceAccountTokens { return s.auth.tokens }

// serveAuthorized serves a request that passed authentication and
// authorization.
func (s *Server) serveAuthorized(w http.ResponseWriter, r *http.Request) {
	info, ok := apirequest.RequestInfoFrom(r.Context())
	if !ok {
		writeError(w, r, apierrors.NewInternalError(fmt.Errorf("no request info")))
		return
	}
	u, _ := apirequest.UserFrom(r.Context())
	if !info.IsResourceRequest {
		s.serveNonResource(w, r, info)
		return
	}
	s.serveResource(w, r, info, u)
}

// saGetter reads what service-account tokens refer to from the store.
type saGetter struct{ s *Server }

func (g saGetter) get(group, version, res, ns, name string, into any) error {
	r, _ := g.s.served.lookup(group, version, res)
	obj, err := g.s.store.Get(r.bucket, objectKey(ns, name))
	if err != nil {
		return apierrors.NewNotFound(r.gr, name)
	}
	return jsonUnmarshal(obj.Value, into)
}

// ServiceAccount returns a stored ServiceAccount.
func (g saGetter) ServiceAccount(ns, name string) (*corev1.ServiceAccount, error) {
	sa := &corev1.ServiceAccount{}
	return sa, g.get("", "v1", "serviceaccounts", ns, name, sa)
}

// Secret returns a stored Secret.
func (g saGetter) Secret(ns, name string) (*corev1.Secret, error) {
	sec := &corev1.Secret{}
	return sec, g.get("", "v1", "secrets", ns, name, sec)
}

// Pod returns a stored Pod.
func (g saGetter) Pod(ns, name string) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	return pod, g.get("", "v1", "pods", ns, name, pod)
}

// Node returns a stored Node.
func (g saGetter) Node(name string) (*corev1.Node, error) {
	n := &corev1.Node{}
	return n, g.get("", "v1", "nodes", "", name, n)
}

// checkRBACWrite runs upstream's escalation and bind checks before a write
// to roles, clusterroles and their bindings.
func (s *Server) checkRBACWrite(c *call, o, old *object) error {
	if c.res.Group != "rbac.authorization.k8s.io" || s.auth.rbac == nil {
		return nil
	}
	w := auth.RBACWrite{User: c.user, Namespace: o.meta.GetNamespace(), Name: o.meta.GetName(), Object: o.obj}
	if old != nil {
		w.Old = old.obj
	}
	return s.auth.rbac.ForStorage(c.res.gr).CheckRBACWrite(c.ctx(), s.auth.authz, w)
}

// afterCommit keeps in-memory views in step with a committed write.
// obj, when not nil, is the committed object in its Go type (data then
// need not be decoded again).
func (s *Server) afterCommit(c *call, key string, obj runtime.Object, data []byte, deleted bool) {
	s.syncServiceIPAddresses(c.res.bucket, obj, data, deleted)
	if c.res.bucket == crdBucket && deleted {
		s.forgetCRD(key, data)
	}
	if c.res.bucket == crdBucket && !deleted {
		crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			crd = &apiextensionsv1.CustomResourceDefinition{}
			if err := jsonUnmarshal(data, crd); err != nil {
				return
			}
		}
		s.syncCRD(crd.DeepCopy())
	}
}

// ctx is the call's context: the HTTP request's, or the Go caller's, with
// the call's user in it (upstream's strategies read the user from there).
func (c *call) ctx() context.Context {
	ctx := context.Background()
	switch {
	case c.r != nil:
		ctx = c.r.Context()
	case c.goCtx != nil:
		ctx = c.goCtx
	}
	return ctx
}

// userAgent is the HTTP request's User-Agent; "" for a call made from Go.
func (c *call) userAgent() string {
	if c.r == nil {
		return ""
	}
	return c.r.UserAgent()
}
