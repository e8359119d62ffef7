package pod

import (
	"context"
	"fmt"
	"math"
	"path"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// ValidatePodTemplateSpecForReplicaSet is upstream's ValidatePodTemplateSpecForReplicaSet
// (kind names the workload in the activeDeadlineSeconds message).
func ValidatePodTemplateSpecForReplicaSet(ctx context.Context, t *corev1.PodTemplateSpec, sel labels.Selector, fld *field.Path, kind string) field.ErrorList {
	var errs field.ErrorList
	if !sel.Empty() && !sel.Matches(labels.Set(t.Labels)) {
		errs = append(errs, field.Invalid(fld.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, ValidatePodTemplateSpec(ctx, t, fld)...)
	errs = append(errs, ValidateRestartPolicyAlways(t, fld, kind)...)
	return errs
}

// ValidateRestartPolicyAlways is the rule of the controllers that keep their
// pods running (kind names the workload in the message): the template's
// restartPolicy is Always and it sets no activeDeadlineSeconds.
func ValidateRestartPolicyAlways(t *corev1.PodTemplateSpec, fld *field.Path, kind string) field.ErrorList {
	var errs field.ErrorList
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fld.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(fld.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return errs
}

// Pod and pod template validation: upstream's ValidatePodCreate,
// ValidatePodUpdate and ValidatePodTemplateSpec (pkg/apis/core/validation),
// the rules a test's objects most often break: containers, names, images,
// ports, env, volumes and their mounts, resources, restart and DNS
// policies, host and service account names.

// validatePod is upstream's ValidatePodCreate less the metadata: the
// annotations the pod API reads, the spec, then what only a create checks
// (no ephemeral containers, no node before the scheduling gates are
// cleared, seccomp and AppArmor annotations that agree with the fields).
func validatePod(ctx context.Context, pod *corev1.Pod) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validatePodMetaAndSpec(pod, podOptions{}.withClusterPolicy(ctx))
	if len(pod.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(spec.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if pod.Spec.NodeName != "" && len(pod.Spec.SchedulingGates) > 0 {
		errs = append(errs, field.Forbidden(spec.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	errs = append(errs, validateSeccompAnnotationsAndFields(pod.Annotations, &pod.Spec, spec)...)
	return append(errs, validateAppArmorAnnotationsAndFields(pod.Annotations, &pod.Spec, spec)...)
}

// validatePodMetaAndSpec is upstream's validatePodMetadataAndSpec less the
// generic metadata: the annotations the pod API reads, the spec, and a
// grace period that is not negative.
func validatePodMetaAndSpec(pod *corev1.Pod, opts podOptions) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validatePodSpecificAnnotations(pod.Annotations, &pod.Spec, field.NewPath("metadata", "annotations"), opts)
	errs = append(errs, validatePodSpec(&pod.Spec, &pod.ObjectMeta, spec, opts)...)
	errs = append(errs, validateTokenProjectionsNeedServiceAccount(&pod.Spec, spec)...)
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(*pod.Spec.TerminationGracePeriodSeconds, spec.Child("terminationGracePeriodSeconds"))...)
	}
	return errs
}

// ValidatePodTemplateSpec is upstream's ValidatePodTemplateSpec at fld:
// the labels and annotations (with the rules of a pod's), the spec, the
// seccomp and AppArmor annotations that must agree with the fields, and no
// ephemeral containers. It checks a template as a new one (upstream lets
// an update keep some invalid values the stored template has), with the
// cluster policy ctx carries (WithPrivilegedDisallowed).
func ValidatePodTemplateSpec(ctx context.Context, t *corev1.PodTemplateSpec, fld *field.Path) field.ErrorList {
	opts := podOptions{}.withClusterPolicy(ctx)
	errs := ValidatePodTemplateMetadata(ctx, t, fld)
	errs = append(errs, validatePodSpec(&t.Spec, nil, fld.Child("spec"), opts)...)
	errs = append(errs, validateSeccompAnnotationsAndFields(t.Annotations, &t.Spec, fld.Child("spec"))...)
	errs = append(errs, validateAppArmorAnnotationsAndFields(t.Annotations, &t.Spec, fld.Child("spec"))...)
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(fld.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// ValidatePodTemplateMetadata is the part of ValidatePodTemplateSpec that
// checks a template's labels and annotations (the pod-specific ones
// against its spec), which upstream's StatefulSet validation runs even
// when it skips the rest of the template.
func ValidatePodTemplateMetadata(ctx context.Context, t *corev1.PodTemplateSpec, fld *field.Path) field.ErrorList {
	opts := podOptions{}.withClusterPolicy(ctx)
	errs := metav1validation.ValidateLabels(t.Labels, fld.Child("labels"))
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(t.Annotations, fld.Child("annotations"))...)
	return append(errs, validatePodSpecificAnnotations(t.Annotations, &t.Spec, fld.Child("annotations"), opts)...)
}

// validatePodSpec is upstream's ValidatePodSpec; meta is the pod's (nil
// for a template).
func validatePodSpec(s *corev1.PodSpec, meta *metav1.ObjectMeta, fld *field.Path, opts podOptions) field.ErrorList {
	var errs field.ErrorList
	if s.TerminationGracePeriodSeconds == nil {
		errs = append(errs, field.Required(fld.Child("terminationGracePeriodSeconds"), ""))
	}
	vols, verrs := validateVolumes(s.Volumes, meta, fld.Child("volumes"))
	errs = append(errs, verrs...)
	claims := podClaimNames(s.ResourceClaims)
	errs = append(errs, validatePodResourceClaims(s.ResourceClaims, meta, fld.Child("resourceClaims"))...)
	hostUsers := s.HostUsers == nil || *s.HostUsers
	errs = append(errs, validateContainers(s.Containers, vols, claims, s.TerminationGracePeriodSeconds, s.RestartPolicy, hostUsers, opts.disallowPrivileged, fld.Child("containers"))...)
	errs = append(errs, validateInitContainers(s.InitContainers, s.Containers, vols, claims, s.TerminationGracePeriodSeconds, s.RestartPolicy, hostUsers, opts, fld.Child("initContainers"))...)
	// As upstream, also for a create and a template, which may not have
	// any (their own rules say so after).
	errs = append(errs, validateEphemeralContainers(s, opts, fld.Child("ephemeralContainers"))...)
	errs = append(errs, validatePodResources(s, claims, fld)...)
	errs = append(errs, validateHostNetworkPorts(s, meta != nil, fld)...)
	errs = append(errs, validate.SupportedValue(fld.Child("restartPolicy"), string(s.RestartPolicy), "Always", "OnFailure", "Never")...)
	errs = append(errs, validate.SupportedValue(fld.Child("dnsPolicy"), string(s.DNSPolicy), "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")...)
	errs = append(errs, metav1validation.ValidateLabels(s.NodeSelector, fld.Child("nodeSelector"))...)
	errs = append(errs, validatePodSecurityContext(s, fld, opts)...)
	errs = append(errs, validateShareProcessNamespace(s, fld)...)
	errs = append(errs, validateSchedulingFields(s, fld)...)
	errs = append(errs, validateWindowsHostProcessPod(s, fld, opts.disallowPrivileged)...)
	errs = append(errs, validateHostUsers(s, fld, opts)...)
	errs = append(errs, validateHostnameOverride(s, fld)...)
	if s.ServiceAccountName != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.ServiceAccountName, false) {
			errs = append(errs, field.Invalid(fld.Child("serviceAccountName"), s.ServiceAccountName, msg))
		}
	}
	if s.DeprecatedServiceAccount != s.ServiceAccountName { //nolint:staticcheck // upstream's rule
		errs = append(errs, field.Invalid(fld.Child("deprecatedServiceAccount"), s.DeprecatedServiceAccount, fmt.Sprintf("must be the same as serviceAccountName: %q", s.ServiceAccountName))) //nolint:staticcheck
	}
	if s.NodeName != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.NodeName, false) {
			errs = append(errs, field.Invalid(fld.Child("nodeName"), s.NodeName, msg))
		}
	}
	if s.ActiveDeadlineSeconds != nil {
		if v := *s.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			errs = append(errs, field.Invalid(fld.Child("activeDeadlineSeconds"), v, validation.InclusiveRangeError(1, math.MaxInt32)))
		}
	}
	if s.Hostname != "" {
		errs = append(errs, validate.DNS1123Label(s.Hostname, fld.Child("hostname"))...)
	}
	if s.Subdomain != "" {
		errs = append(errs, validate.DNS1123Label(s.Subdomain, fld.Child("subdomain"))...)
	}
	if len(s.Tolerations) > 0 {
		errs = append(errs, ValidateTolerations(s.Tolerations, fld.Child("tolerations"))...)
	}
	if len(s.HostAliases) > 0 {
		errs = append(errs, validateHostAliases(s.HostAliases, fld.Child("hostAliases"))...)
	}
	if s.PriorityClassName != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.PriorityClassName, false) {
			errs = append(errs, field.Invalid(fld.Child("priorityClassName"), s.PriorityClassName, msg))
		}
	}
	if s.RuntimeClassName != nil {
		errs = append(errs, validateRuntimeClassName(*s.RuntimeClassName, fld.Child("runtimeClassName"))...)
	}
	if s.PreemptionPolicy != nil {
		errs = append(errs, validate.SupportedValue(fld.Child("preemptionPolicy"), string(*s.PreemptionPolicy), "PreemptLowerPriority", "Never")...)
	}
	if s.Overhead != nil {
		errs = append(errs, ValidateOverhead(s.Overhead, fld.Child("overhead"))...)
	}
	return append(errs, validatePodOS(s, fld)...)
}

