package fakeplane_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// TestBindingChecksAsUpstream covers pods/binding's checks, with the
// messages of kube-apiserver v1.37.2's BindingREST (upstream source).
func TestBindingChecksAsUpstream(t *testing.T) {
	cp := fakeplane.Start(t)
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	gated := pausePod("gated", "", "")
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}}
	plain := pausePod("plain", "", "")
	var created = map[string]*corev1.Pod{}
	for _, p := range []*corev1.Pod{gated, plain, pausePod("stale", "", "")} {
		c, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created[p.Name] = c
	}
	bind := func(name string, b corev1.Binding) error {
		b.Name, b.Namespace = name, "default"
		b.Target = corev1.ObjectReference{Kind: "Node", Name: "node-0"}
		return client.CoreV1().Pods("default").Bind(ctx, &b, metav1.CreateOptions{})
	}
	for _, tc := range []struct {
		name, pod string
		binding   corev1.Binding
		want      string
	}{
		{"a gated pod", "gated", corev1.Binding{}, `Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates`},
		{"a stale resourceVersion", "stale", corev1.Binding{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "1"}},
			`Operation cannot be fulfilled on pods/binding "stale": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ` + created["stale"].ResourceVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := bind(tc.pod, tc.binding)
			if !apierrors.IsConflict(err) || err.Error() != tc.want {
				t.Errorf("error %v, want the Conflict %q", err, tc.want)
			}
		})
	}
	// A nomination (as preemption leaves it) is cleared by the binding.
	nominated := created["plain"].DeepCopy()
	nominated.Status.NominatedNodeName = "node-9"
	if got, err := client.CoreV1().Pods("default").UpdateStatus(ctx, nominated, metav1.UpdateOptions{}); err != nil || got.Status.NominatedNodeName != "node-9" {
		t.Fatalf("nominate: %v, %v", got.Status.NominatedNodeName, err)
	}
	if err := bind("plain", corev1.Binding{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"topology.kubernetes.io/zone": "z1"}}}); err != nil {
		t.Fatal(err)
	}
	p, err := client.CoreV1().Pods("default").Get(ctx, "plain", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "node-0" || p.Labels["topology.kubernetes.io/zone"] != "z1" || p.Status.NominatedNodeName != "" {
		t.Errorf("bound pod: node %q labels %v nominated %q; want node-0, the Binding's labels, no nomination", p.Spec.NodeName, p.Labels, p.Status.NominatedNodeName)
	}
}
