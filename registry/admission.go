package registry

// Built-in admission: what kube-apiserver's default admission plugins do to
// a new Pod (LimitRanger, ServiceAccount, DefaultTolerationSeconds,
// Priority) and PersistentVolumeClaim (DefaultStorageClass, LimitRanger).

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apiserver/pkg/admission"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/internal/objectrefs"
	"github.com/fakeplane/fakeplane/store"
)

// admitBuiltinCreate runs the built-in mutating admission plugins on a new
// object, before the webhooks and policies as in kube-apiserver's plugin
// order.
func (s *Registry) admitBuiltinCreate(c *Request, o *Object) error {
	switch obj := o.Obj.(type) {
	case *corev1.Pod:
		if s.plugins.Enabled("LimitRanger") {
			ranges, err := s.limitRanges(obj.Namespace)
			if err != nil {
				return err
			}
			admissionplugins.DefaultPodResources(obj, ranges)
		}
		return s.admitPod(c, obj)
	case *corev1.PersistentVolumeClaim:
		if s.plugins.Enabled("DefaultStorageClass") {
			classes, err := s.storageClasses()
			if err != nil {
				return err
			}
			admissionplugins.DefaultStorageClass(obj, classes)
		}
	}
	return nil
}

// validateBuiltinCreate runs the built-in validating admission plugins on
// a new object (LimitRanger), before the webhooks and policies.
func (s *Registry) validateBuiltinCreate(c *Request, o *Object) error {
	if !s.plugins.Enabled("LimitRanger") {
		return nil
	}
	var err error
	switch obj := o.Obj.(type) {
	case *corev1.Pod:
		var ranges []corev1.LimitRange
		if ranges, err = s.limitRanges(obj.Namespace); err == nil {
			err = admissionplugins.ValidatePodResources(obj, ranges)
		}
	case *corev1.PersistentVolumeClaim:
		var ranges []corev1.LimitRange
		if ranges, err = s.limitRanges(obj.Namespace); err == nil {
			err = admissionplugins.ValidateClaimResources(obj, ranges)
		}
	}
	if err == nil {
		return nil
	}
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewForbidden(c.Res.GR, o.Meta.GetName(), err)
}

// limitRanges are the LimitRanges of a namespace.
func (s *Registry) limitRanges(ns string) ([]corev1.LimitRange, error) {
	return listTyped[corev1.LimitRange](s, "", "limitranges", ns)
}

// storageClasses are the StorageClasses.
func (s *Registry) storageClasses() ([]storagev1.StorageClass, error) {
	return listTyped[storagev1.StorageClass](s, "storage.k8s.io", "storageclasses", "")
}

// listTyped lists the stored objects of a built-in resource (of one
// namespace, or all with ns "").
func listTyped[T any](s *Registry, group, resource, ns string) ([]T, error) {
	r, ok := s.served.Lookup(group, "v1", resource)
	if !ok {
		return nil, nil
	}
	opts := store.ListOptions{}
	if ns != "" {
		opts.Prefix = ns + "/"
	}
	lst, err := s.store.List(r.Bucket, opts)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out := make([]T, 0, len(lst.Items))
	for _, it := range lst.Items {
		var v T
		if err := JSONUnmarshal(it.Value, &v); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		out = append(out, v)
	}
	return out, nil
}

// kubeAPIAccessVolume is the projected volume the ServiceAccount admission
// plugin adds to pods, and where it mounts it.
func kubeAPIAccessVolume() (corev1.Volume, corev1.VolumeMount) {
	name := "kube-api-access-" + utilrand.String(5)
	exp := int64(3607)
	mode := int32(0o644)
	vol := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &exp, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMapName}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}}
	return vol, corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}
}

// admitPod applies what kube-apiserver's admission plugins add to a new pod:
// the ServiceAccount (which must exist) and its API access volume, the
// default not-ready/unreachable tolerations, and the priority.
func (s *Registry) admitPod(c *Request, pod *corev1.Pod) error {
	if s.plugins.Enabled("ServiceAccount") {
		if err := s.admitPodServiceAccount(c, pod); err != nil {
			return err
		}
	}
	if s.plugins.Enabled("DefaultTolerationSeconds") {
		s.admitPodTolerations(pod)
	}
	if !s.plugins.Enabled("Priority") {
		return nil
	}
	return s.admitPodPriority(c, pod)
}

