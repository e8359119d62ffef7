package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/registrytest"
	"github.com/fakeplane/fakeplane/store"
)

// rcRegistry is a registrytest.Recorder that also names generated
// objects, answers Gets of pods from pods, applies (recorded as "apply
// NAME") and keeps events apart from the writes it records.
type rcRegistry struct {
	*registrytest.Recorder
	pods    map[string]*corev1.Pod
	events  []*corev1.Event
	applied map[string]*unstructured.Unstructured
	gets    []string
	n       int
}

func newRCRegistry() *rcRegistry {
	return &rcRegistry{Recorder: registrytest.NewRecorder(), pods: map[string]*corev1.Pod{}, applied: map[string]*unstructured.Unstructured{}}
}

func (r *rcRegistry) Create(ctx context.Context, gvr schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error) {
	if ev, ok := obj.(*corev1.Event); ok {
		r.events = append(r.events, ev)
		r.Objects[ev.Name] = ev
		return ev, nil
	}
	if m := obj.(metav1.Object); m.GetName() == "" {
		r.n++
		m.SetName(fmt.Sprintf("%s%05d", m.GetGenerateName(), r.n))
	}
	return r.Recorder.Create(ctx, gvr, obj)
}

func (r *rcRegistry) Update(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	if ev, ok := r.Objects[name].(*corev1.Event); ok {
		obj, err := tryUpdate(ev.DeepCopy())
		if err == nil {
			r.Objects[name] = obj
		}
		return obj, err
	}
	return r.Recorder.Update(ctx, gvr, ns, name, tryUpdate)
}

func (r *rcRegistry) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, sub, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	r.Objects[name+" "+sub] = r.Objects[name]
	obj, err := r.Recorder.Update(ctx, gvr, ns, name+" "+sub, func(runtime.Object) (runtime.Object, error) {
		return tryUpdate(r.Objects[name].DeepCopyObject())
	})
	if err == nil {
		r.Objects[name] = obj
	}
	delete(r.Objects, name+" "+sub)
	return obj, err
}

func (r *rcRegistry) Get(_ context.Context, gvr schema.GroupVersionResource, _, name string) (runtime.Object, error) {
	r.gets = append(r.gets, gvr.Resource+" "+name)
	if p, ok := r.pods[name]; ok {
		return p.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
}

func (r *rcRegistry) ApplySubresource(ctx context.Context, _ schema.GroupVersionResource, sub, _, name string, applied *unstructured.Unstructured, force bool) (runtime.Object, error) {
	u, _ := apirequest.UserFrom(ctx)
	r.Users = append(r.Users, u.GetName()+"/"+registry.FieldManagerFrom(ctx))
	r.Writes = append(r.Writes, fmt.Sprintf("apply %s %s force=%v", name, sub, force))
	r.applied[name] = applied
	return applied, r.Fail
}

var _ registry.Applier = (*rcRegistry)(nil)

const rcNS = "ns"

// claimTestPod is a pod in rcNS with the given spec.resourceClaims
// ("name=template" for a template claim, "name:claim" for a claim).
func rcPod(name, uid string, claims ...string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: rcNS, Name: name, UID: types.UID(uid), ResourceVersion: "7"}}
	for _, c := range claims {
		if n, tmpl, ok := strings.Cut(c, "="); ok {
			pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, corev1.PodResourceClaim{Name: n, ResourceClaimTemplateName: ptr.To(tmpl)})
		} else {
			n, claim, _ := strings.Cut(c, ":")
			pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, corev1.PodResourceClaim{Name: n, ResourceClaimName: ptr.To(claim)})
		}
	}
	return pod
}

func rcWithStatus(pod *corev1.Pod, podClaim, claim string) *corev1.Pod {
	pod.Status.ResourceClaimStatuses = append(pod.Status.ResourceClaimStatuses, corev1.PodResourceClaimStatus{Name: podClaim, ResourceClaimName: ptr.To(claim)})
	return pod
}

func rcTemplate(name string) *resourcev1.ResourceClaimTemplate {
	return &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: rcNS, Name: name},
		Spec: resourcev1.ResourceClaimTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"from": "template"}, Annotations: map[string]string{"note": "kept"}},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
				Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com"},
			}}}},
		},
	}
}

func rcClaim(name string) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: rcNS, Name: name, ResourceVersion: "3"}}
}

