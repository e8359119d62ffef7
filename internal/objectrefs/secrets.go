package objectrefs

import corev1 "k8s.io/api/core/v1"

// PodSecretNames returns the names of the Secrets spec refers to, as
// upstream's VisitPodSecretNames finds them: image pull secrets, the env
// and envFrom of init, regular and ephemeral containers, secret volumes
// and projected secrets, and the secret references of volume sources
// (AzureFile, CephFS, Cinder, FlexVolume, RBD, ScaleIO, iSCSI, StorageOS,
// CSI). A name may repeat; an empty name is left out.
func PodSecretNames(spec *corev1.PodSpec) []string {
	var names []string
	add := func(name string) {
		if name != "" {
			names = append(names, name)
		}
	}
	for _, s := range spec.ImagePullSecrets {
		add(s.Name)
	}
	eachContainerEnv(spec, func(env []corev1.EnvVar, from []corev1.EnvFromSource) {
		for _, f := range from {
			if f.SecretRef != nil {
				add(f.SecretRef.Name)
			}
		}
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				add(e.ValueFrom.SecretKeyRef.Name)
			}
		}
	})
	ref := func(r *corev1.LocalObjectReference) {
		if r != nil {
			add(r.Name)
		}
	}
	for _, v := range spec.Volumes {
		switch {
		case v.Secret != nil:
			add(v.Secret.SecretName)
		case v.AzureFile != nil:
			add(v.AzureFile.SecretName)
		case v.CephFS != nil:
			ref(v.CephFS.SecretRef)
		case v.Cinder != nil:
			ref(v.Cinder.SecretRef)
		case v.FlexVolume != nil:
			ref(v.FlexVolume.SecretRef)
		case v.RBD != nil:
			ref(v.RBD.SecretRef)
		case v.ScaleIO != nil:
			ref(v.ScaleIO.SecretRef)
		case v.ISCSI != nil:
			ref(v.ISCSI.SecretRef)
		case v.StorageOS != nil:
			ref(v.StorageOS.SecretRef)
		case v.CSI != nil:
			ref(v.CSI.NodePublishSecretRef)
		case v.Projected != nil:
			for _, src := range v.Projected.Sources {
				if src.Secret != nil {
					add(src.Secret.Name)
				}
			}
		}
	}
	return names
}

// eachContainerEnv calls visit with the env and envFrom of each of spec's
// init, regular and ephemeral containers, in that order, as upstream's
// VisitContainers with AllContainers.
func eachContainerEnv(spec *corev1.PodSpec, visit func([]corev1.EnvVar, []corev1.EnvFromSource)) {
	for _, c := range spec.InitContainers {
		visit(c.Env, c.EnvFrom)
	}
	for _, c := range spec.Containers {
		visit(c.Env, c.EnvFrom)
	}
	for _, c := range spec.EphemeralContainers {
		visit(c.Env, c.EnvFrom)
	}
}
