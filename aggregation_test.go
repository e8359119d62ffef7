package fakeplane_test

// Tests of the aggregation layer with a real extension API server built on
// k8s.io/apiserver (internal/wardle) behind the control plane. The error
// messages and condition reasons checked here were taken from upstream
// source (k8s.io/kube-aggregator v0.37.2: pkg/apiserver/handler_proxy.go,
// pkg/controllers/status/remote/remote_available_controller.go,
// pkg/apiserver/handler_discovery.go), not from a live kube-apiserver run.

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"

	"k8s.io/apiserver/pkg/authentication/user"

	"go.uber.org/goleak"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/wardle"
)

var flundersGVR = schema.GroupVersionResource{Group: wardle.Group, Version: wardle.Version, Resource: wardle.Resource}

// startWardle runs a control plane with the wardle extension API server
// registered behind it (Service wardle/api, Endpoints to its loopback
// port, APIService v1alpha1.wardle.example.com), set up as the seed's steps
// 9-13 set one up: it runs as the service account wardle/apiserver, bound
// to system:auth-delegator and, in kube-system, to
// extension-apiserver-authentication-reader. It returns once the
// APIService is Available.
func startWardle(t testing.TB, opts ...fakeplane.Option) (*fakeplane.ControlPlane, *wardle.Server) {
	t.Helper()
	ext, err := wardle.New("api", "wardle")
	if err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, append([]fakeplane.Option{
		fakeplane.WithExtensionAPIServer(fakeplane.ExtensionAPIServer{
			Name: "api", Namespace: "wardle", Address: ext.Address(), CABundle: ext.CABundle(),
			GroupVersions: []schema.GroupVersion{wardle.GroupVersion},
		}),
		fakeplane.WithAPIServiceCheckInterval(200 * time.Millisecond),
	}, opts...)...)
	t.Cleanup(ext.Stop) // before the control plane stops
	ctx := ctxT(t)
	cs := clientset(t, cp)
	if _, err := cs.CoreV1().ServiceAccounts("wardle").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "apiserver"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sa := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "apiserver", Namespace: "wardle"}}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "wardle:system:auth-delegator"},
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:auth-delegator"}, Subjects: sa}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings("kube-system").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "wardle-auth-reader"},
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "extension-apiserver-authentication-reader"}, Subjects: sa}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	saCfg, err := cp.ServiceAccountConfig("wardle", "apiserver")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "wardle.kubeconfig")
	writeTokenKubeconfig(t, kubeconfig, saCfg)
	if err := ext.Start(kubeconfig); err != nil {
		t.Fatal(err)
	}
	waitForAvailable(t, cp, "v1alpha1.wardle.example.com", "Passed")
	return cp, ext
}

// writeTokenKubeconfig writes a kubeconfig for a bearer-token rest.Config.
func writeTokenKubeconfig(t testing.TB, path string, cfg *rest.Config) {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	kc.CurrentContext = "c"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
}

