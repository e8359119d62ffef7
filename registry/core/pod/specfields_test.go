package pod

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

const subdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

// TestPodSpecFieldsValidation checks volume devices, host-network ports,
// host aliases, the RuntimeClass name, the overhead, the hostname override
// and token projections without a service account, with the messages a
// kube-apiserver v1.37 answered for the same pods, in its order.
func TestPodSpecFieldsValidation(t *testing.T) {
	claim := corev1.Volume{Name: "p", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "x"}}}
	ephemeral := corev1.Volume{Name: "q", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeMode: ptr.To(corev1.PersistentVolumeFilesystem),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}}}}}}}
	empty := corev1.Volume{Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	for _, tc := range []struct {
		name     string
		mutate   func(*corev1.Pod)
		wantErrs []string
	}{
		{"a volume device of an unknown volume", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeDevices = []corev1.VolumeDevice{{Name: "v", DevicePath: "/dev/x"}}
		}, []string{`spec.containers[0].volumeDevices[0].name: Not found: "v"`}},
		{"claim-backed volume devices are valid", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{claim}
			p.Spec.Containers[0].VolumeDevices = []corev1.VolumeDevice{{Name: "p", DevicePath: "/dev/x"}}
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", TerminationMessagePolicy: "File", ImagePullPolicy: "Always",
				VolumeDevices: []corev1.VolumeDevice{{Name: "p", DevicePath: "/dev/x"}}}}
		}, nil},
		{"volume devices: source, uniqueness, paths and overlap with mounts", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{empty, claim, ephemeral}
			c := &p.Spec.Containers[0]
			c.VolumeMounts = []corev1.VolumeMount{{Name: "p", MountPath: "/dev/y"}, {Name: "e", MountPath: "/m"}}
			c.VolumeDevices = []corev1.VolumeDevice{{Name: "e", DevicePath: "/dev/x"}, {Name: "p", DevicePath: "/dev/x"}, {}, {Name: "q", DevicePath: "/a/../b"}, {Name: "q", DevicePath: "/m"}, {Name: "q", DevicePath: "/dev/y"}}
		}, []string{
			`spec.containers[0].volumeMounts[0].name: Invalid value: "p": must not already exist in volumeDevices`,
			`spec.containers[0].volumeMounts[0].mountPath: Invalid value: "/dev/y": must not already exist as a path in volumeDevices`,
			`spec.containers[0].volumeMounts[1].name: Invalid value: "e": must not already exist in volumeDevices`,
			`spec.containers[0].volumeDevices[0].name: Invalid value: "e": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode`,
			`spec.containers[0].volumeDevices[0].name: Invalid value: "e": must not already exist in volumeMounts`,
			`spec.containers[0].volumeDevices[1].devicePath: Invalid value: "/dev/x": must be unique`,
			`spec.containers[0].volumeDevices[1].name: Invalid value: "p": must not already exist in volumeMounts`,
			`spec.containers[0].volumeDevices[2].name: Required value`,
			`spec.containers[0].volumeDevices[2].name: Not found: ""`,
			`spec.containers[0].volumeDevices[2].devicePath: Required value`,
			`spec.containers[0].volumeDevices[3].devicePath: Invalid value: "/a/../b": can not contain backsteps ('..')`,
			`spec.containers[0].volumeDevices[4].name: Invalid value: "q": must be unique`,
			`spec.containers[0].volumeDevices[4].devicePath: Invalid value: "/m": must not already exist as a path in volumeMounts`,
			`spec.containers[0].volumeDevices[5].name: Invalid value: "q": must be unique`,
			`spec.containers[0].volumeDevices[5].devicePath: Invalid value: "/dev/y": must not already exist as a path in volumeMounts`,
		}},
		{"a host-network pod's hostPort must be its containerPort (regular containers only)", func(p *corev1.Pod) {
			p.Spec.HostNetwork = true
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 81, Protocol: "TCP"}, {ContainerPort: 90, HostPort: 90, Protocol: "TCP"}}
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", TerminationMessagePolicy: "File", ImagePullPolicy: "Always",
				Ports: []corev1.ContainerPort{{ContainerPort: 70, HostPort: 71, Protocol: "TCP"}}}}
		}, []string{"spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true"}},
		{"host aliases", func(p *corev1.Pod) {
			p.Spec.HostAliases = []corev1.HostAlias{{Hostnames: []string{"a"}}, {IP: "1.2.3", Hostnames: []string{"Bad_Host", "ok.example"}}, {IP: "::1", Hostnames: []string{""}}, {IP: "010.1.1.1"}}
		}, []string{
			`spec.hostAliases[0].ip: Invalid value: "": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`spec.hostAliases[1].ip: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`spec.hostAliases[1].hostnames[0]: Invalid value: "Bad_Host": ` + subdomainMsg,
			`spec.hostAliases[2].hostnames[0]: Invalid value: "": ` + subdomainMsg,
			`spec.hostAliases[3].ip: Invalid value: "010.1.1.1": must not have leading 0s`,
		}},
		{"runtimeClassName is an object name", func(p *corev1.Pod) { p.Spec.RuntimeClassName = ptr.To("Bad_RC") },
			[]string{`spec.runtimeClassName: Invalid value: "Bad_RC": ` + subdomainMsg}},
		{"overhead is checked as container limits", func(p *corev1.Pod) {
			p.Spec.Overhead = corev1.ResourceList{"cpu": resource.MustParse("-1"), "foo": resource.MustParse("1"), "memory": resource.MustParse("1Gi")}
		}, []string{
			`spec.overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
			`spec.overhead.limits[foo]: Invalid value: "foo": must be a standard resource type or fully qualified`,
			`spec.overhead.limits[foo]: Invalid value: "foo": must be a standard resource for containers`,
		}},
		{"hostnameOverride with setHostnameAsFQDN and hostNetwork", func(p *corev1.Pod) {
			p.Spec.HostnameOverride = ptr.To("Bad_Name")
			p.Spec.HostNetwork = true
			p.Spec.SetHostnameAsFQDN = ptr.To(true)
		}, []string{
			"spec.hostnameOverride: Forbidden: may not be specified when setHostnameAsFQDN is true",
			"spec.hostnameOverride: Forbidden: may not be specified when hostNetwork is true",
			`spec.hostnameOverride: Invalid value: "Bad_Name": ` + subdomainMsg,
		}},
		{"hostnameOverride of more than 64 bytes", func(p *corev1.Pod) { p.Spec.HostnameOverride = ptr.To(strings.Repeat("a", 71)) },
			[]string{"spec.hostnameOverride: Too long: may not be more than 64 bytes"}},
		{"a valid hostnameOverride", func(p *corev1.Pod) { p.Spec.HostnameOverride = ptr.To("ok.example") }, nil},
		{"a token projection needs a service account", func(p *corev1.Pod) {
			p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount = "", "" //nolint:staticcheck // kept in sync as upstream requires
			p.Spec.Volumes = []corev1.Volume{{Name: "t", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "x"}}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t", ExpirationSeconds: ptr.To[int64](3600)}},
			}}}}}
		}, []string{"spec.volumes[0].projected.sources[1].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount = "default", "default" //nolint:staticcheck // kept in sync as upstream requires
			tc.mutate(p)
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), p), tc.wantErrs)
		})
	}
}

// TestPodTemplateSpecFieldsValidation checks that a template, unlike a
// pod, may leave a host-network container's hostPort unset, and reports
// the new spec fields under the template's path (messages as a
// kube-apiserver v1.37 answered for a Deployment).
func TestPodTemplateSpecFieldsValidation(t *testing.T) {
	tmpl := &corev1.PodTemplateSpec{Spec: validPod().Spec}
	tmpl.Spec.HostNetwork = true
	tmpl.Spec.RuntimeClassName = ptr.To("Bad_RC")
	tmpl.Spec.HostAliases = []corev1.HostAlias{{IP: "x"}}
	tmpl.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: "TCP"}, {ContainerPort: 81, HostPort: 82, Protocol: "TCP"}}
	validatetest.ExpectErrors(t, ValidatePodTemplateSpec(context.Background(), tmpl, field.NewPath("spec", "template")), []string{
		"spec.template.spec.containers[0].ports[1].hostPort: Invalid value: 82: must match `containerPort` when `hostNetwork` is true",
		`spec.template.spec.hostAliases[0].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
		`spec.template.spec.runtimeClassName: Invalid value: "Bad_RC": ` + subdomainMsg,
	})
}