// allocated marks the claim allocated, with the delete-protection
// finalizer when protected.
func rcAllocated(claim *resourcev1.ResourceClaim, protected bool) *resourcev1.ResourceClaim {
	claim.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{
		Request: "gpu", Driver: "gpu.example.com", Pool: "p", Device: "d0",
	}}}}
	if protected {
		claim.Finalizers = append(claim.Finalizers, resourcev1.Finalizer)
	}
	return claim
}

func rcReservedFor(claim *resourcev1.ResourceClaim, pods ...*corev1.Pod) *resourcev1.ResourceClaim {
	for _, p := range pods {
		claim.Status.ReservedFor = append(claim.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
	}
	return claim
}

func rcOwnedBy(claim *resourcev1.ResourceClaim, pod *corev1.Pod, podClaim string) *resourcev1.ResourceClaim {
	claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true)}}
	claim.Annotations = map[string]string{resourcev1.PodResourceClaimAnnotation: podClaim}
	return claim
}

// rcExtended records in the pod's status the claim of its extended
// resources, as the scheduler does.
func rcExtended(pod *corev1.Pod, claim string) *corev1.Pod {
	pod.Spec.Containers = []corev1.Container{{Name: "c", Image: "pause"}}
	pod.Status.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{
		RequestMappings:   []corev1.ContainerExtendedResourceRequest{{ContainerName: "c", ResourceName: "example.com/gpu", RequestName: "container-0-request-0"}},
		ResourceClaimName: claim,
	}
	return pod
}

// rcExtendedFor makes the claim the one the scheduler makes for the pod's
// extended resources.
func rcExtendedFor(claim *resourcev1.ResourceClaim, pod *corev1.Pod) *resourcev1.ResourceClaim {
	claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true)}}
	claim.Annotations = map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"}
	return claim
}

func rcBound(pod *corev1.Pod) *corev1.Pod {
	pod.Spec.NodeName = "node-0"
	return pod
}

func rcPhase(pod *corev1.Pod, p corev1.PodPhase) *corev1.Pod {
	pod.Status.Phase = p
	return pod
}

func rcDeleting(obj metav1.Object) {
	now := metav1.Now()
	obj.SetDeletionTimestamp(&now)
}

// rcWorld is what a test starts the controller with.
type rcWorld struct {
	pods      []*corev1.Pod
	claims    []*resourcev1.ResourceClaim
	templates []*resourcev1.ResourceClaimTemplate
}

// events are the Added events of the world, with each claim stored in
// reg for the controller's updates.
func (w rcWorld) events(t *testing.T, reg *rcRegistry) []store.Event {
	var evs []store.Event
	for _, tmpl := range w.templates {
		evs = append(evs, objectEvent(t, store.Added, resourceClaimTemplatesBucket, tmpl))
	}
	for _, c := range w.claims {
		reg.Objects[c.Name] = c.DeepCopy()
		evs = append(evs, objectEvent(t, store.Added, resourceClaimsBucket, c))
	}
	for _, p := range w.pods {
		evs = append(evs, objectEvent(t, store.Added, podsBucket, p))
	}
	return evs
}

func rcSync(t *testing.T, c *ResourceClaims, evs []store.Event) {
	t.Helper()
	var rq *Requeue
	if err := c.Sync(context.Background(), evs); err != nil && !errors.As(err, &rq) {
		t.Fatal(err)
	}
}