// podServiceAccount reads the ServiceAccount a new pod names. The default
// one, which the serviceaccount controller makes a moment after its
// namespace, is looked for up to ten times 100-200ms apart, as upstream's
// ServiceAccount admission plugin does (a pod created right after its
// namespace is admitted then, not refused).
func (s *Registry) podServiceAccount(c *Request, ns, name string) (*corev1.ServiceAccount, error) {
	attempts := 1
	if name == "default" {
		attempts = 10
	}
	interval := time.Duration(100+rand.Int64N(100)) * time.Millisecond
	var done <-chan struct{}
	if c.GoCtx != nil {
		done = c.GoCtx.Done()
	}
	for i := 0; ; i++ {
		sa, err := s.ServiceAccounts().ServiceAccount(ns, name)
		if err == nil || i+1 == attempts {
			return sa, err
		}
		t := time.NewTimer(interval)
		select {
		case <-done:
			t.Stop()
			return nil, err
		case <-t.C:
		}
	}
}

// admitPodServiceAccount is the ServiceAccount admission plugin on a new
// pod: the ServiceAccount (default: "default") must exist, and its API
// access volume is mounted unless automounting is off.
func (s *Registry) admitPodServiceAccount(c *Request, pod *corev1.Pod) error {
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		// A mirror pod is left as its kubelet wrote it, and may not
		// reference what only the API gives.
		if err := mirrorPodReferences(pod); err != nil {
			return apierrors.NewForbidden(c.Res.GR, pod.Name, err)
		}
		return nil
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = pod.Spec.DeprecatedServiceAccount
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = "default"
	}
	pod.Spec.DeprecatedServiceAccount = pod.Spec.ServiceAccountName
	sa, err := s.podServiceAccount(c, pod.Namespace, pod.Spec.ServiceAccountName)
	if err != nil {
		return apierrors.NewForbidden(c.Res.GR, pod.Name, fmt.Errorf("error looking up service account %s/%s: serviceaccount %q not found", pod.Namespace, pod.Spec.ServiceAccountName, pod.Spec.ServiceAccountName))
	}
	automount := true
	if sa.AutomountServiceAccountToken != nil {
		automount = *sa.AutomountServiceAccountToken
	}
	if pod.Spec.AutomountServiceAccountToken != nil {
		automount = *pod.Spec.AutomountServiceAccountToken
	}
	if automount {
		vol, mount := kubeAPIAccessVolume()
		pod.Spec.Volumes = append(pod.Spec.Volumes, vol)
		mountAPIAccess(pod, mount)
	}
	if len(pod.Spec.ImagePullSecrets) == 0 && len(sa.ImagePullSecrets) > 0 {
		pod.Spec.ImagePullSecrets = append([]corev1.LocalObjectReference(nil), sa.ImagePullSecrets...)
	}
	return nil
}

// mirrorPodReferences is the ServiceAccount admission plugin's rule for a
// mirror pod: no service account, no secret (as upstream's
// VisitPodSecretNames finds them), no service account token projection.
func mirrorPodReferences(p *corev1.Pod) error {
	if p.Spec.ServiceAccountName != "" {
		return errors.New("a mirror pod may not reference service accounts")
	}
	if len(objectrefs.PodSecretNames(&p.Spec)) > 0 {
		return errors.New("a mirror pod may not reference secrets")
	}
	for _, v := range p.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			if src.ServiceAccountToken != nil {
				return errors.New("a mirror pod may not use ServiceAccountToken volume projections")
			}
		}
	}
	return nil
}

// admitDefaultTolerationSeconds is the DefaultTolerationSeconds plugin on
// an update of a pod: as on create, the pod's new spec tolerates not-ready
// and unreachable nodes for 300 seconds unless it says otherwise.
func admitDefaultTolerationSeconds(s *Registry, _ *Request, a admission.Attributes) error {
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected *api.Pod but got %T", a.GetObject()))
	}
	s.admitPodTolerations(pod)
	return nil
}

// admitPodTolerations is the DefaultTolerationSeconds admission plugin: a
// pod tolerates not-ready and unreachable nodes for 300 seconds unless it
// says otherwise.
func (s *Registry) admitPodTolerations(pod *corev1.Pod) {
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		has := false
		for _, t := range pod.Spec.Tolerations {
			if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
				has = true
			}
		}
		if !has {
			secs := s.tolerationSeconds.NotReady
			if key == corev1.TaintNodeUnreachable {
				secs = s.tolerationSeconds.Unreachable
			}
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs})
		}
	}
}

// TolerationSeconds are how long the DefaultTolerationSeconds admission
// plugin lets pods stay on a not-ready or unreachable node
// (kube-apiserver's --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds).
type TolerationSeconds struct {
	NotReady, Unreachable int64
}

// DefaultTolerationSeconds are kube-apiserver's defaults: 300 s each.
var DefaultTolerationSeconds = TolerationSeconds{NotReady: 300, Unreachable: 300}

