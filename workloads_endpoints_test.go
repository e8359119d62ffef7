package fakeplane_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
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
	var placeholder string
	eventuallyT(t, "placeholder slice and empty endpoints", func(context.Context) (bool, error) {
		st, ep, sl := readEndpointState(t, cs, ns, "web")
		if ep != nil && len(ep.Subsets) == 0 && len(sl) == 1 && len(sl[0].Endpoints) == 0 && len(st.slices) == 0 {
			placeholder = sl[0].Name
			return true, nil
		}
		return false, nil
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

	// The slice: generated name, owner, labels, port, conditions. It is the
	// placeholder, updated: upstream's reconciler turns the create of a
	// slice and the delete of another into an update.
	s := sl[0]
	if !regexp.MustCompile(`^web-[a-z0-9]{5}$`).MatchString(s.Name) || s.Name != placeholder {
		t.Errorf("slice name %q, want the placeholder's %q", s.Name, placeholder)
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

// TestEndpointsOfAServiceWithoutSelectorAreMirrored: kube-controller-manager's
// endpointslice-mirroring-controller mirrors the Endpoints a client writes
// for a Service without a selector into EndpointSlices, one per address
// type and port set, and takes them away with the Service, when the
// Endpoints are marked skip-mirror, and when the Endpoints go. The slices
// are those refplane's kube-controller-manager made of the same objects
// (names aside, its endpoints' order being random).
func TestEndpointsOfAServiceWithoutSelectorAreMirrored(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	ns := newBatchNamespace(t, cs, "mirror")
	for _, name := range []string{"ext", "ext2"} {
		if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "a", Port: 80}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	udp, dns := corev1.ProtocolUDP, "dns"
	ep, err := cs.CoreV1().Endpoints(ns).Create(ctx, &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "ext", Labels: map[string]string{"l": "v"},
			Annotations: map[string]string{"a": "b", corev1.LastAppliedConfigAnnotation: "{}"}},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{
				{IP: "10.0.0.1", Hostname: "h1", NodeName: ptr.To("node-0"), TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "p1", Namespace: ns}},
				{IP: "fd00::2"},
			},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.0.2"}},
			Ports:             []corev1.EndpointPort{{Name: "a", Port: 8080}, {Name: "b", Port: 5353, Protocol: udp, AppProtocol: &dns}},
		}, {
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.3"}},
			Ports:     []corev1.EndpointPort{{Name: "a", Port: 9090}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// summary renders a slice as refplane's answer was compared.
	summary := func(s discoveryv1.EndpointSlice) string {
		var eps []string
		for _, e := range s.Endpoints {
			x := fmt.Sprintf("%s ready=%v", strings.Join(e.Addresses, ","), *e.Conditions.Ready)
			if e.Hostname != nil {
				x += " hostname=" + *e.Hostname
			}
			if e.NodeName != nil {
				x += " node=" + *e.NodeName
			}
			if e.TargetRef != nil {
				x += " target=" + e.TargetRef.Kind + "/" + e.TargetRef.Name
			}
			eps = append(eps, x)
		}
		sort.Strings(eps)
		var ports []string
		for _, p := range s.Ports {
			x := fmt.Sprintf("%s:%d/%s", *p.Name, *p.Port, *p.Protocol)
			if p.AppProtocol != nil {
				x += "(" + *p.AppProtocol + ")"
			}
			ports = append(ports, x)
		}
		return fmt.Sprintf("%s [%s] {%s}", s.AddressType, strings.Join(ports, " "), strings.Join(eps, "; "))
	}
	mirrors := func() []discoveryv1.EndpointSlice {
		var out []discoveryv1.EndpointSlice
		for _, s := range slicesOf(t, cs, ns, "ext") {
			if s.Labels[discoveryv1.LabelManagedBy] == "endpointslicemirroring-controller.k8s.io" {
				out = append(out, s)
			}
		}
		return out
	}
	await := func(what string, want ...string) []discoveryv1.EndpointSlice {
		t.Helper()
		sort.Strings(want)
		var got []discoveryv1.EndpointSlice
		eventuallyT(t, what, func(context.Context) (bool, error) {
			got = mirrors()
			var sums []string
			for _, s := range got {
				sums = append(sums, summary(s))
			}
			sort.Strings(sums)
			return strings.Join(sums, "\n") == strings.Join(want, "\n"), nil
		})
		return got
	}
	first := await("the mirrored slices",
		"IPv4 [a:8080/TCP b:5353/UDP(dns)] {10.0.0.1 ready=true hostname=h1 node=node-0 target=Pod/p1; 10.0.0.2 ready=false}",
		"IPv6 [a:8080/TCP b:5353/UDP(dns)] {fd00::2 ready=true}",
		"IPv4 [a:9090/TCP] {10.0.0.3 ready=true}")
	for _, s := range first {
		owner := metav1.GetControllerOf(&s)
		if !strings.HasPrefix(s.Name, "ext-") || s.GenerateName != "ext-" || s.Labels["l"] != "v" || len(s.Labels) != 3 ||
			len(s.Annotations) != 1 || s.Annotations["a"] != "b" || owner == nil || owner.Kind != "Endpoints" || owner.UID != ep.UID ||
			len(s.ManagedFields) != 1 || s.ManagedFields[0].Manager != "kube-controller-manager" {
			t.Errorf("slice %s: generateName %q labels %v annotations %v owner %+v managedFields %+v", s.Name, s.GenerateName, s.Labels, s.Annotations, owner, s.ManagedFields)
		}
	}
	// A new port set: the new slice takes the name of one that goes.
	ep.Subsets = []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.4"}}, Ports: []corev1.EndpointPort{{Name: "a", Port: 8080}}}}
	if ep, err = cs.CoreV1().Endpoints(ns).Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	now := await("the slices of the new subsets", "IPv4 [a:8080/TCP] {10.0.0.1 ready=true; 10.0.0.4 ready=true}")
	if !slices.ContainsFunc(first, func(s discoveryv1.EndpointSlice) bool {
		return s.Name == now[0].Name && s.AddressType == discoveryv1.AddressTypeIPv4
	}) {
		t.Errorf("the new slice %s did not take an old IPv4 slice's name", now[0].Name)
	}
	// Marked skip-mirror, they go; unmarked, they come back.
	ep.Labels[discoveryv1.LabelSkipMirror] = "true"
	if ep, err = cs.CoreV1().Endpoints(ns).Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	await("no slices while skip-mirror")
	delete(ep.Labels, discoveryv1.LabelSkipMirror)
	if _, err = cs.CoreV1().Endpoints(ns).Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	await("the slices back", "IPv4 [a:8080/TCP] {10.0.0.1 ready=true; 10.0.0.4 ready=true}")
	// Without their Service they go.
	if err := cs.CoreV1().Services(ns).Delete(ctx, "ext", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	await("no slices without the service")
	// Endpoints without addresses have no slices at all.
	if _, err := cs.CoreV1().Endpoints(ns).Create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "ext2"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitEndpointsMarker(t, cs, ns)
	if sl := slicesOf(t, cs, ns, "ext2"); len(sl) != 0 {
		t.Errorf("empty Endpoints mirrored into %d slices", len(sl))
	}
}
