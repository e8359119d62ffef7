package resource

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// gatedSlice is a slice using the fields of every default-off gate.
func gatedSlice() *resourcev1.ResourceSlice {
	return &resourcev1.ResourceSlice{Spec: resourcev1.ResourceSliceSpec{
		PartitionTypeAttribute: ptr.To(resourcev1.FullyQualifiedName("gpu.example.com/type")),
		SkipNodeOperations:     []resourcev1.SkipNodeOperation{resourcev1.SkipNodeOperationAll},
		Devices: []resourcev1.Device{{
			Name:       "d0",
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"cores": {IntValues: []int64{1}}, "model": {StringValue: ptr.To("a")}},
			ConsumesCounters: []resourcev1.DeviceCounterConsumption{{
				CounterSet: "set", CompatibilityGroups: []string{"g"},
				Counters: map[string]resourcev1.Counter{"mem": {Value: apiresource.MustParse("1Gi")}},
			}},
			NodeAllocatableResources: map[corev1.ResourceName]resourcev1.NodeAllocatableResource{
				corev1.ResourceMemory: {Overhead: &resourcev1.NodeAllocatableOverhead{PerPod: ptr.To(apiresource.MustParse("1Mi"))}},
			},
		}},
	}}
}

// TestDropDisabledSliceFieldsPerGate checks that each gate's fields are
// kept or dropped on their own: an update keeps the fields of the gates
// the stored slice uses, and drops the others.
func TestDropDisabledSliceFieldsPerGate(t *testing.T) {
	// Each clears one gate's fields in a gated slice.
	clearers := map[string]func(*resourcev1.ResourceSlice){
		"DRAPartitionableDevicesType": func(s *resourcev1.ResourceSlice) { s.Spec.PartitionTypeAttribute = nil },
		"DRAOptionalNodeOperations":   func(s *resourcev1.ResourceSlice) { s.Spec.SkipNodeOperations = nil },
		"DRAListTypeAttributes": func(s *resourcev1.ResourceSlice) {
			s.Spec.Devices[0].Attributes["cores"] = resourcev1.DeviceAttribute{}
		},
		"DRADeviceCompatibilityGroups": func(s *resourcev1.ResourceSlice) { s.Spec.Devices[0].ConsumesCounters[0].CompatibilityGroups = nil },
		"DRANodeAllocatableResources":  func(s *resourcev1.ResourceSlice) { s.Spec.Devices[0].NodeAllocatableResources = nil },
	}
	clearAll := func(s *resourcev1.ResourceSlice, but string) *resourcev1.ResourceSlice {
		for gate, c := range clearers {
			if gate != but {
				c(s)
			}
		}
		return s
	}
	t.Run("create", func(t *testing.T) {
		got := gatedSlice()
		DropDisabledSliceFields(got, nil)
		if want := clearAll(gatedSlice(), ""); !equality.Semantic.DeepEqual(got, want) {
			t.Errorf("got %+v\nwant %+v", got.Spec, want.Spec)
		}
	})
	for gate := range clearers {
		t.Run("update of a slice using "+gate, func(t *testing.T) {
			old := clearAll(gatedSlice(), gate)
			got := gatedSlice()
			DropDisabledSliceFields(got, old)
			if want := clearAll(gatedSlice(), gate); !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got.Spec, want.Spec)
			}
		})
	}
}

// TestDropDisabledClaimFields checks the derived attributes of a claim
// spec and the skipped node operations of a claim's status: dropped on
// create and on an update of a claim without them, kept on an update of
// one with them (in a request or a subrequest).
func TestDropDisabledClaimFields(t *testing.T) {
	derived := []resourcev1.DeviceDerivedAttribute{{Name: "gpu.example.com/d"}}
	claim := func(exactly, sub, skip bool) *resourcev1.ResourceClaim {
		c := &resourcev1.ResourceClaim{}
		c.Spec.Devices.Requests = []resourcev1.DeviceRequest{
			{Name: "a", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu"}},
			{Name: "b", FirstAvailable: []resourcev1.DeviceSubRequest{{Name: "s", DeviceClassName: "gpu"}}},
		}
		if exactly {
			c.Spec.Devices.Requests[0].Exactly.DerivedAttributes = derived
		}
		if sub {
			c.Spec.Devices.Requests[1].FirstAvailable[0].DerivedAttributes = derived
		}
		c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{
			Results: []resourcev1.DeviceRequestAllocationResult{{Request: "a", Driver: "d", Pool: "p", Device: "x"}},
		}}
		if skip {
			c.Status.Allocation.Devices.Results[0].SkipNodeOperations = []resourcev1.SkipNodeOperation{resourcev1.SkipNodeOperationAll}
		}
		return c
	}
	for _, tc := range []struct {
		name string
		old  *resourcev1.ResourceClaim
		want *resourcev1.ResourceClaim
	}{
		{name: "create", want: claim(false, false, false)},
		{name: "update of a claim without them", old: claim(false, false, false), want: claim(false, false, false)},
		{name: "update of a claim with derived attributes in a request", old: claim(true, false, false), want: claim(true, true, false)},
		{name: "update of a claim with derived attributes in a subrequest", old: claim(false, true, false), want: claim(true, true, false)},
		{name: "update of a claim with skipped node operations", old: claim(false, false, true), want: claim(false, false, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := claim(true, true, true)
			var oldSpec *resourcev1.ResourceClaimSpec
			if tc.old != nil {
				oldSpec = &tc.old.Spec
			}
			DropDisabledClaimSpecFields(&got.Spec, oldSpec)
			DropDisabledClaimStatusFields(got, tc.old)
			if !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
