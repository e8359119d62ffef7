package fakeplane_test

import (
	"context"
	"regexp"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// webPod is a pod labelled app=web with a container port named "http".
func webPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		// A pod with an IP is on a node: the endpoints controller names it
		// in each address, and Endpoints validation refuses an empty name.
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{
			Name: "web", Image: "nginx",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		}}},
	}
}

// slicesOf lists the EndpointSlices of a Service by their service-name
// label.
func slicesOf(t testing.TB, cs kubernetes.Interface, ns, svc string) []discoveryv1.EndpointSlice {
	t.Helper()
	l, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctxT(t), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// endpointState is what a test reads of a Service's Endpoints and
// EndpointSlices: pod name -> ready, in each.
type endpointState struct {
	endpoints, slices map[string]bool
}

func readEndpointState(t testing.TB, cs kubernetes.Interface, ns, svc string) (endpointState, *corev1.Endpoints, []discoveryv1.EndpointSlice) {
	t.Helper()
	st := endpointState{endpoints: map[string]bool{}, slices: map[string]bool{}}
	ep, err := cs.CoreV1().Endpoints(ns).Get(ctxT(t), svc, metav1.GetOptions{}) //nolint:staticcheck // the Endpoints API the controller keeps
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if err == nil {
		for _, s := range ep.Subsets {
			for _, a := range s.Addresses {
				st.endpoints[a.TargetRef.Name] = true
			}
			for _, a := range s.NotReadyAddresses {
				st.endpoints[a.TargetRef.Name] = false
			}
		}
	} else {
		ep = nil
	}
	sl := slicesOf(t, cs, ns, svc)
	for _, s := range sl {
		for _, e := range s.Endpoints {
			st.slices[e.TargetRef.Name] = ptr.Deref(e.Conditions.Ready, false)
		}
	}
	return st, ep, sl
}

func sameReadiness(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A Service with a selector gets Endpoints and an EndpointSlice from its
// pods with an IP: ready pods as ready addresses, the others not ready,
// the named target port resolved on each pod; a deleted pod leaves them.
func TestServiceEndpointsFollowItsPods(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "endpoints")
	startBatchKubelet(t, cs, ns, nil, func(p *corev1.Pod) *testPodOutcome {
		switch p.Name {
		case "web-ready-1", "web-ready-2":
			return ptr.To(testRunning())
		case "web-unready":
			return ptr.To(testRunningNotReady())
		}
		return nil // web-pending: no IP yet
	})
	svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"tier": "front"}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Before any pod: Endpoints without subsets and one empty slice.
	eventuallyT(t, "placeholder slice and empty endpoints", func(context.Context) (bool, error) {
		st, ep, sl := readEndpointState(t, cs, ns, "web")
		return ep != nil && len(ep.Subsets) == 0 && len(sl) == 1 && len(sl[0].Endpoints) == 0 && len(st.slices) == 0, nil
	})
	for _, name := range []string{"web-ready-1", "web-ready-2", "web-unready", "web-pending"} {
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, webPod(name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{"web-ready-1": true, "web-ready-2": true, "web-unready": false}
	var ep *corev1.Endpoints
	var sl []discoveryv1.EndpointSlice
	eventuallyT(t, "endpoints of the running pods", func(context.Context) (bool, error) {
		var st endpointState
		st, ep, sl = readEndpointState(t, cs, ns, "web")
		return sameReadiness(st.endpoints, want) && sameReadiness(st.slices, want) && len(sl) == 1, nil
	})

	// The Endpoints: named as the Service, its labels and managed-by, one
	// subset with the resolved port.
	if ep.Labels["tier"] != "front" || ep.Labels["endpoints.kubernetes.io/managed-by"] != "endpoint-controller" {
		t.Errorf("endpoints labels %v", ep.Labels)
	}
	if ep.Annotations[corev1.EndpointsLastChangeTriggerTime] == "" {
		t.Errorf("endpoints annotations %v, want %s", ep.Annotations, corev1.EndpointsLastChangeTriggerTime)
	}
	if len(ep.Subsets) != 1 || len(ep.Subsets[0].Ports) != 1 || ep.Subsets[0].Ports[0] != (corev1.EndpointPort{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}) {
		t.Fatalf("endpoints subsets %+v", ep.Subsets)
	}
	addrs := ep.Subsets[0].Addresses
	if len(addrs) != 2 || !sort.SliceIsSorted(addrs, func(i, j int) bool { return addrs[i].IP < addrs[j].IP }) {
		t.Errorf("ready addresses %+v, want 2 sorted by IP", addrs)
	}
	for _, a := range append(addrs, ep.Subsets[0].NotReadyAddresses...) {
		if a.TargetRef == nil || a.TargetRef.Kind != "Pod" || a.TargetRef.UID == "" || !regexp.MustCompile(`^10\.244\.`).MatchString(a.IP) {
			t.Errorf("address %+v", a)
		}
	}

	// The slice: generated name, owner, labels, port, conditions.
	s := sl[0]
	if !regexp.MustCompile(`^web-[a-z0-9]{5}$`).MatchString(s.Name) {
		t.Errorf("slice name %q, want web-<5 chars>", s.Name)
	}
	if ref := metav1.GetControllerOf(&s); ref == nil || ref.Kind != "Service" || ref.UID != svc.UID {
		t.Errorf("slice controller %+v", ref)
	}
	if s.Labels[discoveryv1.LabelManagedBy] != "endpointslice-controller.k8s.io" || s.Labels["tier"] != "front" {
		t.Errorf("slice labels %v", s.Labels)
	}
	if s.AddressType != discoveryv1.AddressTypeIPv4 || len(s.Ports) != 1 || ptr.Deref(s.Ports[0].Port, 0) != 8080 || ptr.Deref(s.Ports[0].Name, "") != "http" {
		t.Errorf("slice addressType %s ports %+v", s.AddressType, s.Ports)
	}
	for _, e := range s.Endpoints {
		ready := want[e.TargetRef.Name]
		if ptr.Deref(e.Conditions.Serving, !ready) != ready || ptr.Deref(e.Conditions.Terminating, true) || len(e.Addresses) != 1 {
			t.Errorf("endpoint %s: %+v", e.TargetRef.Name, e)
		}
	}

	// A deleted pod leaves both (at once: the pod is on a node, so a
	// delete without a grace period would wait for its kubelet).
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "web-ready-2", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	delete(want, "web-ready-2")
	eventuallyT(t, "deleted pod gone from endpoints", func(context.Context) (bool, error) {
		st, _, _ := readEndpointState(t, cs, ns, "web")
		return sameReadiness(st.endpoints, want) && sameReadiness(st.slices, want), nil
	})

	// A deleted Service takes its Endpoints and slices with it.
	if err := cs.CoreV1().Services(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "endpoints and slices of a deleted service", func(context.Context) (bool, error) {
		_, ep, sl := readEndpointState(t, cs, ns, "web")
		return ep == nil && len(sl) == 0, nil
	})
}

// A Service without a selector gets neither Endpoints nor EndpointSlices
// from the controllers; those written by hand are left as they are.
func TestServiceWithoutSelectorGetsNoEndpoints(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "no-selector")
	if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "external"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The controllers have seen the first Service.
	awaitEndpointsMarker(t, cs, ns)
	if _, ep, sl := readEndpointState(t, cs, ns, "external"); ep != nil || len(sl) != 0 {
		t.Errorf("selector-less service got endpoints %v and slices %v", ep, sl)
	}
	// The kubernetes Service's are kube-apiserver's, not the controllers'.
	if sl := slicesOf(t, cs, "default", "kubernetes"); len(sl) > 0 {
		for _, s := range sl {
			if s.Labels[discoveryv1.LabelManagedBy] == "endpointslice-controller.k8s.io" {
				t.Errorf("kubernetes service slice %s managed by the endpointslice controller", s.Name)
			}
		}
	}
}

// TestEndpointsWithoutServiceStay checks that Endpoints written by a client
// for no Service stay, as upstream's endpoints controller acts only when
// Endpoints are deleted, and that every request to v1 Endpoints carries
// kube-apiserver v1.37's deprecation warning.
func TestEndpointsWithoutServiceStay(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "alone")
	alone := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "alone"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.1.2.3"}}, Ports: []corev1.EndpointPort{{Port: 80}}}}}
	if _, err := cs.CoreV1().Endpoints(ns).Create(ctx, alone, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Endpoints(ns).Update(ctx, alone, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The controllers have seen the Endpoints and their update.
	awaitEndpointsMarker(t, cs, ns)
	got, err := cs.CoreV1().Endpoints(ns).Get(ctx, "alone", metav1.GetOptions{})
	if err != nil || len(got.Subsets) != 1 || got.Subsets[0].Addresses[0].IP != "10.1.2.3" {
		t.Fatalf("endpoints without a service: %v %+v", err, got)
	}
	// Every verb warns.
	wcs, warned := clientWithWarnings(t, cp)
	if _, err := wcs.CoreV1().Endpoints(ns).Get(ctx, "alone", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := wcs.CoreV1().Endpoints(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wcs.CoreV1().Endpoints(ns).Delete(ctx, "alone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"
	if got := warned.Messages(); len(got) != 3 || got[0] != want || got[1] != want || got[2] != want {
		t.Errorf("warnings %q, want %q three times", got, want)
	}
}

// awaitEndpointsMarker creates a Service with a selector in ns and waits
// for its Endpoints and EndpointSlice: the endpoint controllers, which take
// events in order, have then seen every write to ns before it.
func awaitEndpointsMarker(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	if _, err := cs.CoreV1().Services(ns).Create(ctxT(t), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "marker"},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "none"}, Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "marker endpoints", func(context.Context) (bool, error) {
		_, ep, sl := readEndpointState(t, cs, ns, "marker")
		return ep != nil && len(sl) == 1, nil
	})
}
