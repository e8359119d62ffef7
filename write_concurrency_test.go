package fakeplane_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// fastClient is a typed client without client-go's default rate limit, for
// tests that write many objects at once.
func fastClient(t *testing.T, cp *fakeplane.ControlPlane) *kubernetes.Clientset {
	t.Helper()
	cfg := cp.RESTConfig()
	cfg.QPS, cfg.Burst = 1000, 1000
	return kubernetes.NewForConfigOrDie(cfg)
}

// hangingWebhook converts like conversionWebhook but, once hang is set,
// holds every review until release is closed.
type hangingWebhook struct {
	conversionWebhook
	hang    chan struct{} // closed: hold reviews
	entered chan struct{} // closed when the first review is held
	release chan struct{}
	once    sync.Once
}

func (h *hangingWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-h.hang:
		h.once.Do(func() { close(h.entered) })
		<-h.release
	default:
	}
	h.conversionWebhook.ServeHTTP(w, r)
}

func TestHungConversionWebhookHoldsUpOnlyItsOwnResource(t *testing.T) {
	t.Parallel()
	hook := &hangingWebhook{hang: make(chan struct{}), entered: make(chan struct{}), release: make(chan struct{})}
	ts := httptest.NewTLSServer(hook)
	defer ts.Close()
	defer func() {
		select {
		case <-hook.release:
		default:
			close(hook.release)
		}
	}()
	cp := fakeplane.Start(t, fakeplane.WithObjects(conversionCRD(apiextensionsv1.WebhookClientConfig{URL: ptr.To(ts.URL + "/convert"), CABundle: pemOf(ts.Certificate().Raw)}, "v1")))
	ctx := ctxT(t)
	v2 := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "crontabs"}).Namespace("default")

	// A v2 write is converted to the storage version v1 by the webhook,
	// which now hangs.
	close(hook.hang)
	done := make(chan error, 1)
	go func() {
		_, err := v2.Create(ctx, crontab("v2", "held", map[string]any{"host": "h", "port": "1"}), metav1.CreateOptions{})
		done <- err
	}()
	select {
	case <-hook.entered:
	case err := <-done:
		t.Fatalf("the write finished without reaching the webhook: %v", err)
	}

	// Meanwhile every other resource takes writes. (The deadline only
	// keeps a regression from hanging the test.)
	otherCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	for i := range 5 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"k": "v"}}
		if _, err := client.CoreV1().ConfigMaps("default").Create(otherCtx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("a ConfigMap write waited for the hung webhook: %v", err)
		}
	}
	if _, err := client.CoreV1().Namespaces().Create(otherCtx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "meanwhile"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("a Namespace write waited for the hung webhook: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("the held write finished while its webhook hung: %v", err)
	default:
	}

	close(hook.release)
	if err := <-done; err != nil {
		t.Fatalf("the held write, once its webhook answered: %v", err)
	}
	got, err := v2.Get(ctx, "held", metav1.GetOptions{})
	if err != nil || got.Object["spec"].(map[string]any)["host"] != "h" {
		t.Fatalf("held object: %v %v", err, got)
	}
}

func TestConcurrentServicesNeverShareAddressesOrNodePorts(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	client := fastClient(t, cp)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s%03d", i)},
				Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}}},
			}
			if _, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	svcs, err := client.CoreV1().Services("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ips, ports := map[string]string{}, map[int32]string{}
	for _, s := range svcs.Items {
		if other, ok := ips[s.Spec.ClusterIP]; ok {
			t.Errorf("%s and %s share ClusterIP %s", s.Name, other, s.Spec.ClusterIP)
		}
		ips[s.Spec.ClusterIP] = s.Name
		for _, p := range s.Spec.Ports {
			if p.NodePort == 0 && s.Name != "kubernetes" {
				t.Errorf("%s has no node port", s.Name)
			}
			if other, ok := ports[p.NodePort]; ok && p.NodePort != 0 {
				t.Errorf("%s and %s share node port %d", s.Name, other, p.NodePort)
			}
			ports[p.NodePort] = s.Name
		}
	}
	if len(svcs.Items) != n+1 {
		t.Errorf("%d Services, want %d and the kubernetes Service", len(svcs.Items), n)
	}
	addrs, err := client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil || len(addrs.Items) != n+1 {
		t.Errorf("IPAddresses: %v, %d objects, want %d", err, len(addrs.Items), n+1)
	}
}

