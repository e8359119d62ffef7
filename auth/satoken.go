package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
	authenticationtokenjwt "k8s.io/apiserver/pkg/authentication/token/jwt"
	"k8s.io/apiserver/pkg/warning"
)

const (
	// DefaultIssuer is the "iss" of bound service-account tokens when
	// ServiceAccountTokens.Issuer is empty (kube-apiserver's
	// --service-account-issuer as kubeadm sets it).
	DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

	// LegacyIssuer is the "iss" of Secret-based (legacy) service-account tokens.
	LegacyIssuer = "kubernetes/serviceaccount"

	// WarnOnlyBoundTokenExpirationSeconds is the expiration kubelet asks for
	// on projected tokens; kube-apiserver then issues a token valid for a
	// year that it warns about (audit) after this many seconds.
	WarnOnlyBoundTokenExpirationSeconds = 60*60 + 7

	// ExpirationExtensionSeconds is the extended lifetime kube-apiserver
	// gives pod-bound tokens requested with WarnOnlyBoundTokenExpirationSeconds
	// (--service-account-max-token-expiration-extended default: one year).
	ExpirationExtensionSeconds = 24 * 365 * 60 * 60

	// jwtLeeway is go-jose's jwt.DefaultLeeway, the clock skew kube-apiserver
	// tolerates on exp/nbf/iat and on deletion timestamps.
	jwtLeeway = time.Minute
)

// Getter reads the objects that service-account tokens refer to. A missing
// object must be reported as an apierrors NotFound error (for example
// apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)); the
// error text reaches clients (TokenReview status.error) as kube-apiserver's
// does.
type Getter interface {
	// ServiceAccount returns the ServiceAccount ns/name.
	ServiceAccount(ns, name string) (*corev1.ServiceAccount, error)
	// Secret returns the Secret ns/name.
	Secret(ns, name string) (*corev1.Secret, error)
	// Pod returns the Pod ns/name.
	Pod(ns, name string) (*corev1.Pod, error)
}

// NodeGetter is implemented by a Getter that can also read Nodes; only then
// are tokens bound directly to a Node accepted (they are rejected otherwise).
type NodeGetter interface {
	// Node returns the Node name.
	Node(name string) (*corev1.Node, error)
}

// BoundObject is the object a bound token is tied to (TokenRequest
// spec.boundObjectRef after the server has looked it up): the token stops
// authenticating when that object is deleted or replaced.
type BoundObject struct {
	// Kind is "Pod", "Secret" or "Node".
	Kind string
	// Name is the object's name (in the ServiceAccount's namespace for a
	// Pod or Secret).
	Name string
	// UID is the object's UID.
	UID types.UID
	// NodeName, for a Pod, is the Node it is scheduled to (spec.nodeName);
	// kube-apiserver records it in the token and the user's extra.
	NodeName string
	// NodeUID is that Node's UID, or "" when no such Node exists.
	NodeUID types.UID
}