// availableCondition returns an APIService's Available condition.
func availableCondition(t testing.TB, cp *fakeplane.ControlPlane, name string) *apiregistrationv1.APIServiceCondition {
	t.Helper()
	as, err := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices().Get(ctxT(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range as.Status.Conditions {
		if as.Status.Conditions[i].Type == apiregistrationv1.Available {
			return &as.Status.Conditions[i]
		}
	}
	return nil
}

// waitForAvailable waits until an APIService's Available condition has
// reason, and returns it.
func waitForAvailable(t testing.TB, cp *fakeplane.ControlPlane, name, reason string) *apiregistrationv1.APIServiceCondition {
	t.Helper()
	var c *apiregistrationv1.APIServiceCondition
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c = availableCondition(t, cp, name); c != nil && c.Reason == reason {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("APIService %s: Available condition %+v, want reason %s", name, c, reason)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// grantFlunders lets a user (or group, with kind Group) get, list, watch
// and create flunders everywhere.
func grantFlunders(t testing.TB, cp *fakeplane.ControlPlane, kind, name string) {
	t.Helper()
	ctx := ctxT(t)
	cs := clientset(t, cp)
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "flunders-" + name},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{wardle.Group}, Resources: []string{wardle.Resource}, Verbs: []string{"get", "list", "watch", "create"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "flunders-" + name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "flunders-" + name},
		Subjects: []rbacv1.Subject{{Kind: kind, APIGroup: "rbac.authorization.k8s.io", Name: name}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func flunder(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": wardle.GroupVersion.String(), "kind": "Flunder",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"reference": "x"},
	}}
}

func TestAggregatedResourcesCreateListGetAndWatchThroughTheControlPlane(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t)
	ctx := ctxT(t)
	fl := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(flundersGVR).Namespace("default")

	lst, err := fl.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lst.Items) != 0 || lst.GetKind() != "FlunderList" {
		t.Fatalf("list before any create: %+v", lst)
	}
	w, err := fl.Watch(ctx, metav1.ListOptions{ResourceVersion: lst.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created, err := fl.Create(ctx, flunder("one"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := created.GetAnnotations()[wardle.CreatedByAnnotation]; got != fakeplane.AdminUser {
		t.Errorf("the extension server took the creator for %q, want %q", got, fakeplane.AdminUser)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Added || ev.Object.(*unstructured.Unstructured).GetName() != "one" {
			t.Errorf("watch event %s %v, want ADDED one", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event through the proxy in 10s")
	}
	got, err := fl.Get(ctx, "one", metav1.GetOptions{})
	if err != nil || got.GetUID() != created.GetUID() {
		t.Fatalf("get: %v %v", got, err)
	}
	if _, err := fl.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) || err.Error() != `flunders.wardle.example.com "missing" not found` {
		t.Errorf("get of a missing flunder: %v", err)
	}
	if lst, err = fl.List(ctx, metav1.ListOptions{}); err != nil || len(lst.Items) != 1 {
		t.Fatalf("list after create: %v %v", lst, err)
	}
	if ext.Flunders() != 1 {
		t.Errorf("the extension server stores %d flunders, want 1", ext.Flunders())
	}
	// The aggregator proxies these requests: kube-apiserver's request
	// metrics do not count them (recorded on refplane with
	// sample-apiserver).
	for _, l := range strings.Split(scrape(t, cp), "\n") {
		if strings.HasPrefix(l, "apiserver_request_") && strings.Contains(l, `resource="flunders"`) {
			t.Errorf("a proxied request counted: %s", l)
		}
	}
}

func TestAggregatorPassesTheCallerAndStripsForgedHeaders(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t, fakeplane.WithToken("alice-token", "alice", "wardle-users"))
	grantFlunders(t, cp, "Group", "wardle-users")
	ctx := ctxT(t)
	cfg := cp.RESTConfig()
	cfg.TLSClientConfig.CertData, cfg.TLSClientConfig.KeyData = nil, nil
	cfg.BearerToken = "alice-token"
	// What a client sends is replaced: the identity headers name the
	// caller the control plane authenticated, its Authorization is gone.
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("X-Remote-User", fakeplane.AdminUser)
			r.Header.Set("X-Remote-Group", "system:masters")
			r.Header.Set("X-Remote-Extra-Scopes", "forged")
			return rt.RoundTrip(r)
		})
	}
	if _, err := dynamic.NewForConfigOrDie(cfg).Resource(flundersGVR).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := ext.Seen()
	last := seen[len(seen)-1]
	if last.GetName() != "alice" || !slices.Contains(last.GetGroups(), "wardle-users") || !slices.Contains(last.GetGroups(), "system:authenticated") ||
		slices.Contains(last.GetGroups(), "system:masters") || len(last.GetExtra()["scopes"]) != 0 {
		t.Errorf("the extension server saw %q %v %v, want alice in wardle-users and system:authenticated only", last.GetName(), last.GetGroups(), last.GetExtra())
	}
	h := ext.LastHeaders()
	if h.Get("Authorization") != "" {
		t.Errorf("the client's Authorization header reached the extension server: %q", h.Get("Authorization"))
	}
	if got := h.Values("X-Remote-User"); !slices.Equal(got, []string{"alice"}) {
		t.Errorf("X-Remote-User %q, want [alice]", got)
	}
	if got := h.Values("X-Remote-Group"); !slices.Equal(got, []string{"wardle-users", "system:authenticated"}) {
		t.Errorf("X-Remote-Group %q, want [wardle-users system:authenticated]", got)
	}
}

// roundTripperFunc is a function as an http.RoundTripper.
type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestAggregatedRequestsAreAuthorizedByTheControlPlaneAndTheExtensionServer(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t)
	ctx := ctxT(t)
	bob, err := cp.AddUser("bob")
	if err != nil {
		t.Fatal(err)
	}
	// The control plane authorizes before it proxies: bob never reaches
	// the extension server.
	_, err = dynamic.NewForConfigOrDie(bob).Resource(flundersGVR).Namespace("default").List(ctx, metav1.ListOptions{})
	if want := `flunders.wardle.example.com is forbidden: User "bob" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("bob's list: %v, want %s", err, want)
	}
	if slices.ContainsFunc(ext.Seen(), func(u user.Info) bool { return u.GetName() == "bob" }) {
		t.Error("a request the control plane refused reached the extension server")
	}

	// A client presenting the front-proxy certificate straight to the
	// extension server names bob: the extension server asks the control
	// plane with a SubjectAccessReview, which RBAC denies, until bob is
	// granted flunders.
	certPEM, keyPEM := cp.ProxyClientCert()
	direct := directClient(t, ext, certPEM, keyPEM)
	code, body := directGet(t, direct, ext, map[string]string{"X-Remote-User": "bob"})
	if code != http.StatusForbidden || !strings.Contains(body, `User \"bob\" cannot list resource \"flunders\" in API group \"wardle.example.com\" in the namespace \"default\"`) {
		t.Errorf("direct list as bob: %d %s", code, body)
	}
	grantFlunders(t, cp, "User", "bob")
	if code, body := directGet(t, direct, ext, map[string]string{"X-Remote-User": "bob"}); code != http.StatusOK {
		t.Errorf("direct list as bob once granted: %d %s", code, body)
	}
	if _, err := dynamic.NewForConfigOrDie(bob).Resource(flundersGVR).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("bob's list once granted: %v", err)
	}
}