// TestResourceClaimCreatesClaimsFromTemplates: each template claim of a
// pod gets its claim, made as upstream makes it, in spec order, and one
// apply records them all in the pod's status, sorted by name and merged
// with what it had; a claim the pod already controls for that entry is
// taken instead of a new one.
func TestResourceClaimCreatesClaimsFromTemplates(t *testing.T) {
	const controller = "system:serviceaccount:kube-system:resource-claim-controller"
	tests := []struct {
		name        string
		world       rcWorld
		wantWrites  []string
		wantUsers   []string
		wantApplied []any
	}{{
		name: "two template claims are created and recorded sorted",
		world: rcWorld{
			pods:      []*corev1.Pod{rcPod("pending", "u1", "b-claim=tmpl", "a-claim=tmpl")},
			templates: []*resourcev1.ResourceClaimTemplate{rcTemplate("tmpl")},
		},
		wantWrites: []string{"create pending-b-claim-00001", "create pending-a-claim-00002", "apply pending status force=true"},
		wantUsers:  []string{controller + "/kube-controller-manager", controller + "/kube-controller-manager", controller + "/ResourceClaimController"},
		wantApplied: []any{
			map[string]any{"name": "a-claim", "resourceClaimName": "pending-a-claim-00002"},
			map[string]any{"name": "b-claim", "resourceClaimName": "pending-b-claim-00001"},
		},
	}, {
		name: "a claim the pod already has in its status is left alone; the missing one is merged",
		world: rcWorld{
			pods:      []*corev1.Pod{rcWithStatus(rcPod("p", "u1", "a=tmpl", "b=tmpl"), "a", "p-a-xyz")},
			claims:    []*resourcev1.ResourceClaim{rcOwnedBy(rcClaim("p-a-xyz"), rcPod("p", "u1"), "a")},
			templates: []*resourcev1.ResourceClaimTemplate{rcTemplate("tmpl")},
		},
		wantWrites: []string{"create p-b-00001", "apply p status force=true"},
		wantUsers:  []string{controller + "/kube-controller-manager", controller + "/ResourceClaimController"},
		wantApplied: []any{
			map[string]any{"name": "a", "resourceClaimName": "p-a-xyz"},
			map[string]any{"name": "b", "resourceClaimName": "p-b-00001"},
		},
	}, {
		name: "an orphaned claim controlled by the pod is recorded, not made again",
		world: rcWorld{
			pods:      []*corev1.Pod{rcPod("p", "u1", "a=tmpl")},
			claims:    []*resourcev1.ResourceClaim{rcOwnedBy(rcClaim("p-a-old"), rcPod("p", "u1"), "a")},
			templates: []*resourcev1.ResourceClaimTemplate{rcTemplate("tmpl")},
		},
		wantWrites:  []string{"apply p status force=true"},
		wantUsers:   []string{controller + "/ResourceClaimController"},
		wantApplied: []any{map[string]any{"name": "a", "resourceClaimName": "p-a-old"}},
	}, {
		name: "a claim of another pod of that name is not taken (it goes, as its pod was replaced)",
		world: rcWorld{
			pods:      []*corev1.Pod{rcPod("p", "u2", "a=tmpl")},
			claims:    []*resourcev1.ResourceClaim{rcOwnedBy(rcClaim("p-a-old"), rcPod("p", "u1"), "a")},
			templates: []*resourcev1.ResourceClaimTemplate{rcTemplate("tmpl")},
		},
		wantWrites:  []string{"create p-a-00001", "apply p status force=true", "delete p-a-old"},
		wantUsers:   []string{controller + "/kube-controller-manager", controller + "/ResourceClaimController", controller + "/kube-controller-manager"},
		wantApplied: []any{map[string]any{"name": "a", "resourceClaimName": "p-a-00001"}},
	}, {
		name: "a pod naming its claims directly needs nothing",
		world: rcWorld{
			pods: []*corev1.Pod{rcPod("p", "u1", "gpu:shared")},
		},
	}, {
		name: "a pod being deleted gets no claim",
		world: rcWorld{
			pods:      []*corev1.Pod{func() *corev1.Pod { p := rcPod("p", "u1", "a=tmpl"); rcDeleting(p); return p }()},
			templates: []*resourcev1.ResourceClaimTemplate{rcTemplate("tmpl")},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRCRegistry()
			c := NewResourceClaims(reg, nil, nil)
			rcSync(t, c, tt.world.events(t, reg))
			if !slices.Equal(reg.Writes, tt.wantWrites) {
				t.Errorf("writes %q, want %q", reg.Writes, tt.wantWrites)
			}
			if !slices.Equal(reg.Users, tt.wantUsers) {
				t.Errorf("users %q, want %q", reg.Users, tt.wantUsers)
			}
			if tt.wantApplied == nil {
				return
			}
			pod := tt.world.pods[0]
			a := reg.applied[pod.Name]
			if a == nil {
				t.Fatal("nothing applied")
			}
			if a.GetAPIVersion() != "v1" || a.GetKind() != "Pod" || a.GetName() != pod.Name || a.GetNamespace() != rcNS {
				t.Errorf("applied %v %v %s/%s", a.GetAPIVersion(), a.GetKind(), a.GetNamespace(), a.GetName())
			}
			got, _, _ := unstructured.NestedSlice(a.Object, "status", "resourceClaimStatuses")
			if !apiequality.Semantic.DeepEqual(got, tt.wantApplied) {
				t.Errorf("applied statuses %v, want %v", got, tt.wantApplied)
			}
		})
	}
}