// ServiceAccountTokens issues and verifies service-account tokens the way
// kube-apiserver does with its signing key
// (--service-account-signing-key-file: RSA, RS256, or ECDSA P-256, P-384 or
// P-521) and its verification keys (--service-account-key-file). It is an authenticator.Token for
// both bound tokens (iss Issuer) and legacy Secret-based tokens (iss
// LegacyIssuer). The fields must not change after first use.
type ServiceAccountTokens struct {
	// Key signs tokens (an *rsa.PrivateKey or *ecdsa.PrivateKey); its
	// public half verifies them.
	Key crypto.Signer
	// VerifyKeys, when set, are the keys that verify tokens instead of
	// Key's public half (kube-apiserver's --service-account-key-file, which
	// lists the signing key's public half too, and those of earlier keys or
	// other API servers); the key set served at /openid/v1/jwks lists them.
	VerifyKeys []crypto.PublicKey
	// Issuer is the "iss" of bound tokens; DefaultIssuer when empty.
	Issuer string
	// ExtraIssuers are the other issuers whose bound tokens are accepted
	// (kube-apiserver's --service-account-issuer after the first).
	ExtraIssuers []string
	// APIAudiences are the audiences the API server itself accepts
	// (--api-audiences); [Issuer] when empty. TokenRequests without
	// audiences get these.
	APIAudiences []string
	// Getter looks up the ServiceAccounts, Secrets and Pods tokens name.
	Getter Getter
	// DisableExtendedExpiration turns off the one-year extension of
	// pod-bound tokens requested for WarnOnlyBoundTokenExpirationSeconds
	// (--service-account-extend-token-expiration=false).
	DisableExtendedExpiration bool
	// NoLegacyLookup accepts a Secret-based (legacy) token on its
	// signature and claims alone, without reading its Secret and
	// ServiceAccount (--service-account-lookup=false): it stays valid after
	// they are deleted. Bound tokens are checked against their objects
	// whatever it says, as kube-apiserver checks them.
	NoLegacyLookup bool
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Log receives what cannot be told to a client (a failed write of a
	// Secret's LegacyTokenLastUsedLabel); slog.Default when nil.
	Log *slog.Logger

	once  sync.Once
	kid   string
	kidEr error
	// keys are publicKeys' answer, computed once: every token's
	// verification asks for it.
	keysOnce sync.Once
	keys     []crypto.PublicKey
	kids     []string
	keysErr  error
}

var _ authenticator.Token = (*ServiceAccountTokens)(nil)

// NewServiceAccountTokens returns ServiceAccountTokens signing with key (an
// *rsa.PrivateKey or *ecdsa.PrivateKey, see SigningKey; a new ECDSA P-256
// key when nil) and looking objects up with getter, with the default issuer
// and audiences.
func NewServiceAccountTokens(key crypto.Signer, getter Getter) (*ServiceAccountTokens, error) {
	if key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate service account signing key: %w", err)
		}
		key = k
	}
	if _, err := SigningKey(key); err != nil {
		return nil, err
	}
	t := &ServiceAccountTokens{Key: key, Getter: getter}
	if _, err := t.KeyID(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *ServiceAccountTokens) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *ServiceAccountTokens) issuer() string {
	if t.Issuer != "" {
		return t.Issuer
	}
	return DefaultIssuer
}

// Issuers returns the issuers of the bound tokens t verifies
// (kube-apiserver's --service-account-issuer): those no JWT authenticator
// may claim.
func (t *ServiceAccountTokens) Issuers() []string {
	return append([]string{t.issuer()}, t.ExtraIssuers...)
}

// Audiences returns the API server's audiences: APIAudiences, or the
// issuers when that is empty, as kube-apiserver's --api-audiences.
func (t *ServiceAccountTokens) Audiences() authenticator.Audiences {
	if len(t.APIAudiences) > 0 {
		return authenticator.Audiences(t.APIAudiences)
	}
	return authenticator.Audiences(t.Issuers())
}

// PublicKey returns the key that verifies issued tokens.
func (t *ServiceAccountTokens) PublicKey() crypto.PublicKey {
	return t.Key.Public()
}

// publicKeys are the keys that verify tokens, with their key ids:
// VerifyKeys, or Key's public half when there are none. A key listed twice
// is there twice, as in kube-apiserver's static key set.
func (t *ServiceAccountTokens) publicKeys() ([]crypto.PublicKey, []string, error) {
	t.keysOnce.Do(func() {
		keys := t.VerifyKeys
		if len(keys) == 0 {
			keys = []crypto.PublicKey{t.PublicKey()}
		}
		kids := make([]string, len(keys))
		for i, k := range keys {
			kid, err := keyIDFromPublicKey(k)
			if err != nil {
				t.keysErr = err
				return
			}
			kids[i] = kid
		}
		t.keys, t.kids = keys, kids
	})
	return t.keys, t.kids, t.keysErr
}

// KeyID returns the "kid" header of issued tokens, derived from the public
// key as kube-apiserver derives it.
func (t *ServiceAccountTokens) KeyID() (string, error) {
	t.once.Do(func() {
		if t.Key == nil {
			t.kidEr = errors.New("no service account signing key")
			return
		}
		t.kid, t.kidEr = keyIDFromPublicKey(t.Key.Public())
	})
	return t.kid, t.kidEr
}

// ref names an object in the private claims.
type ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// k8sClaims is the "kubernetes.io" claim of bound tokens. Fields are in the
// order kube-apiserver's tokens show them (sorted keys).
type k8sClaims struct {
	Namespace      string `json:"namespace,omitempty"`
	Node           *ref   `json:"node,omitempty"`
	Pod            *ref   `json:"pod,omitempty"`
	Secret         *ref   `json:"secret,omitempty"`
	ServiceAccount ref    `json:"serviceaccount,omitempty"`
	WarnAfter      *int64 `json:"warnafter,omitempty"`
}