func TestExtensionServerIgnoresIdentityHeadersWithoutTheFrontProxyCertificate(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t)
	for _, tc := range []struct {
		name     string
		client   func() *http.Client
		wantCode int
		wantUser string
	}{
		{"no certificate", func() *http.Client { return directClient(t, ext, nil, nil) }, http.StatusForbidden, "system:anonymous"},
		// A user certificate of the control plane's CA is a client
		// certificate (the ConfigMap's client-ca-file), not a proxy's.
		{"a user's client certificate", func() *http.Client {
			cfg, err := cp.AddUser("mallory")
			if err != nil {
				t.Fatal(err)
			}
			return directClient(t, ext, cfg.CertData, cfg.KeyData)
		}, http.StatusForbidden, "mallory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := directGet(t, tc.client(), ext, map[string]string{"X-Remote-User": fakeplane.AdminUser, "X-Remote-Group": "system:masters"})
			if code != tc.wantCode || !strings.Contains(body, `User \"`+tc.wantUser+`\" cannot list resource \"flunders\"`) {
				t.Errorf("got %d %s, want %d for %s", code, body, tc.wantCode, tc.wantUser)
			}
		})
	}
}

// directClient is an HTTPS client of the extension server, trusting its
// CA, presenting certPEM/keyPEM when given.
func directClient(t *testing.T, ext *wardle.Server, certPEM, keyPEM []byte) *http.Client {
	t.Helper()
	cfg := &rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: ext.CABundle(), ServerName: "api.wardle.svc", CertData: certPEM, KeyData: keyPEM}}
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: tlsCfg}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// directGet lists flunders in default straight from the extension server.
func directGet(t *testing.T, c *http.Client, ext *wardle.Server, headers map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "https://"+ext.Address()+"/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAggregatedDiscovery(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t)
	ctx := ctxT(t)
	cs := clientset(t, cp)

	// v1: /apis names the group, /apis/<group> is the aggregator's own,
	// /apis/<group>/<version> is the extension server's.
	var groups metav1.APIGroupList
	if err := json.Unmarshal(rawGet(t, cs, "/apis", "application/json"), &groups); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(groups.Groups))
	for _, g := range groups.Groups {
		names = append(names, g.Name)
	}
	i := slices.Index(names, wardle.Group)
	if i < 0 {
		t.Fatalf("/apis lacks %s: %v", wardle.Group, names)
	}
	// groupPriorityMinimum 1000 sorts it after the built-in groups (at
	// least 1200) and among the other 1000s by name.
	if j := slices.Index(names, "storagemigration.k8s.io"); j > i {
		t.Errorf("/apis order %v: %s before storagemigration.k8s.io", names, wardle.Group)
	}
	if g := groups.Groups[i]; g.PreferredVersion.GroupVersion != "wardle.example.com/v1alpha1" || len(g.Versions) != 1 {
		t.Errorf("/apis entry %+v", g)
	}
	var group metav1.APIGroup
	if err := json.Unmarshal(rawGet(t, cs, "/apis/wardle.example.com", "application/json"), &group); err != nil || group.Name != wardle.Group || group.Kind != "APIGroup" {
		t.Errorf("/apis/wardle.example.com: %+v %v", group, err)
	}
	var root struct{ Paths []string }
	if err := json.Unmarshal(rawGet(t, cs, "/", "application/json"), &root); err != nil || !slices.Contains(root.Paths, "/apis/wardle.example.com/v1alpha1") {
		t.Errorf("/ does not list the remote group/version: %v %v", root.Paths, err)
	}
	rl, err := cs.Discovery().ServerResourcesForGroupVersion("wardle.example.com/v1alpha1")
	if err != nil || len(rl.APIResources) != 1 || rl.APIResources[0].Name != "flunders" {
		t.Fatalf("resources of wardle.example.com/v1alpha1: %+v %v", rl, err)
	}

	// v2 (aggregated, what kubectl api-resources reads first): the
	// extension's resources, fetched by the aggregator, Current.
	v := aggregatedVersion(t, cs, wardle.Group, wardle.Version)
	if v == nil || v.Freshness != "Current" || len(v.Resources) != 1 || v.Resources[0].Resource != "flunders" || v.Resources[0].Scope != "Namespaced" {
		t.Fatalf("aggregated discovery of %s: %+v", wardle.GroupVersion, v)
	}
	_, lists, err := cs.Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(lists, func(l *metav1.APIResourceList) bool {
		return l.GroupVersion == "wardle.example.com/v1alpha1" && len(l.APIResources) == 1 && l.APIResources[0].Name == "flunders"
	}) {
		t.Error("client-go's discovery (kubectl api-resources) lacks flunders")
	}

	// Once the extension server is gone: the APIService fails its check,
	// requests get 503, v1 still names the group and v2 marks it Stale.
	ext.Stop()
	c := waitForAvailable(t, cp, "v1alpha1.wardle.example.com", "FailedDiscoveryCheck")
	if c.Status != apiregistrationv1.ConditionFalse || !strings.HasPrefix(c.Message, "failing or missing response from https://"+ext.Address()+"/apis/wardle.example.com/v1alpha1: ") {
		t.Errorf("condition %+v", c)
	}
	_, err = dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(flundersGVR).Namespace("default").List(ctx, metav1.ListOptions{})
	if !apierrors.IsServiceUnavailable(err) || err.Error() != "the server is currently unable to handle the request" {
		t.Errorf("list while unavailable: %v", err)
	}
	if !strings.Contains(string(rawGet(t, cs, "/apis", "application/json")), `"name":"wardle.example.com"`) {
		t.Error("/apis dropped the unavailable group")
	}
	if v := aggregatedVersion(t, cs, wardle.Group, wardle.Version); v == nil || v.Freshness != "Stale" {
		t.Errorf("aggregated discovery of an unavailable APIService: %+v", v)
	}
}