// ValidateTolerations is upstream's ValidateTolerations (for pods,
// their templates and RuntimeClasses).
func ValidateTolerations(ts []corev1.Toleration, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		idx := fld.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, idx.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(idx.Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(idx.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(idx.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(idx.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			// TaintTolerationComparisonOperators is off in v1.37.
			errs = append(errs, field.NotSupported(idx.Child("operator"), t.Operator, []string{"Equal", "Exists", "Lt", "Gt"}))
		default:
			errs = append(errs, field.NotSupported(idx.Child("operator"), t.Operator, []string{"Equal", "Exists"}))
		}
		if t.Effect != "" {
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				errs = append(errs, field.NotSupported(idx.Child("effect"), t.Effect, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
			}
		}
	}
	return errs
}

// validateVolumes is upstream's ValidateVolumes: it returns the valid
// volumes by name.
func validateVolumes(volumes []corev1.Volume, meta *metav1.ObjectMeta, fld *field.Path) (map[string]corev1.VolumeSource, field.ErrorList) {
	var errs field.ErrorList
	names := sets.New[string]()
	vols := map[string]corev1.VolumeSource{}
	for i, v := range volumes {
		idx := fld.Index(i)
		el := validateVolumeSource(&v.VolumeSource, idx, v.Name, meta)
		if v.Name == "" {
			el = append(el, field.Required(idx.Child("name"), ""))
		} else {
			el = append(el, validate.DNS1123Label(v.Name, idx.Child("name"))...)
		}
		if names.Has(v.Name) {
			el = append(el, field.Duplicate(idx.Child("name"), v.Name))
		}
		if len(el) == 0 {
			names.Insert(v.Name)
			vols[v.Name] = v.VolumeSource
		} else {
			errs = append(errs, el...)
		}
	}
	return vols, errs
}

// fileMode is upstream's check of a volume file mode.
func fileMode(m *int32, fld *field.Path) field.ErrorList {
	if m != nil && (*m > 0o777 || *m < 0) {
		return field.ErrorList{field.Invalid(fld, *m, "must be a number between 0 and 0777 (octal), both inclusive")}
	}
	return nil
}

// validateKeyToPath is upstream's validateKeyToPath.
func validateKeyToPath(kp *corev1.KeyToPath, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if kp.Key == "" {
		errs = append(errs, field.Required(fld.Child("key"), ""))
	}
	if kp.Path == "" {
		errs = append(errs, field.Required(fld.Child("path"), ""))
	}
	errs = append(errs, localNonReservedPath(kp.Path, fld.Child("path"))...)
	errs = append(errs, fileMode(kp.Mode, fld.Child("mode"))...)
	return append(errs, validateUser(kp.User, fld.Child("user"))...)
}

// localDescendingPath is upstream's validateLocalDescendingPath.
func localDescendingPath(p string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if path.IsAbs(p) {
		errs = append(errs, field.Invalid(fld, p, "must be a relative path"))
	}
	return append(errs, validate.PathNoBacksteps(p, fld)...)
}

// validateContainers is upstream's validateContainers for regular
// containers.
func validateContainers(containers []corev1.Container, vols map[string]corev1.VolumeSource, claims sets.Set[string], grace *int64, restart corev1.RestartPolicy, hostUsers, disallowPrivileged bool, fld *field.Path) field.ErrorList {
	if len(containers) == 0 {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	names := sets.New[string]()
	for i := range containers {
		c := &containers[i]
		idx := fld.Index(i)
		errs = append(errs, validateContainerCommon(c, vols, claims, restart, hostUsers, disallowPrivileged, idx)...)
		if names.Has(c.Name) {
			errs = append(errs, field.Duplicate(idx.Child("name"), c.Name))
		} else {
			names.Insert(c.Name)
		}
		errs = append(errs, validateProbesAndLifecycle(c, grace, idx)...)
		errs = append(errs, validateContainerRestartPolicy(c, idx)...)
	}
	return append(errs, hostPortConflicts(containers, fld)...)
}

// validateContainerRestartPolicy is upstream's rule for a container's own
// restartPolicy and restartPolicyRules (ContainerRestartRules and
// RestartAllContainers are on in v1.37).
func validateContainerRestartPolicy(c *corev1.Container, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	pf := fld.Child("restartPolicy")
	if c.RestartPolicy == nil {
		if len(c.RestartPolicyRules) == 0 {
			return nil
		}
		errs = append(errs, field.Required(pf, "must specify restartPolicy when restart rules are used"))
	} else if p := *c.RestartPolicy; p != corev1.ContainerRestartPolicyAlways && p != corev1.ContainerRestartPolicyNever && p != corev1.ContainerRestartPolicyOnFailure {
		errs = append(errs, field.NotSupported(pf, p, []string{"Always", "Never", "OnFailure"}))
	}
	if len(c.RestartPolicyRules) > 20 {
		errs = append(errs, field.TooMany(fld.Child("restartPolicyRules"), len(c.RestartPolicyRules), 20))
	}
	for i, r := range c.RestartPolicyRules {
		rf := fld.Child("restartPolicyRules").Index(i)
		if r.Action != corev1.ContainerRestartRuleActionRestart && r.Action != "RestartAllContainers" {
			errs = append(errs, field.NotSupported(rf.Child("action"), r.Action, []string{"Restart", "RestartAllContainers"}))
		}
		if r.ExitCodes == nil {
			errs = append(errs, field.Required(rf.Child("exitCodes"), "must be specified"))
			continue
		}
		if op := r.ExitCodes.Operator; op != corev1.ContainerRestartRuleOnExitCodesOpIn && op != corev1.ContainerRestartRuleOnExitCodesOpNotIn {
			errs = append(errs, field.NotSupported(rf.Child("exitCodes", "operator"), op, []string{"In", "NotIn"}))
		}
		if len(r.ExitCodes.Values) > 255 {
			errs = append(errs, field.TooMany(rf.Child("exitCodes", "values"), len(r.ExitCodes.Values), 255))
		}
	}
	return errs
}

// validateProbesAndLifecycle is what upstream checks of the probes and
// lifecycle hooks of a regular container or sidecar.
func validateProbesAndLifecycle(c *corev1.Container, grace *int64, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if l := c.Lifecycle; l != nil {
		lf := fld.Child("lifecycle")
		for _, h := range []struct {
			h    *corev1.LifecycleHandler
			name string
		}{{l.PostStart, "postStart"}, {l.PreStop, "preStop"}} {
			if h.h != nil {
				errs = append(errs, validateHandler(h.h.Exec, h.h.HTTPGet, h.h.TCPSocket, nil, h.h.Sleep, grace, lf.Child(h.name))...)
			}
		}
		if l.StopSignal != nil {
			errs = append(errs, field.Forbidden(lf.Child("stopSignal"), "may not be set for containers with empty `spec.os.name`"))
		}
	}
	for _, pr := range []struct {
		p    *corev1.Probe
		name string
	}{{c.LivenessProbe, "livenessProbe"}, {c.ReadinessProbe, "readinessProbe"}, {c.StartupProbe, "startupProbe"}} {
		p := pr.p
		if p == nil {
			continue
		}
		pf := fld.Child(pr.name)
		errs = append(errs, validateHandler(p.Exec, p.HTTPGet, p.TCPSocket, p.GRPC, nil, grace, pf)...)
		for _, f := range []struct {
			v    int32
			name string
		}{{p.InitialDelaySeconds, "initialDelaySeconds"}, {p.TimeoutSeconds, "timeoutSeconds"}, {p.PeriodSeconds, "periodSeconds"}, {p.SuccessThreshold, "successThreshold"}, {p.FailureThreshold, "failureThreshold"}} {
			errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(f.v), pf.Child(f.name))...)
		}
		if t := p.TerminationGracePeriodSeconds; t != nil && *t <= 0 {
			errs = append(errs, field.Invalid(pf.Child("terminationGracePeriodSeconds"), *t, "must be greater than 0"))
		}
		switch pr.name {
		case "livenessProbe", "startupProbe":
			if p.SuccessThreshold != 1 {
				errs = append(errs, field.Invalid(pf.Child("successThreshold"), p.SuccessThreshold, "must be 1"))
			}
		case "readinessProbe":
			if p.TerminationGracePeriodSeconds != nil {
				errs = append(errs, field.Invalid(pf.Child("terminationGracePeriodSeconds"), p.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
			}
		}
	}
	return errs
}

// validateHandler is upstream's validateHandler: exactly one action.
func validateHandler(exec *corev1.ExecAction, http *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction, grpc *corev1.GRPCAction, sleep *corev1.SleepAction, grace *int64, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	one := func(set bool, name string, check func() field.ErrorList) {
		if !set {
			return
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(fld.Child(name), "may not specify more than 1 handler type"))
			return
		}
		n++
		errs = append(errs, check()...)
	}
	one(exec != nil, "exec", func() field.ErrorList {
		if len(exec.Command) == 0 {
			return field.ErrorList{field.Required(fld.Child("exec", "command"), "")}
		}
		return nil
	})
	one(http != nil, "httpGet", func() field.ErrorList {
		var e field.ErrorList
		hf := fld.Child("httpGet")
		if http.Path == "" {
			e = append(e, field.Required(hf.Child("path"), ""))
		}
		e = append(e, validate.PortNumOrName(http.Port, hf.Child("port"))...)
		if http.Scheme != corev1.URISchemeHTTP && http.Scheme != corev1.URISchemeHTTPS {
			e = append(e, field.NotSupported(hf.Child("scheme"), http.Scheme, []string{"HTTP", "HTTPS"}))
		}
		for _, h := range http.HTTPHeaders {
			for _, msg := range validation.IsHTTPHeaderName(h.Name) {
				e = append(e, field.Invalid(hf.Child("httpHeaders"), h.Name, msg))
			}
		}
		return e
	})
	one(tcp != nil, "tcpSocket", func() field.ErrorList { return validate.PortNumOrName(tcp.Port, fld.Child("tcpSocket", "port")) })
	one(grpc != nil, "grpc", func() field.ErrorList {
		return validate.PortNumOrName(intstr.FromInt32(grpc.Port), fld.Child("grpc", "port"))
	})
	one(sleep != nil, "sleep", func() field.ErrorList {
		if grace != nil && (sleep.Seconds < 0 || sleep.Seconds > *grace) {
			return field.ErrorList{field.Invalid(fld.Child("sleep"), sleep.Seconds, fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", *grace))}
		}
		return nil
	})
	if n == 0 {
		errs = append(errs, field.Required(fld, "must specify a handler type"))
	}
	return errs
}

// hostPortConflicts is upstream's checkHostPortConflicts.
func hostPortConflicts(containers []corev1.Container, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, c := range containers {
		for j, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			k := fmt.Sprintf("%s/%s/%d", p.Protocol, p.HostIP, p.HostPort)
			if seen.Has(k) {
				errs = append(errs, field.Duplicate(fld.Index(i).Child("ports").Index(j).Child("hostPort"), k))
			}
			seen.Insert(k)
		}
	}
	return errs
}

// validateInitContainers is upstream's validateInitContainers: names are
// unique across regular and init containers; probes and lifecycle belong
// to sidecars (restartPolicy Always) only.
func validateInitContainers(containers, regular []corev1.Container, vols map[string]corev1.VolumeSource, claims sets.Set[string], grace *int64, restart corev1.RestartPolicy, hostUsers bool, opts podOptions, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for _, c := range regular {
		names.Insert(c.Name)
	}
	for i := range containers {
		c := &containers[i]
		idx := fld.Index(i)
		errs = append(errs, validateContainerCommon(c, vols, claims, restart, hostUsers, opts.disallowPrivileged, idx)...)
		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		if c.RestartPolicy == nil && len(c.RestartPolicyRules) > 0 {
			errs = append(errs, field.Required(idx.Child("restartPolicy"), "must specify restartPolicy when restart rules are used"))
		} else if c.RestartPolicy != nil {
			errs = append(errs, validateContainerRestartPolicy(c, idx)...)
		}
		if names.Has(c.Name) {
			errs = append(errs, field.Duplicate(idx.Child("name"), c.Name))
		} else if c.Name != "" {
			names.Insert(c.Name)
		}
		// Init containers run one by one: their host ports conflict
		// only within each.
		errs = append(errs, hostPortConflicts([]corev1.Container{*c}, fld)...)
		if sidecar {
			errs = append(errs, validateProbesAndLifecycle(c, grace, idx)...)
		} else {
			const msg = "may not be set for init containers without restartPolicy=Always"
			if c.Lifecycle != nil {
				errs = append(errs, field.Forbidden(idx.Child("lifecycle"), msg))
			}
			if c.LivenessProbe != nil {
				errs = append(errs, field.Forbidden(idx.Child("livenessProbe"), msg))
			}
			if c.ReadinessProbe != nil {
				errs = append(errs, field.Forbidden(idx.Child("readinessProbe"), msg))
			}
			if c.StartupProbe != nil {
				errs = append(errs, field.Forbidden(idx.Child("startupProbe"), msg))
			}
		}
		// Sidecars and init containers may set a resize policy
		// (InPlacePodVerticalScaling is GA), but only a sidecar may
		// restart to be resized, unless the stored pod already has one
		// that does.
		if !sidecar && !opts.allowRestartContainerInitContainers {
			for j, p := range c.ResizePolicy {
				if p.RestartPolicy == corev1.RestartContainer {
					errs = append(errs, field.Invalid(idx.Child("resizePolicy").Index(j).Child("restartPolicy"), p.RestartPolicy, "must not be set to 'RestartContainer' for non-sidecar initContainers"))
				}
			}
		}
	}
	return errs
}

// validateContainerCommon is upstream's validateContainerCommon; restart
// is the pod's restartPolicy.
func validateContainerCommon(c *corev1.Container, vols map[string]corev1.VolumeSource, claims sets.Set[string], restart corev1.RestartPolicy, hostUsers, disallowPrivileged bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	} else {
		errs = append(errs, validate.DNS1123Label(c.Name, fld.Child("name"))...)
	}
	if c.Image == "" {
		errs = append(errs, field.Required(fld.Child("image"), ""))
	}
	errs = append(errs, validate.SupportedValue(fld.Child("terminationMessagePolicy"), string(c.TerminationMessagePolicy), "File", "FallbackToLogsOnError")...)
	errs = append(errs, validateContainerPorts(c.Ports, fld.Child("ports"))...)
	errs = append(errs, validateEnv(c.Env, fld.Child("env"))...)
	errs = append(errs, validateEnvFrom(c.EnvFrom, fld.Child("envFrom"))...)
	errs = append(errs, validateVolumeMounts(c.VolumeMounts, devicePathsByName(c.VolumeDevices), vols, fld.Child("volumeMounts"))...)
	errs = append(errs, validateVolumeDevices(c.VolumeDevices, mountPathsByName(c.VolumeMounts), vols, fld.Child("volumeDevices"))...)
	errs = append(errs, validate.SupportedValue(fld.Child("imagePullPolicy"), string(c.ImagePullPolicy), "Always", "IfNotPresent", "Never")...)
	errs = append(errs, validateResources(&c.Resources, validate.ContainerResourceName, claims, fld.Child("resources"))...)
	errs = append(errs, validateResizePolicy(c.ResizePolicy, restart, fld.Child("resizePolicy"))...)
	return append(errs, validateSecurityContext(c.SecurityContext, hostUsers, disallowPrivileged, fld.Child("securityContext"))...)
}

// validateEnvFrom is upstream's ValidateEnvFrom.
func validateEnvFrom(from []corev1.EnvFromSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range from {
		idx := fld.Index(i)
		if f.Prefix != "" {
			for _, msg := range validation.IsRelaxedEnvVarName(f.Prefix) {
				errs = append(errs, field.Invalid(idx.Child("prefix"), f.Prefix, msg))
			}
		}
		n := 0
		ref := func(name string, rf *field.Path) {
			n++
			if name == "" {
				errs = append(errs, field.Required(rf.Child("name"), ""))
				return
			}
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, true) {
				errs = append(errs, field.Invalid(rf.Child("name"), name, msg))
			}
		}
		if f.ConfigMapRef != nil {
			ref(f.ConfigMapRef.Name, idx.Child("configMapRef"))
		}
		if f.SecretRef != nil {
			ref(f.SecretRef.Name, idx.Child("secretRef"))
		}
		switch {
		case n == 0:
			errs = append(errs, field.Invalid(fld, "", "must specify one of: `configMapRef` or `secretRef`"))
		case n > 1:
			errs = append(errs, field.Invalid(fld, "", "may not have more than one field specified at a time"))
		}
	}
	return errs
}

// validateSecurityContext is upstream's ValidateSecurityContext, in a
// cluster that allows privileged containers: user and group IDs, proc
// mount, seccomp profile, privilege escalation, Windows options and
// AppArmor profile.
func validateSecurityContext(sc *corev1.SecurityContext, hostUsers, disallowPrivileged bool, fld *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	if disallowPrivileged && sc.Privileged != nil && *sc.Privileged {
		errs = append(errs, field.Forbidden(fld.Child("privileged"), "disallowed by cluster policy"))
	}
	if sc.RunAsUser != nil {
		for _, msg := range validation.IsValidUserID(*sc.RunAsUser) {
			errs = append(errs, field.Invalid(fld.Child("runAsUser"), *sc.RunAsUser, msg))
		}
	}
	if sc.RunAsGroup != nil {
		for _, msg := range validation.IsValidGroupID(*sc.RunAsGroup) {
			errs = append(errs, field.Invalid(fld.Child("runAsGroup"), *sc.RunAsGroup, msg))
		}
	}
	if pm := sc.ProcMount; pm != nil {
		if *pm != corev1.DefaultProcMount && *pm != corev1.UnmaskedProcMount {
			errs = append(errs, field.NotSupported(fld.Child("procMount"), *pm, []string{"Default", "Unmasked"}))
		}
		if hostUsers && *pm == corev1.UnmaskedProcMount {
			errs = append(errs, field.Invalid(fld.Child("procMount"), *pm, "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	errs = append(errs, validateSeccompProfileField(sc.SeccompProfile, fld.Child("seccompProfile"))...)
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, field.Invalid(fld, validate.InternalValue(sc), "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				if c == "CAP_SYS_ADMIN" {
					errs = append(errs, field.Invalid(fld, validate.InternalValue(sc), "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
				}
			}
		}
	}
	errs = append(errs, validateWindowsOptions(sc.WindowsOptions, fld.Child("windowsOptions"))...)
	return append(errs, validateAppArmorProfileField(sc.AppArmorProfile, fld.Child("appArmorProfile"))...)
}

func validateContainerPorts(ports []corev1.ContainerPort, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, p := range ports {
		idx := fld.Index(i)
		if p.Name != "" {
			if msgs := validation.IsValidPortName(p.Name); len(msgs) > 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(idx.Child("name"), p.Name, msg))
				}
			} else if names.Has(p.Name) {
				errs = append(errs, field.Duplicate(idx.Child("name"), p.Name))
			} else {
				names.Insert(p.Name)
			}
		}
		if p.ContainerPort == 0 {
			errs = append(errs, field.Required(idx.Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(p.ContainerPort)) {
				errs = append(errs, field.Invalid(idx.Child("containerPort"), p.ContainerPort, msg))
			}
		}
		if p.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(p.HostPort)) {
				errs = append(errs, field.Invalid(idx.Child("hostPort"), p.HostPort, msg))
			}
		}
		if p.Protocol == "" {
			errs = append(errs, field.Required(idx.Child("protocol"), ""))
		} else if !sets.New(validate.ContainerPortProtocols...).Has(string(p.Protocol)) {
			errs = append(errs, field.NotSupported(idx.Child("protocol"), p.Protocol, validate.ContainerPortProtocols))
		}
	}
	return errs
}

// validateEnv checks env var names as upstream does with relaxed
// environment variable validation (GA): printable ASCII but '='.
func validateEnv(env []corev1.EnvVar, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		idx := fld.Index(i)
		if e.Name == "" {
			errs = append(errs, field.Required(idx.Child("name"), ""))
		} else {
			for _, msg := range validation.IsRelaxedEnvVarName(e.Name) {
				errs = append(errs, field.Invalid(idx.Child("name"), e.Name, msg))
			}
		}
		if f := e.ValueFrom; f != nil {
			vf := idx.Child("valueFrom")
			if f.FieldRef != nil {
				errs = append(errs, validateObjectFieldSelector(f.FieldRef, envFieldPaths, vf.Child("fieldRef"))...)
			}
			if r := f.ResourceFieldRef; r != nil {
				rf := vf.Child("resourceFieldRef")
				if r.Resource == "" {
					errs = append(errs, field.Required(rf.Child("resource"), ""))
				} else if !envResourceFields.Has(r.Resource) && !strings.HasPrefix(r.Resource, "limits.hugepages-") && !strings.HasPrefix(r.Resource, "requests.hugepages-") {
					errs = append(errs, field.NotSupported(rf.Child("resource"), r.Resource, sets.List(envResourceFields)))
				}
			}
			if k := f.ConfigMapKeyRef; k != nil {
				errs = append(errs, validateKeySelector(k.Name, k.Key, vf.Child("configMapKeyRef"))...)
			}
			if k := f.SecretKeyRef; k != nil {
				errs = append(errs, validateKeySelector(k.Name, k.Key, vf.Child("secretKeyRef"))...)
			}
			n := 0
			for _, set := range []bool{f.FieldRef != nil, f.ResourceFieldRef != nil, f.ConfigMapKeyRef != nil, f.SecretKeyRef != nil, f.FileKeyRef != nil} {
				if set {
					n++
				}
			}
			switch {
			case n == 0:
				errs = append(errs, field.Invalid(idx.Child("valueFrom"), "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
			case e.Value != "":
				errs = append(errs, field.Invalid(idx.Child("valueFrom"), "", "may not be specified when `value` is not empty"))
			case n > 1:
				errs = append(errs, field.Invalid(idx.Child("valueFrom"), "", "may not have more than one field specified at a time"))
			}
		}
	}
	return errs
}

var (
	envFieldPaths = sets.New("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
		"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
	envResourceFields = sets.New("limits.cpu", "limits.memory", "limits.ephemeral-storage",
		"requests.cpu", "requests.memory", "requests.ephemeral-storage")
	downwardAPILabels = sets.New("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
		"metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
		"status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
)

// splitSubscript is upstream's fieldpath.SplitMaybeSubscriptedPath.
func splitSubscript(p string) (string, string, bool) {
	if !strings.HasSuffix(p, "']") {
		return p, "", false
	}
	parts := strings.SplitN(strings.TrimSuffix(p, "']"), "['", 2)
	if len(parts) < 2 || parts[0] == "" {
		return p, "", false
	}
	return parts[0], parts[1], true
}

// validateObjectFieldSelector is upstream's validateObjectFieldSelector:
// paths are the fields it may name (an env var's or a volume file's).
func validateObjectFieldSelector(f *corev1.ObjectFieldSelector, paths sets.Set[string], fld *field.Path) field.ErrorList {
	if f.APIVersion == "" {
		return field.ErrorList{field.Required(fld.Child("apiVersion"), "")}
	}
	if f.FieldPath == "" {
		return field.ErrorList{field.Required(fld.Child("fieldPath"), "")}
	}
	convErr := ""
	label := f.FieldPath
	switch p, _, sub := splitSubscript(label); {
	case f.APIVersion != "v1":
		convErr = "unsupported pod version: " + f.APIVersion
	case sub && p != "metadata.annotations" && p != "metadata.labels":
		convErr = "field label does not support subscript: " + label
	case !sub && label == "spec.host":
		label = "spec.nodeName"
	case !sub && !downwardAPILabels.Has(label):
		convErr = "field label not supported: " + label
	}
	if convErr != "" {
		return field.ErrorList{field.Invalid(fld.Child("fieldPath"), f.FieldPath, "error converting fieldPath: "+convErr)}
	}
	var errs field.ErrorList
	if p, sub, ok := splitSubscript(label); ok {
		if p == "metadata.annotations" {
			sub = strings.ToLower(sub)
		}
		for _, msg := range validation.IsQualifiedName(sub) {
			errs = append(errs, field.Invalid(fld, sub, msg))
		}
	} else if !paths.Has(p) {
		errs = append(errs, field.NotSupported(fld.Child("fieldPath"), p, sets.List(paths)))
	}
	return errs
}

// validateKeySelector is upstream's validateConfigMapKeySelector and
// validateSecretKeySelector.
func validateKeySelector(name, key string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(fld.Child("name"), name, msg))
	}
	if key == "" {
		errs = append(errs, field.Required(fld.Child("key"), ""))
	} else {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(fld.Child("key"), key, msg))
		}
	}
	return errs
}