// boundClaims is the payload of a bound token, keys in sorted order as
// kube-apiserver writes them.
type boundClaims struct {
	Audience   audience   `json:"aud,omitempty"`
	Expiry     *int64     `json:"exp,omitempty"`
	IssuedAt   *int64     `json:"iat,omitempty"`
	Issuer     string     `json:"iss,omitempty"`
	ID         string     `json:"jti,omitempty"`
	Kubernetes *k8sClaims `json:"kubernetes.io,omitempty"`
	NotBefore  *int64     `json:"nbf,omitempty"`
	Subject    string     `json:"sub,omitempty"`
}

// legacyClaims is the payload of a Secret-based token.
type legacyClaims struct {
	Issuer             string `json:"iss,omitempty"`
	Namespace          string `json:"kubernetes.io/serviceaccount/namespace"`
	SecretName         string `json:"kubernetes.io/serviceaccount/secret.name"`
	ServiceAccountName string `json:"kubernetes.io/serviceaccount/service-account.name"`
	ServiceAccountUID  string `json:"kubernetes.io/serviceaccount/service-account.uid"`
	Subject            string `json:"sub,omitempty"`
}

// publicClaims are the registered claims every token is checked against.
type publicClaims struct {
	Audience  audience `json:"aud,omitempty"`
	Expiry    *float64 `json:"exp,omitempty"`
	IssuedAt  *float64 `json:"iat,omitempty"`
	Issuer    string   `json:"iss,omitempty"`
	ID        string   `json:"jti,omitempty"`
	NotBefore *float64 `json:"nbf,omitempty"`
	Subject   string   `json:"sub,omitempty"`
}

// audience is the "aud" claim: written as an array, read from a string or
// an array.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = audience{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New("go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience")
	}
	*a = l
	return nil
}

func unixTime(f *float64) time.Time {
	return time.Unix(0, int64(*f*float64(time.Second)))
}

// Issue signs a bound token for sa, as the TokenRequest API
// (serviceaccounts/token) does after validating the request: audiences
// (the API audiences when empty), valid for expirationSeconds, and, when
// bound is set, tied to a Pod, Secret or Node. It returns the token and the
// expiration to report in status.expirationTimestamp (now+expirationSeconds,
// even when the token itself was given the extended one-year lifetime).
func (t *ServiceAccountTokens) Issue(sa *corev1.ServiceAccount, audiences []string, expirationSeconds int64, bound *BoundObject) (string, time.Time, error) {
	if sa == nil {
		return "", time.Time{}, errors.New("no service account")
	}
	if len(audiences) == 0 {
		audiences = t.Audiences()
	}
	now := t.now()
	exp := expirationSeconds
	var warnAfter *int64
	if !t.DisableExtendedExpiration && bound != nil && bound.Kind == "Pod" &&
		expirationSeconds == WarnOnlyBoundTokenExpirationSeconds &&
		sets.New[string](t.Audiences()...).HasAll(audiences...) {
		w := now.Add(time.Duration(expirationSeconds) * time.Second).Unix()
		warnAfter = &w
		exp = ExpirationExtensionSeconds
	}
	iat := now.Unix()
	expiry := now.Add(time.Duration(exp) * time.Second).Unix()
	kc := &k8sClaims{
		Namespace:      sa.Namespace,
		ServiceAccount: ref{Name: sa.Name, UID: string(sa.UID)},
		WarnAfter:      warnAfter,
	}
	if bound != nil {
		r := &ref{Name: bound.Name, UID: string(bound.UID)}
		switch bound.Kind {
		case "Pod":
			kc.Pod = r
			if bound.NodeName != "" {
				kc.Node = &ref{Name: bound.NodeName, UID: string(bound.NodeUID)}
			}
		case "Secret":
			kc.Secret = r
		case "Node":
			kc.Node = r
		default:
			return "", time.Time{}, fmt.Errorf("cannot bind token to object of type %s", bound.Kind)
		}
	}
	claims := boundClaims{
		Audience:   audience(audiences),
		Expiry:     &expiry,
		IssuedAt:   &iat,
		Issuer:     t.issuer(),
		ID:         string(uuid.NewUUID()),
		Kubernetes: kc,
		NotBefore:  &iat,
		Subject:    apiserverserviceaccount.MakeUsername(sa.Namespace, sa.Name),
	}
	tok, err := t.sign(claims)
	if err != nil {
		return "", time.Time{}, err
	}
	return tok, now.Add(time.Duration(expirationSeconds) * time.Second), nil
}