// TestResourceClaimGeneratedClaimShape: a claim made from a template is
// what upstream makes: generateName <pod>-<claim>-, both cut in proportion
// when long (as recorded on refplane), controlled by the pod without
// blockOwnerDeletion, the template's labels and annotations plus the pod
// claim name, and the template's spec.
func TestResourceClaimGeneratedClaimShape(t *testing.T) {
	for _, tt := range []struct{ pod, podClaim, want string }{
		{"pending", "a-claim", "pending-a-claim-"},
		{"a-very-long-pod-name-that-goes-on-and-on-and-on-and-on", "a-long-claim-name-too", "a-very-long-pod-name-that-goes-on-and-o-a-long-claim-na"},
	} {
		pod := rcPod(tt.pod, "u1", tt.podClaim+"=tmpl")
		claim := claimFromTemplate(pod, tt.podClaim, rcTemplate("tmpl"))
		if claim.GenerateName != tt.want {
			t.Errorf("generateName %q, want %q", claim.GenerateName, tt.want)
		}
		want := metav1.ObjectMeta{
			GenerateName: tt.want, Namespace: rcNS,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: tt.pod, UID: "u1", Controller: ptr.To(true)}},
			Annotations:     map[string]string{"note": "kept", resourcev1.PodResourceClaimAnnotation: tt.podClaim},
			Labels:          map[string]string{"from": "template"},
		}
		if !apiequality.Semantic.DeepEqual(claim.ObjectMeta, want) {
			t.Errorf("metadata %+v, want %+v", claim.ObjectMeta, want)
		}
		if !apiequality.Semantic.DeepEqual(claim.Spec, rcTemplate("tmpl").Spec.Spec) {
			t.Errorf("spec %+v", claim.Spec)
		}
	}
}

// TestResourceClaimMissingTemplateRetried: a pod whose template is missing
// gets upstream's FailedResourceClaimCreation event and is retried after a
// backoff, not on every unrelated change (an event each time); the
// template's arrival creates the claim at once.
func TestResourceClaimMissingTemplateRetried(t *testing.T) {
	now := time.Unix(1000, 0)
	reg := newRCRegistry()
	c := NewResourceClaims(reg, nil, nil)
	c.clock = func() time.Time { return now }
	pod := rcPod("waits", "u1", "gpu=later")
	err := c.Sync(context.Background(), []store.Event{objectEvent(t, store.Added, podsBucket, pod)})
	if err == nil || !strings.Contains(err.Error(), `pod ns/waits, PodResourceClaim gpu: resource claim template "later": resourceclaimtemplate.resource.k8s.io "later" not found`) {
		t.Fatalf("sync: %v", err)
	}
	if len(reg.events) != 1 {
		t.Fatalf("%d events, want 1", len(reg.events))
	}
	ev := reg.events[0]
	if ev.Type != corev1.EventTypeWarning || ev.Reason != "FailedResourceClaimCreation" ||
		ev.Message != `PodResourceClaim gpu: resource claim template "later": resourceclaimtemplate.resource.k8s.io "later" not found` ||
		ev.Source.Component != "resource_claim" || ev.ReportingController != "resource_claim" ||
		ev.InvolvedObject != (corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: rcNS, Name: "waits", UID: "u1", ResourceVersion: "7"}) {
		t.Errorf("event %+v", ev)
	}
	// An unrelated pod's change does not retry it.
	var rq *Requeue
	err = c.Sync(context.Background(), []store.Event{objectEvent(t, store.Added, podsBucket, rcPod("other", "u2", "gpu:shared"))})
	if !errors.As(err, &rq) || rq.After != claimRetryBase {
		t.Fatalf("sync of an unrelated change: %v, want a requeue after %v", err, claimRetryBase)
	}
	if len(reg.events) != 1 {
		t.Errorf("%d events after an unrelated change, want 1", len(reg.events))
	}
	// Its backoff passed: retried (the same event counted again), with a
	// longer backoff.
	now = now.Add(claimRetryBase)
	if err := c.Sync(context.Background(), nil); err == nil {
		t.Fatal("retry succeeded without the template")
	}
	if got := reg.Objects[ev.Name].(*corev1.Event).Count; len(reg.events) != 1 || got != 2 {
		t.Errorf("event count %d, want 2", got)
	}
	if got := c.retryAt["pod:ns/waits"].Sub(now); got != 2*claimRetryBase {
		t.Errorf("next retry in %v, want %v", got, 2*claimRetryBase)
	}
	rcSync(t, c, []store.Event{objectEvent(t, store.Added, resourceClaimTemplatesBucket, rcTemplate("later"))})
	if want := []string{"create waits-gpu-00001", "apply waits status force=true"}; !slices.Equal(reg.Writes, want) {
		t.Errorf("writes %q, want %q", reg.Writes, want)
	}
	if len(c.retryAt)+len(c.failures) != 0 {
		t.Errorf("retries left: %v %v", c.retryAt, c.failures)
	}
}