func validateVolumeMounts(mounts []corev1.VolumeMount, devicePaths map[string]string, vols map[string]corev1.VolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := sets.New[string]()
	for i, m := range mounts {
		idx := fld.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(idx.Child("name"), ""))
		}
		if _, ok := vols[m.Name]; !ok {
			errs = append(errs, field.NotFound(idx.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(idx.Child("mountPath"), ""))
		}
		if paths.Has(m.MountPath) {
			errs = append(errs, field.Invalid(idx.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths.Insert(m.MountPath)
		errs = append(errs, mountConflictsWithDevices(m, devicePaths, idx)...)
		// (Upstream reports subPath errors under volumeMounts.subPath.)
		if m.SubPath != "" {
			errs = append(errs, localDescendingPath(m.SubPath, fld.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, field.Invalid(idx.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, localDescendingPath(m.SubPathExpr, fld.Child("subPathExpr"))...)
		}
	}
	return errs
}

// updatablePodSpecFields is upstream's list in its Forbidden message.
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// validatePodUpdate is upstream's ValidatePodUpdate less the metadata:
// the new pod must be valid (keeping what upstream lets an update keep of
// the stored pod, see updateOptions), its AppArmor and mirror pod
// annotations may not change, and only images, activeDeadlineSeconds,
// added tolerations and removed scheduling gates may change in the spec.
func validatePodUpdate(ctx context.Context, n, p *corev1.Pod) field.ErrorList {
	spec := field.NewPath("spec")
	opts := updateOptions(p).withClusterPolicy(ctx)
	errs := validatePodMetaAndSpec(n, opts)
	errs = append(errs, validatePodSpecificAnnotationUpdates(n, p, field.NewPath("metadata", "annotations"), opts)...)
	for _, l := range []struct {
		n, p []corev1.Container
		fld  *field.Path
	}{{n.Spec.Containers, p.Spec.Containers, spec.Child("containers")}, {n.Spec.InitContainers, p.Spec.InitContainers, spec.Child("initContainers")}} {
		if len(l.n) != len(l.p) {
			return append(errs, field.Forbidden(l.fld, "pod updates may not add or remove containers"))
		}
		for i, c := range l.n {
			if strings.TrimSpace(c.Image) != c.Image {
				errs = append(errs, field.Invalid(l.fld.Index(i).Child("image"), c.Image, "must not have leading or trailing whitespace"))
			}
		}
	}
	if n.Spec.ActiveDeadlineSeconds != nil {
		v := *n.Spec.ActiveDeadlineSeconds
		if v < 0 || v > math.MaxInt32 {
			return append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), v, validation.InclusiveRangeError(0, math.MaxInt32)))
		}
		if p.Spec.ActiveDeadlineSeconds != nil && *p.Spec.ActiveDeadlineSeconds < v {
			return append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), v, "must be less than or equal to previous value"))
		}
	} else if p.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), n.Spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}
	errs = append(errs, validateOnlyAddedTolerations(n.Spec.Tolerations, p.Spec.Tolerations, spec.Child("tolerations"))...)
	errs = append(errs, validateOnlyDeletedGates(n.Spec.SchedulingGates, p.Spec.SchedulingGates, spec.Child("schedulingGates"))...)
	if apiequality.Semantic.DeepEqual(n.Spec, p.Spec) {
		return errs
	}
	m := *n.Spec.DeepCopy()
	for i := range m.Containers {
		m.Containers[i].Image = p.Spec.Containers[i].Image
	}
	for i := range m.InitContainers {
		m.InitContainers[i].Image = p.Spec.InitContainers[i].Image
	}
	m.ActiveDeadlineSeconds = p.Spec.ActiveDeadlineSeconds
	m.Tolerations = p.Spec.Tolerations
	m.SchedulingGates = p.Spec.SchedulingGates
	if p.Spec.TerminationGracePeriodSeconds != nil && *p.Spec.TerminationGracePeriodSeconds < 0 &&
		m.TerminationGracePeriodSeconds != nil && *m.TerminationGracePeriodSeconds == 1 {
		m.TerminationGracePeriodSeconds = p.Spec.TerminationGracePeriodSeconds
	}
	if len(p.Spec.SchedulingGates) > 0 {
		errs = append(errs, relaxGatedPodScheduling(&m, &p.Spec, spec)...)
	}
	if !apiequality.Semantic.DeepEqual(m, p.Spec) {
		d := diff.Diff(validate.InternalValue(p.Spec), validate.InternalValue(m))
		errs = append(errs, field.Forbidden(spec, fmt.Sprintf("pod updates may not change fields other than %s\n%v", strings.Join(updatablePodSpecFields, ","), d)))
	}
	return errs
}