// IssueLegacy signs the long-lived token the token controller writes into a
// kubernetes.io/service-account-token Secret for sa. The server must store
// it as the Secret's data["token"]: like kube-apiserver, verification
// accepts a legacy token only while the Secret still holds exactly it.
func (t *ServiceAccountTokens) IssueLegacy(sa *corev1.ServiceAccount, secret *corev1.Secret) (string, error) {
	if sa == nil || secret == nil {
		return "", errors.New("no service account or secret")
	}
	if !apiserverserviceaccount.IsServiceAccountToken(secret, sa) {
		return "", fmt.Errorf("secret %s/%s is not a service account token for %s/%s", secret.Namespace, secret.Name, sa.Namespace, sa.Name)
	}
	return t.sign(legacyClaims{
		Issuer:             LegacyIssuer,
		Namespace:          sa.Namespace,
		SecretName:         secret.Name,
		ServiceAccountName: sa.Name,
		ServiceAccountUID:  string(sa.UID),
		Subject:            apiserverserviceaccount.MakeUsername(sa.Namespace, sa.Name),
	})
}

func (t *ServiceAccountTokens) sign(claims any) (string, error) {
	if t.Key == nil {
		return "", errors.New("no service account signing key")
	}
	kid, err := t.KeyID()
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	return signJWS(t.Key, kid, payload)
}

// AuthenticateToken verifies a service-account token as kube-apiserver's
// legacy and bound service-account authenticators do: a token with another
// issuer, or not a JWT, is not ours (false, nil); otherwise signature,
// issuer, audiences (the request's, from authenticator.AudiencesFrom, or the
// API audiences), validity times and the referenced objects are checked and
// any failure is an error.
func (t *ServiceAccountTokens) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	iss, ok := unverifiedIssuer(token)
	if !ok {
		return nil, false, nil
	}
	legacy := false
	switch {
	case iss == t.issuer() || slices.Contains(t.ExtraIssuers, iss):
	case iss == LegacyIssuer:
		legacy = true
	default:
		return nil, false, nil
	}
	tok, err := parseJWS(token)
	if err != nil {
		return nil, false, nil
	}
	// As upstream's: the keys of the token's kid (all when it names
	// none), each tried until one verifies it.
	keys, kids, err := t.publicKeys()
	if err != nil {
		return nil, false, err
	}
	var verifyErrs []error
	verified, tried := false, false
	for i, k := range keys {
		if tok.header.Kid != "" && tok.header.Kid != kids[i] {
			continue
		}
		tried = true
		if err := tok.verify(k); err != nil {
			verifyErrs = append(verifyErrs, err)
			continue
		}
		verified = true
		break
	}
	if !tried {
		return nil, false, errors.New("invalid signature, no keys found")
	}
	if !verified {
		return nil, false, utilerrors.NewAggregate(verifyErrs)
	}
	var public publicClaims
	if err := json.Unmarshal(tok.payload, &public); err != nil {
		return nil, false, utilerrors.NewAggregate([]error{err})
	}
	if public.Issuer != iss {
		return nil, false, fmt.Errorf("token issuer %q is invalid", public.Issuer)
	}

	implicit := t.Audiences()
	tokenAuds := authenticator.Audiences(public.Audience)
	if len(tokenAuds) == 0 {
		// Only the API server's audiences are allowed for legacy tokens.
		tokenAuds = implicit
	}
	requested, ok := authenticator.AudiencesFrom(ctx)
	if !ok {
		requested = implicit
	}
	auds := tokenAuds.Intersect(requested)
	if len(auds) == 0 && len(implicit) != 0 {
		return nil, false, fmt.Errorf("token audiences %q is invalid for the target audiences %q", tokenAuds, requested)
	}

	var sa *apiserverserviceaccount.ServiceAccountInfo
	if legacy {
		var private legacyClaims
		if err := json.Unmarshal(tok.payload, &private); err != nil {
			return nil, false, utilerrors.NewAggregate([]error{err})
		}
		sa, err = t.validateLegacy(ctx, token, &public, &private)
	} else {
		var private struct {
			Kubernetes k8sClaims `json:"kubernetes.io"`
		}
		if err := json.Unmarshal(tok.payload, &private); err != nil {
			return nil, false, utilerrors.NewAggregate([]error{err})
		}
		sa, err = t.validateBound(&public, &private.Kubernetes)
	}
	if err != nil {
		return nil, false, err
	}
	return &authenticator.Response{User: sa.UserInfo(), Audiences: auds}, true, nil
}

