package fakeplane_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/store"
)

// gatedFieldCase is a resource.k8s.io object using a field of a feature
// gate that is off by default in kube-apiserver v1.37: obj sets it in the
// spec or, with status, status sets it in what is written to /status after
// obj is created. stored, when set, is the object that already uses the
// field in TestResourceGatedFieldsKeptWhenStored (else obj, or status).
// field reads the gated field from an object.
type gatedFieldCase struct {
	gate   string
	obj    string
	status string
	stored string
	field  func(runtime.Object) any
}

// gatedFieldCases holds one case per place a default-off gate's field is
// dropped in resource.k8s.io/v1.
var gatedFieldCases = []gatedFieldCase{
	{gate: "DRADerivedAttributes", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gated-derived-exactly}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu, derivedAttributes: [{name: gpu.example.com/derived}]}`,
		field: func(o runtime.Object) any {
			return o.(*resourcev1.ResourceClaim).Spec.Devices.Requests[0].Exactly.DerivedAttributes
		}},
	{gate: "DRADerivedAttributes", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gated-derived-subrequest}
spec:
  devices:
    requests:
    - name: r
      firstAvailable: [{name: s, deviceClassName: gpu, derivedAttributes: [{name: gpu.example.com/derived}]}]`,
		field: func(o runtime.Object) any {
			return o.(*resourcev1.ResourceClaim).Spec.Devices.Requests[0].FirstAvailable[0].DerivedAttributes
		}},
	{gate: "DRADerivedAttributes", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gated-derived-template}
spec:
  spec:
    devices:
      requests:
      - name: r
        exactly: {deviceClassName: gpu, derivedAttributes: [{name: gpu.example.com/derived}]}`,
		field: func(o runtime.Object) any {
			return o.(*resourcev1.ResourceClaimTemplate).Spec.Spec.Devices.Requests[0].Exactly.DerivedAttributes
		}},
	{gate: "DRAOptionalNodeOperations", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gated-skip-status}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: gpu}}]`,
		status: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gated-skip-status}