// rawGet GETs a path from the control plane with an Accept header.
func rawGet(t *testing.T, cs *kubernetes.Clientset, path, accept string) []byte {
	t.Helper()
	b, err := cs.Discovery().RESTClient().Get().AbsPath(path).SetHeader("Accept", accept).DoRaw(ctxT(t))
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return b
}

// aggregatedVersion returns a group/version of /apis in aggregated
// discovery (v2), or nil.
func aggregatedVersion(t *testing.T, cs *kubernetes.Clientset, group, version string) *struct {
	Version   string
	Freshness string
	Resources []struct{ Resource, Scope string }
} {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct{ Name string }
			Versions []struct {
				Version   string
				Freshness string
				Resources []struct{ Resource, Scope string }
			}
		}
	}
	if err := json.Unmarshal(rawGet(t, cs, "/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"), &list); err != nil {
		t.Fatal(err)
	}
	for _, g := range list.Items {
		if g.Metadata.Name != group {
			continue
		}
		for i := range g.Versions {
			if g.Versions[i].Version == version {
				v := g.Versions[i]
				return (*struct {
					Version   string
					Freshness string
					Resources []struct{ Resource, Scope string }
				})(&v)
			}
		}
	}
	return nil
}

func TestAPIServiceAvailability(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithAPIServiceCheckInterval(200*time.Millisecond))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	ag := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices()

	// A listener that accepts TLS with a certificate nobody trusts: the
	// discovery check fails there.
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return nil, io.EOF }})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _ = c.(*tls.Conn).Handshake(); c.Close() }()
		}
	}()
	_, portStr, _ := strings.Cut(ln.Addr().String(), ":")
	port, _ := json.Number(portStr).Int64()

	if c := availableCondition(t, cp, "v1.apps"); c == nil || c.Status != "True" || c.Reason != "Local" || c.Message != "Local APIServices are always available" {
		t.Errorf("v1.apps: %+v", c)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wardle"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svcPort := int32(443)
	as, err := ag.Create(ctx, &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15,
			InsecureSkipTLSVerify: true, Service: &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: &svcPort}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name          string
		do            func() error
		reason, msg   string
		messagePrefix bool
	}{
		{"no service", func() error { return nil }, "ServiceNotFound", `service/api in "wardle" is not present`, false},
		{"a service on another port", func() error {
			_, err := cs.CoreV1().Services("wardle").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api"},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 8443}}}}, metav1.CreateOptions{})
			return err
		}, "ServicePortError", `service/api in "wardle" is not listening on port 443`, false},
		{"the service's port, no endpoints", func() error {
			svc, err := cs.CoreV1().Services("wardle").Get(ctx, "api", metav1.GetOptions{})
			if err != nil {
				return err
			}
			svc.Spec.Ports[0].Port = 443
			_, err = cs.CoreV1().Services("wardle").Update(ctx, svc, metav1.UpdateOptions{})
			return err
		}, "EndpointsNotFound", `cannot find endpointslices for service/api in "wardle"`, false},
		{"an EndpointSlice whose endpoint is not ready", func() error {
			_, err := cs.DiscoveryV1().EndpointSlices("wardle").Create(ctx, &discoveryv1.EndpointSlice{
				ObjectMeta:  metav1.ObjectMeta{Name: "api-1", Labels: map[string]string{discoveryv1.LabelServiceName: "api"}},
				AddressType: discoveryv1.AddressTypeIPv4,
				Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.10"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}}},
				Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(8443))}},
			}, metav1.CreateOptions{})
			return err
		}, "MissingEndpoints", `endpointslices for service/api in "wardle" have no addresses with port name "https"`, false},
		{"the EndpointSlice deleted", func() error {
			return cs.DiscoveryV1().EndpointSlices("wardle").Delete(ctx, "api-1", metav1.DeleteOptions{})
		}, "EndpointsNotFound", `cannot find endpointslices for service/api in "wardle"`, false},
		{"Endpoints without the port's name", func() error {
			_, err := cs.CoreV1().Endpoints("wardle").Create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "api"},
				Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "192.0.2.10"}}, Ports: []corev1.EndpointPort{{Name: "other", Port: 8443}}}}}, metav1.CreateOptions{})
			return err
		}, "MissingEndpoints", `endpointslices for service/api in "wardle" have no addresses with port name "https"`, false},
		{"an ExternalName service for a server that fails TLS", func() error {
			cur, err := ag.Get(ctx, as.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			p := int32(port)
			cur.Spec.Service.Port = &p
			if _, err := ag.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
				return err
			}
			if err := cs.CoreV1().Services("wardle").Delete(ctx, "api", metav1.DeleteOptions{}); err != nil {
				return err
			}
			_, err = cs.CoreV1().Services("wardle").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api"},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"}}, metav1.CreateOptions{})
			return err
		}, "FailedDiscoveryCheck", "failing or missing response from https://localhost:" + portStr + "/apis/wardle.example.com/v1alpha1: Get \"https://localhost:" + portStr + "/apis/wardle.example.com/v1alpha1\": ", true},
		{"made local", func() error {
			cur, err := ag.Get(ctx, as.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec.Service, cur.Spec.InsecureSkipTLSVerify = nil, false
			_, err = ag.Update(ctx, cur, metav1.UpdateOptions{})
			return err
		}, "Local", "Local APIServices are always available", false},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		c := waitForAvailable(t, cp, as.Name, step.reason)
		wantStatus := apiregistrationv1.ConditionFalse
		if step.reason == "Local" {
			wantStatus = apiregistrationv1.ConditionTrue
		}
		if c.Status != wantStatus || (step.messagePrefix && !strings.HasPrefix(c.Message, step.msg)) || (!step.messagePrefix && c.Message != step.msg) {
			t.Errorf("%s: condition %+v, want %s %s %q", step.name, c, wantStatus, step.reason, step.msg)
		}
	}
}

