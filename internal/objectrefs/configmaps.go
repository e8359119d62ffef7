package objectrefs

import corev1 "k8s.io/api/core/v1"

// PodConfigMapNames returns the names of the ConfigMaps spec refers to, as
// upstream's VisitPodConfigmapNames finds them: the env and envFrom of
// init, regular and ephemeral containers, configMap volumes and projected
// configMaps. A name may repeat; an empty name is left out.
func PodConfigMapNames(spec *corev1.PodSpec) []string {
	var names []string
	add := func(name string) {
		if name != "" {
			names = append(names, name)
		}
	}
	eachContainerEnv(spec, func(env []corev1.EnvVar, from []corev1.EnvFromSource) {
		for _, f := range from {
			if f.ConfigMapRef != nil {
				add(f.ConfigMapRef.Name)
			}
		}
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				add(e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	})
	for _, v := range spec.Volumes {
		switch {
		case v.Projected != nil:
			for _, src := range v.Projected.Sources {
				if src.ConfigMap != nil {
					add(src.ConfigMap.Name)
				}
			}
		case v.ConfigMap != nil:
			add(v.ConfigMap.Name)
		}
	}
	return names
}