// TestResourceClaimReservesForBoundPods: a pod bound to a node (not by the
// scheduler) gets its allocated claims reserved for it, appended to what
// they have; an unbound pod, a claim not allocated or already reserved
// for it, or a generated claim another pod controls is left alone.
func TestResourceClaimReservesForBoundPods(t *testing.T) {
	other := rcBound(rcPod("other", "u9", "gpu:c"))
	tests := []struct {
		name  string
		world rcWorld
		// want are the writes, and the claim's reservedFor names after.
		want         []string
		wantReserved []string
	}{{
		name: "an allocated claim is reserved for the bound pod",
		world: rcWorld{
			pods:   []*corev1.Pod{rcBound(rcPod("p", "u1", "gpu:c"))},
			claims: []*resourcev1.ResourceClaim{rcAllocated(rcClaim("c"), true)},
		},
		want: []string{"update c status"}, wantReserved: []string{"p"},
	}, {
		name: "the pod is appended to the claim's other consumers",
		world: rcWorld{
			pods:   []*corev1.Pod{rcBound(rcPod("p", "u1", "gpu:c")), other},
			claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), other)},
		},
		want: []string{"update c status"}, wantReserved: []string{"other", "p"},
	}, {
		name: "an unbound pod is the scheduler's",
		world: rcWorld{
			pods:   []*corev1.Pod{rcPod("p", "u1", "gpu:c")},
			claims: []*resourcev1.ResourceClaim{rcAllocated(rcClaim("c"), true)},
		},
	}, {
		name: "a claim not allocated is not reserved",
		world: rcWorld{
			pods:   []*corev1.Pod{rcBound(rcPod("p", "u1", "gpu:c"))},
			claims: []*resourcev1.ResourceClaim{rcClaim("c")},
		},
	}, {
		name: "a claim reserved for the pod is left alone",
		world: rcWorld{
			pods:   []*corev1.Pod{rcBound(rcPod("p", "u1", "gpu:c"))},
			claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), rcPod("p", "u1"))},
		},
	}, {
		name: "a generated claim is reserved for its pod",
		world: rcWorld{
			pods:   []*corev1.Pod{rcBound(rcWithStatus(rcPod("p", "u1", "gpu=t"), "gpu", "p-gpu-x"))},
			claims: []*resourcev1.ResourceClaim{rcAllocated(rcOwnedBy(rcClaim("p-gpu-x"), rcPod("p", "u1"), "gpu"), true)},
		},
		want: []string{"update p-gpu-x status"},
	}, {
		name: "a generated claim of another pod is not (it goes, as its pod was replaced)",
		world: rcWorld{
			pods:   []*corev1.Pod{rcBound(rcWithStatus(rcPod("p", "u1", "gpu=t"), "gpu", "p-gpu-x"))},
			claims: []*resourcev1.ResourceClaim{rcAllocated(rcOwnedBy(rcClaim("p-gpu-x"), rcPod("p", "u0"), "gpu"), true)},
		},
		want: []string{"delete p-gpu-x"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRCRegistry()
			c := NewResourceClaims(reg, nil, nil)
			rcSync(t, c, tt.world.events(t, reg))
			if !slices.Equal(reg.Writes, tt.want) {
				t.Errorf("writes %q, want %q", reg.Writes, tt.want)
			}
			if tt.wantReserved == nil {
				return
			}
			claim := reg.Objects[tt.world.claims[0].Name].(*resourcev1.ResourceClaim)
			var names []string
			for _, r := range claim.Status.ReservedFor {
				names = append(names, r.Name)
				if r.Resource != "pods" || r.APIGroup != "" || r.UID == "" {
					t.Errorf("reservation %+v", r)
				}
			}
			if !slices.Equal(names, tt.wantReserved) {
				t.Errorf("reserved for %q, want %q", names, tt.wantReserved)
			}
			if claim.ResourceVersion != "3" {
				t.Errorf("reservation written without the claim's resourceVersion %q", claim.ResourceVersion)
			}
		})
	}
}

