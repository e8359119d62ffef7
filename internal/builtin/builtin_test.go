package builtin

import (
	"reflect"
	"sort"
	"testing"
)

// kubectlAPIResourcesCount is the number of rows `kubectl api-resources`
// prints against a default v1.37 kube-apiserver. kubectl lists each
// group/resource once (in the group's preferred version), so it equals the
// number of distinct (group, resource) pairs: autoscaling's
// horizontalpodautoscalers (served as v2 and v1) count once, while core
// events and events.k8s.io events count twice (different groups).
const kubectlAPIResourcesCount = 71

func TestNoDuplicates(t *testing.T) {
	seen := map[gvrKey]bool{}
	for _, r := range Resources() {
		k := gvrKey{r.Group, r.Version, r.Resource}
		if seen[k] {
			t.Errorf("duplicate resource %v", k)
		}
		seen[k] = true
	}
}

func TestGroupVersionsAndResourcesAgree(t *testing.T) {
	served := map[GroupVersion]int{}
	seenGV := map[GroupVersion]bool{}
	for _, gv := range GroupVersions() {
		if seenGV[gv] {
			t.Errorf("duplicate group/version %v", gv)
		}
		seenGV[gv] = true
	}
	for _, r := range Resources() {
		gv := GroupVersion{r.Group, r.Version}
		if !seenGV[gv] {
			t.Errorf("%s/%s: group/version %v not in GroupVersions", r.Group, r.Resource, gv)
		}
		served[gv]++
	}
	for _, gv := range GroupVersions() {
		if served[gv] == 0 {
			t.Errorf("group/version %v serves no resource", gv)
		}
	}
	if GroupVersions()[0] != (GroupVersion{"", "v1"}) {
		t.Errorf("first group/version = %v, want core v1", GroupVersions()[0])
	}
	if GroupVersions()[1] != (GroupVersion{"apiregistration.k8s.io", "v1"}) {
		t.Errorf("second group/version = %v, want apiregistration.k8s.io/v1", GroupVersions()[1])
	}
}

func TestOrder(t *testing.T) {
	pos := map[GroupVersion]int{}
	for i, gv := range GroupVersions() {
		pos[gv] = i
	}
	// Versions of one group are adjacent in GroupVersions.
	groupDone := map[string]bool{}
	for i, gv := range GroupVersions() {
		if i > 0 && GroupVersions()[i-1].Group != gv.Group {
			groupDone[GroupVersions()[i-1].Group] = true
		}
		if groupDone[gv.Group] {
			t.Errorf("versions of group %q are not adjacent", gv.Group)
		}
	}
	rs := Resources()
	for i := 1; i < len(rs); i++ {
		a, b := rs[i-1], rs[i]
		pa, pb := pos[GroupVersion{a.Group, a.Version}], pos[GroupVersion{b.Group, b.Version}]
		if pa > pb || (pa == pb && a.Resource >= b.Resource) {
			t.Errorf("resources out of order: %s/%s/%s before %s/%s/%s", a.Group, a.Version, a.Resource, b.Group, b.Version, b.Resource)
		}
	}
	for _, r := range rs {
		if !sort.SliceIsSorted(r.Subresources, func(i, j int) bool { return r.Subresources[i].Name < r.Subresources[j].Name }) {
			t.Errorf("%s: subresources not sorted", r.Resource)
		}
		if !sort.StringsAreSorted(r.Verbs) {
			t.Errorf("%s: verbs not sorted: %v", r.Resource, r.Verbs)
		}
		for _, s := range r.Subresources {
			if !sort.StringsAreSorted(s.Verbs) {
				t.Errorf("%s/%s: verbs not sorted: %v", r.Resource, s.Name, s.Verbs)
			}
		}
	}
}

// TestShortNames checks that every short name resolves to a single resource
// name. The only short name used by two group/resources is "ev" (core events
// and events.k8s.io events share one REST storage upstream, and kubectl
// resolves it by group priority), which still names the same resource.
func TestShortNames(t *testing.T) {
	owner := map[string]string{}
	for _, r := range Resources() {
		for _, sn := range r.ShortNames {
			if o, ok := owner[sn]; ok && o != r.Resource {
				t.Errorf("short name %q used by %s and %s", sn, o, r.Resource)
			}
			owner[sn] = r.Resource
		}
	}
	// Within a single group, short names must be unique across resources.
	type gs struct{ group, short string }
	byGroup := map[gs]string{}
	for _, r := range Resources() {
		for _, sn := range r.ShortNames {
			k := gs{r.Group, sn}
			if o, ok := byGroup[k]; ok && o != r.Resource {
				t.Errorf("group %q: short name %q used by %s and %s", r.Group, sn, o, r.Resource)
			}
			byGroup[k] = r.Resource
		}
	}
}

