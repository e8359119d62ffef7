package controllers

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

const (
	clusterTrustBundlesBucket = "certificates.k8s.io/clustertrustbundles"
	// kubeAPIServerServingSigner is the signer of kube-apiserver's serving
	// certificates, whose CA the publisher publishes.
	kubeAPIServerServingSigner = "kubernetes.io/kube-apiserver-serving"
)

var clusterTrustBundlesGVR = schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "clustertrustbundles"}

// ClusterTrustBundlePublisher is kube-controller-manager's
// kube-apiserver-serving-clustertrustbundle-publisher-controller: the CA
// that signs kube-apiserver's serving certificate (the cluster CA) is
// published as the ClusterTrustBundle of signer
// kubernetes.io/kube-apiserver-serving, named after the signer and a hash
// of the bundle (kubernetes.io:kube-apiserver-serving:<24 hex digits>),
// made again or set back when it is deleted or changed; other bundles of
// that signer are deleted.
type ClusterTrustBundlePublisher struct {
	reg    registry.Interface
	log    *slog.Logger
	user   user.Info
	bundle string
	name   string
	// signed are the bundles of the signer, by name, with their content.
	signed map[string]string
	// synced is set once the published bundle is as it should be and no
	// other of the signer is left.
	synced bool
}

// NewClusterTrustBundlePublisher returns the publisher of rootCA, writing
// through reg.
func NewClusterTrustBundlePublisher(reg registry.Interface, rootCA []byte, log *slog.Logger) *ClusterTrustBundlePublisher {
	if log == nil {
		log = slog.Default()
	}
	return &ClusterTrustBundlePublisher{
		reg: reg, log: log, user: controllerUser("kube-apiserver-serving-clustertrustbundle-publisher"),
		bundle: string(rootCA),
		name:   KubeAPIServerServingBundle(rootCA).Name,
		signed: map[string]string{},
	}
}

// KubeAPIServerServingBundle is the ClusterTrustBundle the publisher
// publishes of rootCA.
func KubeAPIServerServingBundle(rootCA []byte) *certificatesv1.ClusterTrustBundle {
	sum := sha256.Sum256(rootCA)
	return &certificatesv1.ClusterTrustBundle{
		TypeMeta:   metav1.TypeMeta{APIVersion: "certificates.k8s.io/v1", Kind: "ClusterTrustBundle"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s:%x", strings.ReplaceAll(kubeAPIServerServingSigner, "/", ":"), sum[:12])},
		Spec:       certificatesv1.ClusterTrustBundleSpec{SignerName: kubeAPIServerServingSigner, TrustBundle: string(rootCA)},
	}
}

// Name implements Controller.
func (c *ClusterTrustBundlePublisher) Name() string { return ClusterTrustBundlePublisherName }

// Resources implements Controller.
func (c *ClusterTrustBundlePublisher) Resources() []string {
	return []string{clusterTrustBundlesBucket}
}

// Sync implements Controller.
func (c *ClusterTrustBundlePublisher) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		b, err := decodeEvent[certificatesv1.ClusterTrustBundle](ev)
		if err != nil || b.Spec.SignerName != kubeAPIServerServingSigner {
			continue
		}
		if ev.Type == store.Deleted {
			delete(c.signed, b.Name)
		} else {
			c.signed[b.Name] = b.Spec.TrustBundle
		}
		c.synced = false
	}
	if c.synced {
		return nil
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var err error
	switch have, ok := c.signed[c.name]; {
	case !ok:
		_, err = c.reg.Create(ctx, clusterTrustBundlesGVR, KubeAPIServerServingBundle([]byte(c.bundle)))
		if apierrors.IsAlreadyExists(err) {
			err = nil
		}
	case have != c.bundle:
		_, err = c.reg.Update(ctx, clusterTrustBundlesGVR, "", c.name, func(cur runtime.Object) (runtime.Object, error) {
			b := cur.(*certificatesv1.ClusterTrustBundle)
			b.Spec.TrustBundle = c.bundle
			return b, nil
		})
	}
	if err != nil {
		return fmt.Errorf("publish ClusterTrustBundle %s: %w", c.name, err)
	}
	var errs []error
	for _, name := range sortedKeys(c.signed) {
		if name == c.name {
			continue
		}
		if _, err := c.reg.Delete(ctx, clusterTrustBundlesGVR, "", name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("remove ClusterTrustBundle %s: %w", name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c.synced = true
	return nil
}
