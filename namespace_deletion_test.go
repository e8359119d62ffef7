package fakeplane_test

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane"
)

// TestNamespaceDeletionConditionsAsKubeControllerManager deletes a
// namespace whose pod and ConfigMap are held by finalizers. As
// kube-controller-manager's namespace deleter does, the namespace
// controller deletes the pods first and the rest only once no pod is left,
// and writes the five deletion conditions into the namespace's status with
// that deleter's reasons and messages (pkg/controller/namespace/deletion).
func TestNamespaceDeletionConditionsAsKubeControllerManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	const ns = "doomed"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForDefaultServiceAccount(t, cp, ns)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Finalizers: []string{"example.com/pod"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "plain"}},
	} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	conditions := func() []string {
		got, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return []string{"gone"}
		}
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range got.Status.Conditions {
			out = append(out, fmt.Sprintf("%s %s %s: %s", c.Type, c.Status, c.Reason, c.Message))
		}
		return out
	}
	allFalse := []string{
		"NamespaceDeletionDiscoveryFailure False ResourcesDiscovered: All resources successfully discovered",
		"NamespaceDeletionGroupVersionParsingFailure False ParsedGroupVersions: All legacy kube types successfully parsed",
		"NamespaceDeletionContentFailure False ContentDeleted: All content successfully deleted, may be waiting on finalization",
		"NamespaceContentRemaining False ContentRemoved: All content successfully removed",
		"NamespaceFinalizersRemaining False ContentHasNoFinalizers: All content-preserving finalizers finished",
	}
	// While the pod remains, the conditions leave out what remains, and
	// nothing else is deleted.
	var got []string
	waitFor(t, func() bool { got = conditions(); return slices.Equal(got, allFalse) })
	p, err := cs.CoreV1().Pods(ns).Get(ctx, "p", metav1.GetOptions{})
	if err != nil || p.DeletionTimestamp == nil {
		t.Fatalf("pod: %v, deletionTimestamp %v", err, p.DeletionTimestamp)
	}
	if cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "plain", metav1.GetOptions{}); err != nil || cm.DeletionTimestamp != nil {
		t.Fatalf("a ConfigMap was deleted while a pod remained: %v %v", err, cm.DeletionTimestamp)
	}

	// The pod released, the rest is deleted but the held ConfigMap, which
	// the conditions name with its finalizer.
	unfinalize := []byte(`{"metadata":{"finalizers":null}}`)
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, "p", types.MergePatchType, unfinalize, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	held := slices.Clone(allFalse)
	held[3] = "NamespaceContentRemaining True SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances"
	held[4] = "NamespaceFinalizersRemaining True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
	waitFor(t, func() bool { got = conditions(); return slices.Equal(got, held) })
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "plain", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get the plain ConfigMap: %v, want NotFound", err)
	}

	// Released too: the namespace goes.
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, "held", types.MergePatchType, unfinalize, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { got = conditions(); return slices.Equal(got, []string{"gone"}) })
}
