package pod

import (
	corev1 "k8s.io/api/core/v1"
)

// DropDisabledSpecFields clears the fields of a pod spec (of a pod, or of
// a pod template) whose feature gates are off by default in
// kube-apiserver v1.37, as upstream's pkg/api/pod dropDisabledFields does:
// each gate's fields are kept when old (nil on create) already uses them.
// The gates: EmptyDirVolumeMode, VolumeBindMountOptions,
// ContainerStopSignals, H2CContainerProbe, GRPCContainerProbeTLS,
// AtomicWriteVolumeUserFields, GenericWorkload (schedulingGroup) and
// EvictionRequestAPI (evictionResponders).
func DropDisabledSpecFields(spec, old *corev1.PodSpec) {
	for _, g := range specGates {
		if !g.inUse(old) {
			g.drop(spec)
		}
	}
}

// specGate is one default-off gate's fields of a pod spec: inUse reports
// whether a spec (nil: none) sets them, drop clears them.
type specGate struct {
	inUse func(*corev1.PodSpec) bool
	drop  func(*corev1.PodSpec)
}

// specGates are the pod spec fields of the gates off by default in v1.37.
var specGates = []specGate{
	{ // EmptyDirVolumeMode
		inUse: func(s *corev1.PodSpec) bool {
			return anyPtr(s, func(s *corev1.PodSpec, f func(**int32)) {
				for i := range s.Volumes {
					if s.Volumes[i].EmptyDir != nil {
						f(&s.Volumes[i].EmptyDir.Mode)
					}
				}
			})
		},
		drop: func(s *corev1.PodSpec) {
			for i := range s.Volumes {
				if s.Volumes[i].EmptyDir != nil {
					s.Volumes[i].EmptyDir.Mode = nil
				}
			}
		},
	},
	{ // VolumeBindMountOptions
		inUse: func(s *corev1.PodSpec) bool {
			used := false
			visitContainers(s, func(c *corev1.Container) {
				for _, m := range c.VolumeMounts {
					used = used || m.BindMountOptions != nil
				}
			})
			return used
		},
		drop: func(s *corev1.PodSpec) {
			visitContainers(s, func(c *corev1.Container) {
				for i := range c.VolumeMounts {
					c.VolumeMounts[i].BindMountOptions = nil
				}
			})
		},
	},
	{ // ContainerStopSignals
		inUse: func(s *corev1.PodSpec) bool {
			used := false
			visitContainers(s, func(c *corev1.Container) {
				used = used || c.Lifecycle != nil && c.Lifecycle.StopSignal != nil
			})
			return used
		},
		drop: func(s *corev1.PodSpec) {
			visitContainers(s, func(c *corev1.Container) {
				if c.Lifecycle != nil && c.Lifecycle.StopSignal != nil {
					c.Lifecycle.StopSignal = nil
					if *c.Lifecycle == (corev1.Lifecycle{}) {
						c.Lifecycle = nil
					}
				}
			})
		},
	},
	{ // H2CContainerProbe
		inUse: func(s *corev1.PodSpec) bool {
			used := false
			visitHTTPGets(s, func(h *corev1.HTTPGetAction) { used = used || h.Protocol != nil })
			return used
		},
		drop: func(s *corev1.PodSpec) {
			visitHTTPGets(s, func(h *corev1.HTTPGetAction) { h.Protocol = nil })
		},
	},
	{ // GRPCContainerProbeTLS
		inUse: func(s *corev1.PodSpec) bool {
			used := false
			visitGRPCProbes(s, func(g *corev1.GRPCAction) { used = used || g.Mode != nil })
			return used
		},
		drop: func(s *corev1.PodSpec) {
			visitGRPCProbes(s, func(g *corev1.GRPCAction) { g.Mode = nil })
		},
	},
	{ // AtomicWriteVolumeUserFields
		inUse: func(s *corev1.PodSpec) bool { return anyPtr(s, visitVolumeUsers) },
		drop: func(s *corev1.PodSpec) {
			visitVolumeUsers(s, func(p **int64) { *p = nil })
		},
	},
	{ // GenericWorkload
		inUse: func(s *corev1.PodSpec) bool { return s != nil && s.SchedulingGroup != nil },
		drop:  func(s *corev1.PodSpec) { s.SchedulingGroup = nil },
	},
	{ // EvictionRequestAPI
		inUse: func(s *corev1.PodSpec) bool { return s != nil && len(s.EvictionResponders) > 0 },
		drop:  func(s *corev1.PodSpec) { s.EvictionResponders = nil },
	},
}

