package server

import (
	"encoding/json"
	"github.com/fakeplane/fakeplane/internal/validate"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestDedupErrors(t *testing.T) {
	a := field.Invalid(field.NewPath("metadata", "labels"), "x y", "bad")
	b := field.Required(field.NewPath("spec", "x"), "")
	got := validate.Dedup(field.ErrorList{a, b, a, b})
	if len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("dedupErrors kept %v", got)
	}
}

// TestInternalValue checks the rendering of values the way upstream's
// messages show its internal (untagged) types: Go field names in
// declaration order, embedded structs inlined, metav1 types as tagged.
func TestInternalValue(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{appsv1.DeploymentStrategy{Type: "Foo"}, `{"Type":"Foo","RollingUpdate":null}`},
		{corev1.ServicePort{Protocol: "TCP", Port: 80}, `{"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}`},
		{[]corev1.PodIP{{IP: "10.0.0.1"}}, `[{"IP":"10.0.0.1"}]`},
		{corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}, `{"Name":"c","Items":null,"DefaultMode":null,"Optional":null,"DefaultUser":null}`},
		{corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "v"}}, `{"Spec":{"AccessModes":null,"Selector":null,"Resources":{"Limits":null,"Requests":null},"VolumeName":"v","StorageClassName":null,"VolumeMode":null,"DataSource":null,"DataSourceRef":null,"VolumeAttributesClassName":null},"Status":{"Phase":"","AccessModes":null,"Capacity":null,"Conditions":null,"AllocatedResources":null,"AllocatedResourceStatuses":null,"CurrentVolumeAttributesClassName":null,"ModifyVolumeStatus":null,"HealthStatus":null}}`},
	} {
		b, err := json.Marshal(internalValue(tc.v))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%T:\n got %s\nwant %s", tc.v, b, tc.want)
		}
	}
}

func TestValidateSchedule(t *testing.T) {
	fld := field.NewPath("spec", "schedule")
	for schedule, want := range map[string][]string{
		"*/5 * * * *":      nil,
		"@hourly":          nil,
		"61 * * * *":       {"end of range (61) above maximum (59): 61"},
		"not a schedule":   {"expected exactly 5 fields, found 3: [not a schedule]"},
		"TZ=UTC 0 * * * *": {"cannot use TZ or CRON_TZ in schedule, use timeZone field instead"},
	} {
		var got []string
		for _, e := range validateSchedule(schedule, false, nil, fld) {
			got = append(got, e.Detail)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q, want %q", schedule, got, want)
		}
	}
}
