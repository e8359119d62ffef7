package fakeplane

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"maps"
	"net/netip"
	"os"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/fixtures"
	"github.com/fakeplane/fakeplane/registry"
)

var updateBootstrapFields = flag.Bool("update", false, "rewrite fixtures/bootstrap/managedfields.tsv, statuses.json and createseeds.bin")

// TestBootstrapManagedFieldsArePrecomputed checks that
// fixtures/bootstrap/managedfields.tsv holds, for every bootstrap object,
// the managedFields entries a create computes for it, whatever the port and
// service range (they only change values, not which fields are set); with
// -update it rewrites the file.
func TestBootstrapManagedFieldsArePrecomputed(t *testing.T) {
	cp := Start(t)
	compute := func(port int, serviceRange string) map[string][]metav1.ManagedFieldsEntry {
		docs, err := fixtures.Bootstrap(port, netip.MustParsePrefix(serviceRange), 0)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := fixtures.StandardStorageClass()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string][]metav1.ManagedFieldsEntry{}
		for _, d := range append(docs, sc) {
			key, entries, err := cp.srv.CreatedManagedFields(d)
			if err != nil {
				t.Fatalf("%s: %v", d, err)
			}
			if len(entries) == 0 {
				t.Fatalf("no managedFields computed for %s", key)
			}
			m[key] = entries
		}
		return m
	}
	want := compute(6443, "10.0.0.0/24")
	if other := compute(40123, "fd00:10:96::/108"); !reflect.DeepEqual(want, other) {
		t.Fatal("the bootstrap objects' managedFields depend on the port or the service range")
	}
	if *updateBootstrapFields {
		table, err := fixtures.FormatManagedFieldsTable(want)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("fixtures/bootstrap/managedfields.tsv", table, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := fixtures.BootstrapManagedFields()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("%s: precomputed %v, computed %v", k, got[k], want[k])
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: precomputed but not a bootstrap object", k)
			}
		}
		t.Fatal("fixtures/bootstrap/managedfields.tsv is out of date: go test . -run TestBootstrapManagedFields -update")
	}
}

