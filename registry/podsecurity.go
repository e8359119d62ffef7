package registry

// The glue of kube-apiserver's PodSecurity admission plugin
// (admission/podsecurity.go): the namespaces and pods it reads come from
// the store, as upstream's come from the apiserver's informers.

import (
	"context"
	"errors"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/admission"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/store"
)

// podSecurityPlugin is a registry's PodSecurity plugin, built at its first
// use so that a control plane that never writes a pod pays nothing for it.
type podSecurityPlugin struct {
	once   sync.Once
	plugin *admissionplugins.PodSecurity
	err    error
}

// podSecurity is the registry's PodSecurity plugin.
func (s *Registry) podSecurity() (*admissionplugins.PodSecurity, error) {
	p := &s.podSecurityPlugin
	p.once.Do(func() {
		p.plugin, p.err = admissionplugins.NewPodSecurity(podSecurityNamespaces{s}, podSecurityPods{s}, nil, s.podSecurityConfig)
	})
	return p.plugin, p.err
}

// validatePodSecurity is the PodSecurity entry of builtinPlugins.
func validatePodSecurity(s *Registry, c *Request, a admission.Attributes) error {
	p, err := s.podSecurity()
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	return p.Validate(c.Context(), a)
}

// podSecurityNamespaces reads namespaces from the store for PodSecurity.
type podSecurityNamespaces struct{ s *Registry }

// GetNamespace implements the library's NamespaceGetter.
func (g podSecurityNamespaces) GetNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	ns, err := getTyped[corev1.Namespace](g.s, "", "namespaces", "", name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierrors.NewNotFound(schemaNamespaces, name)
	}
	return ns, err
}

// podSecurityPods lists a namespace's pods from the store for PodSecurity.
type podSecurityPods struct{ s *Registry }

// ListPods implements the library's PodLister.
func (l podSecurityPods) ListPods(_ context.Context, namespace string) ([]*corev1.Pod, error) {
	pods, err := listTyped[corev1.Pod](l.s, "", "pods", namespace)
	if err != nil {
		return nil, err
	}
	out := make([]*corev1.Pod, len(pods))
	for i := range pods {
		out[i] = &pods[i]
	}
	return out, nil
}
