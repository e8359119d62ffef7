package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// securityPod is a valid pod, as defaulting leaves it, changed by f.
func securityPod(f func(*corev1.Pod)) func() *corev1.Pod {
	return func() *corev1.Pod {
		p := validPod()
		f(p)
		return p
	}
}

// TestPodSecurityContextValidation checks the rules of the pod's security
// context and of the container's that upstream adds to the rest, with
// kube-apiserver v1.37's messages, in its order.
func TestPodSecurityContextValidation(t *testing.T) {
	const idRange = "must be between 0 and 2147483647, inclusive"
	for _, tc := range []struct {
		name string
		pod  func() *corev1.Pod
		want []string
	}{
		{name: "a plain security context is valid", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{
				RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](1000), FSGroup: ptr.To[int64](2000), SupplementalGroups: []int64{0, 5},
				FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch), SupplementalGroupsPolicy: ptr.To(corev1.SupplementalGroupsPolicyStrict),
				SELinuxChangePolicy: ptr.To(corev1.SELinuxChangePolicyMountOption), SELinuxOptions: &corev1.SELinuxOptions{Level: "s0:c1"},
				Sysctls:         []corev1.Sysctl{{Name: "net.ipv4.ip_forward", Value: "1"}, {Name: "kernel/shm_rmid_forced", Value: "1"}},
				SeccompProfile:  &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To("prof")},
			}
		})},
		{name: "IDs out of range, unsupported policies, in upstream's order", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{
				RunAsUser: ptr.To[int64](-1), RunAsGroup: ptr.To[int64](-2), FSGroup: ptr.To[int64](-3), SupplementalGroups: []int64{-1, 5, 2147483648},
				FSGroupChangePolicy: ptr.To[corev1.PodFSGroupChangePolicy]("bad"), SupplementalGroupsPolicy: ptr.To[corev1.SupplementalGroupsPolicy]("bad"),
				SeccompProfile: &corev1.SeccompProfile{}, AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost},
				SELinuxChangePolicy: ptr.To[corev1.PodSELinuxChangePolicy]("bad"), WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("")},
			}
		}), want: []string{
			"spec.securityContext.fsGroup: Invalid value: -3: " + idRange,
			"spec.securityContext.runAsUser: Invalid value: -1: " + idRange,
			"spec.securityContext.runAsGroup: Invalid value: -2: " + idRange,
			"spec.securityContext.supplementalGroups[0]: Invalid value: -1: " + idRange,
			"spec.securityContext.supplementalGroups[2]: Invalid value: 2147483648: " + idRange,
			`spec.securityContext.fsGroupChangePolicy: Unsupported value: "bad": supported values: "Always", "OnRootMismatch"`,
			"spec.securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set",
			`spec.securityContext.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string`,
			"spec.securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost",
			`spec.securityContext.supplementalGroupsPolicy: Unsupported value: "bad": supported values: "Merge", "Strict"`,
			`spec.securityContext.seLinuxChangePolicy: Unsupported value: "bad": supported values: "MountOption", "Recursive"`,
		}},
		{name: "sysctls: names, duplicates, host namespaces", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.HostNetwork, p.Spec.HostIPC = true, true
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: ""}, {Name: "Bad!"}, {Name: "net.ipv4.ip_forward", Value: "1"}, {Name: "net.ipv4.ip_forward"},
				{Name: "kernel.shm_rmid_forced", Value: "x"}, {Name: "kernel/shm_rmid_forced"}, {Name: "kernel.msgmax"}, {Name: "fs.mqueue.foo"}, {Name: "vm.swappiness"}}
		}), want: []string{
			"spec.securityContext.sysctls[0].name: Required value",
			`spec.securityContext.sysctls[1].name: Invalid value: "Bad!": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`,
			`spec.securityContext.sysctls[2].name: Invalid value: "net.ipv4.ip_forward": may not be specified when 'hostNetwork' is true`,
			`spec.securityContext.sysctls[3].name: Duplicate value: "net.ipv4.ip_forward"`,
			`spec.securityContext.sysctls[3].name: Invalid value: "net.ipv4.ip_forward": may not be specified when 'hostNetwork' is true`,
			`spec.securityContext.sysctls[4].name: Invalid value: "kernel.shm_rmid_forced": may not be specified when 'hostIPC' is true`,
			`spec.securityContext.sysctls[5].name: Invalid value: "kernel/shm_rmid_forced": may not be specified when 'hostIPC' is true`,
			`spec.securityContext.sysctls[6].name: Invalid value: "kernel.msgmax": may not be specified when 'hostIPC' is true`,
			`spec.securityContext.sysctls[7].name: Invalid value: "fs.mqueue.foo": may not be specified when 'hostIPC' is true`,
		}},
		{name: "container AppArmor and Windows options after the rest of its security context, pod's after the containers", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}
			p.Spec.SecurityContext.AppArmorProfile = &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault, LocalhostProfile: ptr.To("x")}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{
				AppArmorProfile: &corev1.AppArmorProfile{Type: "Bad"},
				WindowsOptions:  &corev1.WindowsSecurityContextOptions{GMSACredentialSpecName: ptr.To("Bad_"), GMSACredentialSpec: ptr.To(""), RunAsUserName: ptr.To(`a\b\c`)},
			}
		}), want: []string{
			`spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: "Bad_": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string`,
			`spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: "a\\b\\c": runAsUserName cannot contain more than one backslash`,
			`spec.containers[0].securityContext.appArmorProfile.type: Unsupported value: "Bad": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
			"spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
			`spec.securityContext.appArmorProfile.localhostProfile: Invalid value: "x": can only be set when AppArmor type is Localhost`,
		}},
		{name: "AppArmor profiles of each kind of container", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.AppArmorProfile = &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To(" x ")}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{}}
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", TerminationMessagePolicy: "File", ImagePullPolicy: "Always",
				SecurityContext: &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To("")}}}}
		}), want: []string{
			"spec.containers[0].securityContext.appArmorProfile.type: Required value: type is required when appArmorProfile is set",
			"spec.initContainers[0].securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost",
			`spec.securityContext.appArmorProfile.localhostProfile: Invalid value: " x ": must not be padded with whitespace`,
		}},
		{name: "Windows user names", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To(`dom.ain\us*er`)}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To(`.bad:domain\..`)}}
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", TerminationMessagePolicy: "File", ImagePullPolicy: "Always",
				SecurityContext: &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("a\x01<b>")}}}}
		}), want: []string{
			`spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: ".bad:domain\\..": runAsUserName's Domain doesn't match the NetBios nor the DNS format`,
			`spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: ".bad:domain\\..": runAsUserName's User cannot contain only periods or spaces`,
			`spec.initContainers[0].securityContext.windowsOptions.runAsUserName: Invalid value: "a\u0001\u003cb\u003e": runAsUserName cannot contain control characters`,
			`spec.securityContext.windowsOptions.runAsUserName: Invalid value: "dom.ain\\us*er": runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`,
		}},
		{name: "host process: the pod's and a container's differ", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(false)}}
		}), want: []string{
			"spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true",
		}},
		{name: "host process: all containers and the host's network", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0])
			p.Spec.Containers[1].Name = "d"
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}}
		}), want: []string{
			`spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers`,
			"spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers",
		}},
		{name: "user namespaces share nothing else with the host", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.HostUsers = ptr.To(false)
			p.Spec.HostNetwork, p.Spec.HostPID, p.Spec.HostIPC = true, true, true
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}}}
			p.Spec.Containers[0].VolumeDevices = []corev1.VolumeDevice{{Name: "v", DevicePath: "/dev/x"}}
		}), want: []string{
			"spec.hostNetwork: Forbidden: when `hostUsers` is false",
			"spec.HostPID: Forbidden: when `hostUsers` is false",
			"spec.HostIPC: Forbidden: when `hostUsers` is false",
			"spec.containers[0].volumeDevices: Forbidden: when `hostUsers` is false",
		}},
		{name: "the host's process namespace is not shared", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.HostPID, p.Spec.ShareProcessNamespace = true, ptr.To(true)
		}), want: []string{"spec.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled"}},
		{name: "Linux pods: no Windows options", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.OS = &corev1.PodOS{Name: corev1.Linux}
			p.Spec.SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("x")}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("")}}
		}), want: []string{
			`spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string`,
			"spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
			"spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
		}},
		{name: "Windows pods: none of the Linux settings", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			p.Spec.HostUsers, p.Spec.HostPID, p.Spec.ShareProcessNamespace = ptr.To(true), true, ptr.To(false)
			p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](1), Sysctls: []corev1.Sysctl{{Name: "a", Value: "b"}},
				SELinuxOptions: &corev1.SELinuxOptions{Level: "x"}, AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}}
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(false), Capabilities: &corev1.Capabilities{},
				ReadOnlyRootFilesystem: ptr.To(true), ProcMount: ptr.To(corev1.DefaultProcMount), RunAsGroup: ptr.To[int64](3)}
		}), want: []string{
			"spec.securityContext.appArmorProfile: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.seLinuxOptions: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.sysctls: Forbidden: cannot be set for a windows pod",
			"spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod",
			"spec.hostUsers: Forbidden: cannot be set for a windows pod",
			"spec.hostPID: Forbidden: cannot be set for a windows pod",
			"spec.shareProcessNamespace: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.capabilities: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.readOnlyRootFilesystem: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.procMount: Forbidden: cannot be set for a windows pod",
			"spec.containers[0].securityContext.runAsGroup: Forbidden: cannot be set for a windows pod",
		}},
		{name: "an OS without a name", pod: securityPod(func(p *corev1.Pod) { p.Spec.OS = &corev1.PodOS{} }), want: []string{"spec.os.name: Required value"}},
		{name: "an unsupported OS", pod: securityPod(func(p *corev1.Pod) {
			p.Spec.OS = &corev1.PodOS{Name: "mac"}
			p.Spec.SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("x")}
		}), want: []string{`spec.os: Unsupported value: "mac": supported values: "linux", "windows"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), tc.pod()), tc.want)
		})
	}
}

// TestPodUpdateKeepsWhatTheStoredPodHas checks upstream's validation
// options of an update: a rule the stored pod already breaks does not
// stop the update, one it does not break does.
func TestPodUpdateKeepsWhatTheStoredPodHas(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		old  func(*corev1.Pod)
		want []string
	}{
		{name: "a host network sysctl", old: func(p *corev1.Pod) {
			p.Spec.HostNetwork = true
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}
		}, want: []string{`spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when 'hostNetwork' is true`}},
		{name: "the host network in a user namespace", old: func(p *corev1.Pod) {
			p.Spec.HostNetwork, p.Spec.HostUsers = true, ptr.To(false)
		}, want: []string{"spec.hostNetwork: Forbidden: when `hostUsers` is false"}},
		{name: "volume devices in a user namespace", old: func(p *corev1.Pod) {
			p.Spec.HostUsers = ptr.To(false)
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}}}
			p.Spec.Containers[0].VolumeDevices = []corev1.VolumeDevice{{Name: "v", DevicePath: "/dev/x"}}
		}, want: []string{"spec.containers[0].volumeDevices: Forbidden: when `hostUsers` is false"}},
		{name: "a deletion cost that is not a 32-bit integer", old: func(p *corev1.Pod) {
			p.Annotations = map[string]string{corev1.PodDeletionCost: "1.5"}
		}, want: []string{`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "1.5": must be a 32bit integer`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := validPod()
			tc.old(old)
			validatetest.ExpectErrors(t, Strategy.Validate(ctx, old.DeepCopy()), tc.want)
			n := old.DeepCopy()
			n.Spec.Containers[0].Image = "nginx:1.28"
			validatetest.ExpectErrors[*field.Error](t, Strategy.ValidateUpdate(ctx, n, old), nil)
		})
	}
}

// TestTolerationsBeforePriorityClassName checks upstream's order of the
// last checks of a pod spec.
func TestTolerationsBeforePriorityClassName(t *testing.T) {
	p := validPod()
	p.Spec.PriorityClassName = "Bad_"
	p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: "Bad"}}
	validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), p), []string{
		`spec.tolerations[0].operator: Unsupported value: "Bad": supported values: "Equal", "Exists"`,
		`spec.priorityClassName: Invalid value: "Bad_": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
	})
}
