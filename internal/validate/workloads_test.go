package validate

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestInternalValue checks the rendering of values the way upstream's
// messages show its internal (untagged) types: Go field names in
// declaration order, embedded structs inlined, metav1 types as tagged.
func TestInternalValueRendering(t *testing.T) {
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
