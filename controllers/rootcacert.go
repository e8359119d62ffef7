package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// configMapsBucket is the store bucket of ConfigMaps.
const configMapsBucket = "/configmaps"

// RootCAConfigMapName is the ConfigMap published in every namespace with
// the cluster CA (the one pods mount with their service-account token).
const RootCAConfigMapName = registry.RootCAConfigMapName

// The published ConfigMap carries a description annotation, the one
// kube-controller-manager sets (moved here as server wrote it).
const (
	descriptionAnnotation = "kubernetes.io/description"
	rootCADescription     = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."
)

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// RootCACertPublisher publishes the cluster CA in every active namespace as
// the ConfigMap kube-root-ca.crt (key ca.crt), and restores it when it is
// deleted or its data or description changes, as kube-controller-manager's
// root-ca-cert-publisher does. It writes as that controller's service
// account, kube-system/root-ca-cert-publisher.
type RootCACertPublisher struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	data map[string]string
	// active are the namespaces not being deleted.
	active map[string]bool
	// stored are the namespaces whose ConfigMap is stored, with whether it
	// is as published.
	stored map[string]bool
	// pending are the namespaces to look at.
	pending map[string]bool
}

// NewRootCACertPublisher returns the root-ca-cert-publisher controller,
// publishing caPEM, writing through reg and logging to log (nil:
// slog.Default()).
func NewRootCACertPublisher(reg registry.Interface, caPEM []byte, log *slog.Logger) *RootCACertPublisher {
	if log == nil {
		log = slog.Default()
	}
	return &RootCACertPublisher{
		reg:     reg,
		log:     log,
		user:    controllerUser("root-ca-cert-publisher"),
		data:    map[string]string{"ca.crt": string(caPEM)},
		active:  map[string]bool{},
		stored:  map[string]bool{},
		pending: map[string]bool{},
	}
}

// Name implements Controller: kube-controller-manager's name for it.
func (c *RootCACertPublisher) Name() string { return "root-ca-certificate-publisher-controller" }

// Resources implements Controller.
func (c *RootCACertPublisher) Resources() []string {
	return []string{namespacesBucket, configMapsBucket}
}

// Wants implements Filter: the namespaces, and the kube-root-ca.crt
// ConfigMap of each.
func (c *RootCACertPublisher) Wants(resource, key string) bool {
	if resource != configMapsBucket {
		return true
	}
	_, name := splitKey(key)
	return name == RootCAConfigMapName
}

// Sync implements Controller: every active namespace whose ConfigMap is
// missing or differs from the published one gets it created or updated.
func (c *RootCACertPublisher) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		switch ev.Resource {
		case namespacesBucket:
			observeNamespace(ev, c.active, c.pending)
		case configMapsBucket:
			ns, name := splitKey(ev.Key)
			if name != RootCAConfigMapName {
				continue
			}
			if ev.Type == store.Deleted {
				delete(c.stored, ns)
			} else {
				c.stored[ns] = c.published(ev.Value)
			}
			if c.active[ns] {
				c.pending[ns] = true
			}
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager") // as upstream's controller
	var errs []error
	for _, ns := range sortedKeys(c.pending) {
		ok, stored := c.stored[ns]
		if !c.active[ns] || ok {
			delete(c.pending, ns)
			continue
		}
		var err error
		if stored {
			err = c.update(ctx, ns)
		} else {
			err = c.create(ctx, ns)
		}
		switch {
		case err == nil, apierrors.IsAlreadyExists(err), apierrors.IsNotFound(err):
			// Done, or changed meanwhile: its events follow.
		case apierrors.IsForbidden(err):
			// The namespace is being deleted: its events follow.
		default:
			errs = append(errs, fmt.Errorf("namespace %s: publish %s: %w", ns, RootCAConfigMapName, err))
			continue
		}
		delete(c.pending, ns)
	}
	return errors.Join(errs...)
}

// published reports whether a stored ConfigMap holds what is published.
func (c *RootCACertPublisher) published(data []byte) bool {
	var cm corev1.ConfigMap
	if err := json.Unmarshal(data, &cm); err != nil {
		return false
	}
	return maps.Equal(cm.Data, c.data) && cm.Annotations[descriptionAnnotation] != ""
}

// create creates the ConfigMap in namespace ns.
func (c *RootCACertPublisher) create(ctx context.Context, ns string) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: RootCAConfigMapName, Namespace: ns, Annotations: map[string]string{descriptionAnnotation: rootCADescription}},
		Data:       maps.Clone(c.data),
	}
	_, err := c.reg.Create(ctx, configMapsGVR, cm)
	return err
}

// update puts the published data and description back into the
// ConfigMap of namespace ns, leaving the rest as it is.
func (c *RootCACertPublisher) update(ctx context.Context, ns string) error {
	_, err := c.reg.Update(ctx, configMapsGVR, ns, RootCAConfigMapName, func(cur runtime.Object) (runtime.Object, error) {
		cm, ok := cur.(*corev1.ConfigMap)
		if !ok {
			return nil, fmt.Errorf("the registry answered with a %T", cur)
		}
		cm.Data = maps.Clone(c.data)
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[descriptionAnnotation] = rootCADescription
		return cm, nil
	})
	return err
}
