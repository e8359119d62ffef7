package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// The annotations of upstream's pkg/apis/core whose use in a pod or a pod
// template's metadata its warnings speak of.
const (
	seccompPodAnnotation              = "seccomp.security.alpha.kubernetes.io/pod"
	seccompContainerAnnotationPrefix  = "container.seccomp.security.alpha.kubernetes.io/"
	appArmorContainerAnnotationPrefix = "container.apparmor.security.beta.kubernetes.io/"
	appArmorRuntimeDefault            = "runtime/default"
	appArmorUnconfined                = "unconfined"
	appArmorLocalhostPrefix           = "localhost/"
	// maxAppArmorLocalhostProfile is upstream's limit on a localhost
	// profile's name (PATH_MAX - 1).
	maxAppArmorLocalhostProfile = 4095
)

// deprecatedPodAnnotations are the pod annotations upstream warns about
// whatever their value, with the warning's text.
var deprecatedPodAnnotations = []struct{ key, message string }{
	{"scheduler.alpha.kubernetes.io/critical-pod", `non-functional in v1.16+; use the "priorityClassName" field instead`},
	{"security.alpha.kubernetes.io/sysctls", `non-functional in v1.11+; use the "sysctls" field instead`},
	{"security.alpha.kubernetes.io/unsafe-sysctls", `non-functional in v1.11+; use the "sysctls" field instead`},
}

// WarningsForPod are upstream's warnings for a pod (GetWarningsForPod):
// those of its spec and metadata, with paths from the pod's root. old, nil
// on create, is the stored pod; like upstream, the warnings do not depend
// on it.
func WarningsForPod(pod, old *corev1.Pod) []string {
	if pod == nil {
		return nil
	}
	return specAndMetaWarnings(nil, &pod.Spec, &pod.ObjectMeta)
}

// WarningsForPodTemplate are upstream's warnings for a pod template
// (GetWarningsForPodTemplate) found at fld: those of its spec and
// metadata, including the container AppArmor annotations it uses without
// the field. A nil tmpl has none. old, nil on create, is the stored
// template; like upstream, the warnings do not depend on it.
func WarningsForPodTemplate(fld *field.Path, tmpl, old *corev1.PodTemplateSpec) []string {
	if tmpl == nil {
		return nil
	}
	return specAndMetaWarnings(fld, &tmpl.Spec, &tmpl.ObjectMeta)
}

// PodNameWarnings is the warning upstream's pod strategy gives at create
// for a name that is not a DNS label, which the pod's hostname is taken
// from.
func PodNameWarnings(name string) []string {
	return nameWarnings(name, "this is used in the Pod's hostname")
}

// WorkloadNameWarnings is the warning upstream's strategies of the
// resources that create pods (ReplicationControllers, Deployments,
// ReplicaSets, Jobs, CronJobs) give at create for a name that is not a DNS
// label, which the names and hostnames of their pods are taken from.
func WorkloadNameWarnings(name string) []string {
	return nameWarnings(name, "this is used in Pod names and hostnames")
}

// nameWarnings is the warning for a name that is not a DNS label, used as
// use says.
func nameWarnings(name, use string) []string {
	msgs := utilvalidation.IsDNS1123Label(name)
	if len(msgs) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("metadata.name: %s, which can result in surprising behavior; a DNS label is recommended: %v", use, msgs)}
}

// appArmorAnnotationWarning is upstream's warning for the container
// AppArmor annotation key in the metadata at fld.
func appArmorAnnotationWarning(fld *field.Path, key string) string {
	return fmt.Sprintf(`%s: deprecated since v1.30; use the "appArmorProfile" field instead`, fld.Child("metadata", "annotations").Key(key))
}

// appArmorProfileForAnnotation is the profile a container AppArmor
// annotation's value stands for (upstream's ApparmorFieldForAnnotation),
// or nil for a value that stands for none.
func appArmorProfileForAnnotation(v string) *corev1.AppArmorProfile {
	switch {
	case v == appArmorUnconfined:
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}
	case v == appArmorRuntimeDefault:
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}
	case strings.HasPrefix(v, appArmorLocalhostPrefix) && len(v) > len(appArmorLocalhostPrefix):
		name := strings.TrimPrefix(v, appArmorLocalhostPrefix)
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: &name}
	}
	return nil
}

