package pod

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
)

// gatedSpec is a pod spec with a field of each default-off gate; without
// names the gates whose fields are left out.
func gatedSpec(without ...string) *corev1.PodSpec {
	s := &corev1.PodSpec{
		SchedulingGroup:    &corev1.PodSchedulingGroup{PodGroupName: ptr.To("g")},
		EvictionResponders: []corev1.EvictionResponder{{Name: "a.example.com/r"}},
		Volumes: []corev1.Volume{
			{Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Mode: ptr.To[int32](0o700)}}},
			{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultUser: ptr.To[int64](1)}}},
		},
		Containers: []corev1.Container{{
			Name:           "c",
			Lifecycle:      &corev1.Lifecycle{StopSignal: ptr.To(corev1.SIGTERM)},
			LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 1, Mode: ptr.To(corev1.GRPCProbeMode("TLS"))}}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Protocol: ptr.To(corev1.HTTPProtocol("H2C"))}}},
			VolumeMounts:   []corev1.VolumeMount{{Name: "e", MountPath: "/e", BindMountOptions: []string{"ro"}}},
		}},
	}
	for _, gate := range without {
		switch gate {
		case "GenericWorkload":
			s.SchedulingGroup = nil
		case "EvictionRequestAPI":
			s.EvictionResponders = nil
		case "EmptyDirVolumeMode":
			s.Volumes[0].EmptyDir.Mode = nil
		case "AtomicWriteVolumeUserFields":
			s.Volumes[1].Secret.DefaultUser = nil
		case "ContainerStopSignals":
			s.Containers[0].Lifecycle = nil
		case "GRPCContainerProbeTLS":
			s.Containers[0].LivenessProbe.GRPC.Mode = nil
		case "H2CContainerProbe":
			s.Containers[0].ReadinessProbe.HTTPGet.Protocol = nil
		case "VolumeBindMountOptions":
			s.Containers[0].VolumeMounts[0].BindMountOptions = nil
		}
	}
	return s
}

// podSpecGates names the gates gatedSpec knows.
var podSpecGates = []string{"GenericWorkload", "EvictionRequestAPI", "EmptyDirVolumeMode", "AtomicWriteVolumeUserFields",
	"ContainerStopSignals", "GRPCContainerProbeTLS", "H2CContainerProbe", "VolumeBindMountOptions"}

// TestDropDisabledSpecFieldsPerGate checks that a create drops every
// default-off gate's field, and that an update keeps the fields of the
// gate the stored spec uses and drops the others.
func TestDropDisabledSpecFieldsPerGate(t *testing.T) {
	t.Run("create", func(t *testing.T) {
		got := gatedSpec()
		DropDisabledSpecFields(got, nil)
		if want := gatedSpec(podSpecGates...); !equality.Semantic.DeepEqual(got, want) {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
	})
	for i, gate := range podSpecGates {
		t.Run("update of a spec using "+gate, func(t *testing.T) {
			others := append(append([]string{}, podSpecGates[:i]...), podSpecGates[i+1:]...)
			got := gatedSpec()
			DropDisabledSpecFields(got, gatedSpec(others...))
			if want := gatedSpec(others...); !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}
