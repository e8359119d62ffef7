package printers

import (
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The golden Tables of TestBuiltinTables (root package) cover the printers
// against a real kube-apiserver with objects created a moment before; these
// cover what those cannot: ages and durations of older objects, and list
// rules that depend on creation times.

var tableNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(tableNow.Add(-d)) }

// cellsOf prints one object with the printer of its resource.
func cellsOf(t *testing.T, gr schema.GroupResource, obj runtime.Object) []any {
	t.Helper()
	if _, ok := For(gr); !ok {
		t.Fatalf("no printer for %s", gr)
	}
	p := Lookup(gr)
	if !p.Accepts(obj) {
		t.Fatalf("the printer of %s does not accept %T", gr, obj)
	}
	return p.Cells(obj, tableNow)
}

// TestTableAges checks ages and durations as kubectl shows them (upstream's
// HumanDuration): creation ages, job durations, last schedules, restarts.
func TestTableAges(t *testing.T) {
	one := int32(1)
	started := ago(90 * time.Second)
	for _, tc := range []struct {
		name string
		gr   schema.GroupResource
		obj  runtime.Object
		want []any
	}{{
		name: "statefulset three hours old",
		gr:   schema.GroupResource{Group: "apps", Resource: "statefulsets"},
		obj:  &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", CreationTimestamp: ago(3*time.Hour + 5*time.Minute)}, Spec: appsv1.StatefulSetSpec{Replicas: &one}},
		want: []any{"db", "0/1", "3h5m", "", ""},
	}, {
		name: "running job lasts until now",
		gr:   schema.GroupResource{Group: "batch", Resource: "jobs"},
		obj: &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", UID: "u1", CreationTimestamp: ago(2 * time.Minute)},
			Status: batchv1.JobStatus{StartTime: &started, Active: 1}},
		want: []any{"j", "Running", "0/1", "90s", "2m", "", "", "batch.kubernetes.io/controller-uid=u1"},
	}, {
		name: "cronjob scheduled a day ago",
		gr:   schema.GroupResource{Group: "batch", Resource: "cronjobs"},
		obj: &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "c", CreationTimestamp: ago(40 * 24 * time.Hour)},
			Spec:   batchv1.CronJobSpec{Schedule: "@daily"},
			Status: batchv1.CronJobStatus{LastScheduleTime: &metav1.Time{Time: tableNow.Add(-26 * time.Hour)}}},
		want: []any{"c", "@daily", "<none>", "False", int64(0), "26h", "40d", "", "", "<none>"},
	}, {
		name: "pod restarted ten minutes ago",
		gr:   schema.GroupResource{Resource: "pods"},
		obj: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: ago(5 * time.Hour)},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
				Name: "a", Ready: true, RestartCount: 4,
				State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: ago(10 * time.Minute)}},
			}}}},
		want: []any{"p", "1/1", "Running", "4 (10m ago)", "5h", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "cluster trust bundle with a signer",
		gr:   schema.GroupResource{Group: "certificates.k8s.io", Resource: "clustertrustbundles"},
		obj:  &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "example.com:tref:bundle"}, Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/tref"}},
		// Observed on kube-apiserver v1.37 (fakeplane does not accept the
		// name yet: it validates it as a DNS subdomain).
		want: []any{"example.com:tref:bundle", "example.com/tref"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cellsOf(t, tc.gr, tc.obj); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("cells:\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

var storageClasses = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}

// TestStorageClassDefaultInList checks which class a list marks as the
// default, as kube-apiserver v1.37 did for the same creation times: the
// newest of those annotated, the first name on a tie; a get marks none.
func TestStorageClassDefaultInList(t *testing.T) {
	sc := func(name string, created metav1.Time, def bool) *storagev1.StorageClass {
		c := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: created}, Provisioner: "example.com/x"}
		if def {
			c.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		}
		return c
	}
	names := func(objs ...runtime.Object) []any {
		_, cells := Lookup(storageClasses).ListCells(objs, tableNow)
		var out []any
		for _, c := range cells {
			out = append(out, c[0])
		}
		return out
	}
	same := ago(time.Minute)
	if got, want := names(sc("tref-sc-a", same, true), sc("tref-sc-z", same, true)), []any{"tref-sc-a (default)", "tref-sc-z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tie: got %v, want %v", got, want)
	}
	if got, want := names(sc("tref-sc-a", ago(2*time.Second), true), sc("tref-sc-z", ago(0), true), sc("other", ago(0), false)), []any{"tref-sc-a", "tref-sc-z (default)", "other"}; !reflect.DeepEqual(got, want) {
		t.Errorf("newest: got %v, want %v", got, want)
	}
	if got := cellsOf(t, storageClasses, sc("tref-sc-a", same, true)); got[0] != "tref-sc-a" {
		t.Errorf("get: name cell %v, want tref-sc-a", got[0])
	}
}