func TestExtensionAPIServerOptionRegistersAnExternalNameServiceAndAPIServices(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithExtensionAPIServer(fakeplane.ExtensionAPIServer{
		Name: "api", Namespace: "wardle", Address: "127.0.0.1:4443", CABundle: []byte("-----BEGIN CERTIFICATE-----\n"),
		GroupVersions: []schema.GroupVersion{{Group: "wardle.example.com", Version: "v1alpha1"}, {Group: "wardle.example.com", Version: "v1beta1"}},
	}))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	svc, err := cs.CoreV1().Services("wardle").Get(ctx, "api", metav1.GetOptions{})
	if err != nil || svc.Spec.Type != corev1.ServiceTypeExternalName || svc.Spec.ExternalName != "127.0.0.1" || svc.Spec.Ports[0].Port != 4443 {
		t.Fatalf("service: %+v %v", svc, err)
	}
	for _, name := range []string{"v1alpha1.wardle.example.com", "v1beta1.wardle.example.com"} {
		as, err := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{})
		if err != nil || as.Spec.Service == nil || as.Spec.Service.Name != "api" || *as.Spec.Service.Port != 4443 || as.Spec.GroupPriorityMinimum != 1000 || as.Spec.VersionPriority != 15 {
			t.Errorf("APIService %s: %+v %v", name, as, err)
		}
	}
	if len(cp.RequestHeaderClientCA()) == 0 || len(cp.ClientCA()) == 0 {
		t.Error("the control plane names no request-header or client CA")
	}
	cm, err := authConfigMap(t, cp)
	if err != nil || cm.Data["requestheader-client-ca-file"] != string(cp.RequestHeaderClientCA()) {
		t.Errorf("RequestHeaderClientCA differs from the published requestheader-client-ca-file: %v", err)
	}
}

