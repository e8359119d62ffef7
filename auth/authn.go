package auth

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/uuid"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/authentication/request/union"
	x509request "k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	tokenunion "k8s.io/apiserver/pkg/authentication/token/union"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/fakeplane/fakeplane/auth/cafile"
)

// StaticToken is one line of a --token-auth-file: a bearer token and the
// user it authenticates as.
type StaticToken struct {
	// Token is the bearer token.
	Token string
	// User is the user name it authenticates as.
	User string
	// UID is the user's UID (may be empty).
	UID string
	// Groups are the user's groups; system:authenticated is added.
	Groups []string
}

// AuthenticatorConfig selects the authenticators NewAuthenticator chains.
// A zero field turns its authenticator off.
type AuthenticatorConfig struct {
	// ClientCA verifies client certificates (--client-ca-file), with the
	// bundle it has at each request; the certificate's CN is the user and
	// its O values the groups.
	ClientCA cafile.Source

	// RequestHeaderCA verifies the client certificate of an authenticating
	// proxy (--requestheader-client-ca-file), with the bundle it has at
	// each request; only such a client may assert a user with the request
	// headers below.
	RequestHeaderCA cafile.Source
	// RequestHeaderAllowedNames are the CNs the proxy's certificate may
	// have (--requestheader-allowed-names); empty allows any.
	RequestHeaderAllowedNames []string
	// RequestHeaderUsernameHeaders default to ["X-Remote-User"].
	RequestHeaderUsernameHeaders []string
	// RequestHeaderUIDHeaders are off by default, as in kube-apiserver
	// (--requestheader-uid-headers); set e.g. ["X-Remote-Uid"].
	RequestHeaderUIDHeaders []string
	// RequestHeaderGroupHeaders default to ["X-Remote-Group"].
	RequestHeaderGroupHeaders []string
	// RequestHeaderExtraHeaderPrefixes default to ["X-Remote-Extra-"].
	RequestHeaderExtraHeaderPrefixes []string

	// Tokens are the static bearer tokens (--token-auth-file).
	Tokens []StaticToken
	// ServiceAccounts verifies service-account bearer tokens.
	ServiceAccounts *ServiceAccountTokens
	// BootstrapTokens, when not nil, verifies bootstrap tokens after the
	// service-account tokens (--enable-bootstrap-token-auth), as
	// kube-apiserver orders them.
	BootstrapTokens *BootstrapTokens
	// JWT verifies the tokens of the JWT authenticators of an
	// --authentication-config (NewJWTAuthenticator), after the
	// service-account tokens, as kube-apiserver orders them.
	JWT authenticator.Token
	// Webhook verifies bearer tokens with a TokenReview webhook
	// (NewTokenWebhook), last, as kube-apiserver orders it.
	Webhook authenticator.Token
	// APIAudiences are the audiences of the API server (--api-audiences);
	// when empty, those of ServiceAccounts.
	APIAudiences []string

	// Anonymous authenticates requests without credentials as
	// system:anonymous in group system:unauthenticated.
	Anonymous bool
	// AnonymousConditions, when not empty, limit Anonymous to the paths
	// they name (an --authentication-config's anonymous.conditions).
	AnonymousConditions []apiserverconfig.AnonymousAuthCondition

	// Now is the clock of the bearer tokens' cache (see
	// TokenSuccessCacheTTL); time.Now when nil.
	Now func() time.Time

	// LoopbackToken is the privileged loopback bearer token kube-apiserver
	// accepts in front of everything else (user system:apiserver, groups
	// system:authenticated and system:masters). A random one nobody knows
	// is used when empty, so that a rejected bearer token's error reads as
	// kube-apiserver's ("[invalid bearer token, ...]").
	LoopbackToken string
}