// TestResourceClaimReleasesClaims: a claim's reservations for pods that
// are gone, replaced or done are dropped, and with the last one the
// allocation of a claim the scheduler protects, then its finalizer; a
// claim being deleted that nothing uses loses both; a generated claim of
// a pod that is done or replaced is deleted once nothing uses it.
func TestResourceClaimReleasesClaims(t *testing.T) {
	running := func() *corev1.Pod { return rcBound(rcPod("p", "u1", "gpu:c")) }
	tests := []struct {
		name  string
		world rcWorld
		// then are events after the first sync.
		then func(t *testing.T) []store.Event
		// getPods answer the controller's Gets.
		getPods []*corev1.Pod
		want    []string
		// wantClaim checks the claim as written last.
		wantClaim func(t *testing.T, c *resourcev1.ResourceClaim)
	}{{
		name:  "a running pod keeps its reservation",
		world: rcWorld{pods: []*corev1.Pod{running()}, claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), running())}},
	}, {
		name:  "a deleted pod's reservation goes, then the allocation and the finalizer",
		world: rcWorld{pods: []*corev1.Pod{running()}, claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), running())}},
		then: func(t *testing.T) []store.Event {
			return []store.Event{objectEvent(t, store.Deleted, podsBucket, running())}
		},
		want: []string{"update c status", "update c"},
		wantClaim: func(t *testing.T, c *resourcev1.ResourceClaim) {
			if len(c.Status.ReservedFor) != 0 || c.Status.Allocation != nil || len(c.Finalizers) != 0 {
				t.Errorf("claim %+v", c)
			}
		},
	}, {
		name:  "a succeeded pod's reservation goes",
		world: rcWorld{pods: []*corev1.Pod{running()}, claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), running())}},
		then: func(t *testing.T) []store.Event {
			return []store.Event{objectEvent(t, store.Modified, podsBucket, rcPhase(running(), corev1.PodSucceeded))}
		},
		want: []string{"update c status", "update c"},
	}, {
		name: "an unprotected claim keeps its allocation",
		world: rcWorld{
			pods:   []*corev1.Pod{rcPhase(running(), corev1.PodFailed)},
			claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), false), running())},
		},
		want: []string{"update c status"},
		wantClaim: func(t *testing.T, c *resourcev1.ResourceClaim) {
			if len(c.Status.ReservedFor) != 0 || c.Status.Allocation == nil {
				t.Errorf("claim %+v", c)
			}
		},
	}, {
		name: "a replaced pod's reservation goes; another pod's stays with the allocation",
		world: rcWorld{
			pods:   []*corev1.Pod{rcPod("p", "u2", "gpu:c"), rcBound(rcPod("q", "u3", "gpu:c"))},
			claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), running(), rcPod("q", "u3"))},
		},
		want: []string{"update c status"},
		wantClaim: func(t *testing.T, c *resourcev1.ResourceClaim) {
			if len(c.Status.ReservedFor) != 1 || c.Status.ReservedFor[0].Name != "q" || c.Status.Allocation == nil || len(c.Finalizers) != 1 {
				t.Errorf("claim %+v", c)
			}
		},
	}, {
		name:  "a pod the registry does not have loses its reservation",
		world: rcWorld{claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), running())}},
		want:  []string{"update c status", "update c"},
	}, {
		name:    "a pod without claims the registry has keeps it",
		world:   rcWorld{claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), running())}},
		getPods: []*corev1.Pod{running()},
	}, {
		name: "a pod deleted before being scheduled loses it",
		world: rcWorld{
			pods:   []*corev1.Pod{func() *corev1.Pod { p := rcPod("p", "u1", "gpu:c"); rcDeleting(p); return p }()},
			claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcClaim("c"), true), running())},
		},
		want: []string{"update c status", "update c"},
	}, {
		name: "a consumer other than a pod stays",
		world: rcWorld{claims: []*resourcev1.ResourceClaim{func() *resourcev1.ResourceClaim {
			c := rcAllocated(rcClaim("c"), true)
			c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{APIGroup: "example.com", Resource: "things", Name: "t", UID: "u5"}}
			return c
		}()}},
	}, {
		name: "a claim being deleted that nothing uses loses its allocation and finalizer",
		world: rcWorld{claims: []*resourcev1.ResourceClaim{func() *resourcev1.ResourceClaim {
			c := rcAllocated(rcClaim("c"), true)
			rcDeleting(c)
			return c
		}()}},
		want: []string{"update c status", "update c"},
	}, {
		name:  "an unused claim not being deleted keeps its allocation",
		world: rcWorld{claims: []*resourcev1.ResourceClaim{rcAllocated(rcClaim("c"), true)}},
	}, {
		name: "the generated claim of a succeeded pod is released and deleted",
		world: rcWorld{
			pods: []*corev1.Pod{rcPhase(rcBound(rcWithStatus(rcPod("p", "u1", "gpu=t"), "gpu", "p-gpu-x")), corev1.PodSucceeded)},
			claims: []*resourcev1.ResourceClaim{
				rcReservedFor(rcAllocated(rcOwnedBy(rcClaim("p-gpu-x"), rcPod("p", "u1"), "gpu"), true), rcPod("p", "u1")),
			},
		},
		want: []string{"update p-gpu-x status", "update p-gpu-x", "delete p-gpu-x"},
	}, {
		name: "the generated claim of a replaced pod is deleted",
		world: rcWorld{
			pods:   []*corev1.Pod{rcPod("p", "u2", "gpu=t")},
			claims: []*resourcev1.ResourceClaim{rcOwnedBy(rcClaim("p-gpu-x"), rcPod("p", "u1"), "gpu")},
		},
		want: []string{"create p-gpu-00001", "apply p status force=true", "delete p-gpu-x"},
	}, {
		name: "the generated claim of a pending pod stays",
		world: rcWorld{
			pods:   []*corev1.Pod{rcWithStatus(rcPod("p", "u1", "gpu=t"), "gpu", "p-gpu-x")},
			claims: []*resourcev1.ResourceClaim{rcOwnedBy(rcClaim("p-gpu-x"), rcPod("p", "u1"), "gpu")},
		},
	}, {
		name:  "the generated claim of a pod that is gone is the garbage collector's",
		world: rcWorld{claims: []*resourcev1.ResourceClaim{rcOwnedBy(rcClaim("p-gpu-x"), rcPod("p", "u1"), "gpu")}},
	}, {
		name: "the extended-resource claim of a succeeded pod is released and deleted",
		world: rcWorld{
			pods:   []*corev1.Pod{rcPhase(rcBound(rcExtended(rcPod("p", "u1"), "p-extended-resources-x")), corev1.PodSucceeded)},
			claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcExtendedFor(rcClaim("p-extended-resources-x"), rcPod("p", "u1")), true), rcPod("p", "u1"))},
		},
		want: []string{"update p-extended-resources-x status", "update p-extended-resources-x", "delete p-extended-resources-x"},
	}, {
		name: "the extended-resource claim of a running pod stays",
		world: rcWorld{
			pods:   []*corev1.Pod{rcBound(rcExtended(rcPod("p", "u1"), "p-extended-resources-x"))},
			claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcExtendedFor(rcClaim("p-extended-resources-x"), rcPod("p", "u1")), true), rcPod("p", "u1"))},
		},
	}, {
		name: "a deleted pod's extended-resource claim is released (the garbage collector deletes it)",
		world: rcWorld{
			pods:   []*corev1.Pod{rcBound(rcExtended(rcPod("p", "u1"), "p-extended-resources-x"))},
			claims: []*resourcev1.ResourceClaim{rcReservedFor(rcAllocated(rcExtendedFor(rcClaim("p-extended-resources-x"), rcPod("p", "u1")), true), rcPod("p", "u1"))},
		},
		then: func(t *testing.T) []store.Event {
			return []store.Event{objectEvent(t, store.Deleted, podsBucket, rcBound(rcExtended(rcPod("p", "u1"), "p-extended-resources-x")))}
		},
		want: []string{"update p-extended-resources-x status", "update p-extended-resources-x"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRCRegistry()
			reg.Objects["t"] = rcTemplate("t")
			for _, p := range tt.getPods {
				reg.pods[p.Name] = p
			}
			c := NewResourceClaims(reg, nil, nil)
			evs := tt.world.events(t, reg)
			evs = append(evs, objectEvent(t, store.Added, resourceClaimTemplatesBucket, rcTemplate("t")))
			rcSync(t, c, evs)
			if tt.then != nil {
				rcSync(t, c, tt.then(t))
			}
			if !slices.Equal(reg.Writes, tt.want) {
				t.Errorf("writes %q, want %q", reg.Writes, tt.want)
			}
			if tt.wantClaim != nil {
				tt.wantClaim(t, reg.Objects[tt.world.claims[0].Name].(*resourcev1.ResourceClaim))
			}
		})
	}
}

