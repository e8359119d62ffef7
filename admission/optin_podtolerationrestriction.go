package admission

import (
	"encoding/json"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8sadmission "k8s.io/apiserver/pkg/admission"

	"github.com/fakeplane/fakeplane/internal/qos"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// PodTolerationRestrictionPluginName is the name of upstream's
// PodTolerationRestriction plugin.
const PodTolerationRestrictionPluginName = "PodTolerationRestriction"

// The namespace annotations PodTolerationRestriction reads: a JSON list of
// tolerations each (an empty value is an empty list).
const (
	// PodTolerationRestrictionDefaultAnnotation holds the tolerations
	// added to the namespace's new pods.
	PodTolerationRestrictionDefaultAnnotation = "scheduler.alpha.kubernetes.io/defaultTolerations"
	// PodTolerationRestrictionWhitelistAnnotation holds the tolerations
	// the namespace's pods may have.
	PodTolerationRestrictionWhitelistAnnotation = "scheduler.alpha.kubernetes.io/tolerationsWhitelist"
)

// PodTolerationRestrictionConfigGroupVersion is the group and version of
// PodTolerationRestrictionConfig (kind Configuration).
var PodTolerationRestrictionConfigGroupVersion = schema.GroupVersion{Group: "podtolerationrestriction.admission.k8s.io", Version: "v1alpha1"}

// PodTolerationRestrictionConfig is upstream PodTolerationRestriction's
// configuration, podtolerationrestriction.admission.k8s.io/v1alpha1
// Configuration: the tolerations added to new pods of namespaces without
// the default-tolerations annotation, and those the pods of namespaces
// without the whitelist annotation may have (empty: any).
type PodTolerationRestrictionConfig struct {
	metav1.TypeMeta `json:""`

	// Default are the cluster's default tolerations.
	Default []corev1.Toleration `json:"default,omitempty"`
	// Whitelist is the cluster's whitelist of tolerations.
	Whitelist []corev1.Toleration `json:"whitelist,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (c *PodTolerationRestrictionConfig) DeepCopyObject() runtime.Object {
	if c == nil {
		return nil
	}
	out := &PodTolerationRestrictionConfig{TypeMeta: c.TypeMeta}
	for _, t := range c.Default {
		out.Default = append(out.Default, *t.DeepCopy())
	}
	for _, t := range c.Whitelist {
		out.Whitelist = append(out.Whitelist, *t.DeepCopy())
	}
	return out
}

// podTolerationRestrictionCodecs decode the configuration.
var podTolerationRestrictionCodecs = pluginConfigCodecs(PodTolerationRestrictionConfigGroupVersion, &PodTolerationRestrictionConfig{})

// LoadPodTolerationRestrictionConfig reads PodTolerationRestriction's
// configuration as upstream does from the plugin's part of
// --admission-control-config-file: a nil reader is the default (no
// tolerations either way); otherwise a YAML or JSON
// podtolerationrestriction.admission.k8s.io/v1alpha1 Configuration (fields
// matched by case, unknown ones ignored), refused with the decoder's error
// or, when its tolerations are invalid, with upstream's `invalid config:
// [podtolerationrestriction.default[0].operator: ...]`.
func LoadPodTolerationRestrictionConfig(r io.Reader) (*PodTolerationRestrictionConfig, error) {
	if r == nil {
		return &PodTolerationRestrictionConfig{}, nil
	}
	cfg, err := decodePluginConfig[*PodTolerationRestrictionConfig](r, podTolerationRestrictionCodecs)
	if err != nil {
		return nil, err
	}
	fld := field.NewPath("podtolerationrestriction")
	errs := append(pod.ValidateTolerations(cfg.Default, fld.Child("default")), pod.ValidateTolerations(cfg.Whitelist, fld.Child("whitelist"))...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid config: %v", errs)
	}
	cfg.TypeMeta = metav1.TypeMeta{}
	return cfg, nil
}

// PodTolerationRestrictionAdmit is the mutating half of upstream's
// PodTolerationRestriction plugin: on a Create or Update of a pod (the pods
// resource itself, no subresource; any other object is left alone) it
// merges into the pod's tolerations, on a Create, the namespace's default
// tolerations (its scheduler.alpha.kubernetes.io/defaultTolerations
// annotation, else cfg.Default) and, on both, for a pod whose QoS class is
// not BestEffort, {key: node.kubernetes.io/memory-pressure, operator:
// Exists, effect: NoSchedule}; merged as upstream merges (MergeTolerations:
// a toleration another tolerates a superset of is dropped). Then it runs
// PodTolerationRestrictionValidate. ns is the pod's namespace as the caller
// found it, read on a Create only (nil: it does not exist, upstream's 404
// `namespaces "<name>" not found`); an annotation that is not a JSON list
// of tolerations is the JSON error as is (a 500 with no reason, as
// upstream's). cfg may be nil (the default). It checks the operation,
// resource and subresource itself.
func PodTolerationRestrictionAdmit(a k8sadmission.Attributes, cfg *PodTolerationRestrictionConfig, ns *corev1.Namespace) error {
	pod := podTolerationRestrictionPod(a)
	if pod == nil {
		return nil
	}
	if cfg == nil {
		cfg = &PodTolerationRestrictionConfig{}
	}
	var extra []corev1.Toleration
	if a.GetOperation() == k8sadmission.Create {
		ts, err := podTolerationRestrictionAnnotation(a, ns, PodTolerationRestrictionDefaultAnnotation)
		if err != nil {
			return err
		}
		if ts == nil {
			ts = cfg.Default
		}
		extra = append(extra, ts...)
	}
	if qos.PodClass(pod) != corev1.PodQOSBestEffort {
		extra = append(extra, corev1.Toleration{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	if len(extra) > 0 {
		pod.Spec.Tolerations = MergeTolerations(pod.Spec.Tolerations, extra)
	}
	return PodTolerationRestrictionValidate(a, cfg, ns)
}

// PodTolerationRestrictionValidate is the validating half of upstream's
// PodTolerationRestriction plugin: on a Create or Update of a pod with
// tolerations (as PodTolerationRestrictionAdmit) it refuses one that some
// toleration of the whitelist (the namespace's
// scheduler.alpha.kubernetes.io/tolerationsWhitelist annotation, else
// cfg.Whitelist; an empty one allows all) does not tolerate a superset of,
// with upstream's plain error (a 500 with no reason) `pod tolerations
// (possibly merged with namespace default tolerations) conflict with its
// namespace whitelist` ("cluster whitelist" when cfg's). ns is read only
// for a pod with tolerations (nil: upstream's 404 `namespaces "<name>" not
// found`).
func PodTolerationRestrictionValidate(a k8sadmission.Attributes, cfg *PodTolerationRestrictionConfig, ns *corev1.Namespace) error {
	pod := podTolerationRestrictionPod(a)
	if pod == nil || len(pod.Spec.Tolerations) == 0 {
		return nil
	}
	whitelist, err := podTolerationRestrictionAnnotation(a, ns, PodTolerationRestrictionWhitelistAnnotation)
	if err != nil {
		return err
	}
	scope := "namespace"
	if whitelist == nil {
		scope = "cluster"
		if cfg != nil {
			whitelist = cfg.Whitelist
		}
	}
	if len(whitelist) == 0 {
		return nil
	}
next:
	for _, t := range pod.Spec.Tolerations {
		for _, w := range whitelist {
			if toleratesSuperset(w, t) {
				continue next
			}
		}
		return fmt.Errorf("pod tolerations (possibly merged with namespace default tolerations) conflict with its %s whitelist", scope)
	}
	return nil
}

// podTolerationRestrictionPod is the pod upstream's plugin admits in a,
// nil when it leaves a alone.
func podTolerationRestrictionPod(a k8sadmission.Attributes) *corev1.Pod {
	if !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update) || !optinPodProper(a) {
		return nil
	}
	return optinPod(a.GetObject())
}

// podTolerationRestrictionAnnotation is the tolerations ns's annotation
// key lists: nil without it, empty when it is empty.
func podTolerationRestrictionAnnotation(a k8sadmission.Attributes, ns *corev1.Namespace, key string) ([]corev1.Toleration, error) {
	if ns == nil {
		return nil, apierrors.NewNotFound(optinNamespaces, a.GetNamespace())
	}
	v, ok := ns.Annotations[key]
	if !ok {
		return nil, nil
	}
	if v == "" {
		return []corev1.Toleration{}, nil
	}
	var ts []corev1.Toleration
	if err := json.Unmarshal([]byte(v), &ts); err != nil {
		return nil, err
	}
	if ts == nil {
		// "null": upstream's conversion makes it an empty list.
		ts = []corev1.Toleration{}
	}
	return ts, nil
}