// validateBound checks a bound token's times and the objects it names, as
// kube-apiserver's pkg/serviceaccount validator does.
func (t *ServiceAccountTokens) validateBound(public *publicClaims, private *k8sClaims) (*apiserverserviceaccount.ServiceAccountInfo, error) {
	now := t.now()
	switch {
	case public.NotBefore != nil && now.Add(jwtLeeway).Before(unixTime(public.NotBefore)):
		return nil, errors.New("service account token is not valid yet")
	case public.Expiry != nil && now.Add(-jwtLeeway).After(unixTime(public.Expiry)):
		return nil, errors.New("service account token has expired")
	case public.IssuedAt != nil && now.Add(jwtLeeway).Before(unixTime(public.IssuedAt)):
		return nil, errors.New("service account token is issued in the future")
	}
	if t.Getter == nil {
		return nil, errors.New("no service account getter")
	}
	deletedBefore := now.Add(-jwtLeeway)
	ns := private.Namespace
	saRef := private.ServiceAccount

	serviceAccount, err := t.Getter.ServiceAccount(ns, saRef.Name)
	if err != nil {
		return nil, err
	}
	if string(serviceAccount.UID) != saRef.UID {
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", serviceAccount.UID, saRef.UID)
	}
	if serviceAccount.DeletionTimestamp != nil && serviceAccount.DeletionTimestamp.Time.Before(deletedBefore) {
		return nil, fmt.Errorf("service account %s/%s has been deleted", ns, saRef.Name)
	}

	invalidated := errors.New("service account token has been invalidated")
	if r := private.Secret; r != nil {
		secret, err := t.Getter.Secret(ns, r.Name)
		if err != nil {
			return nil, invalidated
		}
		if r.UID != string(secret.UID) {
			return nil, fmt.Errorf("secret UID (%s) does not match service account secret ref claim (%s)", secret.UID, r.UID)
		}
		if secret.DeletionTimestamp != nil && secret.DeletionTimestamp.Time.Before(deletedBefore) {
			return nil, invalidated
		}
	}

	info := &apiserverserviceaccount.ServiceAccountInfo{
		Namespace: ns,
		Name:      saRef.Name,
		UID:       saRef.UID,
	}
	if r := private.Pod; r != nil {
		pod, err := t.Getter.Pod(ns, r.Name)
		if err != nil {
			return nil, invalidated
		}
		if r.UID != string(pod.UID) {
			return nil, fmt.Errorf("pod UID (%s) does not match service account pod ref claim (%s)", pod.UID, r.UID)
		}
		if pod.DeletionTimestamp != nil && pod.DeletionTimestamp.Time.Before(deletedBefore) {
			return nil, invalidated
		}
		info.PodName, info.PodUID = r.Name, r.UID
	}
	if r := private.Node; r != nil {
		if private.Pod != nil {
			// Pod-bound tokens just carry the node they were issued on.
			info.NodeName, info.NodeUID = r.Name, r.UID
		} else {
			ng, ok := t.Getter.(NodeGetter)
			if !ok {
				return nil, invalidated
			}
			node, err := ng.Node(r.Name)
			if err != nil {
				return nil, invalidated
			}
			if r.UID != string(node.UID) {
				return nil, fmt.Errorf("node UID (%s) does not match service account node ref claim (%s)", node.UID, r.UID)
			}
			if node.DeletionTimestamp != nil && node.DeletionTimestamp.Time.Before(deletedBefore) {
				return nil, invalidated
			}
			info.NodeName, info.NodeUID = r.Name, r.UID
		}
	}
	info.CredentialID = authenticationtokenjwt.CredentialIDForJTI(public.ID)
	return info, nil
}

