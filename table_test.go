package fakeplane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/fakeplane/fakeplane"
)

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// goldenTables is what hack/capture-tables.py recorded from a real v1.37
// kube-apiserver for the objects of one testdata/tables manifest.
type goldenTables struct {
	Now    time.Time              `json:"now"`
	Tables map[string]goldenTable `json:"tables"`
}

// goldenTable is one kind's recorded Table: its columns, the rows of its
// list and of gets of some of its objects.
type goldenTable struct {
	Columns []metav1.TableColumnDefinition `json:"columns"`
	Rows    [][]any                        `json:"rows"`
	// Conditions are the list rows' conditions, when any row has some.
	Conditions [][]metav1.TableRowCondition `json:"conditions"`
	Get        map[string][]any             `json:"get"`
}

// compareRecordedTable compares the Table of collection coll, listed and
// then got object by object, with want's rows and row conditions, its
// cells normalized with cols (nil: the Table's own columns) as of now.
func compareRecordedTable(t *testing.T, rc *rest.RESTClient, key, coll string, want goldenTable, cols []metav1.TableColumnDefinition, now time.Time) *metav1.Table {
	t.Helper()
	got := getTable(t, rc, coll, "tref=1")
	if cols == nil {
		cols = got.ColumnDefinitions
	}
	var rows [][]any
	for _, r := range got.Rows {
		rows = append(rows, normalizeCells(r.Cells, cols, now))
	}
	compareRows(t, key+" list", rows, want.Rows)
	if len(got.Rows) == len(want.Rows) {
		for i, r := range got.Rows {
			var wantConds []metav1.TableRowCondition
			if want.Conditions != nil {
				wantConds = want.Conditions[i]
			}
			if !reflect.DeepEqual(r.Conditions, wantConds) {
				t.Errorf("%s list row %d conditions: got %+v, want %+v", key, i, r.Conditions, wantConds)
			}
		}
	}
	for name, wantCells := range want.Get {
		one := getTable(t, rc, coll+"/"+name, "")
		if len(one.Rows) != 1 {
			t.Errorf("%s get %s: %d rows", key, name, len(one.Rows))
			continue
		}
		compareRows(t, key+" get "+name, [][]any{normalizeCells(one.Rows[0].Cells, cols, now)}, [][]any{wantCells})
	}
	return got
}

var (
	tableUID      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	tableShortAge = regexp.MustCompile(`^(\d+s|\d+m\d*s?)$`)
)

// normalizeCells blanks what differs between two servers for the same
// objects, as hack/capture-tables.py does: ages and creation dates of
// freshly created objects, and UIDs.
func normalizeCells(cells []any, cols []metav1.TableColumnDefinition, now time.Time) []any {
	out := make([]any, len(cells))
	for i, v := range cells {
		if s, ok := v.(string); ok && i < len(cols) && cols[i].Type == "date" {
			if created, err := time.Parse(time.RFC3339, s); err == nil && !created.After(now) && now.Sub(created) <= time.Minute {
				v = "<created>"
			}
		}
		if s, ok := v.(string); ok {
			// IPAddress rows have an age cell past their columns.
			if (i >= len(cols) || cols[i].Name == "Age" || cols[i].Name == "Last Seen" || cols[i].Name == "First Seen") && tableShortAge.MatchString(s) {
				s = "<age>"
			}
			v = tableUID.ReplaceAllString(s, "<uid>")
		}
		out[i] = v
	}
	return out
}

