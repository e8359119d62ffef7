package controllers

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// namespacePass is what one pass over a terminating namespace did and found.
type namespacePass struct {
	// remaining counts the objects left, and the resources that failed
	// (one each): the namespace is finalized when it is 0.
	remaining int
	// deleted counts the deletes of this pass.
	deleted int
	// byResource counts the objects left by resource, byFinalizer by the
	// finalizers that hold them.
	byResource  map[schema.GroupVersionResource]int
	byFinalizer map[string]int
	// partial is set when pods remain and the other resources were not
	// looked at: the conditions then leave out what remains.
	partial bool
	// deleteErrs are the failures the ContentFailure condition lists;
	// errs are those that keep the namespace from being finalized.
	deleteErrs []error
	errs       []error
}

// fail records that resource gvr could not be emptied.
func (p *namespacePass) fail(gvr schema.GroupVersionResource, err error) {
	p.remaining++
	p.deleteErrs = append(p.deleteErrs, err)
	p.errs = append(p.errs, err)
}

// The namespace deletion conditions, in the order kube-controller-manager
// adds them, with the reason and message each has when nothing failed.
var namespaceConditionOK = []struct {
	typ             corev1.NamespaceConditionType
	reason, message string
}{
	{corev1.NamespaceDeletionDiscoveryFailure, "ResourcesDiscovered", "All resources successfully discovered"},
	{corev1.NamespaceDeletionGVParsingFailure, "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{corev1.NamespaceDeletionContentFailure, "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{corev1.NamespaceContentRemaining, "ContentRemoved", "All content successfully removed"},
	{corev1.NamespaceFinalizersRemaining, "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// conditions are the namespace's deletion conditions after pass p, worded
// as kube-controller-manager's namespace deleter words them.
func (p *namespacePass) conditions() []corev1.NamespaceCondition {
	failing := map[corev1.NamespaceConditionType]corev1.NamespaceCondition{}
	if len(p.deleteErrs) > 0 {
		msgs := make([]string, 0, len(p.deleteErrs))
		for _, err := range p.deleteErrs {
			msgs = append(msgs, err.Error())
		}
		failing[corev1.NamespaceDeletionContentFailure] = corev1.NamespaceCondition{
			Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionTrue, Reason: "ContentDeletionFailed",
			Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(msgs), strings.Join(msgs, ", ")),
		}
	}
	if !p.partial && len(p.byResource) > 0 {
		var left []string
		for gvr, n := range p.byResource {
			left = append(left, fmt.Sprintf("%s.%s has %d resource instances", gvr.Resource, gvr.Group, n))
		}
		sort.Strings(left)
		failing[corev1.NamespaceContentRemaining] = corev1.NamespaceCondition{
			Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain",
			Message: "Some resources are remaining: " + strings.Join(left, ", "),
		}
	}
	if !p.partial && len(p.byFinalizer) > 0 {
		var held []string
		for f, n := range p.byFinalizer {
			held = append(held, fmt.Sprintf("%s in %d resource instances", f, n))
		}
		sort.Strings(held)
		failing[corev1.NamespaceFinalizersRemaining] = corev1.NamespaceCondition{
			Type: corev1.NamespaceFinalizersRemaining, Status: corev1.ConditionTrue, Reason: "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: " + strings.Join(held, ", "),
		}
	}
	out := make([]corev1.NamespaceCondition, 0, len(namespaceConditionOK))
	for _, ok := range namespaceConditionOK {
		if c, found := failing[ok.typ]; found {
			out = append(out, c)
			continue
		}
		out = append(out, corev1.NamespaceCondition{Type: ok.typ, Status: corev1.ConditionFalse, Reason: ok.reason, Message: ok.message})
	}
	return out
}

// mergeNamespaceConditions sets conditions into status: a condition that
// is missing is added, one whose status, reason or message changed is
// rewritten, and its transition time moves only when its status changes.
// Conditions of other types are kept.
func mergeNamespaceConditions(status *corev1.NamespaceStatus, conditions []corev1.NamespaceCondition, now metav1.Time) {
	for _, c := range conditions {
		i := slices.IndexFunc(status.Conditions, func(o corev1.NamespaceCondition) bool { return o.Type == c.Type })
		if i < 0 {
			c.LastTransitionTime = now
			status.Conditions = append(status.Conditions, c)
			continue
		}
		old := &status.Conditions[i]
		if old.Status != c.Status {
			old.LastTransitionTime = now
		}
		old.Status, old.Reason, old.Message = c.Status, c.Reason, c.Message
	}
}
