package pod

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// expectWarnings fails t unless got is want, in order.
func expectWarnings(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
		t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// warnedPod is a valid pod, as defaulting leaves it, changed by f.
func warnedPod(f func(*corev1.Pod)) *corev1.Pod {
	p := validPod()
	p.Name = "p"
	f(p)
	return p
}

func TestWarningsForPodSpecAndMeta(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want []string
	}{
		{name: "a plain pod has none", pod: warnedPod(func(*corev1.Pod) {})},
		{name: "deprecated node selector labels, in key order", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux", "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64"}
		}), want: []string{
			`spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`,
			`spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
		}},
		{name: "node affinity: deprecated keys, and values that are not label values only in preferred terms", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
					{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "beta.kubernetes.io/os", Operator: corev1.NodeSelectorOpIn, Values: []string{"-bad"}}}},
				}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 1, Preference: corev1.NodeSelectorTerm{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "failure-domain.beta.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "-bad"}}},
				}}},
			}}
		}), want: []string{
			`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead`,
			`spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
			`spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values[1]: -bad is invalid, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		}},
		{name: "topology spread: deprecated key and null label selector", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}},
				{MaxSkew: 1, TopologyKey: "failure-domain.beta.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule},
			}
		}), want: []string{
			`spec.topologySpreadConstraints[1].topologyKey: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
			`spec.topologySpreadConstraints[1].labelSelector: a null labelSelector results in matching no pod`,
		}},
		{name: "deprecated annotations, in upstream's order", pod: warnedPod(func(p *corev1.Pod) {
			p.Annotations = map[string]string{
				"security.alpha.kubernetes.io/unsafe-sysctls": "a=b",
				"security.alpha.kubernetes.io/sysctls":        "a=b",
				"scheduler.alpha.kubernetes.io/critical-pod":  "",
			}
		}), want: []string{
			`metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead`,
			`metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; use the "sysctls" field instead`,
			`metadata.annotations[security.alpha.kubernetes.io/unsafe-sysctls]: non-functional in v1.11+; use the "sysctls" field instead`,
		}},
		{name: "deprecated volume plugins, gitRepo disabled by default", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{
				{Name: "a", VolumeSource: corev1.VolumeSource{GitRepo: &corev1.GitRepoVolumeSource{Repository: "r"}}},
				{Name: "b", VolumeSource: corev1.VolumeSource{PhotonPersistentDisk: &corev1.PhotonPersistentDiskVolumeSource{PdID: "x"}}},
				{Name: "c", VolumeSource: corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{}}},
				{Name: "d", VolumeSource: corev1.VolumeSource{Flocker: &corev1.FlockerVolumeSource{}}},
				{Name: "e", VolumeSource: corev1.VolumeSource{StorageOS: &corev1.StorageOSVolumeSource{}}},
				{Name: "f", VolumeSource: corev1.VolumeSource{Quobyte: &corev1.QuobyteVolumeSource{}}},
				{Name: "g", VolumeSource: corev1.VolumeSource{Glusterfs: &corev1.GlusterfsVolumeSource{}}},
				{Name: "h", VolumeSource: corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{}}},
				{Name: "i", VolumeSource: corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{}}},
				{Name: "j", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			}
		}), want: []string{
			"spec.volumes[0].gitRepo: deprecated in v1.11, and disabled by default in v1.33+",
			"spec.volumes[1].photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+",
			"spec.volumes[2].scaleIO: deprecated in v1.16, non-functional in v1.22+",
			"spec.volumes[3].flocker: deprecated in v1.22, non-functional in v1.25+",
			"spec.volumes[4].storageOS: deprecated in v1.22, non-functional in v1.25+",
			"spec.volumes[5].quobyte: deprecated in v1.22, non-functional in v1.25+",
			"spec.volumes[6].glusterfs: deprecated in v1.25, non-functional in v1.26+",
			"spec.volumes[7].cephfs: deprecated in v1.28, non-functional in v1.31+",
			"spec.volumes[8].rbd: deprecated in v1.28, non-functional in v1.31+",
		}},
		{name: "ephemeral volume claim with fractional storage", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "e", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{
					Resources: corev1.VolumeResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1500m")},
						Limits:   corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")},
					},
				}},
			}}}}
		}), want: []string{
			`spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer`,
		}},
		{name: "overlapping paths in ConfigMap, Secret and downward API volumes", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{
				{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "conf"},
					Items:                []corev1.KeyToPath{{Key: "a", Path: "x"}, {Key: "b", Path: "x/y"}, {Key: "c", Path: "xy"}, {Key: "d", Path: "x/"}},
				}}},
				{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
					SecretName: "sec",
					Items:      []corev1.KeyToPath{{Key: "a", Path: "k"}, {Key: "b", Path: "k"}},
				}}},
				{Name: "d", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
					Items: []corev1.DownwardAPIVolumeFile{
						{Path: "l/n", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}},
						{Path: "l", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}},
					},
				}}},
			}
		}), want: []string{
			`volume "cm" (ConfigMap "conf"): overlapping paths: "x/y" with "x"`,
			`volume "cm" (ConfigMap "conf"): overlapping paths: "x" with "x"`,
			`volume "cm" (ConfigMap "conf"): overlapping paths: "x" with "x/y"`,
			`volume "s" (Secret "sec"): overlapping paths: "k" with "k"`,
			`volume "d" (DownwardAPI): overlapping paths: "l" with "l/n"`,
		}},
		{name: "projected volume: overlaps across sources and an empty source", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "conf"}, Items: []corev1.KeyToPath{{Key: "a", Path: "a"}}}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}, Items: []corev1.KeyToPath{{Key: "a", Path: "a/"}}}},
				{},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "a/token"}},
				{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{SignerName: ptr.To("example.com/s"), Path: "b"}},
				{PodCertificate: &corev1.PodCertificateProjection{KeyPath: "b", CertificateChainPath: "c"}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "whole"}}},
			}}}}}
		}), want: []string{
			`volume "p" (Projected): overlapping paths: "a" (Secret "sec") with "a" (ConfigMap "conf")`,
			`volume "p" (Projected) has no sources provided`,
			`volume "p" (Projected): overlapping paths: "a/token" (ServiceAccountToken) with "a" (ConfigMap "conf")`,
			`volume "p" (Projected): overlapping paths: "a/token" (ServiceAccountToken) with "a" (Secret "sec")`,
			`volume "p" (Projected): overlapping paths: "b" (PodCertificate key) with "b" (ClusterTrustBundle "example.com/s")`,
		}},
		{name: "duplicate host alias IPs and image pull secrets, empty secret name", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.HostAliases = []corev1.HostAlias{{IP: "10.0.0.1", Hostnames: []string{"a"}}, {IP: "10.0.0.1", Hostnames: []string{"b"}}}
			p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "s"}, {Name: ""}, {Name: "s"}}
		}), want: []string{
			`spec.hostAliases[1].ip: duplicate ip "10.0.0.1"`,
			`spec.imagePullSecrets[2].name: duplicate name "s"`,
			`spec.imagePullSecrets[1].name: invalid empty name ""`,
		}},
		{name: "fractional overhead and container memory and ephemeral storage", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1.5"), corev1.ResourceEphemeralStorage: resource.MustParse("100m"), corev1.ResourceCPU: resource.MustParse("100m")}
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1.5"), corev1.ResourceCPU: resource.MustParse("1.5")},
			}}}
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1.5Gi"), corev1.ResourceEphemeralStorage: resource.MustParse("10m")},
				Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("0.5"), corev1.ResourceEphemeralStorage: resource.MustParse("20m")},
			}
		}), want: []string{
			`spec.overhead[memory]: fractional byte value "1500m" is invalid, must be an integer`,
			`spec.overhead[ephemeral-storage]: fractional byte value "100m" is invalid, must be an integer`,
			`spec.initContainers[0].resources.requests[memory]: fractional byte value "1500m" is invalid, must be an integer`,
			`spec.containers[0].resources.requests[memory]: fractional byte value "500m" is invalid, must be an integer`,
			`spec.containers[0].resources.limits[ephemeral-storage]: fractional byte value "10m" is invalid, must be an integer`,
			`spec.containers[0].resources.requests[ephemeral-storage]: fractional byte value "20m" is invalid, must be an integer`,
		}},
		{name: "seccomp annotations without the fields", pod: warnedPod(func(p *corev1.Pod) {
			p.Annotations = map[string]string{
				"seccomp.security.alpha.kubernetes.io/pod":            "runtime/default",
				"container.seccomp.security.alpha.kubernetes.io/c":    "runtime/default",
				"container.seccomp.security.alpha.kubernetes.io/d":    "runtime/default",
				"container.seccomp.security.alpha.kubernetes.io/none": "runtime/default",
			}
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "d", Image: "nginx", SecurityContext: &corev1.SecurityContext{
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			}})
		}), want: []string{
			`metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead`,
			`metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: non-functional in v1.27+; use the "seccompProfile" field instead`,
		}},
		{name: "seccomp pod annotation with the field", pod: warnedPod(func(p *corev1.Pod) {
			p.Annotations = map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "runtime/default"}
			p.Spec.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
		})},
		{name: "a pod's AppArmor annotations are not the spec's warnings", pod: warnedPod(func(p *corev1.Pod) {
			p.Annotations = map[string]string{"container.apparmor.security.beta.kubernetes.io/c": "runtime/default"}
		})},
		{name: "environment variables defined again", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{
				{Name: "A", Value: "a"},
				{Name: "A", Value: "$(A)b"},
				{Name: "A", Value: "$(A)"},
				{Name: "A", Value: "c"},
				{Name: "A", Value: "$(A)", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				{Name: "B", Value: "b"},
			}
		}), want: []string{
			`spec.containers[0].env[2]: hides previous definition of "A", which may be dropped when using apply`,
			`spec.containers[0].env[3]: hides previous definition of "A", which may be dropped when using apply`,
			`spec.containers[0].env[4]: hides previous definition of "A", which may be dropped when using apply`,
		}},
		{name: "ports: host IP without host port, duplicates, overlaps, ambiguity, names", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", Ports: []corev1.ContainerPort{
				{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP},
			}}}
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{
				{ContainerPort: 53, Protocol: corev1.ProtocolUDP, HostIP: "10.0.0.1"},
				{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP},
				{ContainerPort: 80, Protocol: corev1.ProtocolUDP},
				{ContainerPort: 443, Protocol: corev1.ProtocolTCP, HostPort: 8443},
				{ContainerPort: 443, Protocol: corev1.ProtocolTCP},
				{ContainerPort: 8080, Protocol: corev1.ProtocolTCP, HostPort: 8080},
				{ContainerPort: 8080, Protocol: corev1.ProtocolTCP, HostPort: 8080, HostIP: "10.0.0.1"},
				{ContainerPort: 8080, Protocol: corev1.ProtocolTCP, HostPort: 9090, HostIP: "10.0.0.1"},
			}
		}), want: []string{
			`spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:53 Protocol:UDP HostIP:10.0.0.1}`,
			`spec.containers[0].ports[1]: duplicate port definition with spec.initContainers[0].ports[0]`,
			`spec.containers[0].ports[4]: overlapping port definition with spec.containers[0].ports[3]`,
			`spec.containers[0].ports[6]: dangerously ambiguous port definition with spec.containers[0].ports[5]`,
			`spec.containers[0].ports[1]: duplicate port name "http" with spec.initContainers[0].ports[0], services and probes that select ports by name will use spec.initContainers[0].ports[0]`,
		}},
		{name: "ephemeral containers are visited last, at their own path", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "p", ContainerPort: 80, Protocol: corev1.ProtocolTCP}}
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: "e", Image: "busybox",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1.5")}},
				Ports:     []corev1.ContainerPort{{Name: "p", ContainerPort: 81, Protocol: corev1.ProtocolTCP}},
			}}}
		}), want: []string{
			`spec.ephemeralContainers[0].resources.limits[memory]: fractional byte value "1500m" is invalid, must be an integer`,
			`spec.ephemeralContainers[0].ports[0]: duplicate port name "p" with spec.containers[0].ports[0], services and probes that select ports by name will use spec.containers[0].ports[0]`,
		}},
		{name: "negative termination grace period", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](-1)
		}), want: []string{"spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"}},
		{name: "pod (anti-)affinity terms without a label selector", pod: warnedPod(func(p *corev1.Pod) {
			term := corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname"}
			selected := corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{}}
			p.Spec.Affinity = &corev1.Affinity{
				PodAffinity: &corev1.PodAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution:  []corev1.PodAffinityTerm{selected, term},
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: term}},
				},
				PodAntiAffinity: &corev1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution:  []corev1.PodAffinityTerm{term},
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: selected}, {Weight: 1, PodAffinityTerm: term}},
				},
			}
		}), want: []string{
			"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].labelSelector: a null labelSelector results in matching no pod",
			"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod",
			"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a null labelSelector results in matching no pod",
			"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod",
		}},
		{name: "nameservers and host alias IPs in a deprecated form", pod: warnedPod(func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "010.000.000.001", "2001:DB8::1"}}
			p.Spec.HostAliases = []corev1.HostAlias{{IP: "::ffff:10.0.0.1", Hostnames: []string{"a"}}}
		}), want: []string{
			`spec.dnsConfig.nameservers[1]: non-standard IP address "010.000.000.001" is invalid: use "10.0.0.1"`,
			`spec.dnsConfig.nameservers[2]: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")`,
			`spec.hostAliases[0].ip: non-standard IP address "::ffff:10.0.0.1" is invalid: use "10.0.0.1"`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectWarnings(t, WarningsForPod(tc.pod, nil), tc.want)
		})
	}
}

