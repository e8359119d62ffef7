package pod

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilsysctl "k8s.io/component-helpers/node/util/sysctl"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// The security rules of kube-apiserver v1.37's pod validation: the pod's
// security context (upstream's validatePodSpecSecurityContext), the
// Windows options and AppArmor profile of pods and containers, user
// namespaces (hostUsers), host process pods, and the rules of spec.os,
// with upstream's messages and with its feature gates at their v1.37
// defaults (SELinuxMount on: every seLinuxChangePolicy; PodDeletionCost on;
// UserNamespacesHostNetworkSupport off).

// podOptions are the parts of upstream's PodValidationOptions the rules
// here read. Their zero value is a create's (and a template's, whose
// validation fakeplane runs without the stored template); an update takes
// them from the stored pod (updateOptions), so that it may keep what that
// pod already has.
type podOptions struct {
	// allowInvalidDeletionCost: the stored pod's deletion cost
	// annotation is already not a 32-bit integer.
	allowInvalidDeletionCost bool
	// allowHostNamespaceSysctls: the stored pod already sets a sysctl of
	// a namespace it shares with the host (net with hostNetwork, IPC
	// with hostIPC).
	allowHostNamespaceSysctls bool
	// allowUserNamespacesHostNetwork: the stored pod already has
	// hostNetwork with hostUsers false.
	allowUserNamespacesHostNetwork bool
	// allowUserNamespacesVolumeDevices: the stored pod already has
	// volume devices with hostUsers false.
	allowUserNamespacesVolumeDevices bool
	// allowRestartContainerInitContainers: the stored pod already has a
	// non-sidecar init container with a RestartContainer resize policy.
	allowRestartContainerInitContainers bool
	// disallowPrivileged is kube-apiserver's --allow-privileged=false
	// (WithPrivilegedDisallowed): privileged and host process
	// containers are refused.
	disallowPrivileged bool
}

// privilegedDisallowedKey carries WithPrivilegedDisallowed in a context.
type privilegedDisallowedKey struct{}

// WithPrivilegedDisallowed is ctx of a control plane started as
// kube-apiserver with --allow-privileged=false: the pod and pod template
// validation of a request with it refuses privileged and host process
// containers, as upstream's does.
func WithPrivilegedDisallowed(ctx context.Context) context.Context {
	return context.WithValue(ctx, privilegedDisallowedKey{}, true)
}

// withClusterPolicy is o with the cluster policy ctx carries.
func (o podOptions) withClusterPolicy(ctx context.Context) podOptions {
	o.disallowPrivileged, _ = ctx.Value(privilegedDisallowedKey{}).(bool)
	return o
}

// updateOptions are the options of an update of the stored pod old
// (upstream's GetValidationOptionsFromPodSpecAndMeta with an old pod).
func updateOptions(old *corev1.Pod) podOptions {
	var opts podOptions
	if _, err := deletionCost(old.Annotations); err != nil {
		opts.allowInvalidDeletionCost = true
	}
	if sc := old.Spec.SecurityContext; sc != nil {
		for _, s := range sc.Sysctls {
			if hostSysctl(s.Name, &old.Spec, nil) != nil {
				opts.allowHostNamespaceSysctls = true
				break
			}
		}
	}
	for _, c := range old.Spec.InitContainers {
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			for _, p := range c.ResizePolicy {
				opts.allowRestartContainerInitContainers = opts.allowRestartContainerInitContainers || p.RestartPolicy == corev1.RestartContainer
			}
		}
	}
	userNamespaces := old.Spec.HostUsers != nil && !*old.Spec.HostUsers
	opts.allowUserNamespacesHostNetwork = userNamespaces && old.Spec.HostNetwork
	if userNamespaces {
		visitContainersWithPath(&old.Spec, nil, func(c *corev1.Container, _ *field.Path) {
			opts.allowUserNamespacesVolumeDevices = opts.allowUserNamespacesVolumeDevices || len(c.VolumeDevices) > 0
		})
	}
	return opts
}