func TestStructure(t *testing.T) {
	for _, r := range Resources() {
		name := r.Group + "/" + r.Version + "/" + r.Resource
		if r.Kind == "" || r.SingularName == "" || len(r.Verbs) == 0 {
			t.Errorf("%s: missing kind, singular name or verbs", name)
		}
		if r.Virtual != (r.StorageResource == "") || r.Virtual != (r.StorageVersion == "") {
			t.Errorf("%s: Virtual=%v but storage %q %q", name, r.Virtual, r.StorageResource, r.StorageVersion)
		}
		for _, s := range r.Subresources {
			if s.Name == "" || s.Kind == "" || s.Version == "" || len(s.Verbs) == 0 {
				t.Errorf("%s/%s: incomplete subresource %+v", name, s.Name, s)
			}
			if s.Name == "status" && (s.Group != r.Group || s.Version != r.Version || s.Kind != r.Kind) {
				t.Errorf("%s/status: kind %s/%s %s, want the parent's", name, s.Group, s.Version, s.Kind)
			}
		}
	}
}

func TestCount(t *testing.T) {
	distinct := map[[2]string]bool{}
	rs := Resources()
	for _, r := range rs {
		distinct[[2]string{r.Group, r.Resource}] = true
	}
	if len(distinct) != kubectlAPIResourcesCount {
		t.Errorf("distinct group/resources = %d, want %d (kubectl api-resources)", len(distinct), kubectlAPIResourcesCount)
	}
	// One more entry than distinct group/resources: autoscaling/v1 hpa.
	if len(rs) != kubectlAPIResourcesCount+1 {
		t.Errorf("resources = %d, want %d", len(rs), kubectlAPIResourcesCount+1)
	}
	if len(GroupVersions()) != 23 {
		t.Errorf("group/versions = %d, want 23", len(GroupVersions()))
	}
}