// visitContainersWithPath calls f on each container of s with its path
// under spec, in upstream's order (VisitContainersWithPath): the init
// containers, the containers, then the ephemeral containers' common part.
func visitContainersWithPath(s *corev1.PodSpec, spec *field.Path, f func(*corev1.Container, *field.Path)) {
	for i := range s.InitContainers {
		f(&s.InitContainers[i], spec.Child("initContainers").Index(i))
	}
	for i := range s.Containers {
		f(&s.Containers[i], spec.Child("containers").Index(i))
	}
	for i := range s.EphemeralContainers {
		c := corev1.Container(s.EphemeralContainers[i].EphemeralContainerCommon)
		f(&c, spec.Child("ephemeralContainers").Index(i))
	}
}

// specAndMetaWarnings is upstream's warningsForPodSpecAndMeta: fld is the
// path of the pod template, nil for a pod. Where upstream ranges over a
// map (nodeSelector, annotations) the keys are taken in order.
func specAndMetaWarnings(fld *field.Path, s *corev1.PodSpec, meta *metav1.ObjectMeta) []string {
	spec := fld.Child("spec")
	annotations := fld.Child("metadata", "annotations")
	var warnings []string

	// Deprecated node labels in the node selector, node affinity and
	// topology spread constraints.
	for _, k := range validate.SortedKeys(s.NodeSelector) {
		if msg, ok := validate.DeprecatedNodeLabel(k); ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s", spec.Child("nodeSelector").Key(k), msg))
		}
	}
	if s.Affinity != nil && s.Affinity.NodeAffinity != nil {
		na := s.Affinity.NodeAffinity
		nodeAffinity := spec.Child("affinity", "nodeAffinity")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			terms := nodeAffinity.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
			for i, term := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				warnings = append(warnings, validate.NodeSelectorTermWarnings(term, false, terms.Index(i))...)
			}
		}
		preferred := nodeAffinity.Child("preferredDuringSchedulingIgnoredDuringExecution")
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			warnings = append(warnings, validate.NodeSelectorTermWarnings(term.Preference, true, preferred.Index(i).Child("preference"))...)
		}
	}
	for i, c := range s.TopologySpreadConstraints {
		p := spec.Child("topologySpreadConstraints").Index(i)
		if msg, ok := validate.DeprecatedNodeLabel(c.TopologyKey); ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s is %s", p.Child("topologyKey"), c.TopologyKey, msg))
		}
		if c.LabelSelector == nil {
			warnings = append(warnings, nullLabelSelector(p.Child("labelSelector")))
		}
	}

	// Deprecated annotations.
	for _, a := range deprecatedPodAnnotations {
		if _, ok := meta.Annotations[a.key]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s", annotations.Key(a.key), a.message))
		}
	}

	// Deprecated and removed volume plugins.
	for i, v := range s.Volumes {
		p := spec.Child("volumes").Index(i)
		deprecated := func(name, msg string) {
			warnings = append(warnings, fmt.Sprintf("%s: %s", p.Child(name), msg))
		}
		if v.PhotonPersistentDisk != nil {
			deprecated("photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+")
		}
		if v.GitRepo != nil {
			// GitRepoVolumeDriver is off (locked) in v1.37.
			deprecated("gitRepo", "deprecated in v1.11, and disabled by default in v1.33+")
		}
		if v.ScaleIO != nil {
			deprecated("scaleIO", "deprecated in v1.16, non-functional in v1.22+")
		}
		if v.Flocker != nil {
			deprecated("flocker", "deprecated in v1.22, non-functional in v1.25+")
		}
		if v.StorageOS != nil {
			deprecated("storageOS", "deprecated in v1.22, non-functional in v1.25+")
		}
		if v.Quobyte != nil {
			deprecated("quobyte", "deprecated in v1.22, non-functional in v1.25+")
		}
		if v.Glusterfs != nil {
			deprecated("glusterfs", "deprecated in v1.25, non-functional in v1.26+")
		}
		if v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil {
			warnings = append(warnings, validate.PVCSpecWarnings(p.Child("ephemeral", "volumeClaimTemplate", "spec"), v.Ephemeral.VolumeClaimTemplate.Spec)...)
		}
		if v.CephFS != nil {
			deprecated("cephfs", "deprecated in v1.28, non-functional in v1.31+")
		}
		if v.RBD != nil {
			deprecated("rbd", "deprecated in v1.28, non-functional in v1.31+")
		}
	}
	warnings = append(warnings, overlappingPathWarnings(s.Volumes)...)

	// Duplicate host alias IPs and image pull secrets, and pull secrets
	// without a name.
	if len(s.HostAliases) > 1 {
		seen := map[string]bool{}
		for i, a := range s.HostAliases {
			if seen[a.IP] {
				warnings = append(warnings, fmt.Sprintf("%s: duplicate ip %q", spec.Child("hostAliases").Index(i).Child("ip"), a.IP))
			}
			seen[a.IP] = true
		}
	}
	if len(s.ImagePullSecrets) > 1 {
		seen := map[string]bool{}
		for i, r := range s.ImagePullSecrets {
			if seen[r.Name] {
				warnings = append(warnings, fmt.Sprintf("%s: duplicate name %q", spec.Child("imagePullSecrets").Index(i).Child("name"), r.Name))
			}
			seen[r.Name] = true
		}
	}
	for i, r := range s.ImagePullSecrets {
		if r.Name == "" {
			warnings = append(warnings, fmt.Sprintf("%s: invalid empty name %q", spec.Child("imagePullSecrets").Index(i).Child("name"), r.Name))
		}
	}

	// Memory and ephemeral storage that are not whole bytes.
	for _, name := range []corev1.ResourceName{corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q, ok := s.Overhead[name]; ok {
			warnings = append(warnings, validate.FractionalBytes(spec.Child("overhead").Key(string(name)), q)...)
		}
	}

	// The seccomp pod annotation without the field.
	if s.SecurityContext == nil || s.SecurityContext.SeccompProfile == nil {
		if _, ok := meta.Annotations[seccompPodAnnotation]; ok {
			warnings = append(warnings, seccompAnnotationWarning(annotations, seccompPodAnnotation))
		}
	}
	var podAppArmor *corev1.AppArmorProfile
	if s.SecurityContext != nil {
		podAppArmor = s.SecurityContext.AppArmorProfile
	}

	visitContainersWithPath(s, spec, func(c *corev1.Container, p *field.Path) {
		// The container seccomp and (in templates: a pod's come from
		// PrepareForCreate, see applyAppArmorVersionSkew) AppArmor
		// annotations without the field.
		if c.SecurityContext == nil || c.SecurityContext.SeccompProfile == nil {
			key := seccompContainerAnnotationPrefix + c.Name
			if _, ok := meta.Annotations[key]; ok {
				warnings = append(warnings, seccompAnnotationWarning(annotations, key))
			}
		}
		if fld != nil && (c.SecurityContext == nil || c.SecurityContext.AppArmorProfile == nil) {
			key := appArmorContainerAnnotationPrefix + c.Name
			if v, ok := meta.Annotations[key]; ok {
				if podAppArmor == nil || !apiequality.Semantic.DeepEqual(podAppArmor, appArmorProfileForAnnotation(v)) {
					warnings = append(warnings, appArmorAnnotationWarning(fld, key))
				}
			}
		}

		// Memory and ephemeral storage that are not whole bytes.
		for _, name := range []corev1.ResourceName{corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
			if q, ok := c.Resources.Limits[name]; ok {
				warnings = append(warnings, validate.FractionalBytes(p.Child("resources", "limits").Key(string(name)), q)...)
			}
			if q, ok := c.Resources.Requests[name]; ok {
				warnings = append(warnings, validate.FractionalBytes(p.Child("resources", "requests").Key(string(name)), q)...)
			}
		}

		// An environment variable defined again, other than as a value
		// that refers to the one before (X=$(X)abc).
		if len(c.Env) > 1 {
			seen := map[string]bool{}
			for i, e := range c.Env {
				if !seen[e.Name] {
					seen[e.Name] = true
					continue
				}
				ref := "$(" + e.Name + ")"
				if e.ValueFrom != nil || e.Value == ref || !strings.Contains(e.Value, ref) {
					warnings = append(warnings, fmt.Sprintf("%s: hides previous definition of %q, which may be dropped when using apply", p.Child("env").Index(i), e.Name))
				}
			}
		}
	})

	warnings = append(warnings, portWarnings(s, spec)...)

	if s.TerminationGracePeriodSeconds != nil && *s.TerminationGracePeriodSeconds < 0 {
		warnings = append(warnings, fmt.Sprintf("%s: must be >= 0; negative values are invalid and will be treated as 1", spec.Child("terminationGracePeriodSeconds")))
	}

	// Pod (anti-)affinity terms without a label selector.
	if s.Affinity != nil {
		for _, a := range []struct {
			name      string
			required  []corev1.PodAffinityTerm
			preferred []corev1.WeightedPodAffinityTerm
		}{
			{"podAffinity", podAffinityRequired(s.Affinity.PodAffinity), podAffinityPreferred(s.Affinity.PodAffinity)},
			{"podAntiAffinity", podAntiAffinityRequired(s.Affinity.PodAntiAffinity), podAntiAffinityPreferred(s.Affinity.PodAntiAffinity)},
		} {
			p := spec.Child("affinity", a.name)
			for i, t := range a.required {
				if t.LabelSelector == nil {
					warnings = append(warnings, nullLabelSelector(p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i).Child("labelSelector")))
				}
			}
			for i, t := range a.preferred {
				if t.PodAffinityTerm.LabelSelector == nil {
					warnings = append(warnings, nullLabelSelector(p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("podAffinityTerm", "labelSelector")))
				}
			}
		}
	}

	// IP addresses in a deprecated form.
	if s.DNSConfig != nil {
		for i, ns := range s.DNSConfig.Nameservers {
			warnings = append(warnings, validate.IPWarnings(spec.Child("dnsConfig", "nameservers").Index(i), ns)...)
		}
	}
	for i, a := range s.HostAliases {
		warnings = append(warnings, validate.IPWarnings(spec.Child("hostAliases").Index(i).Child("ip"), a.IP)...)
	}
	return warnings
}

