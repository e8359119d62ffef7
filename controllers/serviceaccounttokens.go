package controllers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// secretsBucket is the store bucket of Secrets.
const secretsBucket = "/secrets"

var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// LegacyTokenFunc signs the legacy token of a
// kubernetes.io/service-account-token Secret of a ServiceAccount.
type LegacyTokenFunc func(sa *corev1.ServiceAccount, secret *corev1.Secret) (string, error)

// ServiceAccountTokens is kube-controller-manager's
// serviceaccount-token-controller: a kubernetes.io/service-account-token
// Secret gets the token of the ServiceAccount its
// kubernetes.io/service-account.name annotation names, the cluster CA and
// its namespace, and that ServiceAccount's UID in its
// kubernetes.io/service-account.uid annotation, in an update after its
// create (as on a cluster, the create's answer has none of them); a token
// Secret whose ServiceAccount does not exist (or has another UID) is
// deleted, and so are a ServiceAccount's token Secrets when it is deleted;
// a deleted token Secret leaves its ServiceAccount's secrets.
type ServiceAccountTokens struct {
	reg    registry.Interface
	log    *slog.Logger
	user   user.Info
	rootCA []byte
	token  LegacyTokenFunc
	// accounts are the ServiceAccounts by store key.
	accounts map[string]*corev1.ServiceAccount
	// secrets are the token Secrets by store key.
	secrets map[string]*corev1.Secret
	// dirty are the keys of the token Secrets to look at.
	dirty map[string]bool
}

// NewServiceAccountTokens returns the token controller, writing through
// reg, publishing rootCA and signing with token.
func NewServiceAccountTokens(reg registry.Interface, rootCA []byte, token LegacyTokenFunc, log *slog.Logger) *ServiceAccountTokens {
	if log == nil {
		log = slog.Default()
	}
	return &ServiceAccountTokens{
		reg: reg, log: log, rootCA: rootCA, token: token,
		// kube-controller-manager runs it with its own credentials.
		user:     &user.DefaultInfo{Name: "system:kube-controller-manager", Groups: []string{user.AllAuthenticated}},
		accounts: map[string]*corev1.ServiceAccount{},
		secrets:  map[string]*corev1.Secret{},
		dirty:    map[string]bool{},
	}
}

// Name implements Controller.
func (c *ServiceAccountTokens) Name() string { return ServiceAccountTokenName }

// Resources implements Controller.
func (c *ServiceAccountTokens) Resources() []string {
	return []string{serviceAccountsBucket, secretsBucket}
}

// Sync implements Controller.
func (c *ServiceAccountTokens) Sync(ctx context.Context, events []store.Event) error {
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, ev := range events {
		switch ev.Resource {
		case serviceAccountsBucket:
			if ev.Type != store.Deleted {
				if _, err := trackEvent(c.accounts, ev); err != nil {
					c.log.Warn("undecodable ServiceAccount", "key", ev.Key, "err", err)
				}
				continue
			}
			sa, err := decodeEvent[corev1.ServiceAccount](ev)
			delete(c.accounts, ev.Key)
			if err == nil {
				errs = append(errs, c.deleteTokens(ctx, sa)...)
			}
		case secretsBucket:
			sec, err := decodeEvent[corev1.Secret](ev)
			if err != nil || sec.Type != corev1.SecretTypeServiceAccountToken {
				delete(c.secrets, ev.Key)
				continue
			}
			if ev.Type == store.Deleted {
				delete(c.secrets, ev.Key)
				delete(c.dirty, ev.Key)
				if err := c.removeSecretReference(ctx, sec); err != nil {
					errs = append(errs, err)
				}
				continue
			}
			c.secrets[ev.Key], c.dirty[ev.Key] = sec, true
		}
	}
	for _, k := range sortedKeys(c.dirty) {
		sec, ok := c.secrets[k]
		if !ok {
			delete(c.dirty, k)
			continue
		}
		if err := c.syncSecret(ctx, sec); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(c.dirty, k)
	}
	return errors.Join(errs...)
}

// serviceAccountOf returns the ServiceAccount a token Secret names, if it
// exists with the UID the Secret records (if any); one the controller has
// not seen is read from the store, as upstream reads it on a cache miss.
func (c *ServiceAccountTokens) serviceAccountOf(ctx context.Context, sec *corev1.Secret) (*corev1.ServiceAccount, error) {
	name, uid := sec.Annotations[corev1.ServiceAccountNameKey], types.UID(sec.Annotations[corev1.ServiceAccountUIDKey])
	sa, ok := c.accounts[registry.ObjectKey(sec.Namespace, name)]
	if !ok {
		obj, err := c.reg.Get(ctx, serviceAccountsGVR, sec.Namespace, name)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		sa = obj.(*corev1.ServiceAccount)
	}
	if uid != "" && uid != sa.UID {
		return nil, nil
	}
	return sa, nil
}