func TestSpotChecks(t *testing.T) {
	pods, ok := Lookup("", "v1", "pods")
	if !ok {
		t.Fatal("pods not found")
	}
	if !pods.Namespaced || !reflect.DeepEqual(pods.ShortNames, []string{"po"}) || !reflect.DeepEqual(pods.Categories, []string{"all"}) {
		t.Errorf("pods: %+v", pods)
	}
	wantPodSubs := []string{"attach", "binding", "ephemeralcontainers", "eviction", "exec", "log", "portforward", "proxy", "resize", "status"}
	var gotPodSubs []string
	for _, s := range pods.Subresources {
		gotPodSubs = append(gotPodSubs, s.Name)
	}
	if !reflect.DeepEqual(gotPodSubs, wantPodSubs) {
		t.Errorf("pods subresources = %v, want %v", gotPodSubs, wantPodSubs)
	}
	if got := subresource(t, pods, "eviction"); got.Group != "policy" || got.Version != "v1" || got.Kind != "Eviction" || !reflect.DeepEqual(got.Verbs, []string{"create"}) {
		t.Errorf("pods/eviction: %+v", got)
	}

	deploy, ok := Lookup("apps", "v1", "deployments")
	if !ok {
		t.Fatal("deployments not found")
	}
	if sc := subresource(t, deploy, "scale"); sc.Group != "autoscaling" || sc.Version != "v1" || sc.Kind != "Scale" {
		t.Errorf("deployments/scale kind = %s/%s %s, want autoscaling/v1 Scale", sc.Group, sc.Version, sc.Kind)
	}

	nsr, ok := Lookup("", "v1", "namespaces")
	if !ok {
		t.Fatal("namespaces not found")
	}
	if nsr.Namespaced {
		t.Error("namespaces must be cluster-scoped")
	}
	if !reflect.DeepEqual(nsr.Verbs, []string{"create", "delete", "get", "list", "patch", "update", "watch"}) {
		t.Errorf("namespaces verbs = %v", nsr.Verbs)
	}

	sa, _ := Lookup("", "v1", "serviceaccounts")
	if tok := subresource(t, sa, "token"); tok.Group != "authentication.k8s.io" || tok.Kind != "TokenRequest" {
		t.Errorf("serviceaccounts/token: %+v", tok)
	}

	if cs, ok := Lookup("", "v1", "componentstatuses"); !ok || !reflect.DeepEqual(cs.Verbs, []string{"get", "list"}) || !reflect.DeepEqual(cs.ShortNames, []string{"cs"}) {
		t.Errorf("componentstatuses: %+v", cs)
	}
	if b, ok := Lookup("", "v1", "bindings"); !ok || !b.Virtual || !reflect.DeepEqual(b.Verbs, []string{"create"}) {
		t.Errorf("bindings: %+v", b)
	}

	crd, ok := Lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
	if !ok || !reflect.DeepEqual(crd.ShortNames, []string{"crd", "crds"}) || !reflect.DeepEqual(crd.Categories, []string{"api-extensions"}) {
		t.Errorf("customresourcedefinitions: %+v", crd)
	}
	if _, ok := Lookup("apiregistration.k8s.io", "v1", "apiservices"); !ok {
		t.Error("apiservices not found")
	}

	// Shared storage.
	h1, _ := Lookup("autoscaling", "v1", "horizontalpodautoscalers")
	h2, _ := Lookup("autoscaling", "v2", "horizontalpodautoscalers")
	if h1.StorageResource != h2.StorageResource || h1.StorageVersion != "autoscaling/v2" || h2.StorageVersion != "autoscaling/v2" {
		t.Errorf("hpa storage: v1 %q %q, v2 %q %q", h1.StorageResource, h1.StorageVersion, h2.StorageResource, h2.StorageVersion)
	}
	e1, _ := Lookup("", "v1", "events")
	e2, _ := Lookup("events.k8s.io", "v1", "events")
	if e1.StorageResource != "events" || e2.StorageResource != "events" || e2.StorageVersion != "v1" {
		t.Errorf("events storage: core %q, events.k8s.io %q %q", e1.StorageResource, e2.StorageResource, e2.StorageVersion)
	}
	if g, res := e2.StorageGroupResource(); g != "" || res != "events" {
		t.Errorf("events.k8s.io StorageGroupResource = %q %q", g, res)
	}
	if g, res := h1.StorageGroupResource(); g != "autoscaling" || res != "horizontalpodautoscalers" {
		t.Errorf("hpa StorageGroupResource = %q %q", g, res)
	}

	if _, ok := Lookup("apps", "v1beta1", "deployments"); ok {
		t.Error("apps/v1beta1 must not be served")
	}
}

func subresource(t *testing.T, r Resource, name string) Subresource {
	t.Helper()
	for _, s := range r.Subresources {
		if s.Name == name {
			return s
		}
	}
	t.Errorf("%s: no subresource %q", r.Resource, name)
	return Subresource{}
}

func TestPreferredVersion(t *testing.T) {
	for group, want := range map[string]string{
		"":                     "v1",
		"autoscaling":          "v2",
		"apps":                 "v1",
		"apiextensions.k8s.io": "v1",
		"extensions":           "",
	} {
		if got := PreferredVersion(group); got != want {
			t.Errorf("PreferredVersion(%q) = %q, want %q", group, got, want)
		}
	}
}

func TestCopies(t *testing.T) {
	a := Resources()
	a[0].Verbs[0] = "mutated"
	a[0].Resource = "mutated"
	pods, _ := Lookup("", "v1", "pods")
	pods.Subresources[0].Verbs[0] = "mutated"
	pods.ShortNames[0] = "mutated"
	b := Resources()
	if b[0].Verbs[0] == "mutated" || b[0].Resource == "mutated" {
		t.Error("Resources returned shared state")
	}
	pods2, _ := Lookup("", "v1", "pods")
	if pods2.Subresources[0].Verbs[0] == "mutated" || pods2.ShortNames[0] == "mutated" {
		t.Error("Lookup returned shared state")
	}
	gvs := GroupVersions()
	gvs[0].Version = "mutated"
	if GroupVersions()[0].Version != "v1" || PreferredVersion("") != "v1" {
		t.Error("GroupVersions returned shared state")
	}
}