// sysctlSegment is one dot- or slash-separated part of a sysctl name.
const sysctlSegment = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"

// sysctlName is what a sysctl name must match (upstream's
// sysctlContainSlashRegexp), and maxSysctlName its longest length.
var sysctlName = regexp.MustCompile("^(" + sysctlSegment + `[\./])*` + sysctlSegment + "$")

const maxSysctlName = 253

// validatePodSecurityContext is upstream's validatePodSpecSecurityContext:
// the pod's user and group IDs, sysctls, fsGroupChangePolicy, seccomp
// profile, Windows options, AppArmor profile, supplementalGroupsPolicy and
// seLinuxChangePolicy. fld is the spec's path.
func validatePodSecurityContext(s *corev1.PodSpec, fld *field.Path, opts podOptions) field.ErrorList {
	sc := s.SecurityContext
	if sc == nil {
		return nil
	}
	scf := fld.Child("securityContext")
	var errs field.ErrorList
	if sc.FSGroup != nil {
		for _, msg := range validation.IsValidGroupID(*sc.FSGroup) {
			errs = append(errs, field.Invalid(scf.Child("fsGroup"), *sc.FSGroup, msg))
		}
	}
	if sc.RunAsUser != nil {
		for _, msg := range validation.IsValidUserID(*sc.RunAsUser) {
			errs = append(errs, field.Invalid(scf.Child("runAsUser"), *sc.RunAsUser, msg))
		}
	}
	if sc.RunAsGroup != nil {
		for _, msg := range validation.IsValidGroupID(*sc.RunAsGroup) {
			errs = append(errs, field.Invalid(scf.Child("runAsGroup"), *sc.RunAsGroup, msg))
		}
	}
	for i, gid := range sc.SupplementalGroups {
		for _, msg := range validation.IsValidGroupID(gid) {
			errs = append(errs, field.Invalid(scf.Child("supplementalGroups").Index(i), gid, msg))
		}
	}
	errs = append(errs, validateSysctls(sc.Sysctls, s, scf.Child("sysctls"), opts)...)
	if p := sc.FSGroupChangePolicy; p != nil && *p != corev1.FSGroupChangeAlways && *p != corev1.FSGroupChangeOnRootMismatch {
		errs = append(errs, field.NotSupported(scf.Child("fsGroupChangePolicy"), p, []string{string(corev1.FSGroupChangeAlways), string(corev1.FSGroupChangeOnRootMismatch)}))
	}
	errs = append(errs, validateSeccompProfileField(sc.SeccompProfile, scf.Child("seccompProfile"))...)
	errs = append(errs, validateWindowsOptions(sc.WindowsOptions, scf.Child("windowsOptions"))...)
	errs = append(errs, validateAppArmorProfileField(sc.AppArmorProfile, scf.Child("appArmorProfile"))...)
	if p := sc.SupplementalGroupsPolicy; p != nil && *p != corev1.SupplementalGroupsPolicyMerge && *p != corev1.SupplementalGroupsPolicyStrict {
		errs = append(errs, field.NotSupported(scf.Child("supplementalGroupsPolicy"), p, []string{string(corev1.SupplementalGroupsPolicyMerge), string(corev1.SupplementalGroupsPolicyStrict)}))
	}
	if p := sc.SELinuxChangePolicy; p != nil && *p != corev1.SELinuxChangePolicyMountOption && *p != corev1.SELinuxChangePolicyRecursive {
		errs = append(errs, field.NotSupported(scf.Child("seLinuxChangePolicy"), *p, []string{string(corev1.SELinuxChangePolicyMountOption), string(corev1.SELinuxChangePolicyRecursive)}))
	}
	return errs
}

