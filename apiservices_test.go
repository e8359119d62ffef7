package fakeplane_test

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/fakeplane/fakeplane"
)

// TestLocalAPIServices checks the APIService objects kube-aggregator keeps
// for the built-in groups and for the group/versions CRDs serve.
func TestLocalAPIServices(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	ag := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices()
	l, err := ag.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 22 {
		t.Errorf("%d APIServices in a fresh control plane, want 22 as in v1.37", len(l.Items))
	}
	apps, err := ag.Get(ctx, "v1.apps", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if apps.Spec.GroupPriorityMinimum != 17800 || apps.Spec.VersionPriority != 15 || apps.Spec.Service != nil ||
		len(apps.Status.Conditions) != 1 || apps.Status.Conditions[0].Reason != "Local" || apps.Status.Conditions[0].Status != "True" {
		t.Errorf("v1.apps: %+v", apps)
	}

	crds := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, crontabCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := ag.Get(ctx, "v1.stable.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels["kube-aggregator.kubernetes.io/automanaged"] != "true" || got.Spec.GroupPriorityMinimum != 1000 || got.Spec.VersionPriority != 100 {
		t.Errorf("CRD APIService: %+v", got)
	}
	// A name other than version.group is refused as upstream refuses it.
	bad := got.DeepCopy()
	bad.ObjectMeta = metav1.ObjectMeta{Name: "v2.elsewhere"}
	if _, err := ag.Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) ||
		err.Error() != `APIService.apiregistration.k8s.io "v2.elsewhere" is invalid: metadata.name: Invalid value: "v2.elsewhere": must be `+"`spec.version+\".\"+spec.group`"+`: "v1.stable.example.com"` {
		t.Errorf("misnamed APIService: %v", err)
	}
	if err := crds.Delete(ctx, "crontabs.stable.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := ag.Get(ctx, "v1.stable.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}