// mountAPIAccess mounts the API access volume into every container that
// does not mount something at its path.
func mountAPIAccess(pod *corev1.Pod, mount corev1.VolumeMount) {
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			mounted := false
			for _, m := range list[i].VolumeMounts {
				if m.MountPath == mount.MountPath {
					mounted = true
				}
			}
			if !mounted {
				list[i].VolumeMounts = append(list[i].VolumeMounts, mount)
			}
		}
	}
}

// readmitPod is the ServiceAccount plugin invoked again after webhooks or
// policies changed a new pod (upstream's reinvocation of the in-tree
// plugins): containers they added mount the API access volume too.
func readmitPod(pod *corev1.Pod) {
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, "kube-api-access-") && v.Projected != nil {
			mountAPIAccess(pod, corev1.VolumeMount{Name: v.Name, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"})
			return
		}
	}
}

// admitPodPriority is upstream's Priority admission plugin on create: the
// priority and preemption policy come from the pod's PriorityClass, or the
// global default one, or are 0 and PreemptLowerPriority.
func (s *Registry) admitPodPriority(c *Request, pod *corev1.Pod) error {
	r, _ := s.served.Lookup("scheduling.k8s.io", "v1", "priorityclasses")
	lst, err := s.store.List(r.Bucket, store.ListOptions{})
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var class *schedulingv1.PriorityClass
	for _, it := range lst.Items {
		pc := &schedulingv1.PriorityClass{}
		if JSONUnmarshal(it.Value, pc) != nil {
			continue
		}
		if pod.Spec.PriorityClassName != "" && pc.Name == pod.Spec.PriorityClassName ||
			pod.Spec.PriorityClassName == "" && pc.GlobalDefault && (class == nil || pc.Value < class.Value) {
			class = pc
		}
	}
	if class == nil && pod.Spec.PriorityClassName != "" {
		return apierrors.NewForbidden(c.Res.GR, pod.Name, fmt.Errorf("no PriorityClass with name %s was found", pod.Spec.PriorityClassName))
	}
	var priority int32
	policy := corev1.PreemptLowerPriority
	if class != nil {
		pod.Spec.PriorityClassName = class.Name
		priority = class.Value
		if class.PreemptionPolicy != nil {
			policy = *class.PreemptionPolicy
		}
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return apierrors.NewForbidden(c.Res.GR, pod.Name, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority))
	}
	pod.Spec.Priority = &priority
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
		return apierrors.NewForbidden(c.Res.GR, pod.Name, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, policy))
	}
	pod.Spec.PreemptionPolicy = &policy
	return nil
}

// admitPodPriorityUpdate is the Priority plugin on an update of a pod: a
// new spec without a priority or preemption policy keeps the stored pod's
// (which the plugin computed on create).
func admitPodPriorityUpdate(_ *Registry, _ *Request, a admission.Attributes) error {
	pod, ok := a.GetObject().(*corev1.Pod)
	old, oldOK := a.GetOldObject().(*corev1.Pod)
	if !ok || !oldOK {
		return apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
	}
	if pod.Spec.Priority == nil && old.Spec.Priority != nil {
		pod.Spec.Priority = old.Spec.Priority
	}
	if pod.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
		pod.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
	}
	return nil
}

// validateDefaultPriorityClass is the Priority plugin on a write of a
// PriorityClass: a class may not become the global default while another
// one is (the lowest-valued default, should several exist).
func validateDefaultPriorityClass(s *Registry, _ *Request, a admission.Attributes) error {
	pc, ok := a.GetObject().(*schedulingv1.PriorityClass)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind PriorityClass but was unable to be converted")
	}
	if !pc.GlobalDefault {
		return nil
	}
	classes, err := listTyped[schedulingv1.PriorityClass](s, "scheduling.k8s.io", "priorityclasses", "")
	if err != nil {
		return fmt.Errorf("failed to get default priority class: %v", err)
	}
	var def *schedulingv1.PriorityClass
	for i := range classes {
		if classes[i].GlobalDefault && (def == nil || classes[i].Value < def.Value) {
			def = &classes[i]
		}
	}
	if def != nil && (a.GetOperation() == admission.Create || def.Name != pc.Name) {
		return admission.NewForbidden(a, fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
	}
	return nil
}

// admitNodeNotReadyTaint is the TaintNodesByCondition plugin on a new
// node: it is tainted not ready (NoSchedule) until its kubelet reports
// Ready and the node lifecycle controller lifts the taint.
func admitNodeNotReadyTaint(_ *Registry, _ *Request, a admission.Attributes) error {
	n, ok := a.GetObject().(*corev1.Node)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
	}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	if !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&notReady) }) {
		n.Spec.Taints = append(n.Spec.Taints, notReady)
	}
	return nil
}
