package admission

import (
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

// The helpers below serve the off-by-default ("opt-in") plugins of
// kube-apiserver (k8s.io/kubernetes/plugin/pkg/admission/...) that the
// optin_*.go files implement as plain functions. Those functions check the
// operation, resource and subresource themselves, as upstream's plugins do
// (with their admission.Handler and their own checks), so a caller may call
// them on every write.

var (
	optinPods       = schema.GroupResource{Resource: "pods"}
	optinServices   = schema.GroupResource{Resource: "services"}
	optinNamespaces = schema.GroupResource{Resource: "namespaces"}
)

// optinHandles reports whether op is one of ops, as upstream's
// admission.Handler.Handles answers for a plugin built with them.
func optinHandles(op k8sadmission.Operation, ops ...k8sadmission.Operation) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// optinPodProper reports whether a is a write of a pod itself (not of one
// of its subresources).
func optinPodProper(a k8sadmission.Attributes) bool {
	return a.GetSubresource() == "" && a.GetResource().GroupResource() == optinPods
}

// optinPod is a's object as a pod, nil when it is none (or a nil pod).
func optinPod(obj interface{}) *corev1.Pod {
	pod, _ := obj.(*corev1.Pod)
	return pod
}

// optinVisitContainers calls f with every init, regular and ephemeral
// container of spec with its field path, in upstream's order
// (pods.VisitContainersWithPath), until f returns false.
func optinVisitContainers(spec *corev1.PodSpec, f func(c *corev1.Container, path *field.Path) bool) {
	specPath := field.NewPath("spec")
	for i := range spec.InitContainers {
		if !f(&spec.InitContainers[i], specPath.Child("initContainers").Index(i)) {
			return
		}
	}
	for i := range spec.Containers {
		if !f(&spec.Containers[i], specPath.Child("containers").Index(i)) {
			return
		}
	}
	for i := range spec.EphemeralContainers {
		if !f((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), specPath.Child("ephemeralContainers").Index(i)) {
			return
		}
	}
}

// pluginConfigCodecs are the codecs of a plugin's configuration: obj, the
// kind Configuration of gv.
func pluginConfigCodecs(gv schema.GroupVersion, obj runtime.Object) serializer.CodecFactory {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(gv.WithKind("Configuration"), obj)
	return serializer.NewCodecFactory(s)
}

// decodePluginConfig reads a plugin's configuration from r (YAML or JSON)
// with codecs: the decoder's error as it is, or upstream's "unexpected
// type" for another kind.
func decodePluginConfig[T runtime.Object](r io.Reader, codecs serializer.CodecFactory) (T, error) {
	var zero T
	data, err := io.ReadAll(r)
	if err != nil {
		return zero, err
	}
	obj, err := runtime.Decode(codecs.UniversalDeserializer(), data)
	if err != nil {
		return zero, err
	}
	cfg, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("unexpected type: %T", obj)
	}
	return cfg, nil
}