func TestAPIServiceServicePortDefaultsTo443(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	as, err := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices().Create(ctxT(t), &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15,
			InsecureSkipTLSVerify: true, Service: &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := as.Spec.Service.Port; p == nil || *p != 443 {
		t.Errorf("spec.service.port %v, want 443", p)
	}
}

func TestExtensionServerReviewsBearerTokensWithTheControlPlane(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t, fakeplane.WithToken("carol-token", "carol", "wardle-readers"))
	grantFlunders(t, cp, "Group", "wardle-readers")
	// Straight to the extension server with a token of the control plane:
	// its delegated authentication asks a TokenReview, its authorization a
	// SubjectAccessReview.
	code, body := directGet(t, directClient(t, ext, nil, nil), ext, map[string]string{"Authorization": "Bearer carol-token"})
	if code != http.StatusOK {
		t.Fatalf("direct list with carol's token: %d %s", code, body)
	}
	seen := ext.Seen()
	if u := seen[len(seen)-1]; u.GetName() != "carol" || !slices.Contains(u.GetGroups(), "wardle-readers") {
		t.Errorf("the extension server took the token for %q %v, want carol in wardle-readers", u.GetName(), u.GetGroups())
	}
	code, body = directGet(t, directClient(t, ext, nil, nil), ext, map[string]string{"Authorization": "Bearer not-a-token"})
	if code != http.StatusUnauthorized {
		t.Errorf("direct list with an unknown token: %d %s, want 401", code, body)
	}
}

