package pod

import (
	"reflect"

	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
)

// DefaultPodSpec is upstream's SetDefaults_PodSpec with the defaults of
// everything a pod spec holds (containers, probes, ports, env, volumes).
func DefaultPodSpec(s *corev1.PodSpec) {
	if s.ServiceAccountName == "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount //nolint:staticcheck // upstream keeps the alias in sync
	}
	s.DeprecatedServiceAccount = s.ServiceAccountName //nolint:staticcheck
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		g := int64(corev1.DefaultTerminationGracePeriodSeconds)
		s.TerminationGracePeriodSeconds = &g
	}
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i])
	}
	visitContainers(s, defaultContainer)
	roundResources(s.Overhead)
}

// defaultPod adds what upstream's SetDefaults_Pod sets on pods but not on
// pod templates: requests copied from limits, host ports under host
// networking, a negative grace period raised to 1, service links.
func defaultPod(o *corev1.Pod) {
	DefaultPodSpec(&o.Spec)
	if g := o.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		o.Spec.TerminationGracePeriodSeconds = &one
	}
	for _, list := range [][]corev1.Container{o.Spec.Containers, o.Spec.InitContainers} {
		for i := range list {
			r := &list[i].Resources
			if r.Limits == nil {
				continue
			}
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			for k, v := range r.Limits {
				if _, ok := r.Requests[k]; !ok {
					r.Requests[k] = v.DeepCopy()
				}
			}
		}
	}
	if o.Spec.EnableServiceLinks == nil {
		t := true
		o.Spec.EnableServiceLinks = &t
	}
	// SetDefaults_PodStatus: podIP and podIPs agree, podIP winning.
	st := &o.Status
	switch hasIP, hasIPs := st.PodIP != "", len(st.PodIPs) > 0; {
	case hasIP && !hasIPs:
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	case !hasIP && hasIPs:
		st.PodIP = st.PodIPs[0].IP
	case hasIP && hasIPs && st.PodIPs[0].IP != st.PodIP:
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	}
	if o.Spec.HostNetwork {
		for _, list := range [][]corev1.Container{o.Spec.Containers, o.Spec.InitContainers} {
			for i := range list {
				for j := range list[i].Ports {
					if list[i].Ports[j].HostPort == 0 {
						list[i].Ports[j].HostPort = list[i].Ports[j].ContainerPort
					}
				}
			}
		}
	}
}

// roundResources is upstream's SetDefaults_ResourceList: quantities are
// rounded up to milli scale.
func roundResources(l corev1.ResourceList) {
	for k, v := range l {
		v.RoundUp(-3)
		l[k] = v
	}
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if f := c.Env[i].ValueFrom; f != nil {
			if f.FieldRef != nil && f.FieldRef.APIVersion == "" {
				f.FieldRef.APIVersion = "v1"
			}
			if f.FileKeyRef != nil && f.FileKeyRef.Optional == nil {
				no := false
				f.FileKeyRef.Optional = &no
			}
		}
	}
	roundResources(c.Resources.Limits)
	roundResources(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p == nil {
			continue
		}
		if p.TimeoutSeconds == 0 {
			p.TimeoutSeconds = 1
		}
		if p.PeriodSeconds == 0 {
			p.PeriodSeconds = 10
		}
		if p.SuccessThreshold == 0 {
			p.SuccessThreshold = 1
		}
		if p.FailureThreshold == 0 {
			p.FailureThreshold = 3
		}
		defaultHTTPGet(p.HTTPGet)
		if p.GRPC != nil && p.GRPC.Service == nil {
			empty := ""
			p.GRPC.Service = &empty
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// defaultVolume is upstream's SetDefaults_Volume and the defaults of the
// volume sources.
func defaultVolume(v *corev1.Volume) {
	if reflect.ValueOf(v.VolumeSource).IsZero() {
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	mode := func(m **int32) {
		if *m == nil {
			d := int32(0o644)
			*m = &d
		}
	}
	src := &v.VolumeSource
	if src.Secret != nil {
		mode(&src.Secret.DefaultMode)
	}
	if src.ConfigMap != nil {
		mode(&src.ConfigMap.DefaultMode)
	}
	if src.DownwardAPI != nil {
		mode(&src.DownwardAPI.DefaultMode)
		for i := range src.DownwardAPI.Items {
			if f := src.DownwardAPI.Items[i].FieldRef; f != nil && f.APIVersion == "" {
				f.APIVersion = "v1"
			}
		}
	}
	if src.Projected != nil {
		mode(&src.Projected.DefaultMode)
		for _, p := range src.Projected.Sources {
			if p.ServiceAccountToken != nil && p.ServiceAccountToken.ExpirationSeconds == nil {
				hour := int64(3600)
				p.ServiceAccountToken.ExpirationSeconds = &hour
			}
			if p.DownwardAPI != nil {
				for i := range p.DownwardAPI.Items {
					if f := p.DownwardAPI.Items[i].FieldRef; f != nil && f.APIVersion == "" {
						f.APIVersion = "v1"
					}
				}
			}
		}
	}
	if src.HostPath != nil && src.HostPath.Type == nil {
		unset := corev1.HostPathUnset
		src.HostPath.Type = &unset
	}
	if src.ISCSI != nil && src.ISCSI.ISCSIInterface == "" {
		src.ISCSI.ISCSIInterface = "default"
	}
	if r := src.RBD; r != nil {
		if r.RBDPool == "" {
			r.RBDPool = "rbd"
		}
		if r.RadosUser == "" {
			r.RadosUser = "admin"
		}
		if r.Keyring == "" {
			r.Keyring = "/etc/ceph/keyring"
		}
	}
	if s := src.ScaleIO; s != nil {
		if s.StorageMode == "" {
			s.StorageMode = "ThinProvisioned"
		}
		if s.FSType == "" {
			s.FSType = "xfs"
		}
	}
	if a := src.AzureDisk; a != nil {
		if a.CachingMode == nil {
			m := corev1.AzureDataDiskCachingReadWrite
			a.CachingMode = &m
		}
		if a.FSType == nil {
			f := "ext4"
			a.FSType = &f
		}
		if a.ReadOnly == nil {
			f := false
			a.ReadOnly = &f
		}
		if a.Kind == nil {
			k := corev1.AzureSharedBlobDisk
			a.Kind = &k
		}
	}
	if im := src.Image; im != nil && im.PullPolicy == "" {
		im.PullPolicy = defaultPullPolicy(im.Reference)
	}
	// EmptyDirVolumeMode is off in v1.37: upstream drops the field (it
	// keeps it on an update of a pod that has it, which none does here).
	if src.EmptyDir != nil {
		src.EmptyDir.Mode = nil
	}
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil && e.VolumeClaimTemplate.Spec.VolumeMode == nil {
		fs := corev1.PersistentVolumeFilesystem
		e.VolumeClaimTemplate.Spec.VolumeMode = &fs
	}
}

// defaultPullPolicy is upstream's default pull policy of an image
// reference, as its parsers.ParseImageName reads it: Always for the latest
// tag (also when neither a tag nor a digest is given), IfNotPresent for any
// other tag, a digest alone, or a reference that does not parse.
func defaultPullPolicy(image string) corev1.PullPolicy {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return corev1.PullIfNotPresent
	}
	tagged, hasTag := named.(reference.Tagged)
	_, hasDigest := named.(reference.Digested)
	if (hasTag && tagged.Tag() == "latest") || (!hasTag && !hasDigest) {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}
