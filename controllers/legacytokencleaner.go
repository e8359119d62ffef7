package controllers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/internal/objectrefs"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// The legacy token cleaner's times, kube-controller-manager's: it looks
// every LegacyTokenCleanerInterval, and a token unused for the clean-up
// period (--legacy-service-account-token-clean-up-period, default
// DefaultLegacyTokenCleanUpPeriod) is first marked invalid, then deleted
// once it has been invalid for as long again.
const (
	LegacyTokenCleanerInterval      = 24 * time.Hour
	DefaultLegacyTokenCleanUpPeriod = 365 * 24 * time.Hour
)

// legacyTokenTrackingConfigMap is the kube-system ConfigMap in which
// kube-apiserver records the day it began recording tokens' use.
const legacyTokenTrackingConfigMap = "kube-apiserver-legacy-service-account-token-tracking"

// LegacyTokenCleaner is kube-controller-manager's
// legacy-serviceaccount-token-cleaner-controller. At its first Sync and
// then every LegacyTokenCleanerInterval (on the control plane's clock),
// once kube-apiserver has recorded tokens' use for the clean-up period, it
// looks at the kubernetes.io/service-account-token Secrets created before
// that period and not used since (kube-apiserver's
// kubernetes.io/legacy-token-last-used label), that their ServiceAccount
// lists in its secrets (auto-generated) and no pod of their namespace
// refers to: such a Secret is labelled
// kubernetes.io/legacy-token-invalid-since with the day, and deleted (with
// its resourceVersion as a precondition) once that day is a clean-up period
// ago. It writes as kube-system/legacy-service-account-token-cleaner, under
// field manager kube-controller-manager.
type LegacyTokenCleaner struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// CleanUpPeriod is how long a token must have gone unused (0:
	// DefaultLegacyTokenCleanUpPeriod).
	CleanUpPeriod time.Duration
	// Interval is the time between two looks (0:
	// LegacyTokenCleanerInterval).
	Interval time.Duration
	// tokens are the token Secrets by store key.
	tokens map[string]legacyToken
	looks  lookTimer
	// poll, when positive, bounds the wait for the next look: with a clock
	// a test sets, the day it jumps to is noticed after at most poll.
	poll time.Duration
}

// legacyToken is what the cleaner keeps of a token Secret.
type legacyToken struct {
	namespace, name, resourceVersion string
	uid                              types.UID
	created                          time.Time
	deleting                         bool
	// account and accountUID are the ServiceAccount its annotations name.
	account, accountUID string
	// lastUsed and invalidSince are the labels' values ("" when absent).
	lastUsed, invalidSince string
}

// NewLegacyTokenCleaner returns the cleaner, reading the time from now
// (nil: time.Now; another clock is looked at every second), writing
// through reg and logging to log (nil: slog.Default()).
func NewLegacyTokenCleaner(reg registry.Interface, now func() time.Time, log *slog.Logger) *LegacyTokenCleaner {
	if log == nil {
		log = slog.Default()
	}
	c := &LegacyTokenCleaner{reg: reg, log: log, user: controllerUser("legacy-service-account-token-cleaner"), now: now,
		tokens: map[string]legacyToken{}}
	if now == nil {
		c.now = time.Now
	} else {
		c.poll = time.Second
	}
	return c
}

// Name implements Controller.
func (c *LegacyTokenCleaner) Name() string { return LegacyTokenCleanerName }

// Resources implements Controller.
func (c *LegacyTokenCleaner) Resources() []string { return []string{secretsBucket} }

// Sync implements Controller.
func (c *LegacyTokenCleaner) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted {
			delete(c.tokens, ev.Key)
			continue
		}
		sec, err := decodeEvent[struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Type     corev1.SecretType `json:"type"`
		}](ev)
		if err != nil {
			c.log.Warn("undecodable Secret", "err", err)
			continue
		}
		if sec.Type != corev1.SecretTypeServiceAccountToken {
			delete(c.tokens, ev.Key)
			continue
		}
		m := sec.Metadata
		c.tokens[ev.Key] = legacyToken{namespace: m.Namespace, name: m.Name, resourceVersion: m.ResourceVersion, uid: m.UID,
			created: m.CreationTimestamp.Time, deleting: m.DeletionTimestamp != nil,
			account: m.Annotations[corev1.ServiceAccountNameKey], accountUID: m.Annotations[corev1.ServiceAccountUIDKey],
			lastUsed: m.Labels[auth.LegacyTokenLastUsedLabel], invalidSince: m.Labels[auth.LegacyTokenInvalidSinceLabel]}
	}
	interval := cmp.Or(c.Interval, LegacyTokenCleanerInterval)
	if r := c.looks.wait(c.now(), interval); r != nil {
		return c.bounded(r)
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	if err := c.look(ctx); err != nil {
		// As upstream's, a failed look waits for the next one.
		c.log.Error("look at legacy service account tokens", "err", err)
	}
	return c.bounded(&Requeue{After: interval})
}

// bounded is r, waiting at most c.poll when that is set.
func (c *LegacyTokenCleaner) bounded(r *Requeue) *Requeue {
	if c.poll > 0 {
		r.After = min(r.After, c.poll)
	}
	return r
}