// podAffinityRequired and the three below are a pod (anti-)affinity's
// terms, none for a nil one.
func podAffinityRequired(a *corev1.PodAffinity) []corev1.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAffinityPreferred(a *corev1.PodAffinity) []corev1.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.PreferredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityRequired(a *corev1.PodAntiAffinity) []corev1.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityPreferred(a *corev1.PodAntiAffinity) []corev1.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.PreferredDuringSchedulingIgnoredDuringExecution
}

// nullLabelSelector is upstream's warning for a term without a label
// selector at fld.
func nullLabelSelector(fld *field.Path) string {
	return fmt.Sprintf("%s: a null labelSelector results in matching no pod", fld)
}

// seccompAnnotationWarning is upstream's warning for a seccomp annotation
// used without the field.
func seccompAnnotationWarning(annotations *field.Path, key string) string {
	return fmt.Sprintf(`%s: non-functional in v1.27+; use the "seccompProfile" field instead`, annotations.Key(key))
}

// portWarnings are upstream's warnings for the containers' ports: a host
// IP without a host port, a port defined twice or overlapping another
// (same container port and protocol), and a port name used twice.
func portWarnings(s *corev1.PodSpec, spec *field.Path) []string {
	var warnings []string
	type defined struct {
		fld  *field.Path
		port corev1.ContainerPort
	}
	byPort := map[string][]defined{}
	visitContainersWithPath(s, spec, func(c *corev1.Container, p *field.Path) {
		for i, port := range c.Ports {
			fld := p.Child("ports").Index(i)
			if port.HostIP != "" && port.HostPort == 0 {
				// The port struct as upstream prints it: v1's fields are
				// internal's, in the same order.
				warnings = append(warnings, fmt.Sprintf("%s: hostIP set without hostPort: %+v", fld, port))
			}
			k := fmt.Sprintf("%d/%s", port.ContainerPort, port.Protocol)
			for _, other := range byPort[k] {
				a, b := port.HostIP == "", other.port.HostIP == ""
				switch {
				case port.HostIP == other.port.HostIP && port.HostPort == other.port.HostPort:
					warnings = append(warnings, fmt.Sprintf("%s: duplicate port definition with %s", fld, other.fld))
				case port.HostPort == 0 || other.port.HostPort == 0:
					warnings = append(warnings, fmt.Sprintf("%s: overlapping port definition with %s", fld, other.fld))
				case port.HostPort == other.port.HostPort && a != b:
					warnings = append(warnings, fmt.Sprintf("%s: dangerously ambiguous port definition with %s", fld, other.fld))
				}
			}
			byPort[k] = append(byPort[k], defined{fld, port})
		}
	})
	names := map[string]*field.Path{}
	visitContainersWithPath(s, spec, func(c *corev1.Container, p *field.Path) {
		for i, port := range c.Ports {
			if port.Name == "" {
				continue
			}
			fld := p.Child("ports").Index(i)
			if other, ok := names[port.Name]; ok {
				warnings = append(warnings, fmt.Sprintf("%s: duplicate port name %q with %s, services and probes that select ports by name will use %s", fld, port.Name, other, other))
			} else {
				names[port.Name] = fld
			}
		}
	})
	return warnings
}