// TestBuiltinTables creates the objects of each testdata/tables/*.yaml
// (statuses through the status subresource, `_delete: true` ones deleted
// while a finalizer holds them) and checks that the Tables fakeplane
// answers, for a list and for a get of each object, have the columns and
// cells a real v1.37 kube-apiserver answered for the same objects
// (testdata/tables/*.json, recorded by hack/capture-tables.py). fakeplane's
// clock is the recording's, so durations computed from status timestamps
// compare exactly.
func TestBuiltinTables(t *testing.T) {
	manifests, err := filepath.Glob("testdata/tables/*.yaml")
	if err != nil || len(manifests) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	for _, manifest := range manifests {
		name := strings.TrimSuffix(filepath.Base(manifest), ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var golden goldenTables
			b, err := os.ReadFile(strings.TrimSuffix(manifest, ".yaml") + ".json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &golden); err != nil {
				t.Fatal(err)
			}
			// The reference rows are of objects as written, which the
			// workload controllers would change (statuses, pods, bindings,
			// mirrors, claims, tokens); its quotas' usage is the resource
			// quota controller's.
			cp := fakeplane.Start(t, fakeplane.WithClock(func() time.Time { return golden.Now }), fakeplane.WithControllers("*",
				"-daemonset-controller", "-statefulset-controller", "-persistentvolume-binder-controller", "-node-lifecycle-controller",
				"-deployment-controller", "-replicaset-controller", "-replicationcontroller-controller", "-job-controller",
				"-cronjob-controller", "-endpoints-controller", "-endpointslice-controller", "-disruption-controller",
				"-ttl-after-finished-controller", "-horizontal-pod-autoscaler-controller", "-endpointslice-mirroring-controller",
				"-taint-eviction-controller", "-ephemeral-volume-controller", "-serviceaccount-token-controller", "-resourceclaim-controller"))
			objs := createTableObjects(t, cp, manifest)
			rc, err := rest.UnversionedRESTClientFor(tableRESTConfig(cp))
			if err != nil {
				t.Fatal(err)
			}
			for key, want := range golden.Tables {
				coll, ok := objs.collections[key]
				if !ok {
					t.Errorf("%s: no objects of this kind in %s", key, manifest)
					continue
				}
				got := compareRecordedTable(t, rc, key, coll, want, want.Columns, golden.Now)
				if !reflect.DeepEqual(got.ColumnDefinitions, want.Columns) {
					t.Errorf("%s columns:\n got %s\nwant %s", key, columnsString(got.ColumnDefinitions), columnsString(want.Columns))
				}
			}
			for key := range objs.collections {
				if _, ok := golden.Tables[key]; !ok {
					t.Errorf("%s: not recorded in the golden file; run hack/capture-tables.py", key)
				}
			}
		})
	}
}

func compareRows(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d:\n got %s\nwant %s", what, len(got), len(want), cellsString(got), cellsString(want))
		return
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s row %d:\n got %s\nwant %s", what, i, cellsString(got[i:i+1]), cellsString(want[i:i+1]))
		}
	}
}

func cellsString(rows [][]any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(rows)
	return strings.TrimSpace(b.String())
}

func columnsString(cols []metav1.TableColumnDefinition) string {
	var s []string
	for _, c := range cols {
		s = append(s, fmt.Sprintf("%s(%s,%s,%d,%.40q)", c.Name, c.Type, c.Format, c.Priority, c.Description))
	}
	return strings.Join(s, " ")
}

// tableRESTConfig is the admin config for client-go's REST client.
func tableRESTConfig(cp *fakeplane.ControlPlane) *rest.Config {
	cfg := rest.CopyConfig(cp.RESTConfig())
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	return cfg
}

// getTable GETs path (a list when selector is not empty) as a Table.
func getTable(t *testing.T, rc *rest.RESTClient, path, selector string) *metav1.Table {
	t.Helper()
	req := rc.Get().AbsPath(path).SetHeader("Accept", tableAccept)
	if selector != "" {
		req = req.Param("labelSelector", selector)
	}
	b, err := req.DoRaw(context.Background())
	if err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, b)
	}
	var tbl metav1.Table
	if err := json.Unmarshal(b, &tbl); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return &tbl
}

type tableObjects struct {
	// collections maps "apiVersion Kind" to the collection path.
	collections map[string]string
}

