package registry

// The validating half of kube-apiserver's ServiceAccount admission plugin:
// a service account annotated kubernetes.io/enforce-mountable-secrets:
// "true" limits the secrets its pods may reference to those it lists.

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
)

// enforceMountableSecretsAnnotation is the (deprecated) annotation by which
// a ServiceAccount limits its pods to the secrets it lists.
const enforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"

// handlesMountableSecrets: the plugin validates new pods and new ephemeral
// containers.
func handlesMountableSecrets(op admission.Operation, gr schema.GroupResource, sub string) bool {
	if gr.Group != "" || gr.Resource != "pods" {
		return false
	}
	return (op == admission.Create && sub == "") || (op == admission.Update && sub == "ephemeralcontainers")
}

// validateMountableSecrets refuses a pod that references a secret its
// service account does not list, when that account enforces mountable
// secrets. A new pod is refused with 403 Forbidden; new ephemeral
// containers with upstream's bare error, which clients get as a 500.
func validateMountableSecrets(s *Registry, c *Request, a admission.Attributes) error {
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return nil
	}
	ephemeral := a.GetSubresource() == "ephemeralcontainers"
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror && !ephemeral {
		return nil // the mutating half checked what a mirror pod references
	}
	if pod.Spec.ServiceAccountName == "" {
		return fmt.Errorf("no service account specified for pod %s/%s", a.GetNamespace(), pod.Name)
	}
	sa, err := s.podServiceAccount(c, a.GetNamespace(), pod.Spec.ServiceAccountName)
	if err != nil {
		return fmt.Errorf("error looking up service account %s/%s: serviceaccount %q not found", a.GetNamespace(), pod.Spec.ServiceAccountName, pod.Spec.ServiceAccountName)
	}
	if enforce, _ := strconv.ParseBool(sa.Annotations[enforceMountableSecretsAnnotation]); !enforce {
		return nil
	}
	if ephemeral {
		if err := unlistedSecret(sa, nil, nil, pod.Spec.EphemeralContainers, nil); err != nil {
			return ErrUnknown(err)
		}
		return nil
	}
	return unlistedSecret(sa, pod.Spec.InitContainers, pod.Spec.Containers, nil, pod)
}

// unlistedSecret is the first secret reference that service account sa
// does not list, in upstream's order: the pod's secret volumes, its init
// containers' and containers' env and envFrom, the ephemeral containers',
// then the image pull secrets (checked against the account's image pull
// secrets). pod is nil when only ephemeral containers are checked.
func unlistedSecret(sa *corev1.ServiceAccount, initContainers, containers []corev1.Container, ephemeral []corev1.EphemeralContainer, pod *corev1.Pod) error {
	listed := map[string]bool{}
	for _, ref := range sa.Secrets {
		listed[ref.Name] = true
	}
	if pod != nil {
		for _, v := range pod.Spec.Volumes {
			if v.Secret != nil && !listed[v.Secret.SecretName] {
				return fmt.Errorf("volume with secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", v.Secret.SecretName, sa.Name)
			}
		}
	}
	envRefs := func(what, name string, env []corev1.EnvVar, from []corev1.EnvFromSource) error {
		for _, e := range env {
			if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil && !listed[ref.SecretKeyRef.Name] {
				return fmt.Errorf("%s %s with envVar %s referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", what, name, e.Name, ref.SecretKeyRef.Name, sa.Name)
			}
		}
		for _, f := range from {
			if f.SecretRef != nil && !listed[f.SecretRef.Name] {
				return fmt.Errorf("%s %s with envFrom referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", what, name, f.SecretRef.Name, sa.Name)
			}
		}
		return nil
	}
	for _, ct := range initContainers {
		if err := envRefs("init container", ct.Name, ct.Env, ct.EnvFrom); err != nil {
			return err
		}
	}
	for _, ct := range containers {
		if err := envRefs("container", ct.Name, ct.Env, ct.EnvFrom); err != nil {
			return err
		}
	}
	for _, ct := range ephemeral {
		if err := envRefs("ephemeral container", ct.Name, ct.Env, ct.EnvFrom); err != nil {
			return err
		}
	}
	if pod == nil {
		return nil
	}
	pull := map[string]bool{}
	for _, ref := range sa.ImagePullSecrets {
		pull[ref.Name] = true
	}
	for i, ref := range pod.Spec.ImagePullSecrets {
		if !pull[ref.Name] {
			return fmt.Errorf(`imagePullSecrets[%d].name="%s" is not allowed because service account %s does not reference that imagePullSecret`, i, ref.Name, sa.Name)
		}
	}
	return nil
}