status:
  allocation:
    devices:
      results: [{request: r, driver: gpu.example.com, pool: p, device: d0, skipNodeOperations: [NodePrepareResources]}]`,
		field: func(o runtime.Object) any {
			if a := o.(*resourcev1.ResourceClaim).Status.Allocation; a != nil {
				return a.Devices.Results[0].SkipNodeOperations
			}
			return nil
		}},
	{gate: "DRAOptionalNodeOperations", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gated-skip-slice}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: gated-skip, generation: 1, resourceSliceCount: 1}
  skipNodeOperations: [NodePrepareResources]
  devices: [{name: d0}]`,
		field: func(o runtime.Object) any { return o.(*resourcev1.ResourceSlice).Spec.SkipNodeOperations }},
	{gate: "DRAPartitionableDevicesType", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gated-partition-type}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: gated-partition-type, generation: 1, resourceSliceCount: 1}
  partitionTypeAttribute: gpu.example.com/type
  devices: [{name: d0, attributes: {gpu.example.com/type: {string: full}}}]`,
		field: func(o runtime.Object) any { return o.(*resourcev1.ResourceSlice).Spec.PartitionTypeAttribute }},
	{gate: "DRADeviceCompatibilityGroups", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gated-compatibility-groups}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: gated-compatibility-groups, generation: 1, resourceSliceCount: 2}
  devices:
  - name: d0
    consumesCounters: [{counterSet: set, counters: {mem: {value: 1Gi}}, compatibilityGroups: [g1]}]`,
		field: func(o runtime.Object) any {
			return o.(*resourcev1.ResourceSlice).Spec.Devices[0].ConsumesCounters[0].CompatibilityGroups
		}},
	{gate: "DRANodeAllocatableResources", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gated-node-allocatable}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: gated-node-allocatable, generation: 1, resourceSliceCount: 1}
  devices: [{name: d0, nodeAllocatableResources: {memory: {overhead: {perPod: 1Mi}}}}]`,
		field: func(o runtime.Object) any {
			return o.(*resourcev1.ResourceSlice).Spec.Devices[0].NodeAllocatableResources
		}},
	{gate: "DRAListTypeAttributes", obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gated-list-attributes}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: gated-list-attributes, generation: 1, resourceSliceCount: 1}
  devices: [{name: d0, attributes: {cores: {int: 4, ints: [1, 2]}}}]`,
		// An attribute holds one value: only a list once the gate was on.
		stored: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gated-list-attributes}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: gated-list-attributes, generation: 1, resourceSliceCount: 1}
  devices: [{name: d0, attributes: {cores: {ints: [1, 2]}}}]`,
		field: func(o runtime.Object) any {
			return o.(*resourcev1.ResourceSlice).Spec.Devices[0].Attributes["cores"].IntValues
		}},
}

// empty reports whether a gated field is unset.
func empty(v any) bool {
	r := reflect.ValueOf(v)
	if !r.IsValid() || r.IsZero() {
		return true
	}
	return (r.Kind() == reflect.Slice || r.Kind() == reflect.Map) && r.Len() == 0
}

// TestResourceGatedFieldsDropped writes resource.k8s.io objects with
// fields of feature gates that are off by default in v1.37: the create
// (or, for a claim's status, the write to /status) drops them, and so does
// an update that sends them again to an object without them.
func TestResourceGatedFieldsDropped(t *testing.T) {
	runGatedFieldCases(t, gatedFieldCases)
}

// runGatedFieldCases runs cases against a fresh fakeplane, and against the
// reference cluster too when there is one: each case's object is created
// without its gated field (a status one is written to /status), and an
// update sending the field again to the stored object drops it again.
func runGatedFieldCases(t *testing.T, cases []gatedFieldCase) {
	t.Helper()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	if _, err := cs.CoreV1().Namespaces().Create(ctxT(t), nsObj("val-ref"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, where string, cs kubernetes.Interface, ns string) {
		for _, tc := range cases {
			t.Run(where+"/"+tc.gate+"/"+mustMeta(t, decodeYAML(t, tc.obj)).GetName(), func(t *testing.T) {
				ctx := ctxT(t)
				sent := decodeYAML(t, tc.obj)
				if tc.status != "" {
					sent = decodeYAML(t, tc.status)
				}
				if empty(tc.field(sent)) {
					t.Fatal("the case sends no gated field")
				}
				ops := gatedOpsFor(t, cs, ns, sent)
				name := mustMeta(t, sent).GetName()
				t.Cleanup(func() { cleanupFinalized(ops, name) })
				got, err := ops.create(ctx, decodeYAML(t, tc.obj))
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				write, what := ops.update, "update"
				if tc.status != "" {
					write, what = ops.updateStatus, "status update"
				} else if !empty(tc.field(got)) {
					t.Errorf("create kept %v", tc.field(got))
				}
				// Made again on a Conflict: a controller (the node
				// lifecycle controller) may write the object meanwhile.
				for range 10 {
					var written runtime.Object
					if written, err = write(ctx, withSent(t, got, sent)); !apierrors.IsConflict(err) {
						got = written
						break
					}
					if got, err = ops.get(ctx, name); err != nil {
						t.Fatal(err)
					}
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if !empty(tc.field(got)) {
					t.Errorf("%s kept %v", what, tc.field(got))
				}
				if got, err = ops.get(ctx, name); err != nil {
					t.Fatal(err)
				}
				if !empty(tc.field(got)) {
					t.Errorf("stored %v", tc.field(got))
				}
			})
		}
	}
	run(t, "fakeplane", cs, "val-ref")
	if ref, ns := refCluster(t); ref != nil {
		run(t, "reference", ref, ns)
	}
}

// gatedOpsFor is typedOpsFor, with CronJobs and CSINodes.
func gatedOpsFor(t *testing.T, cs kubernetes.Interface, ns string, obj runtime.Object) typedOps {
	switch obj.(type) {
	case *batchv1.CronJob:
		return opsOf(cs.BatchV1().CronJobs(ns))
	case *storagev1.CSINode:
		return opsOf(cs.StorageV1().CSINodes())
	}
	return typedOpsFor(t, cs, ns, obj)
}

// cleanupFinalized deletes an object after clearing its finalizers, which
// a cluster without controllers (a PVC's protection) would not remove.
func cleanupFinalized(ops typedOps, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if obj, err := ops.get(ctx, name); err == nil {
		if m, err := meta.Accessor(obj); err == nil && len(m.GetFinalizers()) > 0 {
			m.SetFinalizers(nil)
			_, _ = ops.update(ctx, obj)
		}
	}
	cleanup(ops, name)
}

// withSent is stored with the spec and status of sent merged in (maps
// merged key by key, sent's values winning; lists replaced): what a
// client sending sent's fields to the stored object writes.
func withSent(t *testing.T, stored, sent runtime.Object) runtime.Object {
	t.Helper()
	fields := func(o runtime.Object) map[string]any {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	var merge func(a, b any) any
	merge = func(a, b any) any {
		am, aok := a.(map[string]any)
		bm, bok := b.(map[string]any)
		if !aok || !bok {
			return b
		}
		for k, v := range bm {
			am[k] = merge(am[k], v)
		}
		return am
	}
	out, in := fields(stored), fields(sent)
	for _, part := range []string{"spec", "status"} {
		if v, ok := in[part]; ok {
			out[part] = merge(out[part], v)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	obj := reflect.New(reflect.TypeOf(stored).Elem()).Interface().(runtime.Object)
	if err := json.Unmarshal(b, obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestResourceGatedFieldsKeptWhenStored checks upstream's rule for an
// object that already uses a field of a gate that is off (written while
// the gate was on): an update keeps the field. Such an object cannot be
// written through the API, so the test writes it to the store behind the
// control plane's back.
func TestResourceGatedFieldsKeptWhenStored(t *testing.T) {
	dir := t.TempDir()
	ctx := ctxDataDir(t)
	start := func() (*fakeplane.ControlPlane, kubernetes.Interface) {
		cp, err := fakeplane.New(fakeplane.WithDataDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.Start(ctx); err != nil {
			t.Fatal(err)
		}
		return cp, clientset(t, cp)
	}
	const ns = "gated"
	cp, cs := start()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, nsObj(ns), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range gatedFieldCases {
		obj := decodeYAML(t, tc.obj)
		if _, err := typedOpsFor(t, cs, ns, obj).create(ctx, obj); err != nil {
			t.Fatalf("create %s: %v", mustMeta(t, obj).GetName(), err)
		}
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}

	// The stored objects get the spec (or status) the cases send.
	st, err := store.Open(filepath.Join(dir, "fakeplane.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range gatedFieldCases {
		sent, part := decodeYAML(t, tc.obj), "spec"
		if tc.status != "" {
			sent, part = decodeYAML(t, tc.status), "status"
		}
		if tc.stored != "" {
			sent = decodeYAML(t, tc.stored)
		}
		var sentFields map[string]json.RawMessage
		if b, err := json.Marshal(sent); err != nil {
			t.Fatal(err)
		} else if err := json.Unmarshal(b, &sentFields); err != nil {
			t.Fatal(err)
		}
		m := mustMeta(t, sent)
		key := m.GetName()
		if _, clusterScoped := sent.(*resourcev1.ResourceSlice); !clusterScoped {
			key = ns + "/" + m.GetName()
		}
		bucket := "resource.k8s.io/" + map[string]string{
			"ResourceClaim": "resourceclaims", "ResourceClaimTemplate": "resourceclaimtemplates", "ResourceSlice": "resourceslices",
		}[sent.GetObjectKind().GroupVersionKind().Kind]
		if _, _, err := st.Update(bucket, key, func(cur *store.Object) (store.Write, error) {
			var stored map[string]json.RawMessage
			if cur == nil {
				t.Fatalf("%s %s not stored", bucket, key)
			}
			if err := json.Unmarshal(cur.Value, &stored); err != nil {
				t.Fatalf("stored %s %s: %v", bucket, key, err)
			}
			stored[part] = sentFields[part]
			v, err := json.Marshal(stored)
			return store.Write{Value: v}, err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	cp, cs = start()
	defer cp.Stop()
	for _, tc := range gatedFieldCases {
		name := mustMeta(t, decodeYAML(t, tc.obj)).GetName()
		t.Run(tc.gate+"/"+name, func(t *testing.T) {
			ops := typedOpsFor(t, cs, ns, decodeYAML(t, tc.obj))
			cur, err := ops.get(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.field(cur)
			if empty(want) {
				t.Fatalf("the stored object has no gated field")
			}
			write, what := ops.update, "update"
			if tc.status != "" {
				write, what = ops.updateStatus, "status update"
			}
			mustMeta(t, cur).SetLabels(map[string]string{"changed": "yes"})
			got, err := write(ctx, cur)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !reflect.DeepEqual(tc.field(got), want) {
				t.Errorf("%s: got %v, want %v kept", what, tc.field(got), want)
			}
		})
	}
}