// validateSysctls is upstream's validateSysctls: each name is set, well
// formed and given once, and, unless opts allow it, not of a namespace the
// pod shares with the host. Values are not checked.
func validateSysctls(sysctls []corev1.Sysctl, s *corev1.PodSpec, fld *field.Path, opts podOptions) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, sc := range sysctls {
		nf := fld.Index(i).Child("name")
		switch {
		case sc.Name == "":
			errs = append(errs, field.Required(nf, ""))
		case len(sc.Name) > maxSysctlName || !sysctlName.MatchString(sc.Name):
			errs = append(errs, field.Invalid(nf, sc.Name, fmt.Sprintf("must have at most %d characters and match regex %s", maxSysctlName, sysctlName)))
		case names.Has(sc.Name):
			errs = append(errs, field.Duplicate(nf, sc.Name))
		}
		if !opts.allowHostNamespaceSysctls {
			if err := hostSysctl(sc.Name, s, nf); err != nil {
				errs = append(errs, err)
			}
		}
		names.Insert(sc.Name)
	}
	return errs
}

// hostSysctl is upstream's ValidateHostSysctl: the error for a sysctl of
// the network namespace in a hostNetwork pod, or of the IPC namespace in a
// hostIPC pod, nil otherwise.
func hostSysctl(name string, s *corev1.PodSpec, fld *field.Path) *field.Error {
	ns, _, _ := utilsysctl.GetNamespace(name)
	switch {
	case s.HostNetwork && ns == utilsysctl.NetNamespace:
		return field.Invalid(fld, name, "may not be specified when 'hostNetwork' is true")
	case s.HostIPC && ns == utilsysctl.IPCNamespace:
		return field.Invalid(fld, name, "may not be specified when 'hostIPC' is true")
	}
	return nil
}

