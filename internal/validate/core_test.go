package validate

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

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
		b, err := json.Marshal(InternalValue(tc.v))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%T:\n got %s\nwant %s", tc.v, b, tc.want)
		}
	}
}

func TestIntOrPercent(t *testing.T) {
	fld := field.NewPath("f")
	for _, tc := range []struct {
		v    intstr.IntOrString
		want []string
	}{
		{intstr.FromInt32(1), nil},
		{intstr.FromInt32(-1), []string{"f: Invalid value: -1: must be greater than or equal to 0"}},
		{intstr.FromString("50%"), nil},
		{intstr.FromString("150%"), []string{`f: Invalid value: "150%": must not be greater than 100%`}},
		{intstr.FromString("x"), []string{`f: Invalid value: "x": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`}},
	} {
		var got []string
		for _, e := range append(PositiveIntOrPercent(tc.v, fld), NotMoreThan100Percent(tc.v, fld)...) {
			got = append(got, e.Error())
		}
		if len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
			t.Errorf("%v: got %q, want %q", tc.v, got, tc.want)
		}
	}
}