// look marks or deletes the tokens unused for the clean-up period.
func (c *LegacyTokenCleaner) look(ctx context.Context) error {
	period := cmp.Or(c.CleanUpPeriod, DefaultLegacyTokenCleanUpPeriod)
	now := c.now().UTC()
	trackedSince, err := c.trackedSince(ctx)
	if err != nil {
		return err
	}
	if now.Before(trackedSince.Add(period)) {
		return nil // kube-apiserver has not recorded uses for long enough
	}
	createdBefore := now.Add(-period)
	usedBefore := createdBefore.Format(time.DateOnly)
	keys := make([]string, 0, len(c.tokens))
	for key := range c.tokens {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	mounted := map[string]map[string]bool{} // namespace → the Secrets its pods name
	var errs []error
	for _, key := range keys {
		tok := c.tokens[key]
		if tok.deleting || !tok.created.Before(createdBefore) {
			continue
		}
		if tok.lastUsed != "" {
			if _, err := time.Parse(time.DateOnly, tok.lastUsed); err != nil || tok.lastUsed >= usedBefore {
				continue // used since, or a date the cleaner cannot read
			}
		}
		if ok, err := c.autoGenerated(ctx, tok); err != nil || !ok {
			errs = append(errs, err)
			continue
		}
		names, ok := mounted[tok.namespace]
		if !ok {
			if names, err = c.podSecrets(ctx, tok.namespace); err != nil {
				errs = append(errs, err)
				continue
			}
			mounted[tok.namespace] = names
		}
		if names[tok.name] {
			continue
		}
		if _, err := time.Parse(time.DateOnly, tok.invalidSince); err != nil {
			c.log.Info("marking the auto-generated service account token as invalid", "secret", key)
			errs = append(errs, c.markInvalid(ctx, tok, now.Format(time.DateOnly)))
			continue
		}
		if tok.invalidSince >= usedBefore {
			continue
		}
		c.log.Info("deleting the auto-generated service account token", "secret", key, "lastUsed", tok.lastUsed, "invalidSince", tok.invalidSince)
		rv := tok.resourceVersion
		if _, err := c.reg.Delete(ctx, secretsGVR, tok.namespace, tok.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}); err != nil &&
			!apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete legacy service account token %s: %w", key, err))
		}
	}
	return errors.Join(errs...)
}

// trackedSince is the first whole day kube-apiserver recorded tokens' use
// on: the day after its tracking ConfigMap's "since".
func (c *LegacyTokenCleaner) trackedSince(ctx context.Context) (time.Time, error) {
	obj, err := c.reg.Get(ctx, configMapsGVR, metav1.NamespaceSystem, legacyTokenTrackingConfigMap)
	if err != nil {
		return time.Time{}, fmt.Errorf("tracking ConfigMap: %w", err)
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return time.Time{}, fmt.Errorf("tracking ConfigMap is a %T", obj)
	}
	since, ok := cm.Data["since"]
	if !ok {
		return time.Time{}, errors.New("configMap does not have since label")
	}
	day, err := time.Parse(time.DateOnly, since)
	if err != nil {
		return time.Time{}, fmt.Errorf("error parsing trackedSince time: %w", err)
	}
	return day.AddDate(0, 0, 1), nil
}

// autoGenerated reports whether tok's ServiceAccount (with the UID its
// annotation names, when it names one) lists it in its secrets.
func (c *LegacyTokenCleaner) autoGenerated(ctx context.Context, tok legacyToken) (bool, error) {
	if tok.account == "" {
		return false, nil
	}
	obj, err := c.reg.Get(ctx, serviceAccountsGVR, tok.namespace, tok.account)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("service account of %s/%s: %w", tok.namespace, tok.name, err)
	}
	sa, ok := obj.(*corev1.ServiceAccount)
	if !ok || tok.accountUID != "" && types.UID(tok.accountUID) != sa.UID {
		return false, nil
	}
	return slices.ContainsFunc(sa.Secrets, func(r corev1.ObjectReference) bool { return r.Name == tok.name }), nil
}

// podSecrets are the names of the Secrets the pods of namespace refer to.
func (c *LegacyTokenCleaner) podSecrets(ctx context.Context, namespace string) (map[string]bool, error) {
	obj, err := c.reg.List(ctx, podsGVR, namespace, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("pods of %s: %w", namespace, err)
	}
	list, ok := obj.(*corev1.PodList)
	if !ok {
		return nil, fmt.Errorf("pods of %s: a %T", namespace, obj)
	}
	names := map[string]bool{}
	for i := range list.Items {
		for _, name := range objectrefs.PodSecretNames(&list.Items[i].Spec) {
			names[name] = true
		}
	}
	return names, nil
}

// markInvalid labels tok's Secret kubernetes.io/legacy-token-invalid-since
// with day, provided its UID is still tok's, as upstream's merge patch
// does.
func (c *LegacyTokenCleaner) markInvalid(ctx context.Context, tok legacyToken, day string) error {
	err := registry.SetLabel(ctx, c.reg, secretsGVR, tok.namespace, tok.name, tok.uid, auth.LegacyTokenInvalidSinceLabel, day)
	if err != nil {
		return fmt.Errorf("label legacy service account token %s/%s invalid: %w", tok.namespace, tok.name, err)
	}
	return nil
}