// validateLegacy checks a Secret-based token as kube-apiserver's legacy
// validator does: its claims, and with --service-account-lookup (the
// default, unless NoLegacyLookup) its Secret and ServiceAccount.
//
// Like kube-apiserver's, it records each day a token is used (or refused
// for its LegacyTokenInvalidSinceLabel) in the Secret's
// LegacyTokenLastUsedLabel, when the Getter is a SecretLabeler, and warns
// the client when the token is one its ServiceAccount lists in secrets
// (auto-generated).
func (t *ServiceAccountTokens) validateLegacy(ctx context.Context, token string, public *publicClaims, private *legacyClaims) (*apiserverserviceaccount.ServiceAccountInfo, error) {
	switch {
	case public.Subject == "":
		return nil, errors.New("sub claim is missing")
	case private.Namespace == "":
		return nil, errors.New("namespace claim is missing")
	case private.SecretName == "":
		return nil, errors.New("secretName claim is missing")
	case private.ServiceAccountName == "":
		return nil, errors.New("serviceAccountName claim is missing")
	case private.ServiceAccountUID == "":
		return nil, errors.New("serviceAccountUID claim is missing")
	}
	ns, name, err := apiserverserviceaccount.SplitUsername(public.Subject)
	if err != nil || ns != private.Namespace || name != private.ServiceAccountName {
		return nil, errors.New("sub claim is invalid")
	}
	info := &apiserverserviceaccount.ServiceAccountInfo{
		Namespace: private.Namespace,
		Name:      private.ServiceAccountName,
		UID:       private.ServiceAccountUID,
	}
	if t.NoLegacyLookup {
		return info, nil
	}
	if t.Getter == nil {
		return nil, errors.New("no service account getter")
	}
	secret, err := t.Getter.Secret(ns, private.SecretName)
	if err != nil || secret.DeletionTimestamp != nil {
		return nil, errors.New("Token has been invalidated")
	}
	if subtle.ConstantTimeCompare(secret.Data[corev1.ServiceAccountTokenKey], []byte(token)) == 0 {
		return nil, errors.New("Token does not match server's copy")
	}
	serviceAccount, err := t.Getter.ServiceAccount(ns, name)
	if err != nil {
		return nil, err
	}
	if serviceAccount.DeletionTimestamp != nil {
		return nil, fmt.Errorf("ServiceAccount %s/%s has been deleted", ns, name)
	}
	if string(serviceAccount.UID) != private.ServiceAccountUID {
		return nil, fmt.Errorf("ServiceAccount UID (%s) does not match claim (%s)", serviceAccount.UID, private.ServiceAccountUID)
	}
	if invalidSince := secret.Labels[LegacyTokenInvalidSinceLabel]; invalidSince != "" {
		t.recordLegacyTokenUse(ctx, secret)
		return nil, fmt.Errorf("the token in secret %s/%s for service account %s/%s has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '%s' label from the secret to temporarily allow use of this token", ns, private.SecretName, ns, name, LegacyTokenInvalidSinceLabel)
	}
	for _, ref := range serviceAccount.Secrets {
		if ref.Name == secret.Name {
			warning.AddWarning(ctx, "", "Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens.")
			break
		}
	}
	t.recordLegacyTokenUse(ctx, secret)
	return info, nil
}

// recordLegacyTokenUse sets secret's LegacyTokenLastUsedLabel to today
// (UTC) unless it already says today or tomorrow, as kube-apiserver's
// legacy token validator does; a failure only goes to the log, as there.
func (t *ServiceAccountTokens) recordLegacyTokenUse(ctx context.Context, secret *corev1.Secret) {
	labeler, ok := t.Getter.(SecretLabeler)
	if !ok {
		return
	}
	now := t.now().UTC()
	today, tomorrow := now.Format(time.DateOnly), now.AddDate(0, 0, 1).Format(time.DateOnly)
	if last := secret.Labels[LegacyTokenLastUsedLabel]; last == today || last == tomorrow {
		return
	}
	if err := labeler.LabelSecret(ctx, secret.Namespace, secret.Name, secret.UID, LegacyTokenLastUsedLabel, today); err != nil {
		log := t.Log
		if log == nil {
			log = slog.Default()
		}
		log.Error("label legacy service account token with its last-used date", "secret", secret.Namespace+"/"+secret.Name, "err", err)
	}
}

// SecretLabeler is implemented by a Getter that can also write a label on
// a Secret, as kube-apiserver's loopback client patches token Secrets.
type SecretLabeler interface {
	// LabelSecret sets the label key to value on the Secret ns/name,
	// provided its UID is still uid.
	LabelSecret(ctx context.Context, ns, name string, uid types.UID, key, value string) error
}

// LegacyTokenLastUsedLabel on a token Secret is the last day (UTC,
// 2006-01-02) its legacy token authenticated, which kube-apiserver keeps
// and kube-controller-manager's legacy token cleaner reads.
const LegacyTokenLastUsedLabel = "kubernetes.io/legacy-token-last-used"

// LegacyTokenInvalidSinceLabel on a token Secret makes kube-apiserver
// reject the legacy token it holds.
const LegacyTokenInvalidSinceLabel = "kubernetes.io/legacy-token-invalid-since"