// TestIPAddressFieldsAreWhatACreateRecords checks that the IPAddress the
// server creates for a Service's ClusterIP carries the managedFields entries
// the field manager computes for that object (the registry writes them
// without computing them), whatever the address.
func TestIPAddressFieldsAreWhatACreateRecords(t *testing.T) {
	for _, tc := range []struct {
		name, serviceRange, family string
	}{
		{"10.0.0.1", "10.0.0.0/24", "IPv4"},
		{"10.96.0.1", "10.96.0.0/12", "IPv4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := Start(t, WithServiceClusterIPRange(tc.serviceRange))
			ip := netip.MustParsePrefix(tc.serviceRange).Addr().Next().String()
			stored, err := cp.store.Get("networking.k8s.io/ipaddresses", ip)
			if err != nil {
				t.Fatalf("the kubernetes Service's IPAddress %s: %v", ip, err)
			}
			var got networkingv1.IPAddress
			if err := json.Unmarshal(stored.Value, &got); err != nil {
				t.Fatal(err)
			}
			entries := got.ManagedFields
			for i := range entries {
				if entries[i].Time == nil {
					t.Errorf("entry %d has no time", i)
				}
				entries[i].Time = nil
			}
			doc, err := json.Marshal(&networkingv1.IPAddress{
				TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IPAddress"},
				ObjectMeta: metav1.ObjectMeta{Name: ip, Labels: map[string]string{
					networkingv1.LabelIPAddressFamily: tc.family,
					networkingv1.LabelManagedBy:       "ipallocator.k8s.io",
				}},
				Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "kubernetes"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			_, want, err := cp.srv.CreatedManagedFields(doc)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || !reflect.DeepEqual(entries, want) {
				t.Fatalf("stored managedFields %v, a create computes %v", entries, want)
			}
		})
	}
}

// TestBootstrapStatusesArePrecomputed checks that
// fixtures/bootstrap/statuses.json holds the statuses, and the managedFields
// entries, that kube-apiserver's own controllers apply to the bootstrap
// objects (every FlowSchema's Dangling condition, the default ServiceCIDR's
// Ready), recorded from a control plane whose bootstrap objects are created
// without them, so that those controllers write them; and that a control
// plane created with them stores the same objects as that one, but for
// uids, resourceVersions and times. With -update it rewrites the file.
// (kube-controller-manager's service-cidr-controller then applies its
// Ready condition, as on a cluster: TestServiceCIDRsAsKubeControllerManager.)
func TestBootstrapStatusesArePrecomputed(t *testing.T) {
	// kube-controller-manager's service-cidr-controller, which applies its
	// own Ready condition after kube-apiserver's, is off in both.
	noKCMServiceCIDRs := WithControllers("*", "-service-cidr-controller")
	live := Start(t, noKCMServiceCIDRs, func(o *options) { o.noPresetStatuses = true })
	preset := Start(t, noKCMServiceCIDRs)
	ctx := context.Background()
	liveClient, presetClient := kubernetes.NewForConfigOrDie(live.RESTConfig()), kubernetes.NewForConfigOrDie(preset.RESTConfig())

	// What the controllers wrote, once they have written it.
	type written struct {
		obj    runtime.Object
		status any
		meta   *metav1.ObjectMeta
	}
	get := func(cs kubernetes.Interface) (map[string]written, error) {
		out := map[string]written{}
		fss, err := cs.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range fss.Items {
			fs := &fss.Items[i]
			out["flowcontrol.apiserver.k8s.io/v1/FlowSchema//"+fs.Name] = written{fs, &fs.Status, &fs.ObjectMeta}
		}
		sc, err := cs.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		out["networking.k8s.io/v1/ServiceCIDR//kubernetes"] = written{sc, &sc.Status, &sc.ObjectMeta}
		return out, nil
	}
	conditions := func(w written) int {
		switch s := w.status.(type) {
		case *flowcontrolv1.FlowSchemaStatus:
			return len(s.Conditions)
		case *networkingv1.ServiceCIDRStatus:
			return len(s.Conditions)
		}
		return 0
	}
	var liveObjs map[string]written
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if liveObjs, err = get(liveClient); err != nil {
			t.Fatal(err)
		}
		done := true
		for _, w := range liveObjs {
			done = done && conditions(w) > 0
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("kube-apiserver's status writers did not write every bootstrap FlowSchema's and the ServiceCIDR's status")
		}
	}
	// Times are the apply's, uids and resourceVersions the store's.
	placeholder := metav1.NewTime(time.Date(1001, 1, 1, 0, 0, 0, 0, time.UTC))
	if b, _ := placeholder.MarshalJSON(); string(b) != `"`+registry.PresetTime+`"` {
		t.Fatalf("placeholder %s, registry.PresetTime %s", b, registry.PresetTime)
	}
	mask := func(w written) {
		switch s := w.status.(type) {
		case *flowcontrolv1.FlowSchemaStatus:
			for i := range s.Conditions {
				s.Conditions[i].LastTransitionTime = placeholder
			}
		case *networkingv1.ServiceCIDRStatus:
			for i := range s.Conditions {
				s.Conditions[i].LastTransitionTime = placeholder
			}
		}
		w.meta.UID, w.meta.ResourceVersion, w.meta.CreationTimestamp = "", "", metav1.Time{}
		for i := range w.meta.ManagedFields {
			w.meta.ManagedFields[i].Time = nil
		}
	}
	want := map[string]registry.PresetStatus{}
	for k, w := range liveObjs {
		mask(w)
		status, err := json.Marshal(w.status)
		if err != nil {
			t.Fatal(err)
		}
		st := registry.PresetStatus{Status: status}
		for _, e := range w.meta.ManagedFields {
			if e.Subresource == "status" {
				st.ManagedFields = append(st.ManagedFields, e)
			}
		}
		if len(st.ManagedFields) == 0 {
			t.Fatalf("%s: no managedFields entry of the status's writer in %v", k, w.meta.ManagedFields)
		}
		want[k] = st
	}
	if *updateBootstrapFields {
		keys := slices.Sorted(maps.Keys(want))
		var b bytes.Buffer
		b.WriteString("{\n")
		for i, k := range keys {
			kb, err := json.Marshal(k)
			if err != nil {
				t.Fatal(err)
			}
			vb, err := json.Marshal(want[k])
			if err != nil {
				t.Fatal(err)
			}
			b.Write(kb)
			b.WriteByte(':')
			b.Write(vb)
			if i < len(keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("}\n")
		if err := os.WriteFile("fixtures/bootstrap/statuses.json", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	pre, err := bootstrapPrecomputed()
	if err != nil {
		t.Fatal(err)
	}
	got := pre.Statuses
	if !reflect.DeepEqual(got, want) {
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("%s: precomputed %s %v, written %s %v", k, got[k].Status, got[k].ManagedFields, want[k].Status, want[k].ManagedFields)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: precomputed but not written", k)
			}
		}
		t.Fatal("fixtures/bootstrap/statuses.json is out of date: go test . -run TestBootstrapStatusesArePrecomputed -update")
	}
	// Created with them, the objects are the ones the writers made.
	presetObjs, err := get(presetClient)
	if err != nil {
		t.Fatal(err)
	}
	if len(presetObjs) != len(liveObjs) {
		t.Fatalf("%d objects with preset statuses, %d written", len(presetObjs), len(liveObjs))
	}
	for k, w := range presetObjs {
		mask(w)
		if !reflect.DeepEqual(w.obj, liveObjs[k].obj) {
			t.Errorf("%s: created with the preset status\n%+v\nwritten by its controller\n%+v", k, w.obj, liveObjs[k].obj)
		}
	}
}

// TestBootstrapCreateSeedsArePrecomputed checks that
// fixtures/bootstrap/createseeds.bin holds what the memo of a control
// plane's own creates holds once it has created the bootstrap objects,
// computed from nothing (a memo of its own, unseeded: every document
// decoded, validated and encoded), for every bootstrap document that is the
// same at any port and service range; and that a control plane whose memo
// is seeded with it, and nothing else, stores the same objects as that one,
// but for uids, resourceVersions and times. With -update it rewrites the
// file.
func TestBootstrapCreateSeedsArePrecomputed(t *testing.T) {
	computed := Start(t, WithNodes(1), WithIdentityLeaseRenewInterval(time.Hour), func(o *options) {
		o.privateCreateMemo, o.noCreateSeeds = true, true
	})
	// The documents that do not depend on the port or the service range.
	var docs [][]byte
	for _, start := range []struct {
		port         int
		serviceRange string
	}{{6443, "10.0.0.0/24"}, {40123, "fd00:10:96::/108"}} {
		boot, err := fixtures.Bootstrap(start.port, netip.MustParsePrefix(start.serviceRange), 0)
		if err != nil {
			t.Fatal(err)
		}
		if docs == nil {
			docs = boot
			continue
		}
		docs = slices.DeleteFunc(docs, func(d []byte) bool {
			return !slices.ContainsFunc(boot, func(b []byte) bool { return bytes.Equal(b, d) })
		})
	}
	sc, err := fixtures.StandardStorageClass()
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, sc)
	docs = append(docs, controllerAccountDocs(controllers.DefaultSelection)...)

	file, left, err := computed.srv.RecordCreateSeeds(docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range left {
		t.Logf("not seeded (its object does not survive protobuf, or was not memoized): %.120s", d)
	}
	seeds, err := registry.ParseCreateSeeds(file)
	if err != nil {
		t.Fatal(err)
	}
	if seeds.Len() != len(docs)-len(left) || seeds.Len() < len(docs)*9/10 {
		t.Fatalf("%d of %d bootstrap documents seeded", seeds.Len(), len(docs))
	}
	if *updateBootstrapFields {
		if err := os.WriteFile("fixtures/bootstrap/createseeds.bin", file, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(fixtures.BootstrapCreateSeeds(), file) {
		t.Fatal("fixtures/bootstrap/createseeds.bin is out of date: go test . -run TestBootstrapCreateSeedsArePrecomputed -update")
	}

	// A memo filled from the seeds alone stores the objects the computed
	// one stores.
	seeded := Start(t, WithNodes(1), WithIdentityLeaseRenewInterval(time.Hour), func(o *options) { o.privateCreateMemo = true })
	stamps := regexp.MustCompile(`"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"`)
	stored := func(cp *ControlPlane, doc []byte) []byte {
		t.Helper()
		var head struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Metadata   metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(doc, &head); err != nil {
			t.Fatal(err)
		}
		res, ok := cp.srv.Resources().ForKind(schema.FromAPIVersionAndKind(head.APIVersion, head.Kind))
		if !ok {
			t.Fatalf("no resource for %s %s", head.APIVersion, head.Kind)
		}
		ns := head.Metadata.Namespace
		if res.Namespaced && ns == "" {
			ns = metav1.NamespaceDefault
		}
		obj, err := cp.store.Get(res.Bucket, registry.ObjectKey(ns, head.Metadata.Name))
		if err != nil {
			t.Fatalf("%s %s/%s: %v", head.Kind, ns, head.Metadata.Name, err)
		}
		var meta struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(obj.Value, &meta); err != nil {
			t.Fatal(err)
		}
		masked := bytes.ReplaceAll(obj.Value, []byte(meta.Metadata.UID), []byte("UID"))
		return stamps.ReplaceAll(masked, []byte(`"TIME"`))
	}
	compared := 0
	for _, d := range docs {
		if slices.ContainsFunc(left, func(l []byte) bool { return bytes.Equal(l, d) }) {
			continue
		}
		if got, want := stored(seeded, d), stored(computed, d); !bytes.Equal(got, want) {
			t.Errorf("created from its seed\n%s\ncreated from its document\n%s", got, want)
		}
		compared++
	}
	t.Logf("%d objects created from their seeds compared", compared)
}

// TestKCMDefaultServiceCIDRPresetAsWritten checks kcmDefaultServiceCIDR:
// the default ServiceCIDR a control plane whose bootstrap objects are
// created without preset statuses has once kube-apiserver's and
// kube-controller-manager's controllers have written it is the one a
// control plane creates with the preset, but for times and kube-apiserver's
// managedFields entry, which is refplane's (there kube-controller-manager
// applies its condition seconds after kube-apiserver).
func TestKCMDefaultServiceCIDRPresetAsWritten(t *testing.T) {
	live := Start(t, func(o *options) { o.noPresetStatuses = true })
	preset := Start(t)
	ctx := context.Background()
	get := func(cp *ControlPlane) (*networkingv1.ServiceCIDR, error) {
		return kubernetes.NewForConfigOrDie(cp.RESTConfig()).NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
	}
	var written *networkingv1.ServiceCIDR
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		written, err = get(live)
		if err == nil && len(written.Finalizers) == 1 && len(written.Status.Conditions) == 1 && written.Status.Conditions[0].Message == "Kubernetes Service CIDR is ready" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-controller-manager's controller did not write the default ServiceCIDR: %v %+v", err, written)
		}
		time.Sleep(20 * time.Millisecond)
	}
	made, err := get(preset)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(made.Finalizers, written.Finalizers) {
		t.Errorf("finalizers %v, written %v", made.Finalizers, written.Finalizers)
	}
	strip := func(cs []metav1.Condition) []metav1.Condition {
		out := slices.Clone(cs)
		for i := range out {
			out[i].LastTransitionTime = metav1.Time{}
		}
		return out
	}
	if !reflect.DeepEqual(strip(made.Status.Conditions), strip(written.Status.Conditions)) {
		t.Errorf("conditions %+v, written %+v", made.Status.Conditions, written.Status.Conditions)
	}
	entries := func(sc *networkingv1.ServiceCIDR) map[string]string {
		out := map[string]string{}
		for _, e := range sc.ManagedFields {
			out[e.Manager+"/"+string(e.Operation)+"/"+e.Subresource] = string(e.FieldsV1.Raw)
		}
		return out
	}
	got, want := entries(made), entries(written)
	// kube-apiserver's entry: refplane's, where kube-controller-manager
	// applies its condition later; in one process the two controllers
	// start together, and kube-apiserver's may not write at all (the
	// condition is Ready already) or share the time.
	const apiserver = "kubernetes-service-cidr-controller/Apply/status"
	if g := got[apiserver]; g != `{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}}}}}` {
		t.Errorf("kube-apiserver's entry %s", g)
	}
	delete(got, apiserver)
	delete(want, apiserver)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("managedFields\n got %v\nwant %v", got, want)
	}
}