// NewAuthenticator returns the request authenticator kube-apiserver builds
// (pkg/kubeapiserver/authenticator): the loopback token, then the
// request-header proxy, client certificates and bearer tokens (static, then
// service-account; also as a WebSocket subprotocol), with system:authenticated
// added to whoever they authenticate; and, when cfg.Anonymous, the anonymous
// user for requests without credentials. Presented credentials that fail
// (a bad or expired token, a certificate the CA does not verify) give an
// error, which the server turns into 401, even with anonymous enabled.
func NewAuthenticator(cfg AuthenticatorConfig) authenticator.Request {
	// (The authenticators are upstream's dynamic ones: a CA file read
	// again applies from the next request on.)
	auds := authenticator.Audiences(cfg.APIAudiences)
	if len(auds) == 0 && cfg.ServiceAccounts != nil {
		auds = cfg.ServiceAccounts.Audiences()
	}

	var authenticators []authenticator.Request
	if cfg.RequestHeaderCA != nil {
		rh := headerrequest.NewDynamicVerifyOptionsSecure(clientVerifyOptions(cfg.RequestHeaderCA),
			headerrequest.StaticStringSlice(cfg.RequestHeaderAllowedNames),
			headerrequest.StaticStringSlice(orDefault(cfg.RequestHeaderUsernameHeaders, "X-Remote-User")),
			headerrequest.StaticStringSlice(cfg.RequestHeaderUIDHeaders),
			headerrequest.StaticStringSlice(orDefault(cfg.RequestHeaderGroupHeaders, "X-Remote-Group")),
			headerrequest.StaticStringSlice(orDefault(cfg.RequestHeaderExtraHeaderPrefixes, "X-Remote-Extra-")),
		)
		authenticators = append(authenticators, authenticator.WrapAudienceAgnosticRequest(auds, newFrontProxyPrecheck(rh, cfg.RequestHeaderCA)))
	}
	if cfg.ClientCA != nil {
		authenticators = append(authenticators, newCachedCertAuthenticator(
			x509request.NewDynamic(clientVerifyOptions(cfg.ClientCA), x509request.CommonNameUserConversion), cfg.ClientCA))
	}

	var tokenAuthenticators []authenticator.Token
	if len(cfg.Tokens) > 0 {
		tokens := make(map[string]*user.DefaultInfo, len(cfg.Tokens))
		for _, t := range cfg.Tokens {
			tokens[t.Token] = &user.DefaultInfo{Name: t.User, UID: t.UID, Groups: append([]string(nil), t.Groups...)}
		}
		tokenAuthenticators = append(tokenAuthenticators, authenticator.WrapAudienceAgnosticToken(auds, tokenfile.New(tokens)))
	}
	if cfg.ServiceAccounts != nil {
		tokenAuthenticators = append(tokenAuthenticators, cfg.ServiceAccounts)
	}
	if cfg.BootstrapTokens != nil {
		tokenAuthenticators = append(tokenAuthenticators, authenticator.WrapAudienceAgnosticToken(auds, cfg.BootstrapTokens))
	}
	if cfg.JWT != nil {
		tokenAuthenticators = append(tokenAuthenticators, cfg.JWT)
	}
	if cfg.Webhook != nil {
		tokenAuthenticators = append(tokenAuthenticators, cfg.Webhook)
	}
	if len(tokenAuthenticators) > 0 {
		// kube-apiserver remembers a token's success for
		// TokenSuccessCacheTTL.
		tokenAuth := authenticator.Token(newTokenCache(tokenunion.New(tokenAuthenticators...), TokenSuccessCacheTTL, cfg.Now))
		authenticators = append(authenticators, bearertoken.New(tokenAuth), &websocketProtocolAuthenticator{auth: tokenAuth})
	}

	var chain authenticator.Request
	switch {
	case len(authenticators) == 0 && cfg.Anonymous:
		chain = anonymous.NewAuthenticator(cfg.AnonymousConditions)
	case len(authenticators) == 0:
		chain = authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil })
	default:
		chain = group.NewAuthenticatedGroupAdder(union.New(authenticators...))
		if cfg.Anonymous {
			chain = union.NewFailOnError(chain, anonymous.NewAuthenticator(cfg.AnonymousConditions))
		}
	}

	loopback := cfg.LoopbackToken
	if loopback == "" {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		loopback = hex.EncodeToString(b)
	}
	loopbackAuth := bearertoken.New(authenticator.WrapAudienceAgnosticToken(auds, tokenfile.New(map[string]*user.DefaultInfo{
		loopback: {
			Name:   user.APIServerUser,
			UID:    string(uuid.NewUUID()),
			Groups: []string{user.AllAuthenticated, user.SystemPrivilegedGroup},
		},
	})))
	return union.New(loopbackAuth, chain)
}

func orDefault(v []string, def string) []string {
	if len(v) > 0 {
		return v
	}
	return []string{def}
}

// bearerProtocolPrefix marks the WebSocket subprotocol that carries a bearer
// token (base64url, unpadded) for clients that cannot set headers.
const bearerProtocolPrefix = "base64url.bearer.authorization.k8s.io."

// websocketProtocolAuthenticator authenticates a WebSocket upgrade by the
// bearer token in its Sec-WebSocket-Protocol header, as k8s.io/apiserver's
// request/websocket authenticator does (written here to avoid that
// package's k8s.io/streaming dependency).
type websocketProtocolAuthenticator struct {
	auth authenticator.Token
}

func (a *websocketProtocolAuthenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") || !isUpgrade(req.Header) {
		return nil, false, nil
	}
	const header = "Sec-Websocket-Protocol"
	token := ""
	saw := false
	var others []string
	for _, h := range req.Header[header] {
		for _, p := range strings.Split(h, ",") {
			p = strings.TrimSpace(p)
			if !strings.HasPrefix(p, bearerProtocolPrefix) {
				others = append(others, p)
				continue
			}
			if saw {
				return nil, false, errors.New("multiple base64.bearer.authorization tokens specified")
			}
			saw = true
			b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(p, bearerProtocolPrefix))
			if err != nil {
				return nil, false, errors.New("invalid base64.bearer.authorization token encoding")
			}
			if !utf8.Valid(b) {
				return nil, false, errors.New("invalid base64.bearer.authorization token")
			}
			token = string(b)
		}
	}
	if token != "" && len(others) == 0 {
		return nil, false, errors.New("missing additional subprotocol")
	}
	if token == "" {
		return nil, false, nil
	}
	resp, ok, err := a.auth.AuthenticateToken(req.Context(), token)
	if ok {
		req.Header.Set(header, strings.Join(others, ","))
	}
	if !ok && err == nil {
		err = errors.New("invalid bearer token")
	}
	return resp, ok, err
}

// isUpgrade reports whether a Connection header mentions "upgrade", the
// test k8s.io/streaming's httpstream.IsUpgradeRequest makes.
func isUpgrade(h http.Header) bool {
	for _, v := range h["Connection"] {
		if strings.Contains(strings.ToLower(v), "upgrade") {
			return true
		}
	}
	return false
}

// clientVerifyOptions verifies client certificates with the CAs src has
// at the time.
func clientVerifyOptions(src cafile.Source) x509request.VerifyOptionFunc {
	return func() (x509.VerifyOptions, bool) {
		return x509.VerifyOptions{Roots: src.Bundle().Pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, true
	}
}
