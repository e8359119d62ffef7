package admission

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/yaml"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

// PodNodeSelectorPluginName is the name of upstream's PodNodeSelector
// plugin.
const PodNodeSelectorPluginName = "PodNodeSelector"

// PodNodeSelectorAnnotation is the namespace annotation whose label
// selector (e.g. "env=prod,tier=web") PodNodeSelector adds to its pods'
// node selectors.
const PodNodeSelectorAnnotation = "scheduler.alpha.kubernetes.io/node-selector"

// podNodeSelectorClusterDefault is the configuration key of the selector
// for namespaces without the annotation.
const podNodeSelectorClusterDefault = "clusterDefaultNodeSelector"

// PodNodeSelectorConfig is upstream PodNodeSelector's configuration, in its
// legacy (unversioned) format:
//
//	podNodeSelectorPluginConfig:
//	  clusterDefaultNodeSelector: <label selector>
//	  namespace1: <label selector>
//
// clusterDefaultNodeSelector is the node selector of the pods of a
// namespace without the annotation; any other key names a namespace, and
// its selector is that namespace's whitelist: the only node-selector labels
// its pods may have. The zero value (nil map) is upstream's default.
type PodNodeSelectorConfig struct {
	PodNodeSelectorPluginConfig map[string]string
}

// LoadPodNodeSelectorConfig reads PodNodeSelector's configuration as
// upstream reads it from the plugin's part of --admission-control-config-file
// (YAML or JSON, any number of documents): never failing, it skips what does
// not decode (a nil reader is the default, empty configuration), keeping
// what the documents that did decode set. The key matches
// podNodeSelectorPluginConfig without regard to case, as upstream's.
func LoadPodNodeSelectorConfig(r io.Reader) *PodNodeSelectorConfig {
	cfg := &PodNodeSelectorConfig{}
	if r == nil || (reflect.ValueOf(r).Kind() == reflect.Pointer && reflect.ValueOf(r).IsNil()) {
		return cfg
	}
	d := yaml.NewYAMLOrJSONDecoder(r, 4096)
	// Upstream retries until the end of the stream; a decoder stuck on
	// the same error would make it retry forever, so this stops after a
	// run of failures.
	for failures := 0; failures < 64; {
		err := d.Decode(cfg)
		if err == nil {
			failures = 0
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		failures++
	}
	return cfg
}

// PodNodeSelectorAdmit is the mutating half of upstream's PodNodeSelector
// plugin: on a Create of a pod (the pods resource itself, no subresource;
// any other object is left alone) in namespace ns, it refuses a pod whose
// nodeSelector conflicts with the namespace's selector (the
// scheduler.alpha.kubernetes.io/node-selector annotation, or without it
// cfg's clusterDefaultNodeSelector) with upstream's 403 `pods "name" is
// forbidden: pod node label selector conflicts with its namespace node
// label selector`, else sets the pod's nodeSelector to both merged, then
// runs PodNodeSelectorValidate. ns is the pod's namespace as the caller
// found it (nil: it does not exist, upstream's 500 `Internal error
// occurred: namespace <name> does not exist`); cfg may be nil (the default
// configuration). It checks the operation, resource and subresource
// itself.
func PodNodeSelectorAdmit(a k8sadmission.Attributes, cfg *PodNodeSelectorConfig, ns *corev1.Namespace) error {
	pod, nsSelector, err := podNodeSelectorUnconflicted(a, cfg, ns)
	if pod == nil || err != nil {
		return err
	}
	pod.Spec.NodeSelector = labels.Merge(nsSelector, pod.Spec.NodeSelector)
	// Upstream's Admit validates the merged pod, which cannot conflict
	// with the namespace's selector it now holds: the whitelist is what
	// is left to check.
	return podNodeSelectorWhitelisted(a, cfg, pod)
}

// PodNodeSelectorValidate is the validating half of upstream's
// PodNodeSelector plugin: on a Create of a pod (as PodNodeSelectorAdmit) it
// refuses a pod whose nodeSelector conflicts with its namespace's selector
// (the same 403 as PodNodeSelectorAdmit), or, when cfg has a whitelist for
// the namespace, has a label the whitelist does not have with the same
// value: 403 `pods "name" is forbidden: pod node label selector labels
// conflict with its namespace whitelist`. The name in both is the pod's
// metadata.name (empty for a generateName create), as upstream's. A
// selector that does not parse is upstream's plain error (a 500 with no
// reason). ns and cfg are as for PodNodeSelectorAdmit.
func PodNodeSelectorValidate(a k8sadmission.Attributes, cfg *PodNodeSelectorConfig, ns *corev1.Namespace) error {
	pod, _, err := podNodeSelectorUnconflicted(a, cfg, ns)
	if pod == nil || err != nil {
		return err
	}
	return podNodeSelectorWhitelisted(a, cfg, pod)
}

// podNodeSelectorUnconflicted is what both halves check first: the pod a
// creates (nil when the plugin leaves a alone) and its namespace's
// selector, or the namespace's errors, or the 403 of a pod whose
// nodeSelector conflicts with that selector.
func podNodeSelectorUnconflicted(a k8sadmission.Attributes, cfg *PodNodeSelectorConfig, ns *corev1.Namespace) (*corev1.Pod, labels.Set, error) {
	pod := podNodeSelectorPod(a)
	if pod == nil {
		return nil, nil, nil
	}
	nsSelector, err := podNodeSelectorOfNamespace(a, cfg, ns)
	if err != nil {
		return nil, nil, err
	}
	if labels.Conflicts(nsSelector, labels.Set(pod.Spec.NodeSelector)) {
		return nil, nil, podNodeSelectorConflict(a, pod)
	}
	return pod, nsSelector, nil
}

// podNodeSelectorWhitelisted refuses a pod whose nodeSelector has a label
// its namespace's whitelist in cfg (when there is one) does not have with
// the same value.
func podNodeSelectorWhitelisted(a k8sadmission.Attributes, cfg *PodNodeSelectorConfig, pod *corev1.Pod) error {
	var whitelist string
	if cfg != nil {
		whitelist = cfg.PodNodeSelectorPluginConfig[a.GetNamespace()]
	}
	allowed, err := labels.ConvertSelectorToLabelsMap(whitelist)
	if err != nil {
		return err
	}
	if len(allowed) == 0 {
		return nil
	}
	for k, v := range pod.Spec.NodeSelector {
		if w, ok := allowed[k]; !ok || w != v {
			return apierrors.NewForbidden(a.GetResource().GroupResource(), pod.Name, errors.New("pod node label selector labels conflict with its namespace whitelist"))
		}
	}
	return nil
}

// podNodeSelectorPod is the pod upstream's plugin admits in a, nil when it
// leaves a alone.
func podNodeSelectorPod(a k8sadmission.Attributes) *corev1.Pod {
	if a.GetOperation() != k8sadmission.Create || !optinPodProper(a) {
		return nil
	}
	return optinPod(a.GetObject())
}

func podNodeSelectorConflict(a k8sadmission.Attributes, pod *corev1.Pod) error {
	return apierrors.NewForbidden(a.GetResource().GroupResource(), pod.Name, errors.New("pod node label selector conflicts with its namespace node label selector"))
}

// podNodeSelectorOfNamespace is the node selector of ns's pods: its
// annotation's (even when empty), else the cluster default.
func podNodeSelectorOfNamespace(a k8sadmission.Attributes, cfg *PodNodeSelectorConfig, ns *corev1.Namespace) (labels.Set, error) {
	if ns == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("namespace %s does not exist", a.GetNamespace()))
	}
	if sel, ok := ns.Annotations[PodNodeSelectorAnnotation]; ok {
		m, err := labels.ConvertSelectorToLabelsMap(sel)
		if err != nil {
			return labels.Set{}, err
		}
		return labels.Merge(labels.Set{}, m), nil
	}
	var def string
	if cfg != nil {
		def = cfg.PodNodeSelectorPluginConfig[podNodeSelectorClusterDefault]
	}
	m, err := labels.ConvertSelectorToLabelsMap(def)
	if err != nil {
		return labels.Set{}, err
	}
	return m, nil
}