func TestAPIServiceWithAServiceWinsOverALocalGroupVersion(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t)
	ctx := ctxT(t)
	// A CRD serving the same group/version: kube-aggregator's proxy for the
	// APIService is registered at /apis/wardle.example.com/v1alpha1 and
	// keeps answering; the CRD autoregistration leaves an APIService it did
	// not make alone.
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "flunders.wardle.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: wardle.Group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "flunders", Singular: "flunder", Kind: "Flunder"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: wardle.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
	ext2 := apiextensionsclient.NewForConfigOrDie(cp.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	if _, err := ext2.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		c, err := ext2.Get(ctx, crd.Name, metav1.GetOptions{})
		return err == nil && slices.ContainsFunc(c.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
			return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
		})
	})
	before := len(ext.Seen())
	if _, err := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(flundersGVR).Namespace("default").Create(ctx, flunder("remote"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(ext.Seen()) != before+1 || ext.Flunders() != 1 {
		t.Errorf("the create did not reach the extension server (%d requests, %d flunders)", len(ext.Seen())-before, ext.Flunders())
	}
	if c := availableCondition(t, cp, "v1alpha1.wardle.example.com"); c.Reason != "Passed" {
		t.Errorf("the APIService became %+v", c)
	}
}

func TestAggregatorPassesTheImpersonatedUserWithExtras(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t)
	grantFlunders(t, cp, "User", "bob")
	cfg := cp.RESTConfig()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "bob", Groups: []string{"qa"}, Extra: map[string][]string{"scopes": {"read", "write"}}}
	if _, err := dynamic.NewForConfigOrDie(cfg).Resource(flundersGVR).Namespace("default").List(ctxT(t), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := ext.Seen()
	u := seen[len(seen)-1]
	if u.GetName() != "bob" || !slices.Contains(u.GetGroups(), "qa") || !slices.Equal(u.GetExtra()["scopes"], []string{"read", "write"}) {
		t.Errorf("the extension server saw %q %v %v, want bob in qa with scopes read, write", u.GetName(), u.GetGroups(), u.GetExtra())
	}
	if got := ext.LastHeaders().Values("X-Remote-Extra-Scopes"); !slices.Equal(got, []string{"read", "write"}) {
		t.Errorf("X-Remote-Extra-Scopes %q", got)
	}
}