// TestResourceClaimRunsByDefault: the controller is on by default, under
// its name and its alias.
func TestResourceClaimRunsByDefault(t *testing.T) {
	if !DefaultSelection.Enabled(ResourceClaimName) || Selection([]string{"*", "-resource-claim-controller"}).Enabled(ResourceClaimName) {
		t.Error("the resourceclaim-controller is not selected as kube-controller-manager selects it")
	}
	if err := (Selection{"resource-claim-controller", "resourceclaim-controller"}).Validate(); err != nil {
		t.Error(err)
	}
	found := false
	for _, c := range Default(Config{Registry: newRCRegistry()}) {
		found = found || c.Name() == ResourceClaimName
	}
	if !found {
		t.Errorf("Default runs no %s", ResourceClaimName)
	}
}

// TestResourceClaimDonePodClaimNotMadeAgainAndAgain: the generated claim
// of a pod that is done, deleted by the controller, is made once more
// from the template (the pod's status names a claim that is gone) and
// deleted again, but not a third time: the claim the controller created
// stands in for it, as upstream's mutation cache keeps it (refplane made
// bound3-gen-p62wb after bound3-gen-6th6n, then stopped).
func TestResourceClaimDonePodClaimNotMadeAgainAndAgain(t *testing.T) {
	reg := newRCRegistry()
	c := NewResourceClaims(reg, nil, nil)
	pod := rcPhase(rcBound(rcWithStatus(rcPod("p", "u1", "gpu=t"), "gpu", "p-gpu-old")), corev1.PodSucceeded)
	old := rcOwnedBy(rcClaim("p-gpu-old"), pod, "gpu")
	rcSync(t, c, rcWorld{pods: []*corev1.Pod{pod}, claims: []*resourcev1.ResourceClaim{old}, templates: []*resourcev1.ResourceClaimTemplate{rcTemplate("t")}}.events(t, reg))
	if want := []string{"delete p-gpu-old"}; !slices.Equal(reg.Writes, want) {
		t.Fatalf("writes %q, want %q", reg.Writes, want)
	}
	// The deletion: the pod's status names a claim that is gone.
	rcSync(t, c, []store.Event{objectEvent(t, store.Deleted, resourceClaimsBucket, old)})
	if want := []string{"delete p-gpu-old", "create p-gpu-00001", "apply p status force=true"}; !slices.Equal(reg.Writes, want) {
		t.Fatalf("writes %q, want %q", reg.Writes, want)
	}
	made := reg.Objects["p-gpu-00001"].(*resourcev1.ResourceClaim)
	made.ResourceVersion = "9"
	rcSync(t, c, []store.Event{
		objectEvent(t, store.Added, resourceClaimsBucket, made),
		objectEvent(t, store.Modified, podsBucket, rcPhase(rcBound(rcWithStatus(rcPod("p", "u1", "gpu=t"), "gpu", "p-gpu-00001")), corev1.PodSucceeded)),
	})
	rcSync(t, c, []store.Event{objectEvent(t, store.Deleted, resourceClaimsBucket, made)})
	if want := []string{"delete p-gpu-old", "create p-gpu-00001", "apply p status force=true", "delete p-gpu-00001"}; !slices.Equal(reg.Writes, want) {
		t.Errorf("writes %q, want %q", reg.Writes, want)
	}
}