// sourcedPath is a file path a volume projects, with what it comes from
// (empty in a volume of one source), as upstream's overlap warnings name
// it.
type sourcedPath struct{ path, source string }

// String quotes the path, followed by its source in parentheses.
func (p sourcedPath) String() string {
	if p.source == "" {
		return fmt.Sprintf("%q", p.path)
	}
	return fmt.Sprintf("%q (%s)", p.path, p.source)
}

// overlappingPathWarnings are upstream's warnings for the ConfigMap,
// Secret, downward API and projected volumes in which two items are given
// the same path, or one's path is under another's
// (warningsForOverlappingVirtualPaths), and for empty projected sources.
func overlappingPathWarnings(volumes []corev1.Volume) []string {
	var warnings []string
	warn := func(v *corev1.Volume, desc, body string) {
		warnings = append(warnings, fmt.Sprintf("volume %q (%s): overlapping paths: %s", v.Name, desc, body))
	}
	for i := range volumes {
		v := &volumes[i]
		if v.ConfigMap != nil && v.ConfigMap.Items != nil {
			for _, o := range mappingOverlaps(keyToPaths(v.ConfigMap.Items, "")) {
				warn(v, fmt.Sprintf("ConfigMap %q", v.ConfigMap.Name), o)
			}
		}
		if v.Secret != nil && v.Secret.Items != nil {
			for _, o := range mappingOverlaps(keyToPaths(v.Secret.Items, "")) {
				warn(v, fmt.Sprintf("Secret %q", v.Secret.SecretName), o)
			}
		}
		if v.DownwardAPI != nil && v.DownwardAPI.Items != nil {
			for _, o := range mappingOverlaps(downwardAPIPaths(v.DownwardAPI.Items, "")) {
				warn(v, "DownwardAPI", o)
			}
		}
		if v.Projected == nil {
			continue
		}
		var all []sourcedPath
		for _, src := range v.Projected.Sources {
			if src == (corev1.VolumeProjection{}) {
				warnings = append(warnings, fmt.Sprintf("volume %q (Projected) has no sources provided", v.Name))
				continue
			}
			for _, p := range projectionPaths(src) {
				p.path = strings.TrimRight(p.path, "/")
				for _, c := range overlaps(all, p) {
					warn(v, "Projected", fmt.Sprintf("%s with %s", p, c))
				}
				all = append(all, p)
			}
		}
	}
	return warnings
}