func TestStopWithAProxiedWatchOpenLeavesNoGoroutine(t *testing.T) {
	// Not parallel: goleak compares with the goroutines from before the test.
	before := goleak.IgnoreCurrent()
	cp, ext := startWardle(t)
	w, err := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(flundersGVR).Namespace("default").Watch(ctxT(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case _, open := <-w.ResultChan():
		if open {
			t.Error("an event after Stop")
		}
	case <-time.After(10 * time.Second):
		t.Error("the proxied watch is still open 10s after Stop")
	}
	// The extension server is not fakeplane's: only what is left once it
	// stopped too counts.
	ext.Stop()
	goleak.VerifyNone(t, append([]goleak.Option{before}, goroutinesOutsideFakeplane...)...)
}

func TestAPIServiceStatusWrittenByAClientIsPutRight(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	ag := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices()
	port := int32(443)
	if _, err := ag.Create(ctx, &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15,
			InsecureSkipTLSVerify: true, Service: &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: &port}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForAvailable(t, cp, "v1alpha1.wardle.example.com", "ServiceNotFound")
	cur, err := ag.Get(ctx, "v1alpha1.wardle.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Status.Conditions[0].Status, cur.Status.Conditions[0].Reason, cur.Status.Conditions[0].Message = apiregistrationv1.ConditionTrue, "Passed", "all checks passed"
	if _, err := ag.UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Without waiting for the periodic check (30s by default).
	c := waitForAvailable(t, cp, "v1alpha1.wardle.example.com", "ServiceNotFound")
	if c.Status != apiregistrationv1.ConditionFalse {
		t.Errorf("condition %+v", c)
	}
}

func TestKubectlAppliesAndGetsAggregatedResources(t *testing.T) {
	t.Parallel()
	cp, ext := startWardle(t)
	f := filepath.Join(t.TempDir(), "flunder.yaml")
	if err := os.WriteFile(f, []byte("apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: my-flunder\nspec:\n  reference: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := mustKubectl(t, cp, "apply", "-f", f); strings.TrimSpace(out) != "flunder.wardle.example.com/my-flunder created" {
		t.Errorf("kubectl apply printed %q", out)
	}
	// The extension server answers lists without Tables: kubectl prints
	// names and ages.
	if out := mustKubectl(t, cp, "get", "flunders"); !regexp.MustCompile(`^NAME\s+AGE\nmy-flunder\s+` + age + `\n$`).MatchString(out) {
		t.Errorf("kubectl get flunders printed %q", out)
	}
	if out := mustKubectl(t, cp, "get", "flunder", "my-flunder", "-o", "jsonpath={.metadata.annotations.wardle\\.example\\.com/created-by}"); out != fakeplane.AdminUser {
		t.Errorf("created by %q, want %s", out, fakeplane.AdminUser)
	}
	if ext.Flunders() != 1 {
		t.Errorf("%d flunders on the extension server, want 1", ext.Flunders())
	}
	// The aggregator serves the extension server's OpenAPI v3 document.
	if out := mustKubectl(t, cp, "explain", "flunders.spec"); !regexp.MustCompile(`(?s)GROUP:\s+wardle\.example\.com\nKIND:\s+Flunder\nVERSION:\s+v1alpha1\n.*FIELD: spec <Object>.*reference\s+<string>`).MatchString(out) {
		t.Errorf("kubectl explain flunders.spec printed %q", out)
	}
}