// syncSecret deletes a token Secret whose ServiceAccount is gone, or
// gives it what it lacks.
func (c *ServiceAccountTokens) syncSecret(ctx context.Context, sec *corev1.Secret) error {
	sa, err := c.serviceAccountOf(ctx, sec)
	if err != nil {
		return err
	}
	if sa == nil {
		return c.deleteToken(ctx, sec)
	}
	if !c.needsUpdate(sec) {
		return nil
	}
	_, err = c.reg.Update(ctx, secretsGVR, sec.Namespace, sec.Name, func(cur runtime.Object) (runtime.Object, error) {
		live := cur.(*corev1.Secret)
		if live.UID != sec.UID || !c.needsUpdate(live) {
			return nil, errNoChange
		}
		if live.Annotations == nil {
			live.Annotations = map[string]string{}
		}
		if live.Data == nil {
			live.Data = map[string][]byte{}
		}
		if len(c.rootCA) > 0 && !bytes.Equal(live.Data[corev1.ServiceAccountRootCAKey], c.rootCA) {
			live.Data[corev1.ServiceAccountRootCAKey] = c.rootCA
		}
		if len(live.Data[corev1.ServiceAccountNamespaceKey]) == 0 {
			live.Data[corev1.ServiceAccountNamespaceKey] = []byte(live.Namespace)
		}
		live.Annotations[corev1.ServiceAccountNameKey] = sa.Name
		live.Annotations[corev1.ServiceAccountUIDKey] = string(sa.UID)
		if len(live.Data[corev1.ServiceAccountTokenKey]) == 0 {
			if c.token == nil {
				return nil, errors.New("no token signer")
			}
			token, err := c.token(sa, live)
			if err != nil {
				return nil, err
			}
			live.Data[corev1.ServiceAccountTokenKey] = []byte(token)
		}
		return live, nil
	})
	if err == nil || errors.Is(err, errNoChange) || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("populate token secret %s/%s: %w", sec.Namespace, sec.Name, err)
}

// needsUpdate is upstream's secretUpdateNeeded: the CA differs, or the
// namespace or the token is missing.
func (c *ServiceAccountTokens) needsUpdate(sec *corev1.Secret) bool {
	return len(c.rootCA) > 0 && !bytes.Equal(sec.Data[corev1.ServiceAccountRootCAKey], c.rootCA) ||
		len(sec.Data[corev1.ServiceAccountNamespaceKey]) == 0 || len(sec.Data[corev1.ServiceAccountTokenKey]) == 0
}

// deleteToken deletes a token Secret, if it is still the one seen.
func (c *ServiceAccountTokens) deleteToken(ctx context.Context, sec *corev1.Secret) error {
	uid := sec.UID
	_, err := c.reg.Delete(ctx, secretsGVR, sec.Namespace, sec.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("delete token secret %s/%s: %w", sec.Namespace, sec.Name, err)
}

// deleteTokens deletes the token Secrets of a deleted ServiceAccount.
func (c *ServiceAccountTokens) deleteTokens(ctx context.Context, sa *corev1.ServiceAccount) []error {
	keys := make([]string, 0, len(c.secrets))
	for k, sec := range c.secrets {
		uid := types.UID(sec.Annotations[corev1.ServiceAccountUIDKey])
		if sec.Namespace == sa.Namespace && sec.Annotations[corev1.ServiceAccountNameKey] == sa.Name && (uid == "" || uid == sa.UID) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		if err := c.deleteToken(ctx, c.secrets[k]); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// removeSecretReference takes a deleted token Secret out of its
// ServiceAccount's secrets.
func (c *ServiceAccountTokens) removeSecretReference(ctx context.Context, sec *corev1.Secret) error {
	name, uid := sec.Annotations[corev1.ServiceAccountNameKey], types.UID(sec.Annotations[corev1.ServiceAccountUIDKey])
	_, err := c.reg.Update(ctx, serviceAccountsGVR, sec.Namespace, name, func(cur runtime.Object) (runtime.Object, error) {
		sa := cur.(*corev1.ServiceAccount)
		if uid != "" && uid != sa.UID {
			return nil, errNoChange
		}
		kept := sa.Secrets[:0:0]
		for _, ref := range sa.Secrets {
			if ref.Name != sec.Name {
				kept = append(kept, ref)
			}
		}
		if len(kept) == len(sa.Secrets) {
			return nil, errNoChange
		}
		sa.Secrets = kept
		return sa, nil
	})
	if err == nil || errors.Is(err, errNoChange) || apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("remove secret %s from service account %s/%s: %w", sec.Name, sec.Namespace, name, err)
}