func TestConcurrentRequestsForOneAddressOrPortOneWins(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	client := fastClient(t, cp)
	for _, tc := range []struct {
		name    string
		spec    corev1.ServiceSpec
		wantMsg string
	}{
		{"cluster ip", corev1.ServiceSpec{ClusterIP: "10.0.0.77", Ports: []corev1.ServicePort{{Port: 80}}},
			"failed to allocate IP 10.0.0.77: provided IP is already allocated"},
		{"node port", corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: 30777}}},
			"provided port is already allocated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 20
			var wg sync.WaitGroup
			var mu sync.Mutex
			won := 0
			for i := range n {
				wg.Go(func() {
					svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", strings.ReplaceAll(tc.name, " ", "-"), i)}, Spec: tc.spec}
					_, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						won++
					case apierrors.IsInvalid(err) && strings.Contains(err.Error(), tc.wantMsg):
					default:
						t.Errorf("create %s: %v", svc.Name, err)
					}
				})
			}
			wg.Wait()
			if won != 1 {
				t.Errorf("%d creates won, want exactly 1", won)
			}
		})
	}
	// A deleted Service's address and port are free again.
	left, err := client.CoreV1().Services("default").List(ctx, metav1.ListOptions{LabelSelector: "!component"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range left.Items {
		if err := client.CoreV1().Services("default").Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	again := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "again"}, Spec: corev1.ServiceSpec{
		ClusterIP: "10.0.0.77", Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: 30777}}}}
	if _, err := client.CoreV1().Services("default").Create(ctx, again, metav1.CreateOptions{}); err != nil {
		t.Errorf("reusing a deleted Service's address and port: %v", err)
	}
}

func TestServiceClusterIPRange(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithServiceClusterIPRange("10.96.0.0/16"))
	ctx := ctxT(t)
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	k, err := client.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil || k.Spec.ClusterIP != "10.96.0.1" {
		t.Fatalf("kubernetes Service: %v %v, want ClusterIP 10.96.0.1", err, k)
	}
	svc, err := client.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if err != nil || !strings.HasPrefix(svc.Spec.ClusterIP, "10.96.") {
		t.Fatalf("new Service: %v, ClusterIP %q, want one of 10.96.0.0/16", err, svc.Spec.ClusterIP)
	}
	cidr, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil || len(cidr.Spec.CIDRs) != 1 || cidr.Spec.CIDRs[0] != "10.96.0.0/16" {
		t.Errorf("kubernetes ServiceCIDR: %v %v", err, cidr)
	}
	for _, bad := range []string{"10.0.0.0/8", "not-a-cidr"} {
		if _, err := fakeplane.New(fakeplane.WithServiceClusterIPRange(bad)); err == nil {
			t.Errorf("range %q accepted", bad)
		}
	}
}

func TestAuthorizationFollowsTheStoredRoleBindingAfterConcurrentUpdates(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	client := fastClient(t, cp)
	users := []string{"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7"}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "readers"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
	}
	if _, err := client.RbacV1().RoleBindings("default").Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	allowed := func(user string) bool {
		sar, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "configmaps"},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sar.Status.Allowed
	}
	for round := range 5 {
		var wg sync.WaitGroup
		for _, u := range users {
			wg.Go(func() {
				// Unconditional updates: each writer binds only its own user.
				b := rb.DeepCopy()
				b.Subjects = []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: u}}
				if _, err := client.RbacV1().RoleBindings("default").Update(ctx, b, metav1.UpdateOptions{}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		stored, err := client.RbacV1().RoleBindings("default").Get(ctx, "readers", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			want := stored.Subjects[0].Name == u
			if got := allowed(u); got != want {
				t.Errorf("round %d: %s allowed = %v, but the stored RoleBinding binds %s", round, u, got, stored.Subjects[0].Name)
			}
		}
	}
}

func TestCompactionIntervalExpiresContinueTokens(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithCompactionInterval(20*time.Millisecond))
	ctx := ctxT(t)
	client := fastClient(t, cp)
	cms := client.CoreV1().ConfigMaps("default")
	for _, n := range []string{"a", "b", "c"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := cms.List(ctx, metav1.ListOptions{Limit: 1, LabelSelector: "!x"})
	if err != nil || page.Continue == "" {
		t.Fatalf("first page: %v, continue %q", err, page.Continue)
	}
	// Writes move the revision on; the compactor, every 20ms, compacts to
	// the revision it saw at its previous tick.
	for i := 0; ; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%d", i)}}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := cms.List(ctx, metav1.ListOptions{Limit: 1, LabelSelector: "!x", Continue: page.Continue})
		if apierrors.IsResourceExpired(err) {
			return
		}
		if err != nil {
			t.Fatalf("continue: %v, want 410 Expired once compacted", err)
		}
		select {
		case <-ctx.Done():
			t.Fatal("the continue token never expired")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