// relaxGatedPodScheduling checks what a pod that is still gated may change
// of its node selection (additions to the node selector and to the node
// affinity's required terms) and copies the old selection into m so that
// the comparison of the rest of the spec ignores it.
func relaxGatedPodScheduling(m, p *corev1.PodSpec, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !apiequality.Semantic.DeepEqual(m.NodeSelector, p.NodeSelector) {
		for k, v := range p.NodeSelector {
			if nv, ok := m.NodeSelector[k]; !ok || nv != v {
				errs = append(errs, field.Invalid(spec.Child("nodeSelector"), m.NodeSelector, "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
				break
			}
		}
		m.NodeSelector = p.NodeSelector
	}
	var oldNA, newNA *corev1.NodeAffinity
	if p.Affinity != nil {
		oldNA = p.Affinity.NodeAffinity
	}
	if m.Affinity != nil {
		newNA = m.Affinity.NodeAffinity
	}
	if apiequality.Semantic.DeepEqual(oldNA, newNA) {
		return errs
	}
	errs = append(errs, validateNodeAffinityAdditions(spec.Child("affinity", "nodeAffinity"), newNA, oldNA)...)
	switch {
	case m.Affinity == nil && oldNA == nil:
	case m.Affinity == nil:
		m.Affinity = &corev1.Affinity{NodeAffinity: oldNA}
	case p.Affinity == nil && m.Affinity.PodAffinity == nil && m.Affinity.PodAntiAffinity == nil:
		m.Affinity = nil
	default:
		a := *m.Affinity
		a.NodeAffinity = oldNA
		m.Affinity = &a
	}
	return errs
}

// validateNodeAffinityAdditions allows a gated pod's required node
// selector terms to be set when there were none, and else only to gain
// match expressions and fields.
func validateNodeAffinityAdditions(fld *field.Path, n, p *corev1.NodeAffinity) field.ErrorList {
	if p == nil || p.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	termsPath := fld.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	oldTerms := p.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	var newTerms []corev1.NodeSelectorTerm
	if n != nil && n.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		newTerms = n.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	if len(oldTerms) > 0 && len(oldTerms) != len(newTerms) {
		return field.ErrorList{field.Invalid(termsPath, validate.InternalValue(newTerms), "no additions/deletions to non-empty NodeSelectorTerms list are allowed")}
	}
	var errs field.ErrorList
	for i := range oldTerms {
		if !termOnlyAdds(newTerms[i], oldTerms[i]) {
			errs = append(errs, field.Invalid(termsPath.Index(i), validate.InternalValue(newTerms[i]), "only additions are allowed (no mutations or deletions)"))
		}
	}
	return errs
}

// termOnlyAdds says whether a node selector term keeps the old one's
// requirements in front and only appends more.
func termOnlyAdds(n, p corev1.NodeSelectorTerm) bool {
	if len(p.MatchExpressions) == 0 && len(p.MatchFields) == 0 && (len(n.MatchExpressions) > 0 || len(n.MatchFields) > 0) {
		return false
	}
	if l := len(p.MatchExpressions); l > 0 && (len(n.MatchExpressions) < l || !apiequality.Semantic.DeepEqual(n.MatchExpressions[:l], p.MatchExpressions)) {
		return false
	}
	if l := len(p.MatchFields); l > 0 && (len(n.MatchFields) < l || !apiequality.Semantic.DeepEqual(n.MatchFields[:l], p.MatchFields)) {
		return false
	}
	return true
}

// validateOnlyAddedTolerations refuses an update that drops or changes an
// existing toleration (but for its tolerationSeconds).
func validateOnlyAddedTolerations(n, p []corev1.Toleration, fld *field.Path) field.ErrorList {
	for _, old := range p {
		found := false
		for _, t := range n {
			o := old
			o.TolerationSeconds = t.TolerationSeconds
			if reflect.DeepEqual(o, t) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(fld, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

// validateOnlyDeletedGates refuses scheduling gates an update adds, each
// at its (last) index in the new list.
func validateOnlyDeletedGates(n, p []corev1.PodSchedulingGate, fld *field.Path) field.ErrorList {
	if len(n) == 0 {
		return nil
	}
	added := map[string]int{}
	for i, g := range n {
		added[g.Name] = i
	}
	for _, g := range p {
		delete(added, g.Name)
	}
	names := make([]string, 0, len(added))
	for name := range added {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return added[names[i]] < added[names[j]] })
	var errs field.ErrorList
	for _, name := range names {
		errs = append(errs, field.Forbidden(fld.Index(added[name]).Child("name"), fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", name)))
	}
	return errs
}

// validatePodStatusUpdate is upstream's ValidatePodStatusUpdate less the
// metadata, in its order: the annotations (which a write to /status may
// change), then the status a client writes: conditions, node names,
// observed generation, QoS class, the containers' state transitions, the
// claim statuses, pod and host IPs, the containers' users and allocated
// resources (see statusvalidation.go). The status fields of the gates off
// by default are dropped before (DropDisabledStatusFields).
func validatePodStatusUpdate(n, p *corev1.Pod) field.ErrorList {
	errs := validatePodSpecificAnnotationUpdates(n, p, field.NewPath("metadata", "annotations"), updateOptions(p))
	st := field.NewPath("status")
	for i, c := range n.Status.Conditions {
		cf := st.Child("conditions").Index(i)
		if c.ObservedGeneration < 0 {
			errs = append(errs, field.Invalid(cf.Child("observedGeneration"), c.ObservedGeneration, "must be a non-negative integer"))
		}
		switch c.Type {
		case corev1.PodScheduled, corev1.PodReady, corev1.PodInitialized:
			continue
		}
		for _, msg := range validation.IsQualifiedName(string(c.Type)) {
			errs = append(errs, field.Invalid(cf.Child("Type"), string(c.Type), msg))
		}
	}
	if n.Spec.NodeName != p.Spec.NodeName {
		errs = append(errs, field.Forbidden(st.Child("nodeName"), "may not be changed directly"))
	}
	if nn := n.Status.NominatedNodeName; nn != p.Status.NominatedNodeName && nn != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(nn, false) {
			errs = append(errs, field.Invalid(st.Child("nominatedNodeName"), nn, msg))
		}
	}
	if nn := n.Status.NominatedNodeName; p.Spec.NodeName != "" && nn != "" && nn != p.Status.NominatedNodeName {
		// ClearingNominatedNodeNameAfterBinding (on in v1.37): a bound
		// pod gets no new nomination.
		errs = append(errs, field.Forbidden(st.Child("nominatedNodeName"), "may not be set on pods that are already bound to a node"))
	}
	if n.Status.ObservedGeneration < 0 {
		errs = append(errs, field.Invalid(st.Child("observedGeneration"), n.Status.ObservedGeneration, "must be a non-negative integer"))
	}
	errs = append(errs, validate.ImmutableField(n.Status.QOSClass, p.Status.QOSClass, st.Child("qosClass"))...)
	// Upstream checks the transitions against the old pod's spec (the
	// new one's too: a write to /status keeps the stored spec).
	spec := &p.Spec
	errs = append(errs, validateContainerStateTransition(n.Status.ContainerStatuses, p.Status.ContainerStatuses, st.Child("containerStatuses"), spec, spec.Containers)...)
	errs = append(errs, validateContainerStateTransition(n.Status.InitContainerStatuses, p.Status.InitContainerStatuses, st.Child("initContainerStatuses"), spec, spec.InitContainers)...)
	errs = append(errs, validateEphemeralContainerStateTransition(n.Status.EphemeralContainerStatuses, p.Status.EphemeralContainerStatuses, st.Child("ephemeralContainerStatuses"))...)
	errs = append(errs, validatePodResourceClaimStatuses(n.Status.ResourceClaimStatuses, n.Spec.ResourceClaims, st.Child("resourceClaimStatuses"))...)
	errs = append(errs, validatePodExtendedResourceClaimStatus(n.Status.ExtendedResourceClaimStatus, &n.Spec, st.Child("extendedResourceClaimStatus"))...)
	errs = append(errs, validateStatusIPs(n.Status.PodIP, n.Status.PodIPs, p.Status.PodIPs, st.Child("podIPs"), false)...)
	if len(n.Status.HostIPs) > 0 {
		hostIPs := make([]corev1.PodIP, len(n.Status.HostIPs))
		for i, h := range n.Status.HostIPs {
			hostIPs[i] = corev1.PodIP(h)
		}
		oldHostIPs := make([]corev1.PodIP, len(p.Status.HostIPs))
		for i, h := range p.Status.HostIPs {
			oldHostIPs[i] = corev1.PodIP(h)
		}
		errs = append(errs, validateStatusIPs(n.Status.HostIP, hostIPs, oldHostIPs, st.Child("hostIPs"), true)...)
	}
	errs = append(errs, validateContainerStatusUsers(n.Status.ContainerStatuses, st.Child("containerStatuses"), n.Spec.OS)...)
	errs = append(errs, validateContainerStatusUsers(n.Status.InitContainerStatuses, st.Child("initContainerStatuses"), n.Spec.OS)...)
	errs = append(errs, validateContainerStatusUsers(n.Status.EphemeralContainerStatuses, st.Child("ephemeralContainerStatuses"), n.Spec.OS)...)
	errs = append(errs, validateContainerStatusAllocatedResourcesStatus(n.Status.ContainerStatuses, st.Child("containerStatuses"), n.Spec.Containers, &n.Status)...)
	errs = append(errs, validateContainerStatusAllocatedResourcesStatus(n.Status.InitContainerStatuses, st.Child("initContainerStatuses"), n.Spec.InitContainers, &n.Status)...)
	errs = append(errs, validateContainerStatusNoAllocatedResourcesStatus(n.Status.EphemeralContainerStatuses, st.Child("ephemeralContainerStatuses"))...)
	return errs
}

// validateStatusIPs is upstream's validatePodIPs (host: validateHostIPs).
func validateStatusIPs(ip string, ips, old []corev1.PodIP, fld *field.Path, host bool) field.ErrorList {
	var errs field.ErrorList
	if host && ip != ips[0].IP {
		errs = append(errs, field.Invalid(fld.Index(0).Child("ip"), ips[0].IP, "must be equal to `hostIP`"))
	}
	existing := make([]string, len(old))
	for i, o := range old {
		existing[i] = o.IP
	}
	for i, p := range ips {
		errs = append(errs, validate.LegacyIP(fld.Index(i), p.IP, existing)...)
	}
	if len(ips) > 1 {
		strs := make([]string, len(ips))
		for i, p := range ips {
			strs[i] = p.IP
		}
		if dual, _ := netutils.IsDualStackIPStrings(strs); !dual || len(ips) > 2 {
			errs = append(errs, field.Invalid(fld, validate.InternalValue(ips), "may specify no more than one IP for each IP family"))
		}
	}
	if host {
		return errs
	}
	switch {
	case (ip != "") != (len(ips) > 0):
		errs = append(errs, field.Invalid(fld, validate.InternalValue(ips), "podIP and podIPs must either both be set or both be unset"))
	case len(ips) > 0 && ip != ips[0].IP:
		errs = append(errs, field.Invalid(fld.Index(0).Child("ip"), ips[0].IP, "must be equal to `podIP`"))
	}
	return errs
}