// anyPtr reports whether visit, run on s (nil: none), finds a set pointer.
func anyPtr[T any](s *corev1.PodSpec, visit func(*corev1.PodSpec, func(**T))) bool {
	if s == nil {
		return false
	}
	used := false
	visit(s, func(p **T) { used = used || *p != nil })
	return used
}

// visitContainers calls f on each container of s (nil: none): init,
// regular, and the ephemeral containers' common part.
func visitContainers(s *corev1.PodSpec, f func(*corev1.Container)) {
	if s == nil {
		return
	}
	for i := range s.InitContainers {
		f(&s.InitContainers[i])
	}
	for i := range s.Containers {
		f(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		c := corev1.Container(s.EphemeralContainers[i].EphemeralContainerCommon)
		f(&c)
		s.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
}

// visitHTTPGets calls f on the HTTP actions of the containers' probes and
// lifecycle handlers.
func visitHTTPGets(s *corev1.PodSpec, f func(*corev1.HTTPGetAction)) {
	visitContainers(s, func(c *corev1.Container) {
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p != nil && p.HTTPGet != nil {
				f(p.HTTPGet)
			}
		}
		if c.Lifecycle != nil {
			for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
				if h != nil && h.HTTPGet != nil {
					f(h.HTTPGet)
				}
			}
		}
	})
}

// visitGRPCProbes calls f on the gRPC actions of the containers' probes.
func visitGRPCProbes(s *corev1.PodSpec, f func(*corev1.GRPCAction)) {
	visitContainers(s, func(c *corev1.Container) {
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p != nil && p.GRPC != nil {
				f(p.GRPC)
			}
		}
	})
}

// visitVolumeUsers calls f on each user field of the volumes
// (AtomicWriteVolumeUserFields): the default users of secret, config map,
// downward API and projected volumes, and the users of their items and
// projected sources.
func visitVolumeUsers(s *corev1.PodSpec, f func(**int64)) {
	keys := func(items []corev1.KeyToPath) {
		for i := range items {
			f(&items[i].User)
		}
	}
	files := func(items []corev1.DownwardAPIVolumeFile) {
		for i := range items {
			f(&items[i].User)
		}
	}
	for i := range s.Volumes {
		v := &s.Volumes[i]
		switch {
		case v.Secret != nil:
			f(&v.Secret.DefaultUser)
			keys(v.Secret.Items)
		case v.ConfigMap != nil:
			f(&v.ConfigMap.DefaultUser)
			keys(v.ConfigMap.Items)
		case v.DownwardAPI != nil:
			f(&v.DownwardAPI.DefaultUser)
			files(v.DownwardAPI.Items)
		case v.Projected != nil:
			f(&v.Projected.DefaultUser)
			for j := range v.Projected.Sources {
				src := &v.Projected.Sources[j]
				switch {
				case src.Secret != nil:
					keys(src.Secret.Items)
				case src.DownwardAPI != nil:
					files(src.DownwardAPI.Items)
				case src.ConfigMap != nil:
					keys(src.ConfigMap.Items)
				case src.ServiceAccountToken != nil:
					f(&src.ServiceAccountToken.User)
				case src.ClusterTrustBundle != nil:
					f(&src.ClusterTrustBundle.User)
				case src.PodCertificate != nil:
					f(&src.PodCertificate.User)
				}
			}
		}
	}
}

// DropDisabledStatusFields clears the fields of a pod status whose feature
// gates are off by default in kube-apiserver v1.37, as upstream's
// dropDisabledPodStatusFields, each kept when old (the stored status)
// already uses it: the volume health (CSIVolumeHealth), the node
// allocatable resource claim statuses (DRANodeAllocatableResources) and
// the volume status of container volume mounts (ImageVolumeWithDigest).
func DropDisabledStatusFields(status, old *corev1.PodStatus) {
	if len(old.VolumeHealth) == 0 {
		status.VolumeHealth = nil
	}
	if len(old.NodeAllocatableResourceClaimStatuses) == 0 {
		status.NodeAllocatableResourceClaimStatuses = nil
	}
	mounts := func(s *corev1.PodStatus, f func(*corev1.VolumeMountStatus)) {
		for _, statuses := range [][]corev1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
			for i := range statuses {
				for j := range statuses[i].VolumeMounts {
					f(&statuses[i].VolumeMounts[j])
				}
			}
		}
	}
	used := false
	mounts(old, func(m *corev1.VolumeMountStatus) { used = used || m.VolumeStatus != nil })
	if !used {
		mounts(status, func(m *corev1.VolumeMountStatus) { m.VolumeStatus = nil })
	}
}
