package auth

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	bootstrapapi "k8s.io/cluster-bootstrap/token/api"
	bootstrapsecrets "k8s.io/cluster-bootstrap/util/secrets"
	bootstraptokens "k8s.io/cluster-bootstrap/util/tokens"
)

// BootstrapTokens authenticates bootstrap tokens ("abcdef.0123456789abcdef"),
// as kube-apiserver's --enable-bootstrap-token-auth does (its
// plugin/pkg/auth/authenticator/token/bootstrap): the token names the
// Secret kube-system/bootstrap-token-<id> of type
// bootstrap.kubernetes.io/token, which must hold the token's secret and id,
// not have expired, not be being deleted, and allow authentication
// (usage-bootstrap-authentication: "true"). The user is
// system:bootstrap:<id> in system:bootstrappers and the Secret's
// auth-extra-groups. A token that does not match is not authenticated
// (no error), so the authenticators after it are asked.
type BootstrapTokens struct {
	// Secret returns the Secret ns/name, or a NotFound error.
	Secret func(ns, name string) (*corev1.Secret, error)
	// Now is the clock expirations are read by; time.Now when nil.
	Now func() time.Time
	// Log receives why a token naming a Secret was not accepted (as
	// kube-apiserver logs it at level 3); discarded when nil.
	Log *slog.Logger
}

// AuthenticateToken implements authenticator.Token.
func (b *BootstrapTokens) AuthenticateToken(_ context.Context, token string) (*authenticator.Response, bool, error) {
	id, tokenSecret, err := bootstraptokens.ParseToken(token)
	if err != nil {
		return nil, false, nil // not a bootstrap token
	}
	name := bootstrapapi.BootstrapTokenSecretPrefix + id
	secret, err := b.Secret(metav1.NamespaceSystem, name)
	if apierrors.IsNotFound(err) {
		b.reject(nil, "no secret of name "+name+" to match bootstrap bearer token")
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	switch {
	case secret.DeletionTimestamp != nil:
		b.reject(secret, "is deleted and awaiting removal")
	case secret.Type != bootstrapapi.SecretTypeBootstrapToken || secret.Data == nil:
		b.reject(secret, "has invalid type, expected "+string(bootstrapapi.SecretTypeBootstrapToken))
	case subtle.ConstantTimeCompare([]byte(bootstrapsecrets.GetData(secret, bootstrapapi.BootstrapTokenSecretKey)), []byte(tokenSecret)) != 1:
		b.reject(secret, "has invalid value for key "+bootstrapapi.BootstrapTokenSecretKey)
	case bootstrapsecrets.GetData(secret, bootstrapapi.BootstrapTokenIDKey) != id:
		b.reject(secret, "has invalid value for key "+bootstrapapi.BootstrapTokenIDKey)
	case bootstrapsecrets.HasExpired(secret, b.now()):
		b.reject(secret, "has expired")
	case bootstrapsecrets.GetData(secret, bootstrapapi.BootstrapTokenUsageAuthentication) != "true":
		b.reject(secret, "not marked "+bootstrapapi.BootstrapTokenUsageAuthentication+"=true")
	default:
		groups, err := bootstrapsecrets.GetGroups(secret)
		if err != nil {
			b.reject(secret, "has invalid value for key "+bootstrapapi.BootstrapTokenExtraGroupsKey+": "+err.Error())
			return nil, false, nil
		}
		return &authenticator.Response{User: &user.DefaultInfo{Name: bootstrapapi.BootstrapUserPrefix + id, Groups: groups}}, true, nil
	}
	return nil, false, nil
}

func (b *BootstrapTokens) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// reject logs why a bootstrap token was not accepted.
func (b *BootstrapTokens) reject(secret *corev1.Secret, why string) {
	if b.Log == nil {
		return
	}
	if secret == nil {
		b.Log.Debug("bootstrap token not accepted: " + why)
		return
	}
	b.Log.Debug("bootstrap secret "+secret.Namespace+"/"+secret.Name+" matching bearer token "+why, "secret", secret.Name)
}