// projectionPaths are the paths a projected volume's source gives, as
// upstream takes them: the first of its kinds set (with items, for the
// ConfigMap, Secret and downward API ones) decides.
func projectionPaths(src corev1.VolumeProjection) []sourcedPath {
	switch {
	case src.ConfigMap != nil && src.ConfigMap.Items != nil:
		return keyToPaths(src.ConfigMap.Items, fmt.Sprintf("ConfigMap %q", src.ConfigMap.Name))
	case src.Secret != nil && src.Secret.Items != nil:
		return keyToPaths(src.Secret.Items, fmt.Sprintf("Secret %q", src.Secret.Name))
	case src.DownwardAPI != nil && src.DownwardAPI.Items != nil:
		return downwardAPIPaths(src.DownwardAPI.Items, "DownwardAPI")
	case src.ServiceAccountToken != nil:
		return []sourcedPath{{src.ServiceAccountToken.Path, "ServiceAccountToken"}}
	case src.ClusterTrustBundle != nil:
		name := ""
		if b := src.ClusterTrustBundle; b.Name != nil {
			name = *b.Name
		} else if b.SignerName != nil {
			name = *b.SignerName
		}
		return []sourcedPath{{src.ClusterTrustBundle.Path, fmt.Sprintf("ClusterTrustBundle %q", name)}}
	case src.PodCertificate != nil:
		var paths []sourcedPath
		pc := src.PodCertificate
		for _, p := range []sourcedPath{
			{pc.CertificateChainPath, "PodCertificate chain"},
			{pc.KeyPath, "PodCertificate key"},
			{pc.CredentialBundlePath, "PodCertificate credential bundle"},
		} {
			if p.path != "" {
				paths = append(paths, p)
			}
		}
		return paths
	}
	return nil
}

