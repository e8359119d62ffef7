package csinode

import (
	"context"
	"strings"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// csiNode returns a CSINode with drivers.
func csiNode(drivers ...storagev1.CSINodeDriver) *storagev1.CSINode {
	return &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: storagev1.CSINodeSpec{Drivers: drivers}}
}

// TestCSINodeValidation checks upstream's rules for a new CSINode's
// drivers with upstream's messages (those a v1.37 kube-apiserver
// answered); a topology key's errors are reported at its driver.
func TestCSINodeValidation(t *testing.T) {
	const (
		subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
		namePart  = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	)
	longID := strings.Repeat("n", 257)
	for _, tc := range []struct {
		name string
		node *storagev1.CSINode
		want []string
	}{
		{name: "no drivers", node: csiNode()},
		{name: "a valid driver", node: csiNode(storagev1.CSINodeDriver{Name: "d.io", NodeID: "n1", TopologyKeys: []string{"example.com/zone"}, Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To[int32](3)}})},
		{name: "a driver has a name and a node ID", node: csiNode(storagev1.CSINodeDriver{}),
			want: []string{"spec.drivers[0].name: Required value", "spec.drivers[0].nodeID: Required value"}},
		{name: "each driver's fields", node: csiNode(
			storagev1.CSINodeDriver{Name: "Bad_D", NodeID: longID, Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To[int32](-1)}, TopologyKeys: []string{"", "a", "a"}},
			storagev1.CSINodeDriver{Name: "Bad_D", NodeID: "x"},
			storagev1.CSINodeDriver{Name: strings.Repeat("d", 64), NodeID: "x"},
		), want: []string{
			`spec.drivers[0].name: Invalid value: "Bad_D": ` + subdomain,
			`spec.drivers[0].nodeID: Invalid value: "` + longID + `": must be 256 characters or less`,
			"spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0",
			"spec.drivers[0]: Required value",
			`spec.drivers[0]: Invalid value: "": name part must be non-empty`,
			`spec.drivers[0]: Invalid value: "": ` + namePart,
			`spec.drivers[0]: Duplicate value: "a"`,
			`spec.drivers[1].name: Invalid value: "Bad_D": ` + subdomain,
			`spec.drivers[1].name: Duplicate value: "Bad_D"`,
			"spec.drivers[2].name: Too long: may not be more than 63 bytes",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), tc.node), tc.want)
		})
	}
}

// TestCSINodeUpdateValidation checks that a driver's entry is kept by
// updates but for its allocatable count (MutableCSINodeAllocatableCount),
// shown in its internal form, and that drivers may come and go.
func TestCSINodeUpdateValidation(t *testing.T) {
	d := storagev1.CSINodeDriver{Name: "d.io", NodeID: "n1", TopologyKeys: []string{"k"}, Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To[int32](3)}}
	stored := csiNode(d)
	with := func(f func(*storagev1.CSINodeDriver)) storagev1.CSINodeDriver {
		c := *d.DeepCopy()
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		node *storagev1.CSINode
		want []string
	}{
		{name: "the allocatable count may change", node: csiNode(with(func(d *storagev1.CSINodeDriver) { d.Allocatable.Count = ptr.To[int32](5) }))},
		{name: "the node ID may not", node: csiNode(with(func(d *storagev1.CSINodeDriver) { d.NodeID = "n2"; d.Allocatable.Count = ptr.To[int32](5) })),
			want: []string{`spec.drivers: Invalid value: {"Name":"d.io","NodeID":"n2","TopologyKeys":["k"],"Allocatable":null}: field is immutable`}},
		{name: "a driver may be added", node: csiNode(d, storagev1.CSINodeDriver{Name: "e.io", NodeID: "n1"})},
		{name: "drivers may be removed", node: csiNode()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), tc.node, stored), tc.want)
		})
	}
}

// TestCSINodeStatusValidation checks a write to /status's storage health:
// one entry a driver, each named, with valid conditions. A v1.37
// kube-apiserver drops the field (CSIVolumeHealth is off), so these are the
// messages of upstream's code, not answers it gave.
func TestCSINodeStatusValidation(t *testing.T) {
	node := csiNode()
	node.Status.StorageHealth = []storagev1.StorageHealth{
		{Name: ""},
		{Name: "x", HealthConditions: []storagev1.StorageHealthCondition{{Status: "Bad", Reason: "not a reason"}}},
		{Name: "x"},
	}
	validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(context.Background(), node, csiNode()), []string{
		"status.storageHealth[0].name: Required value",
		`status.storageHealth[1].healthConditions[0].status: Unsupported value: "Bad": supported values: "StorageDegraded", "StorageUnreachable"`,
		`status.storageHealth[1].healthConditions[0].reason: Invalid value: "not a reason": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')`,
		`status.storageHealth[2]: Duplicate value: "x"`,
	})
}
