package fakeplane_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestEphemeralContainers: kubectl debug adds an ephemeral container
// through pods/ephemeralcontainers, which changes nothing else of the pod,
// and refuses what kube-apiserver refuses (messages recorded from
// refplane).
func TestEphemeralContainers(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	client := clientset(t, cp)
	ctx := ctxT(t)
	pods := client.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, boundPod("target", "node-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, cp, "debug", "target", "--image=busybox", "-c", "dbg", "--target=web", "--profile=general")
	p, err := pods.Get(ctx, "target", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.EphemeralContainers) != 1 || p.Spec.EphemeralContainers[0].Name != "dbg" || p.Spec.EphemeralContainers[0].TargetContainerName != "web" {
		t.Fatalf("ephemeral containers after kubectl debug: %+v", p.Spec.EphemeralContainers)
	}

	// Only spec.ephemeralContainers changes through the subresource.
	p.Labels = map[string]string{"ignored": "true"}
	p.Spec.Containers[0].Image = "ignored:1"
	p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: "dbg2", Image: "busybox", ImagePullPolicy: corev1.PullAlways, TerminationMessagePolicy: corev1.TerminationMessageReadFile}})
	got, err := pods.UpdateEphemeralContainers(ctx, "target", p, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.EphemeralContainers) != 2 || got.Labels["ignored"] != "" || got.Spec.Containers[0].Image != "nginx:1.27" {
		t.Errorf("after the update: ephemeral %d, labels %v, image %s", len(got.Spec.EphemeralContainers), got.Labels, got.Spec.Containers[0].Image)
	}

	for _, tc := range []struct {
		name   string
		change func(p *corev1.Pod)
		want   string
	}{
		{"a name another container has", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, ephemeral("web"))
		}, `Pod "target" is invalid: spec.ephemeralContainers[2].name: Duplicate value: "web"`},
		{"a target that is not a container", func(p *corev1.Pod) {
			e := ephemeral("dbg3")
			e.TargetContainerName = "nope"
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, e)
		}, `Pod "target" is invalid: spec.ephemeralContainers[2].targetContainerName: Not found: "nope"`},
		{"fields an ephemeral container may not set", func(p *corev1.Pod) {
			e := ephemeral("dbg3")
			e.Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}}
			e.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}}
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, e)
		}, `Pod "target" is invalid: [spec.ephemeralContainers[2].ports: Forbidden: cannot be set for an Ephemeral Container, spec.ephemeralContainers[2].lifecycle: Forbidden: cannot be set for an Ephemeral Container]`},
		{"removing one", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = p.Spec.EphemeralContainers[1:]
		}, "Pod \"target\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be removed\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := pods.Get(ctx, "target", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tc.change(p)
			_, err = pods.UpdateEphemeralContainers(ctx, "target", p, metav1.UpdateOptions{})
			if !apierrors.IsInvalid(err) || err.Error() != tc.want {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	// kubectl debug with a name already taken is refused, as on a cluster.
	_, stderr, err := kubectl(t, cp, "debug", "target", "--image=busybox", "-c", "web", "--profile=general")
	if err == nil || !strings.Contains(stderr, `spec.ephemeralContainers[2].name: Duplicate value: "web"`) {
		t.Errorf("kubectl debug -c web: %v %s", err, stderr)
	}
}

// ephemeral is an ephemeral container as the API defaults it.
func ephemeral(name string) corev1.EphemeralContainer {
	return corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: name, Image: "busybox", ImagePullPolicy: corev1.PullAlways, TerminationMessagePolicy: corev1.TerminationMessageReadFile}}
}