// keyToPaths are the paths of a ConfigMap's or Secret's items.
func keyToPaths(items []corev1.KeyToPath, source string) []sourcedPath {
	paths := make([]sourcedPath, 0, len(items))
	for _, it := range items {
		paths = append(paths, sourcedPath{it.Path, source})
	}
	return paths
}

// downwardAPIPaths are the paths of a downward API volume's items.
func downwardAPIPaths(items []corev1.DownwardAPIVolumeFile, source string) []sourcedPath {
	paths := make([]sourcedPath, 0, len(items))
	for _, it := range items {
		paths = append(paths, sourcedPath{it.Path, source})
	}
	return paths
}

// mappingOverlaps describes each overlap among the paths of one volume
// source's items, each with the earlier ones, trailing slashes left out.
func mappingOverlaps(paths []sourcedPath) []string {
	var out []string
	var all []sourcedPath
	for _, p := range paths {
		p.path = strings.TrimRight(p.path, "/")
		for _, c := range overlaps(all, p) {
			out = append(out, fmt.Sprintf("%s with %s", p, c))
		}
		all = append(all, p)
	}
	return out
}

// overlaps are the paths among earlier that p overlaps: the same path, or
// one under the other. An empty path overlaps none.
func overlaps(earlier []sourcedPath, p sourcedPath) []sourcedPath {
	if p.path == "" {
		return nil
	}
	var out []sourcedPath
	for _, e := range earlier {
		if e.path == "" {
			continue
		}
		if e == p || strings.HasPrefix(e.path+"/", p.path+"/") || strings.HasPrefix(p.path+"/", e.path+"/") {
			out = append(out, e)
		}
	}
	return out
}

// StatusWarnings are upstream's pod status strategy's warnings: pod and
// host IPs in a deprecated form.
func StatusWarnings(pod *corev1.Pod) []string {
	var warnings []string
	for i, ip := range pod.Status.PodIPs {
		warnings = append(warnings, validate.IPWarnings(field.NewPath("status", "podIPs").Index(i).Child("ip"), ip.IP)...)
	}
	for i, ip := range pod.Status.HostIPs {
		warnings = append(warnings, validate.IPWarnings(field.NewPath("status", "hostIPs").Index(i).Child("ip"), ip.IP)...)
	}
	return warnings
}
