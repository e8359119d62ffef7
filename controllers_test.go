package fakeplane_test

import (
	"context"
	"crypto/sha256"
	"crypto/x509/pkix"
	"fmt"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/fakeplane/fakeplane"
)

// Once Start returns, the namespaces of a fresh cluster, and those its
// fixtures create, have their default ServiceAccount and kube-root-ca.crt,
// with no waiting: the first are written in the bootstrap's transaction,
// the others by the controllers' first sync, which Start waits for when
// there are fixtures.
func TestStartLeavesNamespacesTheirServiceAccountAndRootCA(t *testing.T) {
	t.Parallel()
	builtin := []string{"default", "kube-system", "kube-public", "kube-node-lease"}
	tests := []struct {
		name       string
		opts       []fakeplane.Option
		namespaces []string
	}{
		{name: "fresh cluster", namespaces: builtin},
		{name: "namespace from fixtures", namespaces: append(builtin, "team"),
			opts: []fakeplane.Option{fakeplane.WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tt.opts...)
			cs := clientset(t, cp)
			ctx := ctxT(t)
			for _, ns := range tt.namespaces {
				if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{}); err != nil {
					t.Errorf("namespace %s: default service account: %v", ns, err)
				}
				if cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil || cm.Data["ca.crt"] == "" {
					t.Errorf("namespace %s: kube-root-ca.crt: %v", ns, err)
				}
			}
		})
	}
}

// The controllers put back what is deleted or changed, as
// kube-controller-manager's do.
func TestServiceAccountAndRootCAComeBack(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca := cm.Data["ca.crt"]
	tests := []struct {
		name   string
		change func() error
		back   func() bool
	}{{
		name: "deleted default service account is created again",
		change: func() error {
			return cs.CoreV1().ServiceAccounts("default").Delete(ctx, "default", metav1.DeleteOptions{})
		},
		back: func() bool {
			_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
			return err == nil
		},
	}, {
		name: "deleted kube-root-ca.crt is created again",
		change: func() error {
			return cs.CoreV1().ConfigMaps("default").Delete(ctx, "kube-root-ca.crt", metav1.DeleteOptions{})
		},
		back: func() bool {
			cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err == nil && cm.Data["ca.crt"] == ca
		},
	}, {
		name: "changed kube-root-ca.crt is restored, other fields kept",
		change: func() error {
			cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			if err != nil {
				return err
			}
			cm.Data = map[string]string{"ca.crt": "changed"}
			cm.Labels = map[string]string{"kept": "yes"}
			_, err = cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
			return err
		},
		back: func() bool {
			cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err == nil && cm.Data["ca.crt"] == ca && len(cm.Data) == 1 && cm.Labels["kept"] == "yes"
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.change(); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			waitFor(t, tt.back)
		})
	}
	// A terminating namespace gets nothing back.
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "gone", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

// Deleting a CRD deletes its custom resources; one that its finalizers hold
// goes with the CRD's storage once the CRD is gone, and the resource is not
// served from the moment the CRD is not found.
func TestDeletedCRDTakesItsCustomResources(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cfg := cp.RESTConfig()
	dyn := dynamic.NewForConfigOrDie(cfg)
	ext := apiextensionsclient.NewForConfigOrDie(cfg)
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := crontabCRD()
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEstablished(t, ctx, ext, crd.GetName())
	tabs := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	held := crontab("v1", "held", map[string]any{"cronSpec": "* * * * */5"})
	held.SetFinalizers([]string{"example.com/hold"})
	for _, o := range []*unstructured.Unstructured{crontab("v1", "plain", map[string]any{"cronSpec": "* * * * */5"}), held} {
		if _, err := tabs.Create(ctx, o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := crds.Delete(ctx, crd.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The CRD waits for the object its finalizer holds, as upstream's does.
	waitFor(t, func() bool {
		_, err := tabs.Get(ctx, "plain", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if _, err := crds.Get(ctx, crd.GetName(), metav1.GetOptions{}); err != nil {
		t.Fatalf("the CRD went before its held object: %v", err)
	}
	if _, err := tabs.Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := crds.Get(ctx, crd.GetName(), metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false
		}
		if _, err := tabs.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("list once the CRD is gone: %v", err)
		}
		return true
	})
	if _, err := crds.Create(ctx, crontabCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEstablished(t, ctx, ext, crd.GetName())
	l, err := tabs.List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 0 {
		t.Errorf("recreated CRD: %v, %d objects", err, len(l.Items))
	}
}

// TestClusterTrustBundlePublisherAsKubeControllerManager: kube-controller-manager
// publishes the CA of kube-apiserver's serving certificate as the
// ClusterTrustBundle of signer kubernetes.io/kube-apiserver-serving, named
// after the signer and the hash of the bundle (as refplane's names its
// own), sets it back when it is changed, makes it again when it is deleted,
// and deletes other bundles of that signer.
func TestClusterTrustBundlePublisherAsKubeControllerManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	const signer = "kubernetes.io/kube-apiserver-serving"
	ca := cp.RESTConfig().TLSClientConfig.CAData
	sum := sha256.Sum256(ca)
	name := fmt.Sprintf("kubernetes.io:kube-apiserver-serving:%x", sum[:12])
	published := func() (*certificatesv1.ClusterTrustBundle, error) {
		return cs.CertificatesV1().ClusterTrustBundles().Get(ctx, name, metav1.GetOptions{})
	}
	var b *certificatesv1.ClusterTrustBundle
	eventuallyT(t, "the published bundle", func(context.Context) (bool, error) {
		var err error
		b, err = published()
		return err == nil, nil
	})
	if b.Spec.SignerName != signer || b.Spec.TrustBundle != string(ca) || len(b.ManagedFields) != 1 || b.ManagedFields[0].Manager != "kube-controller-manager" {
		t.Errorf("bundle %+v", b)
	}
	// Changed, it is set back; deleted, it is made again.
	otherCA, _ := newTestCA(t, pkix.Name{CommonName: "other"})
	other, err := cs.CertificatesV1().ClusterTrustBundles().Create(ctx, &certificatesv1.ClusterTrustBundle{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes.io:kube-apiserver-serving:other"},
		Spec:       certificatesv1.ClusterTrustBundleSpec{SignerName: signer, TrustBundle: certPEM(otherCA.Raw)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Spec.TrustBundle = other.Spec.TrustBundle + string(ca)
	if _, err := cs.CertificatesV1().ClusterTrustBundles().Update(ctx, b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the bundle set back and the other one deleted", func(ctx context.Context) (bool, error) {
		b, err := published()
		_, otherErr := cs.CertificatesV1().ClusterTrustBundles().Get(ctx, other.Name, metav1.GetOptions{})
		return err == nil && b.Spec.TrustBundle == string(ca) && apierrors.IsNotFound(otherErr), nil
	})
	if err := cs.CertificatesV1().ClusterTrustBundles().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the bundle made again", func(context.Context) (bool, error) {
		b, err := published()
		return err == nil && b.Spec.TrustBundle == string(ca), nil
	})
}
