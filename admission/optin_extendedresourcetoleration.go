package admission

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

// ExtendedResourceTolerationPluginName is the name of upstream's
// ExtendedResourceToleration plugin.
const ExtendedResourceTolerationPluginName = "ExtendedResourceToleration"

// ExtendedResourceTolerationAdmit is upstream's ExtendedResourceToleration
// plugin (mutating only): on a Create or Update of a pod (the pods resource
// itself, no subresource) it adds, for every extended resource (a name
// with a domain other than kubernetes.io, e.g. example.com/gpu) an init or
// regular container requests, in the order of the names, the toleration
// {key: <name>, operator: Exists, effect: NoSchedule}, as upstream's
// AddOrUpdateTolerationInPod does: a toleration of the pod with the same
// key, operator, value and effect is replaced by it, else it is appended.
// A resource a container only limits counts as requested (defaulting
// copies limits to missing requests before upstream's plugin runs, so the
// result is the same whether or not the pod is defaulted yet). It checks
// the operation, resource and subresource itself; an object that is not a
// *corev1.Pod is upstream's 400 BadRequest.
func ExtendedResourceTolerationAdmit(a k8sadmission.Attributes) error {
	if !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update) || !optinPodProper(a) {
		return nil
	}
	pod := optinPod(a.GetObject())
	if pod == nil {
		return apierrors.NewBadRequest(fmt.Sprintf("expected *core.Pod but got %s", optinInternalTypeName(a.GetObject())))
	}
	names := map[string]bool{}
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range list {
			for _, rl := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
				for name := range rl {
					if isExtendedResourceName(name) {
						names[string(name)] = true
					}
				}
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		addOrUpdateToleration(pod, corev1.Toleration{Key: n, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return nil
}

// optinInternalTypeName is %T of obj as kube-apiserver prints it: its
// objects of the core group are the internal types, e.g. *core.Service
// where fakeplane has a *v1.Service.
func optinInternalTypeName(obj interface{}) string {
	t := reflect.TypeOf(obj)
	if t != nil && t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "k8s.io/api/core/v1" {
		return "*core." + t.Elem().Name()
	}
	return fmt.Sprintf("%T", obj)
}

// isExtendedResourceName is upstream's helper.IsExtendedResourceName: a
// name with a domain that is not kubernetes.io (nor *.kubernetes.io), not
// starting with "requests.", that is a qualified name once "requests." is
// put before it.
func isExtendedResourceName(name corev1.ResourceName) bool {
	n := string(name)
	if !strings.Contains(n, "/") || strings.Contains(n, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(n, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+n)) == 0
}

// addOrUpdateToleration is upstream's helper.AddOrUpdateTolerationInPod:
// every toleration of pod with t's key, effect, operator and value is
// replaced by t (upstream's equality test never holds, so it always
// replaces); t is appended when none was.
func addOrUpdateToleration(pod *corev1.Pod, t corev1.Toleration) {
	var out []corev1.Toleration
	replaced := false
	for _, have := range pod.Spec.Tolerations {
		if have.Key == t.Key && have.Effect == t.Effect && have.Operator == t.Operator && have.Value == t.Value {
			out = append(out, t)
			replaced = true
			continue
		}
		out = append(out, have)
	}
	if !replaced {
		out = append(out, t)
	}
	pod.Spec.Tolerations = out
}
