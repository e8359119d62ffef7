package resourceslice

import (
	"context"
	"slices"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
)

func TestResourceSliceWarnings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		driver string
		want   []string
	}{
		{name: "lowercase driver warns of nothing", driver: "gpu.example.com"},
		{name: "driver with uppercase letters", driver: "GPU.Example.com",
			want: []string{`spec.driver: driver names should be lowercase; "GPU.Example.com" contains uppercase characters`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &resourcev1.ResourceSlice{Spec: resourcev1.ResourceSliceSpec{Driver: tc.driver}}
			if got := Strategy.WarningsOnCreate(context.Background(), s); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), s, s.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