// TestPrintersOnEmptyObjects prints an empty object of every type a
// printer accepts (metadata alone for those printing any object): no printer may fail on missing fields, and each gives a
// cell per column (IPAddress one more: upstream prints its age past the two
// columns).
func TestPrintersOnEmptyObjects(t *testing.T) {
	for gr, p := range table() {
		empties := []runtime.Object{&metav1.PartialObjectMetadata{}}
		if len(p.cells.types) > 0 {
			empties = nil
			for _, typ := range p.cells.types {
				empties = append(empties, reflect.New(typ.Elem()).Interface().(runtime.Object))
			}
		}
		for _, obj := range empties {
			var cells []any
			func() {
				defer func() {
					if e := recover(); e != nil {
						t.Errorf("%s: printing an empty %T panics: %v", gr, obj, e)
					}
				}()
				cells = p.Cells(obj, tableNow)
			}()
			want := len(p.Columns())
			if gr == (schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}) {
				want++
			}
			if cells != nil && len(cells) != want {
				t.Errorf("%s: %d cells for %d columns: %v", gr, len(cells), len(p.Columns()), cells)
			}
		}
	}
}

// TestRecordedColumns parses the embedded recording of kube-apiserver's
// column definitions: every printer has its columns there, and the
// columns of a resource the recording lacks are the recorded Name and Age.
func TestRecordedColumns(t *testing.T) {
	cols, err := recordedColumns()
	if err != nil {
		t.Fatal(err)
	}
	for group, printers := range groups {
		for resource := range printers() {
			if gr := (schema.GroupResource{Group: group, Resource: resource}); cols[gr] == nil {
				t.Errorf("printer %s has no recorded columns", gr)
			}
		}
	}
	if got := Lookup(schema.GroupResource{Resource: "pods"}).Columns(); len(got) != 9 || got[0].Name != "Name" || got[5].Name != "IP" || got[5].Priority != 1 {
		t.Errorf("pod columns %+v", got)
	}
	unrecorded := schema.GroupResource{Group: "example.com", Resource: "unrecorded"}
	if got, want := Lookup(unrecorded).Columns(), cols[schema.GroupResource{Resource: "serviceaccounts"}]; !reflect.DeepEqual(got, want) {
		t.Errorf("default columns %+v, want %+v", got, want)
	}
	if _, ok := For(unrecorded); ok {
		t.Errorf("For(%s) finds a printer", unrecorded)
	}
	for _, path := range []string{"/api/v1", "/apis/apps/v1/deployments/x", "pods"} {
		if _, err := columnsKey(path); err == nil {
			t.Errorf("columnsKey(%q) succeeds", path)
		}
	}
}

