package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// serviceAccountsBucket is the store bucket of ServiceAccounts.
const serviceAccountsBucket = "/serviceaccounts"

// DefaultServiceAccountName is the ServiceAccount every active namespace
// has.
const DefaultServiceAccountName = "default"

var serviceAccountsGVR = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}

// ServiceAccount gives every active namespace its default ServiceAccount
// and creates it again when it is deleted, as kube-controller-manager's
// serviceaccount controller does. It writes as that controller's service
// account, kube-system/service-account-controller.
type ServiceAccount struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	// active are the namespaces not being deleted.
	active map[string]bool
	// has are the namespaces whose default ServiceAccount is stored.
	has map[string]bool
	// pending are the namespaces to look at.
	pending map[string]bool
}

// NewServiceAccount returns the serviceaccount controller, writing through
// reg and logging to log (nil: slog.Default()).
func NewServiceAccount(reg registry.Interface, log *slog.Logger) *ServiceAccount {
	if log == nil {
		log = slog.Default()
	}
	return &ServiceAccount{
		reg:     reg,
		log:     log,
		user:    controllerUser("service-account-controller"),
		active:  map[string]bool{},
		has:     map[string]bool{},
		pending: map[string]bool{},
	}
}

// controllerUser is the identity of a kube-controller-manager controller
// that uses its own service account in kube-system.
func controllerUser(name string) user.Info {
	const ns = "kube-system"
	return &user.DefaultInfo{
		Name:   serviceaccount.MakeUsername(ns, name),
		Groups: append(serviceaccount.MakeGroupNames(ns), user.AllAuthenticated),
	}
}

// Name implements Controller: kube-controller-manager's name for it.
func (c *ServiceAccount) Name() string { return "serviceaccount-controller" }

// Resources implements Controller.
func (c *ServiceAccount) Resources() []string {
	return []string{namespacesBucket, serviceAccountsBucket}
}

// Wants implements Filter: the namespaces, and the default ServiceAccount
// of each.
func (c *ServiceAccount) Wants(resource, key string) bool {
	if resource != serviceAccountsBucket {
		return true
	}
	_, name := splitKey(key)
	return name == DefaultServiceAccountName
}

// Sync implements Controller: every active namespace whose default
// ServiceAccount is missing gets one.
func (c *ServiceAccount) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		switch ev.Resource {
		case namespacesBucket:
			observeNamespace(ev, c.active, c.pending)
		case serviceAccountsBucket:
			ns, name := splitKey(ev.Key)
			if name != DefaultServiceAccountName {
				continue
			}
			c.has[ns] = ev.Type != store.Deleted
			if !c.has[ns] && c.active[ns] {
				c.pending[ns] = true
			}
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager") // as upstream's controller
	var errs []error
	for _, ns := range sortedKeys(c.pending) {
		if !c.active[ns] || c.has[ns] {
			delete(c.pending, ns)
			continue
		}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultServiceAccountName, Namespace: ns}}
		_, err := c.reg.Create(ctx, serviceAccountsGVR, sa)
		switch {
		case err == nil, apierrors.IsAlreadyExists(err):
		case apierrors.IsNotFound(err), apierrors.IsForbidden(err):
			// The namespace is gone or being deleted: its events follow.
		default:
			errs = append(errs, fmt.Errorf("namespace %s: create service account %s: %w", ns, DefaultServiceAccountName, err))
			continue
		}
		delete(c.pending, ns)
	}
	return errors.Join(errs...)
}

// observeNamespace records a namespace event in active (the namespaces not
// being deleted) and marks an active namespace pending.
func observeNamespace(ev store.Event, active, pending map[string]bool) {
	if ev.Type == store.Deleted || terminating(ev.Value) {
		delete(active, ev.Key)
		delete(pending, ev.Key)
		return
	}
	active[ev.Key] = true
	pending[ev.Key] = true
}

// splitKey splits a namespaced store key, "namespace/name".
func splitKey(key string) (ns, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