func TestWarningsForPodTemplate(t *testing.T) {
	fld := field.NewPath("spec", "template")
	template := func(f func(*corev1.PodTemplateSpec)) *corev1.PodTemplateSpec {
		p := validPod()
		t := &corev1.PodTemplateSpec{Spec: p.Spec}
		f(t)
		return t
	}
	const appArmorKey = "container.apparmor.security.beta.kubernetes.io/c"
	for _, tc := range []struct {
		name string
		tmpl *corev1.PodTemplateSpec
		want []string
	}{
		{name: "a nil template has none"},
		{name: "paths start at the template", tmpl: template(func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{"scheduler.alpha.kubernetes.io/critical-pod": "", "seccomp.security.alpha.kubernetes.io/pod": "unconfined"}
			t.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
			t.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1.5")}
		}), want: []string{
			`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
			`spec.template.metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead`,
			`spec.template.metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead`,
			`spec.template.spec.containers[0].resources.limits[memory]: fractional byte value "1500m" is invalid, must be an integer`,
		}},
		{name: "AppArmor annotation without the field or a pod profile", tmpl: template(func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{appArmorKey: "runtime/default"}
		}), want: []string{`spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead`}},
		{name: "AppArmor annotation matching the pod profile", tmpl: template(func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{appArmorKey: "localhost/prof"}
			t.Spec.SecurityContext = &corev1.PodSecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To("prof")}}
		})},
		{name: "AppArmor annotation differing from the pod profile", tmpl: template(func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{appArmorKey: "unconfined"}
			t.Spec.SecurityContext = &corev1.PodSecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}}
		}), want: []string{`spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead`}},
		{name: "AppArmor annotation with the container field", tmpl: template(func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{appArmorKey: "unconfined"}
			t.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}}
		})},
		{name: "AppArmor annotation of no container", tmpl: template(func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{"container.apparmor.security.beta.kubernetes.io/other": "unconfined"}
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectWarnings(t, WarningsForPodTemplate(fld, tc.tmpl, nil), tc.want)
		})
	}
}

func TestPodWarningsOnCreate(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want []string
	}{
		{name: "a DNS label name has none", pod: warnedPod(func(p *corev1.Pod) { p.Name = "web-0" })},
		{name: "a name with dots", pod: warnedPod(func(p *corev1.Pod) { p.Name = "web.example" }), want: []string{
			"metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
		}},
		{name: "a name too long for a label", pod: warnedPod(func(p *corev1.Pod) { p.Name = strings.Repeat("a", 64) }), want: []string{
			"metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must be no more than 63 characters]",
		}},
		{name: "name warning before the spec's", pod: warnedPod(func(p *corev1.Pod) {
			p.Name = "a.b"
			p.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/arch": "amd64"}
		}), want: []string{
			"metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
			`spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`,
		}},
		{name: "AppArmor annotations give none here (see TestPrepareForCreateAppliesAppArmorAnnotations)", pod: warnedPod(func(p *corev1.Pod) {
			p.Annotations = map[string]string{"container.apparmor.security.beta.kubernetes.io/c": "runtime/default"}
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectWarnings(t, Strategy.WarningsOnCreate(ctx, tc.pod), tc.want)
		})
	}
}

func TestPodWarningsOnUpdateAndStatus(t *testing.T) {
	ctx := context.Background()
	old := warnedPod(func(*corev1.Pod) {})
	t.Run("an update of the pod has none", func(t *testing.T) {
		p := warnedPod(func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/arch": "amd64"}
			p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](-1)
		})
		expectWarnings(t, Strategy.WarningsOnUpdate(ctx, p, old), nil)
	})
	for _, tc := range []struct {
		name   string
		status corev1.PodStatus
		want   []string
	}{
		{name: "standard IPs have none", status: corev1.PodStatus{
			PodIPs:  []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "2001:db8::1"}},
			HostIPs: []corev1.HostIP{{IP: "192.168.0.1"}},
		}},
		{name: "pod and host IPs in a deprecated form", status: corev1.PodStatus{
			PodIPs:  []corev1.PodIP{{IP: "010.0.0.1"}, {IP: "2001:db8:0:0::1"}},
			HostIPs: []corev1.HostIP{{IP: "192.168.0.1"}, {IP: "::ffff:192.168.0.1"}},
		}, want: []string{
			`status.podIPs[0].ip: non-standard IP address "010.0.0.1" is invalid: use "10.0.0.1"`,
			`status.podIPs[1].ip: IPv6 address "2001:db8:0:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`,
			`status.hostIPs[1].ip: non-standard IP address "::ffff:192.168.0.1" is invalid: use "192.168.0.1"`,
		}},
	} {
		t.Run("status: "+tc.name, func(t *testing.T) {
			p := warnedPod(func(p *corev1.Pod) { p.Status = tc.status })
			expectWarnings(t, Strategy.WarningsOnStatusUpdate(ctx, p, old), tc.want)
		})
	}
}
