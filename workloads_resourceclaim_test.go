package fakeplane_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// resourceClaimSpec is a claim of one gpu.example.com device.
func resourceClaimSpec() resourcev1.ResourceClaimSpec {
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com"},
	}}}}
}

// resourceClaimsPod is a pod of ns whose spec.resourceClaims are claims,
// each "name=template" (a template claim) or "name:claim", used by its
// container.
func resourceClaimsPod(ns, name, node string, claims ...[2]string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{
		NodeName:   node,
		Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
	}}
	for _, c := range claims {
		pc := corev1.PodResourceClaim{Name: c[0]}
		if len(c[1]) > 0 && c[1][0] == '=' {
			pc.ResourceClaimTemplateName = ptr.To(c[1][1:])
		} else {
			pc.ResourceClaimName = ptr.To(c[1])
		}
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, pc)
		p.Spec.Containers[0].Resources.Claims = append(p.Spec.Containers[0].Resources.Claims, corev1.ResourceClaim{Name: c[0]})
	}
	return p
}

// allocateResourceClaim gives a claim the scheduler's delete-protection
// finalizer and an allocation of device on node-0, as the scheduler
// writes them (fakeplane's default control plane runs no scheduler).
func allocateResourceClaim(t *testing.T, cs kubernetes.Interface, ns, name, device string) {
	t.Helper()
	ctx := ctxT(t)
	claims := cs.ResourceV1().ResourceClaims(ns)
	claim, err := claims.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claim.Finalizers = append(claim.Finalizers, resourcev1.Finalizer)
	if claim, err = claims.Update(ctx, claim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	claim.Status.Allocation = &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{
			Request: "gpu", Driver: "gpu.example.com", Pool: "node-0", Device: device,
		}}},
		NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{
			Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-0"},
		}}}}},
	}
	if _, err := claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// claimWriters lists the managedFields entries of obj as
// "manager/operation/subresource".
func claimWriters(obj metav1.Object) []string {
	var out []string
	for _, mf := range obj.GetManagedFields() {
		out = append(out, mf.Manager+"/"+string(mf.Operation)+"/"+mf.Subresource)
	}
	return out
}