// validateSeccompProfileField is upstream's validateSeccompProfileField.
func validateSeccompProfileField(sp *corev1.SeccompProfile, fld *field.Path) field.ErrorList {
	if sp == nil {
		return nil
	}
	var errs field.ErrorList
	switch sp.Type {
	case corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined:
	case "":
		errs = append(errs, field.Required(fld.Child("type"), "type is required when seccompProfile is set"))
	default:
		errs = append(errs, field.NotSupported(fld.Child("type"), sp.Type, []string{"Localhost", "RuntimeDefault", "Unconfined"}))
	}
	if sp.Type == corev1.SeccompProfileTypeLocalhost {
		if sp.LocalhostProfile == nil {
			errs = append(errs, field.Required(fld.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
		} else {
			errs = append(errs, localDescendingPath(*sp.LocalhostProfile, fld.Child("localhostProfile"))...)
		}
	} else if sp.LocalhostProfile != nil {
		errs = append(errs, field.Invalid(fld.Child("localhostProfile"), validate.InternalValue(sp), "can only be set when seccomp type is Localhost"))
	}
	return errs
}

// validateAppArmorProfileField is upstream's ValidateAppArmorProfileField.
func validateAppArmorProfileField(p *corev1.AppArmorProfile, fld *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	lf := fld.Child("localhostProfile")
	switch p.Type {
	case corev1.AppArmorProfileTypeLocalhost:
		if p.LocalhostProfile == nil {
			errs = append(errs, field.Required(lf, "must be set when AppArmor type is Localhost"))
			break
		}
		name := *p.LocalhostProfile
		if strings.TrimSpace(name) != name {
			errs = append(errs, field.Invalid(lf, name, "must not be padded with whitespace"))
		} else if name == "" {
			errs = append(errs, field.Required(lf, "must be set when AppArmor type is Localhost"))
		}
		if len(name) > maxAppArmorLocalhostProfile {
			errs = append(errs, field.TooLong(lf, "", maxAppArmorLocalhostProfile))
		}
	case corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined:
		if p.LocalhostProfile != nil {
			// (Upstream gives the pointer: the value is shown as JSON.)
			errs = append(errs, field.Invalid(lf, p.LocalhostProfile, "can only be set when AppArmor type is Localhost"))
		}
	case "":
		errs = append(errs, field.Required(fld.Child("type"), "type is required when appArmorProfile is set"))
	default:
		errs = append(errs, field.NotSupported(fld.Child("type"), p.Type, []string{"Localhost", "RuntimeDefault", "Unconfined"}))
	}
	return errs
}

// Upstream's limits on the Windows options.
const (
	maxGMSACredentialSpecKiB   = 64
	maxRunAsUserNameDomain     = 256
	maxRunAsUserNameUser       = 104
	runAsUserNameForbiddenText = `runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`
)

// The forms of a Windows user name upstream checks: no control
// characters; a domain that is a NetBIOS name or a DNS name; a user that
// has none of the forbidden characters and is not only dots and spaces.
var (
	controlChars        = regexp.MustCompile(`[[:cntrl:]]+`)
	netBIOSDomain       = regexp.MustCompile(`^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$`)
	dnsDomainLabel      = `[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?`
	dnsDomain           = regexp.MustCompile(`^` + dnsDomainLabel + `(?:\.` + dnsDomainLabel + `)*$`)
	forbiddenUserChars  = regexp.MustCompile(`["/\\:;|=,\+\*\?<>@\[\]]`)
	onlyDotsOrSpaceUser = regexp.MustCompile(`^[\. ]+$`)
)

// validateWindowsOptions is upstream's
// validateWindowsSecurityContextOptions: the GMSA credential spec's name
// and size, and the form of runAsUserName. As upstream, the errors hold
// the fields' pointers, whose values a 422 shows as JSON.
func validateWindowsOptions(o *corev1.WindowsSecurityContextOptions, fld *field.Path) field.ErrorList {
	if o == nil {
		return nil
	}
	var errs field.ErrorList
	if o.GMSACredentialSpecName != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*o.GMSACredentialSpecName) {
			errs = append(errs, field.Invalid(fld.Child("gmsaCredentialSpecName"), o.GMSACredentialSpecName, msg))
		}
	}
	if o.GMSACredentialSpec != nil {
		switch l := len(*o.GMSACredentialSpec); {
		case l == 0:
			errs = append(errs, field.Invalid(fld.Child("gmsaCredentialSpec"), o.GMSACredentialSpec, "gmsaCredentialSpec cannot be an empty string"))
		case l > maxGMSACredentialSpecKiB*1024:
			errs = append(errs, field.Invalid(fld.Child("gmsaCredentialSpec"), o.GMSACredentialSpec, fmt.Sprintf("gmsaCredentialSpec size must be under %d KiB", maxGMSACredentialSpecKiB)))
		}
	}
	if o.RunAsUserName == nil {
		return errs
	}
	name := *o.RunAsUserName
	uf := fld.Child("runAsUserName")
	invalid := func(msg string) { errs = append(errs, field.Invalid(uf, o.RunAsUserName, msg)) }
	parts := strings.Split(name, `\`)
	switch {
	case name == "":
		invalid("runAsUserName cannot be an empty string")
		return errs
	case controlChars.MatchString(name):
		invalid("runAsUserName cannot contain control characters")
		return errs
	case len(parts) > 2:
		invalid("runAsUserName cannot contain more than one backslash")
		return errs
	}
	domain, user := "", parts[0]
	if len(parts) == 2 {
		domain, user = parts[0], parts[1]
	}
	if len(domain) >= maxRunAsUserNameDomain {
		invalid(fmt.Sprintf("runAsUserName's Domain length must be under %d characters", maxRunAsUserNameDomain))
	}
	if len(parts) == 2 && !netBIOSDomain.MatchString(domain) && !dnsDomain.MatchString(domain) {
		invalid("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
	}
	if user == "" {
		invalid("runAsUserName's User cannot be empty")
	} else if len(user) > maxRunAsUserNameUser {
		invalid(fmt.Sprintf("runAsUserName's User length must not be longer than %d characters", maxRunAsUserNameUser))
	}
	if onlyDotsOrSpaceUser.MatchString(user) {
		invalid("runAsUserName's User cannot contain only periods or spaces")
	}
	if forbiddenUserChars.MatchString(user) {
		invalid(runAsUserNameForbiddenText)
	}
	return errs
}

// validateShareProcessNamespace is upstream's: a pod may not share its
// process namespace and the host's.
func validateShareProcessNamespace(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	if s.ShareProcessNamespace != nil && *s.ShareProcessNamespace && s.HostPID {
		return field.ErrorList{field.Invalid(fld.Child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled")}
	}
	return nil
}

// validateWindowsHostProcessPod is upstream's: a container's hostProcess
// agrees with the pod's, and a pod with host process containers has
// nothing but, and the host's network. (fakeplane is a cluster that
// allows privileged containers, as kube-apiserver with
// --allow-privileged.)
func validateWindowsHostProcessPod(s *corev1.PodSpec, fld *field.Path, disallowPrivileged bool) field.ErrorList {
	var errs field.ErrorList
	var podHostProcess *bool
	if s.SecurityContext != nil && s.SecurityContext.WindowsOptions != nil {
		podHostProcess = s.SecurityContext.WindowsOptions.HostProcess
	}
	containers, hostProcess := 0, 0
	visitContainersWithPath(s, fld, func(c *corev1.Container, cf *field.Path) {
		containers++
		var own *bool
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			own = c.SecurityContext.WindowsOptions.HostProcess
		}
		if podHostProcess != nil && own != nil && *podHostProcess != *own {
			errs = append(errs, field.Invalid(cf.Child("securityContext", "windowsOptions", "hostProcess"), *own,
				fmt.Sprintf("pod hostProcess value must be identical if both are specified, was %v", *podHostProcess)))
		}
		if own != nil && *own || own == nil && podHostProcess != nil && *podHostProcess {
			hostProcess++
		}
	})
	if hostProcess == 0 {
		return errs
	}
	if hostProcess != containers {
		errs = append(errs, field.Invalid(fld, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
	}
	if !s.HostNetwork {
		errs = append(errs, field.Invalid(fld.Child("hostNetwork"), false, "hostNetwork must be true if pod contains any hostProcess containers"))
	}
	if disallowPrivileged {
		errs = append(errs, field.Forbidden(fld, "hostProcess containers are disallowed by cluster policy"))
	}
	return errs
}

// validateHostUsers is upstream's validateHostUsers: a pod in its own
// user namespace (hostUsers false) shares no other namespace with the host
// and has no volume devices, unless opts allow what the stored pod has.
// (Upstream names hostPID and hostIPC in Go's case in these paths.)
func validateHostUsers(s *corev1.PodSpec, fld *field.Path, opts podOptions) field.ErrorList {
	if s.HostUsers == nil || *s.HostUsers {
		return nil
	}
	const msg = "when `hostUsers` is false"
	var errs field.ErrorList
	if s.HostNetwork && !opts.allowUserNamespacesHostNetwork {
		errs = append(errs, field.Forbidden(fld.Child("hostNetwork"), msg))
	}
	if s.HostPID {
		errs = append(errs, field.Forbidden(fld.Child("HostPID"), msg))
	}
	if s.HostIPC {
		errs = append(errs, field.Forbidden(fld.Child("HostIPC"), msg))
	}
	if !opts.allowUserNamespacesVolumeDevices {
		visitContainersWithPath(s, fld, func(c *corev1.Container, cf *field.Path) {
			if len(c.VolumeDevices) > 0 {
				errs = append(errs, field.Forbidden(cf.Child("volumeDevices"), msg))
			}
		})
	}
	return errs
}

// validatePodOS is upstream's check of spec.os: a supported name, then
// the rules of the pods of that OS (validateLinux, validateWindows).
func validatePodOS(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	if s.OS == nil {
		return nil
	}
	switch s.OS.Name {
	case "":
		return field.ErrorList{field.Required(fld.Child("os", "name"), "")}
	case corev1.Linux:
		return validateLinuxPod(s, fld)
	case corev1.Windows:
		return validateWindowsPod(s, fld)
	}
	return field.ErrorList{field.NotSupported(fld.Child("os"), s.OS.Name, []string{string(corev1.Linux), string(corev1.Windows)})}
}

// validateLinuxPod is upstream's validateLinux: no Windows options.
func validateLinuxPod(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	const msg = "windows options cannot be set for a linux pod"
	var errs field.ErrorList
	if s.SecurityContext != nil && s.SecurityContext.WindowsOptions != nil {
		errs = append(errs, field.Forbidden(fld.Child("securityContext", "windowsOptions"), msg))
	}
	visitContainersWithPath(s, fld, func(c *corev1.Container, cf *field.Path) {
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			errs = append(errs, field.Forbidden(cf.Child("securityContext", "windowsOptions"), msg))
		}
	})
	return errs
}

// validateWindowsPod is upstream's validateWindows: none of the Linux
// security settings, of the pod or of a container, and no host namespace
// but the network's.
func validateWindowsPod(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	const msg = "cannot be set for a windows pod"
	var errs field.ErrorList
	forbid := func(set bool, f *field.Path) {
		if set {
			errs = append(errs, field.Forbidden(f, msg))
		}
	}
	if sc := s.SecurityContext; sc != nil {
		scf := fld.Child("securityContext")
		forbid(sc.AppArmorProfile != nil, scf.Child("appArmorProfile"))
		forbid(sc.SELinuxOptions != nil, scf.Child("seLinuxOptions"))
		forbid(sc.SeccompProfile != nil, scf.Child("seccompProfile"))
		forbid(sc.FSGroup != nil, scf.Child("fsGroup"))
		forbid(sc.FSGroupChangePolicy != nil, scf.Child("fsGroupChangePolicy"))
		forbid(len(sc.Sysctls) > 0, scf.Child("sysctls"))
		forbid(sc.RunAsUser != nil, scf.Child("runAsUser"))
		forbid(sc.RunAsGroup != nil, scf.Child("runAsGroup"))
		forbid(sc.SupplementalGroups != nil, scf.Child("supplementalGroups"))
		forbid(sc.SupplementalGroupsPolicy != nil, scf.Child("supplementalGroupsPolicy"))
		forbid(sc.SELinuxChangePolicy != nil, scf.Child("seLinuxChangePolicy"))
	}
	forbid(s.HostUsers != nil, fld.Child("hostUsers"))
	forbid(s.HostPID, fld.Child("hostPID"))
	forbid(s.HostIPC, fld.Child("hostIPC"))
	forbid(s.ShareProcessNamespace != nil, fld.Child("shareProcessNamespace"))
	visitContainersWithPath(s, fld, func(c *corev1.Container, cf *field.Path) {
		sc := c.SecurityContext
		if sc == nil {
			return
		}
		scf := cf.Child("securityContext")
		forbid(sc.AppArmorProfile != nil, scf.Child("appArmorProfile"))
		forbid(sc.SELinuxOptions != nil, scf.Child("seLinuxOptions"))
		forbid(sc.SeccompProfile != nil, scf.Child("seccompProfile"))
		forbid(sc.Capabilities != nil, scf.Child("capabilities"))
		forbid(sc.ReadOnlyRootFilesystem != nil, scf.Child("readOnlyRootFilesystem"))
		forbid(sc.Privileged != nil, scf.Child("privileged"))
		forbid(sc.AllowPrivilegeEscalation != nil, scf.Child("allowPrivilegeEscalation"))
		forbid(sc.ProcMount != nil, scf.Child("procMount"))
		forbid(sc.RunAsUser != nil, scf.Child("runAsUser"))
		forbid(sc.RunAsGroup != nil, scf.Child("runAsGroup"))
	})
	return errs
}

// deletionCost is upstream's GetDeletionCostFromPodAnnotations: the pod
// deletion cost annotation as a 32-bit integer (0 without it), an error
// when it is not one written plainly (no sign but '-', no leading zero).
func deletionCost(annotations map[string]string) (int32, error) {
	v, ok := annotations[corev1.PodDeletionCost]
	if !ok {
		return 0, nil
	}
	plain := v != "" && (v[0] == '-' || v == "0" || v[0] >= '1' && v[0] <= '9')
	if !plain {
		return 0, fmt.Errorf("invalid value %q", v)
	}
	n, err := strconv.ParseInt(v, 10, 32)
	return int32(n), err
}
