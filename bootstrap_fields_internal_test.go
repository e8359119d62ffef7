package fakeplane

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"net/netip"
	"os"
	"reflect"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/fixtures"
)

var updateBootstrapFields = flag.Bool("update", false, "rewrite fixtures/bootstrap/managedfields.json")

// TestBootstrapManagedFieldsArePrecomputed checks that
// fixtures/bootstrap/managedfields.json holds, for every bootstrap object,
// the managedFields entries a create computes for it, whatever the port and
// service range (they only change values, not which fields are set); with
// -update it rewrites the file.
func TestBootstrapManagedFieldsArePrecomputed(t *testing.T) {
	cp := Start(t)
	compute := func(port int, serviceRange string) map[string][]metav1.ManagedFieldsEntry {
		docs, err := fixtures.Bootstrap(port, netip.MustParsePrefix(serviceRange))
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
		// Compact (FieldsV1 keeps its bytes as they are read), one object
		// per line.
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
		if err := os.WriteFile("fixtures/bootstrap/managedfields.json", b.Bytes(), 0o644); err != nil {
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
		t.Fatal("fixtures/bootstrap/managedfields.json is out of date: go test . -run TestBootstrapManagedFields -update")
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
