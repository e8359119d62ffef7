package lease

import (
	"context"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
)

func TestLeaseStrategy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lease *coordinationv1.Lease
		want  []string
	}{
		{name: "valid", lease: &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](15)}}},
		{name: "bad durations", lease: &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](0), LeaseTransitions: ptr.To[int32](-1)}}, want: []string{
			"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
			"spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
		}},
		{name: "strategy fields dropped", lease: &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{PreferredHolder: ptr.To("h"), Strategy: ptr.To[coordinationv1.CoordinatedLeaseStrategy]("Bad")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Strategy.Default(tc.lease)
			var got []string
			for _, e := range Strategy.Validate(context.Background(), tc.lease) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestValidateLeaseStrategyFields(t *testing.T) {
	errs := validateLease(&coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{PreferredHolder: ptr.To("h"), Strategy: ptr.To[coordinationv1.CoordinatedLeaseStrategy]("Bad")}})
	want := `spec.strategy.strategy: Unsupported value: "Bad": supported values: "OldestEmulationVersion"`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("errors %v, want %s", errs, want)
	}
}
