package registry

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Bind sets a pod's node; shared by pods/binding and the bindings resource.
func (s *Registry) Bind(c *Request, podName string, b *corev1.Binding, dry bool) error {
	if b.Name != podName {
		return apierrors.NewBadRequest(fmt.Sprintf("name in URL does not match name in Binding object"))
	}
	// Upstream's BindingREST answers its validation errors as a plain
	// error: a 500 with their text and no reason.
	if errs := validateBinding(b); len(errs) > 0 {
		return ErrUnknown(errs.ToAggregate())
	}
	// Upstream admits the Binding as a create of pods/binding (or of
	// bindings).
	if err := s.admitSubresourceCreate(c, b, bindingKind, podName, dry); err != nil {
		return err
	}
	pods, _ := s.served.Lookup("", "v1", "pods")
	pc := &Request{GoCtx: c.GoCtx, UserAgent: c.UserAgent, Info: c.Info, Res: pods, User: c.User, Namespace: c.Namespace}
	bindingGR := schema.GroupResource{Resource: "pods/binding"}
	_, _, err := s.updateKey(pc, ObjectKey(c.Namespace, podName), podName, internalWrite, dry, func(old *Object) (*Object, error) {
		pod := old.Obj.DeepCopyObject().(*corev1.Pod)
		if pod.DeletionTimestamp != nil {
			return nil, apierrors.NewConflict(bindingGR, podName, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", podName))
		}
		if pod.Spec.NodeName != "" {
			return nil, apierrors.NewConflict(bindingGR, podName, fmt.Errorf("pod %s is already assigned to node %q", podName, pod.Spec.NodeName))
		}
		if b.UID != "" && b.UID != pod.UID {
			return nil, apierrors.NewConflict(bindingGR, podName, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", b.UID, pod.UID))
		}
		if b.ResourceVersion != "" && b.ResourceVersion != pod.ResourceVersion {
			return nil, apierrors.NewConflict(bindingGR, podName, fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", b.ResourceVersion, pod.ResourceVersion))
		}
		// A pod waiting for its scheduling gates cannot be bound.
		if len(pod.Spec.SchedulingGates) != 0 {
			return nil, apierrors.NewConflict(bindingGR, podName, fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name))
		}
		pod.Spec.NodeName = b.Target.Name
		// ClearingNominatedNodeNameAfterBinding (beta, on in v1.37): the
		// nomination is stale once the pod is bound.
		pod.Status.NominatedNodeName = ""
		// PodTopologyLabelsAdmission (beta, on): the Binding's labels are
		// copied onto the pod, overwriting.
		for k, v := range b.Labels {
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels[k] = v
		}
		for k, v := range b.Annotations {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[k] = v
		}
		setPodCondition(pod, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(s.now().Truncate(timePrecision))})
		pod.ResourceVersion = ""
		return &Object{Obj: pod, Meta: pod}, nil
	})
	return err
}

// setPodCondition adds or replaces a pod condition.
func setPodCondition(pod *corev1.Pod, cond corev1.PodCondition) {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == cond.Type {
			pod.Status.Conditions[i] = cond
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, cond)
}

// validateBinding is upstream's ValidatePodBinding: the target is a Node
// (or names no kind) and has a node's name.
func validateBinding(b *corev1.Binding) field.ErrorList {
	var errs field.ErrorList
	isNode := b.Target.Kind == "" || b.Target.Kind == "Node"
	if !isNode {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	switch {
	case b.Target.Name == "":
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	case isNode:
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(b.Target.Name, false) {
			errs = append(errs, field.Invalid(field.NewPath("target", "name"), b.Target.Name, msg))
		}
	}
	return errs
}