// createTableObjects creates a manifest's objects as hack/capture-tables.py
// does: in namespace tables-ref, labelled tref=1, status written through the
// status subresource, `_approval` conditions through the approval
// subresource, deleted afterwards when marked `_delete: true`;
// ownerReferences without a uid get the uid of the manifest's object they
// name.
func createTableObjects(t *testing.T, cp *fakeplane.ControlPlane, manifest string) tableObjects {
	t.Helper()
	ctx := context.Background()
	cfg := cp.RESTConfig()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "tables-ref"}}}
	if _, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(manifest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := tableObjects{collections: map[string]string{}}
	uids := map[string]types.UID{}
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			if err == io.EOF {
				break
			}
			t.Fatal(err)
		}
		if doc == nil {
			continue
		}
		status, hasStatus := doc["status"]
		approval, hasApproval := doc["_approval"]
		del, _ := doc["_delete"].(bool)
		delete(doc, "status")
		delete(doc, "_delete")
		delete(doc, "_approval")
		u := &unstructured.Unstructured{Object: doc}
		refs := u.GetOwnerReferences()
		for i := range refs {
			if refs[i].UID == "" {
				refs[i].UID = uids[refs[i].Kind+"/"+refs[i].Name]
			}
		}
		if len(refs) > 0 {
			u.SetOwnerReferences(refs)
		}
		labels := u.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels["tref"] = "1"
		u.SetLabels(labels)
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatal(err)
		}
		ri := dynamic.ResourceInterface(dyn.Resource(m.Resource))
		prefix := "/apis/" + gvk.GroupVersion().String()
		if gvk.Group == "" {
			prefix = "/api/" + gvk.Version
		}
		coll := prefix + "/" + m.Resource.Resource
		if m.Scope.Name() == "namespace" {
			u.SetNamespace("tables-ref")
			ri = dyn.Resource(m.Resource).Namespace("tables-ref")
			coll = prefix + "/namespaces/tables-ref/" + m.Resource.Resource
		}
		out.collections[u.GetAPIVersion()+" "+u.GetKind()] = coll
		created, err := ri.Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s %s: %v", gvk.Kind, u.GetName(), err)
		}
		uids[gvk.Kind+"/"+u.GetName()] = created.GetUID()
		if hasApproval {
			patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": approval}})
			_, err := ri.Patch(ctx, u.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "approval")
			if apierrors.IsMethodNotSupported(err) {
				// fakeplane serves no approval subresource yet; it takes
				// the conditions through status.
				_, err = ri.Patch(ctx, u.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "status")
			}
			if err != nil {
				t.Fatalf("approval of %s %s: %v", gvk.Kind, u.GetName(), err)
			}
		}
		if hasStatus {
			patch, _ := json.Marshal(map[string]any{"status": status})
			if _, err := ri.Patch(ctx, u.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
				t.Fatalf("status of %s %s: %v", gvk.Kind, u.GetName(), err)
			}
		}
		if del {
			bg := metav1.DeletePropagationBackground
			if err := ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
				t.Fatalf("delete %s %s: %v", gvk.Kind, u.GetName(), err)
			}
		}
	}
	return out
}

// TestTableListOrderAndObjects checks that a FlowSchema list comes in the
// order kube-apiserver v1.37 printed the bootstrap FlowSchemas (matching
// precedence, then name), and that each row's object is the row's schema.
func TestTableListOrderAndObjects(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	rc, err := rest.UnversionedRESTClientFor(tableRESTConfig(cp))
	if err != nil {
		t.Fatal(err)
	}
	b, err := rc.Get().AbsPath("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas").Param("includeObject", "Object").
		SetHeader("Accept", tableAccept).DoRaw(context.Background())
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	var tbl metav1.Table
	if err := json.Unmarshal(b, &tbl); err != nil {
		t.Fatal(err)
	}
	want := []string{"exempt", "probes", "system-leader-election", "system-node-high", "system-nodes", "kube-controller-manager",
		"kube-scheduler", "kube-system-service-accounts", "service-accounts", "global-default", "catch-all"}
	var got []string
	for i, r := range tbl.Rows {
		name, _ := r.Cells[0].(string)
		got = append(got, name)
		var obj metav1.PartialObjectMetadata
		if err := json.Unmarshal(r.Object.Raw, &obj); err != nil || obj.Name != name {
			t.Errorf("row %d (%s) carries object %q (%v)", i, name, obj.Name, err)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("flowschemas in order\n %v\nwant\n %v", got, want)
	}
}

// TestComponentStatusesTable checks the deprecated componentstatuses list
// and get as Tables, with the columns and the healthy etcd row a v1.37
// kube-apiserver answers.
func TestComponentStatusesTable(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	rc, err := rest.UnversionedRESTClientFor(tableRESTConfig(cp))
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"Name", "Status", "Message", "Error"}
	for _, path := range []string{"/api/v1/componentstatuses", "/api/v1/componentstatuses/etcd-0"} {
		tbl := getTable(t, rc, path, "")
		var cols []string
		for _, c := range tbl.ColumnDefinitions {
			cols = append(cols, c.Name)
		}
		if !reflect.DeepEqual(cols, wantCols) {
			t.Errorf("%s: columns %v, want %v", path, cols, wantCols)
		}
		found := false
		for _, r := range tbl.Rows {
			if reflect.DeepEqual(r.Cells, []any{"etcd-0", "Healthy", "ok", ""}) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no row [etcd-0 Healthy ok \"\"] in %v", path, tbl.Rows)
		}
	}
}