// TestResourceClaimControllerAsKubeControllerManager: kube-controller-
// manager's resourceclaim-controller, as recorded on refplane (namespace
// rc-rec): a pod's template claims are created from their templates, in
// the shape upstream gives them, and recorded in the pod's
// status.resourceClaimStatuses by a server-side apply of
// ResourceClaimController; a missing template is a
// FailedResourceClaimCreation event, and the claim comes with the
// template; a pod bound to a node by spec.nodeName gets its allocated
// claims reserved; when it succeeds or is deleted its reservations go,
// and with the last one the allocation and the delete-protection
// finalizer, and its generated claims are deleted.
func TestResourceClaimControllerAsKubeControllerManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cs := clientset(t, cp)
	const ns = "rc-int"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	claims := cs.ResourceV1().ResourceClaims(ns)
	pods := cs.CoreV1().Pods(ns)
	templates := cs.ResourceV1().ResourceClaimTemplates(ns)
	if _, err := templates.Create(ctx, &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tmpl"}, Spec: resourcev1.ResourceClaimTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"from": "template"}, Annotations: map[string]string{"note": "kept"}},
		Spec:       resourceClaimSpec(),
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// claimStatuses waits until the pod's status names n claims.
	claimStatuses := func(name string, n int) *corev1.Pod {
		t.Helper()
		var pod *corev1.Pod
		eventuallyT(t, "pod "+name+" has its claims", func(ctx context.Context) (bool, error) {
			var err error
			pod, err = pods.Get(ctx, name, metav1.GetOptions{})
			return err == nil && len(pod.Status.ResourceClaimStatuses) == n, err
		})
		return pod
	}

	t.Run("template claims are created and recorded", func(t *testing.T) {
		if _, err := pods.Create(ctx, resourceClaimsPod(ns, "pending", "", [2]string{"b-claim", "=tmpl"}, [2]string{"a-claim", "=tmpl"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := claimStatuses("pending", 2)
		st := pod.Status.ResourceClaimStatuses
		if st[0].Name != "a-claim" || st[1].Name != "b-claim" {
			t.Errorf("statuses %+v, want a-claim then b-claim", st)
		}
		if m := claimWriters(pod); !slices.Contains(m, "ResourceClaimController/Apply/status") {
			t.Errorf("pod managedFields %v, want ResourceClaimController's apply of the status", m)
		}
		for _, s := range st {
			claim, err := claims.Get(ctx, *s.ResourceClaimName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := metav1.ObjectMeta{
				GenerateName: "pending-" + s.Name + "-",
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: "pending", UID: pod.UID, Controller: ptr.To(true),
				}},
				Annotations: map[string]string{"note": "kept", resourcev1.PodResourceClaimAnnotation: s.Name},
				Labels:      map[string]string{"from": "template"},
			}
			got := metav1.ObjectMeta{GenerateName: claim.GenerateName, OwnerReferences: claim.OwnerReferences, Annotations: claim.Annotations, Labels: claim.Labels}
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("claim %s: %+v, want %+v", claim.Name, got, want)
			}
			if want := resourceClaimSpec(); len(claim.Spec.Devices.Requests) != 1 || claim.Spec.Devices.Requests[0].Exactly.DeviceClassName != want.Devices.Requests[0].Exactly.DeviceClassName {
				t.Errorf("claim %s spec %+v", claim.Name, claim.Spec)
			}
			if m := claimWriters(claim); !slices.Equal(m, []string{"kube-controller-manager/Update/"}) {
				t.Errorf("claim %s managedFields %v", claim.Name, m)
			}
		}
	})

	t.Run("a missing template is an event, and the claim comes with it", func(t *testing.T) {
		if _, err := pods.Create(ctx, resourceClaimsPod(ns, "waits-for-template", "", [2]string{"gpu", "=later"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var ev corev1.Event
		eventuallyT(t, "FailedResourceClaimCreation", func(ctx context.Context) (bool, error) {
			evs, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=waits-for-template,reason=FailedResourceClaimCreation"})
			if err != nil || len(evs.Items) == 0 {
				return false, err
			}
			ev = evs.Items[0]
			return true, nil
		})
		if want := `PodResourceClaim gpu: resource claim template "later": resourceclaimtemplate.resource.k8s.io "later" not found`; ev.Message != want {
			t.Errorf("message %q, want %q", ev.Message, want)
		}
		if ev.Type != corev1.EventTypeWarning || ev.Source.Component != "resource_claim" || ev.ReportingController != "resource_claim" ||
			ev.InvolvedObject.Kind != "Pod" || ev.InvolvedObject.APIVersion != "v1" {
			t.Errorf("event %+v", ev)
		}
		if _, err := templates.Create(ctx, &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "later"}, Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourceClaimSpec()}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := claimStatuses("waits-for-template", 1)
		if _, err := claims.Get(ctx, *pod.Status.ResourceClaimStatuses[0].ResourceClaimName, metav1.GetOptions{}); err != nil {
			t.Error(err)
		}
	})

	// A claim the scheduler allocated, then a pod bound to node-0 by
	// spec.nodeName that uses it and a template claim.
	if _, err := claims.Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "manual"}, Spec: resourceClaimSpec()}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	allocateResourceClaim(t, cs, ns, "manual", "gpu-0")
	reservedFor := func(name string, want ...*corev1.Pod) *resourcev1.ResourceClaim {
		t.Helper()
		var refs []resourcev1.ResourceClaimConsumerReference
		for _, p := range want {
			refs = append(refs, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
		}
		var claim *resourcev1.ResourceClaim
		eventuallyT(t, "claim "+name+" reserved as wanted", func(ctx context.Context) (bool, error) {
			var err error
			claim, err = claims.Get(ctx, name, metav1.GetOptions{})
			return err == nil && slices.Equal(claim.Status.ReservedFor, refs), err
		})
		return claim
	}
	// released waits until the claim has neither allocation nor
	// finalizer.
	released := func(name string) {
		t.Helper()
		eventuallyT(t, "claim "+name+" released", func(ctx context.Context) (bool, error) {
			claim, err := claims.Get(ctx, name, metav1.GetOptions{})
			return err == nil && len(claim.Status.ReservedFor) == 0 && claim.Status.Allocation == nil && len(claim.Finalizers) == 0, err
		})
	}
	// gone waits until the claim is deleted.
	gone := func(name string) {
		t.Helper()
		eventuallyT(t, "claim "+name+" deleted", func(ctx context.Context) (bool, error) {
			_, err := claims.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
	}

	t.Run("a bound pod's allocated claims are reserved; they are released when it succeeds", func(t *testing.T) {
		created, err := pods.Create(ctx, resourceClaimsPod(ns, "bound", "node-0", [2]string{"shared", "manual"}, [2]string{"gen", "=tmpl"}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		claim := reservedFor("manual", created)
		if m := claimWriters(claim); !slices.Contains(m, "kube-controller-manager/Update/status") {
			t.Errorf("manual managedFields %v, want the controller's status update", m)
		}
		pod := claimStatuses("bound", 1)
		gen := *pod.Status.ResourceClaimStatuses[0].ResourceClaimName
		allocateResourceClaim(t, cs, ns, gen, "gpu-1")
		reservedFor(gen, created)

		pod.Status.Phase = corev1.PodSucceeded
		if _, err := pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		released("manual")
		gone(gen)
		claim, err = claims.Get(ctx, "manual", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range claimWriters(claim) {
			if m == "kube-controller-manager/Update/status" || m == "kube-controller-manager/Update/" {
				t.Errorf("manual managedFields %v: the controller owns nothing once it released the claim", claimWriters(claim))
			}
		}
		// Gone, so that it does not take manual again: a pod that
		// succeeded is still reserved an allocated claim it names (and
		// released at once), as upstream does.
		if err := pods.Delete(ctx, "bound", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a deleted pod's claims are released and its generated claims go", func(t *testing.T) {
		allocateResourceClaim(t, cs, ns, "manual", "gpu-0")
		created, err := pods.Create(ctx, resourceClaimsPod(ns, "bound2", "node-0", [2]string{"shared", "manual"}, [2]string{"gen", "=tmpl"}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		reservedFor("manual", created)
		pod := claimStatuses("bound2", 1)
		gen := *pod.Status.ResourceClaimStatuses[0].ResourceClaimName
		allocateResourceClaim(t, cs, ns, gen, "gpu-1")
		reservedFor(gen, created)
		if err := pods.Delete(ctx, "bound2", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Fatal(err)
		}
		released("manual")
		gone(gen)
	})

	t.Run("a claim being deleted that nothing uses is released", func(t *testing.T) {
		if _, err := claims.Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}, Spec: resourceClaimSpec()}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		allocateResourceClaim(t, cs, ns, "doomed", "gpu-0")
		if err := claims.Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		gone("doomed")
	})
}