// TestPrinterBranchesAsV137 prints objects that take the less common
// branches of the printers; want is what kube-apiserver v1.37.2 printed for
// the same objects (ages aside), recorded from a live server.
func TestPrinterBranchesAsV137(t *testing.T) {
	ingresses := schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}
	slices := schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
	nodes := schema.GroupResource{Resource: "nodes"}
	created := ago(3 * time.Hour)
	rules := func(hosts ...string) []networkingv1.IngressRule {
		var out []networkingv1.IngressRule
		for _, h := range hosts {
			out = append(out, networkingv1.IngressRule{Host: h})
		}
		return out
	}
	ing := func(name string, hosts ...string) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: created}, Spec: networkingv1.IngressSpec{Rules: rules(hosts...)}}
	}
	empty, named := "", "named"
	port := func(p int32) *int32 { return &p }
	for _, tc := range []struct {
		name string
		gr   schema.GroupResource
		obj  runtime.Object
		want []any
	}{{
		name: "ingress whose third host is its last rule has no more",
		gr:   ingresses,
		obj:  ing("i-hosts-gap", "a.example.com", "", "b.example.com", "c.example.com"),
		want: []any{"i-hosts-gap", "<none>", "a.example.com,b.example.com,c.example.com", "", "80", "3h"},
	}, {
		name: "ingress counts rules without a host past the first three",
		gr:   ingresses,
		obj:  ing("i-hosts-trailing", "a.example.com", "b.example.com", "c.example.com", ""),
		want: []any{"i-hosts-trailing", "<none>", "a.example.com,b.example.com,c.example.com + 1 more...", "", "80", "3h"},
	}, {
		name: "ingress with hosts scattered among rules",
		gr:   ingresses,
		obj:  ing("i-hosts-many", "", "a.example.com", "", "b.example.com", "c.example.com", "", "d.example.com"),
		want: []any{"i-hosts-many", "<none>", "a.example.com,b.example.com,c.example.com + 4 more...", "", "80", "3h"},
	}, {
		name: "ingress without hosts",
		gr:   ingresses,
		obj:  ing("i-nohosts", "", ""),
		want: []any{"i-nohosts", "<none>", "*", "", "80", "3h"},
	}, {
		name: "endpoint slice whose only port has an empty name",
		gr:   slices,
		obj: &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "es-fqdn", CreationTimestamp: created}, AddressType: discoveryv1.AddressTypeFQDN,
			Ports: []discoveryv1.EndpointPort{{Name: &empty}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"a.example.com"}}}},
		want: []any{"es-fqdn", "FQDN", "<unset>", "a.example.com", "3h"},
	}, {
		name: "endpoint slice with more than three ports and addresses",
		gr:   slices,
		obj: &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "es-many", CreationTimestamp: created}, AddressType: discoveryv1.AddressTypeIPv4,
			Ports: []discoveryv1.EndpointPort{{Port: port(80)}, {Name: &named}, {Port: port(82)}, {Port: port(83)}, {Name: &empty}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}, {Addresses: []string{"10.0.0.2"}}, {Addresses: []string{"10.0.0.3"}},
				{Addresses: []string{"10.0.0.4"}}, {Addresses: []string{"10.0.0.5"}}}},
		want: []any{"es-many", "IPv4", "80,named,82 + 2 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...", "3h"},
	}, {
		name: "node with two Ready conditions shows the last",
		gr:   nodes,
		obj: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "h3-node-dup", CreationTimestamp: created, Labels: map[string]string{"kubernetes.io/role": "", "node-role.kubernetes.io/gpu": "x", "kubernetes.io/role2": "y"}},
			Spec: corev1.NodeSpec{Unschedulable: true},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}, {Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue}, {Type: corev1.NodeReady, Status: corev1.ConditionFalse}},
				Addresses:  []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "h"}, {Type: corev1.NodeExternalIP, Address: "203.0.113.1"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.2"}},
				NodeInfo:   corev1.NodeSystemInfo{OSImage: "Ubuntu", KubeletVersion: "v1.37.2"},
			}},
		want: []any{"h3-node-dup", "NotReady,SchedulingDisabled", "gpu", "3h", "v1.37.2", "10.0.0.1", "203.0.113.1", "Ubuntu", "<unknown>", "<unknown>"},
	}, {
		name: "node whose Ready condition is Unknown",
		gr:   nodes,
		obj: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "h3-node-unknown", CreationTimestamp: created},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}}},
		want: []any{"h3-node-unknown", "NotReady", "<none>", "3h", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cellsOf(t, tc.gr, tc.obj); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("cells:\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}