// TestTableColumnsMatchV137 lists every built-in resource as a Table and
// compares the column definitions with those a real v1.37 kube-apiserver
// answered (registry/printers/table-columns-v1.37.json, recorded by
// hack/capture-tables.py --columns, which the server embeds; the names
// alone, with * for -o wide columns, are in
// hack/testdata/table-columns-v1.37.txt).
func TestTableColumnsMatchV137(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("registry/printers/table-columns-v1.37.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]metav1.TableColumnDefinition
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	names, err := os.ReadFile("hack/testdata/table-columns-v1.37.txt")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(strings.TrimSpace(string(names)), "\n")); n != len(want) {
		t.Errorf("%d resources in the .txt, %d in the .json", n, len(want))
	}
	cp := fakeplane.Start(t)
	rc, err := rest.UnversionedRESTClientFor(tableRESTConfig(cp))
	if err != nil {
		t.Fatal(err)
	}
	for path, cols := range want {
		if got := getTable(t, rc, path, "").ColumnDefinitions; !reflect.DeepEqual(got, cols) {
			t.Errorf("%s columns:\n got %s\nwant %s", path, columnsString(got), columnsString(cols))
		}
	}
}

// TestTableWatchAndGet checks what kube-apiserver v1.37 answered for a
// Table watch and get: only the first watch event's Table carries the
// column definitions (the others null), and the Table of one object has
// the object's resourceVersion.
func TestTableWatchAndGet(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	rc, err := rest.UnversionedRESTClientFor(tableRESTConfig(cp))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := rc.Get().AbsPath("/api/v1/namespaces/default/configmaps").Param("watch", "1").
		SetHeader("Accept", tableAccept).Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	cs := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	var created *unstructured.Unstructured
	for _, name := range []string{"w1", "w2"} {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}}}
		if created, err = cs.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dec := json.NewDecoder(stream)
	var sawW2 bool
	for i := 0; !sawW2; i++ {
		var ev struct {
			Type   string
			Object struct {
				ColumnDefinitions json.RawMessage `json:"columnDefinitions"`
				Rows              []metav1.TableRow
			}
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		cols := strings.TrimSpace(string(ev.Object.ColumnDefinitions))
		if i == 0 && !strings.HasPrefix(cols, "[{") {
			t.Errorf("first event: columnDefinitions %s, want the columns", cols)
		}
		if i > 0 && cols != "null" {
			t.Errorf("event %d: columnDefinitions %.60s, want null", i, cols)
		}
		sawW2 = len(ev.Object.Rows) == 1 && ev.Object.Rows[0].Cells[0] == "w2"
	}
	one := getTable(t, rc, "/api/v1/namespaces/default/configmaps/w2", "")
	if one.ResourceVersion != created.GetResourceVersion() {
		t.Errorf("get: Table resourceVersion %q, want the object's %q", one.ResourceVersion, created.GetResourceVersion())
	}
}
