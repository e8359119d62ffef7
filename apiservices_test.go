package fakeplane_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/store"
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
	// The APIService comes asynchronously, as on a cluster.
	var got *apiregistrationv1.APIService
	waitFor(t, func() bool {
		got, err = ag.Get(ctx, "v1.stable.example.com", metav1.GetOptions{})
		return err == nil
	})
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

// TestAPIServicesConvergeAfterRestart checks that the CRD autoregistration
// looks at the state it starts on: an APIService missing for a CRD that a
// data dir holds is made again, an automanaged one no CRD serves any more
// is removed, and one made by hand is left alone.
func TestAPIServicesConvergeAfterRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := ctxDataDir(t)
	cp1 := startOnDataDir(ctx, t, dir)
	crds := dynamic.NewForConfigOrDie(cp1.RESTConfig()).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, crontabCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ag := apiregistrationclient.NewForConfigOrDie(cp1.RESTConfig()).ApiregistrationV1().APIServices()
	waitFor(t, func() bool {
		_, err := ag.Get(ctx, "v1.stable.example.com", metav1.GetOptions{})
		return err == nil
	})
	if err := cp1.Stop(); err != nil {
		t.Fatal(err)
	}

	// Change the data dir behind the control plane's back.
	st, err := store.Open(filepath.Join(dir, "fakeplane.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const bucket = "apiregistration.k8s.io/apiservices"
	if _, _, err := st.Update(bucket, "v1.stable.example.com", func(cur *store.Object) (store.Write, error) {
		return store.Write{Value: cur.Value, Delete: true}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for name, labels := range map[string]string{
		"v1.gone.example.com": `{"kube-aggregator.kubernetes.io/automanaged":"true"}`,
		"v1.mine.example.com": `{}`,
	} {
		group := strings.TrimPrefix(name, "v1.")
		doc := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"` + name + `","labels":` + labels +
			`},"spec":{"group":"` + group + `","version":"v1","groupPriorityMinimum":1000,"versionPriority":100}}`
		if _, _, err := st.Update(bucket, name, func(*store.Object) (store.Write, error) {
			return store.Write{Value: []byte(doc)}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	cp2 := startOnDataDir(ctx, t, dir)
	defer cp2.Stop()
	ag = apiregistrationclient.NewForConfigOrDie(cp2.RESTConfig()).ApiregistrationV1().APIServices()
	waitFor(t, func() bool {
		_, errBack := ag.Get(ctx, "v1.stable.example.com", metav1.GetOptions{})
		_, errGone := ag.Get(ctx, "v1.gone.example.com", metav1.GetOptions{})
		return errBack == nil && apierrors.IsNotFound(errGone)
	})
	if _, err := ag.Get(ctx, "v1.mine.example.com", metav1.GetOptions{}); err != nil {
		t.Errorf("the APIService made by hand: %v", err)
	}
}

// TestAPIServiceValidation checks that APIServices are held to
// kube-aggregator's rules, with its messages, and that a refused one is not
// stored.
func TestAPIServiceValidation(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	ag := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices()
	svc := func(ns, name string, port int32) *apiregistrationv1.ServiceReference {
		return &apiregistrationv1.ServiceReference{Namespace: ns, Name: name, Port: &port}
	}
	for _, tc := range []struct {
		name string
		spec apiregistrationv1.APIServiceSpec
		want string
	}{
		{"v1alpha1.wardle.example.com", apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 999999, VersionPriority: -1, Service: svc("wardle", "api", 443)},
			`APIService.apiregistration.k8s.io "v1alpha1.wardle.example.com" is invalid: [spec.groupPriorityMinimum: Invalid value: 999999: must be positive and less than 20000, spec.versionPriority: Invalid value: -1: must be positive and less than 1000]`},
		{"v1alpha1.wardle.example.com", apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15, Service: svc("wardle", "api", 443), CABundle: []byte("pem"), InsecureSkipTLSVerify: true},
			`APIService.apiregistration.k8s.io "v1alpha1.wardle.example.com" is invalid: spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present`},
		{"v1alpha1.wardle.example.com", apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15, CABundle: []byte("pem")},
			`APIService.apiregistration.k8s.io "v1alpha1.wardle.example.com" is invalid: spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle`},
		{"v1alpha1.wardle.example.com", apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15, Service: svc("", "api", 70000)},
			`APIService.apiregistration.k8s.io "v1alpha1.wardle.example.com" is invalid: [spec.service.namespace: Required value, spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive]`},
		{"v1.wardle.example.com", apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15, Service: svc("wardle", "api", 443)},
			`APIService.apiregistration.k8s.io "v1.wardle.example.com" is invalid: metadata.name: Invalid value: "v1.wardle.example.com": must be ` + "`" + `spec.version+"."+spec.group` + "`" + `: "v1alpha1.wardle.example.com"`},
	} {
		_, err := ag.Create(ctx, &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: tc.name}, Spec: tc.spec}, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || err.Error() != tc.want {
			t.Errorf("create %s %+v:\n got %v\nwant %s", tc.name, tc.spec, err, tc.want)
		}
		if _, err := ag.Get(ctx, tc.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("a refused APIService %s was stored (%v)", tc.name, err)
		}
	}
	// A valid one is stored; an update is held to the same rules.
	ok, err := ag.Create(ctx, &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15, Service: svc("wardle", "api", 443)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The availability controller writes its status (ServiceNotFound)
	// right after the create; the updates below start from that.
	waitFor(t, func() bool {
		cur, err := ag.Get(ctx, ok.Name, metav1.GetOptions{})
		if err != nil || len(cur.Status.Conditions) == 0 {
			return false
		}
		ok = cur
		return true
	})
	ok.Spec.GroupPriorityMinimum = 0
	if _, err := ag.Update(ctx, ok, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000") {
		t.Errorf("update to priority 0: %v", err)
	}
	ok.Spec.GroupPriorityMinimum = 1000
	ok.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: "Maybe"}}
	if _, err := ag.UpdateStatus(ctx, ok, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"`) {
		t.Errorf("status update with an unknown condition status: %v", err)
	}
}

// TestLocalAPIServicesNothingServesAsKubeAPIServer: a local APIService (no
// service) for a group/version nothing serves is listed by the legacy
// /apis, its group document and "/", as kube-aggregator lists every
// APIService, but not by aggregated discovery; its version document is
// the mux's plain 404, as is any version a CRD group does not serve (a
// built-in group's is a Status). Recorded from refplane.
func TestLocalAPIServicesNothingServesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	crds := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := createEstablishedCRD(ctx, crds, crontabCRD()); err != nil {
		t.Fatal(err)
	}
	ag := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices()
	for _, as := range []*apiregistrationv1.APIService{
		{ObjectMeta: metav1.ObjectMeta{Name: "v2.stable.example.com"}, Spec: apiregistrationv1.APIServiceSpec{Group: "stable.example.com", Version: "v2", GroupPriorityMinimum: 1000, VersionPriority: 200}},
		{ObjectMeta: metav1.ObjectMeta{Name: "v1.foo.example.com"}, Spec: apiregistrationv1.APIServiceSpec{Group: "foo.example.com", Version: "v1", GroupPriorityMinimum: 1000, VersionPriority: 15}},
	} {
		if _, err := ag.Create(ctx, as, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	group := func(name string, versions ...string) metav1.APIGroup {
		g := metav1.APIGroup{Name: name}
		for _, v := range versions {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: name + "/" + v, Version: v})
		}
		g.PreferredVersion = g.Versions[0]
		return g
	}
	var list metav1.APIGroupList
	if code, _, body := rawRequest(t, cp, "GET", "/apis", "", nil, http.Header{"Accept": {"application/json"}}); code != 200 || json.Unmarshal(body, &list) != nil || len(list.Groups) < 2 {
		t.Fatalf("GET /apis: %d %s", code, body)
	}
	if got, want := list.Groups[len(list.Groups)-2:], []metav1.APIGroup{group("foo.example.com", "v1"), group("stable.example.com", "v2", "v1")}; !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("GET /apis ends with %+v, want %+v", got, want)
	}
	for name, want := range map[string]metav1.APIGroup{"foo.example.com": group("foo.example.com", "v1"), "stable.example.com": group("stable.example.com", "v2", "v1")} {
		var got metav1.APIGroup
		if code, _, body := rawRequest(t, cp, "GET", "/apis/"+name, "", nil, nil); code != 200 || json.Unmarshal(body, &got) != nil {
			t.Errorf("GET /apis/%s: %d %s", name, code, body)
		} else if got.Kind != "APIGroup" || !equality.Semantic.DeepEqual(got.Versions, want.Versions) || got.PreferredVersion != want.PreferredVersion {
			t.Errorf("GET /apis/%s: %+v, want %+v", name, got, want)
		}
	}
	for _, tc := range []struct{ path, contentType, body string }{
		{"/apis/foo.example.com/v1", "text/plain; charset=utf-8", "404 page not found\n"},
		{"/apis/stable.example.com/v2", "text/plain; charset=utf-8", "404 page not found\n"},
		{"/apis/stable.example.com/v3", "text/plain; charset=utf-8", "404 page not found\n"},
		{"/apis/stable.example.com/v2/crontabs", "text/plain; charset=utf-8", "404 page not found\n"},
		{"/apis/apps/v9", "application/json", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n"},
	} {
		if code, ctype, body := rawRequest(t, cp, "GET", tc.path, "", nil, nil); code != 404 || ctype != tc.contentType || string(body) != tc.body {
			t.Errorf("GET %s: %d %s %q, want 404 %s %q", tc.path, code, ctype, body, tc.contentType, tc.body)
		}
	}
	var root struct{ Paths []string }
	if code, _, body := rawRequest(t, cp, "GET", "/", "", nil, nil); code != 200 || json.Unmarshal(body, &root) != nil {
		t.Fatalf("GET /: %d %s", code, body)
	}
	for _, p := range []string{"/apis/foo.example.com", "/apis/foo.example.com/v1", "/apis/stable.example.com/v2"} {
		if !slices.Contains(root.Paths, p) {
			t.Errorf("GET / does not list %s", p)
		}
	}

	// Aggregated discovery lists what is served.
	groups, _, err := discovery.NewDiscoveryClientForConfigOrDie(cp.RESTConfig()).ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		switch g.Name {
		case "foo.example.com":
			t.Errorf("aggregated discovery lists %+v", g)
		case "stable.example.com":
			if len(g.Versions) != 1 || g.Versions[0].Version != "v1" {
				t.Errorf("aggregated discovery: %+v", g)
			}
		}
	}

	if err := ag.Delete(ctx, "v1.foo.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, _, body := rawRequest(t, cp, "GET", "/apis/foo.example.com", "", nil, nil); code != 404 {
		t.Errorf("GET /apis/foo.example.com after its APIService's deletion: %d %s", code, body)
	}
}
