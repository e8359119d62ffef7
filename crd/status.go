package crd

import (
	"fmt"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
)

// SetStatus sets in def's status the next step of upstream's naming and
// establishing controllers: the accepted names (see AcceptNames; known are
// the CRDs the cluster has, def's earlier self included) and the
// NamesAccepted and Established conditions. The stored versions are the
// strategy's (RecordStorageVersion), which a client may change through
// /status. A CRD whose names are not all accepted is not established until
// they are. Once they are, the naming controller's write marks it
// Established=False "Installing", and the establishing controller's next
// write Established=True; once established it stays so. So a new CRD takes
// two calls (two writes, as on kube-apiserver) to be established. now is
// given to the conditions that change, but upstream's
// apihelpers.SetCRDCondition, which sets them, stamps its own time.Now() as
// lastTransitionTime.
func SetStatus(def *apiextensionsv1.CustomResourceDefinition, known []*apiextensionsv1.CustomResourceDefinition, now metav1.Time) {
	names, namesCond := AcceptNames(def, known)
	def.Status.AcceptedNames = names
	established := apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted",
	}
	if old := apihelpers.FindCRDCondition(def, apiextensionsv1.Established); old != nil {
		established = *old
	}
	if established.Status != apiextensionsv1.ConditionTrue && namesCond.Status == apiextensionsv1.ConditionTrue {
		if established.Reason == "Installing" {
			established = apiextensionsv1.CustomResourceDefinitionCondition{
				Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted",
			}
		} else {
			established = apiextensionsv1.CustomResourceDefinitionCondition{
				Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: "Installing", Message: "the initial names have been accepted",
			}
		}
	}
	for _, cond := range []apiextensionsv1.CustomResourceDefinitionCondition{namesCond, established} {
		if existing := apihelpers.FindCRDCondition(def, cond.Type); existing != nil && existing.Status == cond.Status && existing.Reason == cond.Reason && existing.Message == cond.Message {
			continue
		}
		cond.LastTransitionTime = now
		apihelpers.SetCRDCondition(def, cond)
	}
}

// RecordStorageVersion adds def's storage version to status.storedVersions
// when it is not there yet, as upstream's CRD strategy does on create and
// on every update of the main resource, before validating: a CRD may move
// to a new storage version, and the versions it stored in before stay
// listed until a client removes them (through /status).
func RecordStorageVersion(def *apiextensionsv1.CustomResourceDefinition) {
	for _, v := range def.Spec.Versions {
		if v.Storage {
			if !slices.Contains(def.Status.StoredVersions, v.Name) {
				def.Status.StoredVersions = append(def.Status.StoredVersions, v.Name)
			}
			return
		}
	}
}

// AcceptNames is upstream's naming decision for def against the names that
// the known CRDs of its group have accepted (def's earlier self among them,
// as upstream counts it): each requested name is accepted when it is
// already def's own or no CRD of the group has taken it; a name that is
// taken keeps def's accepted one. It returns the accepted names and the
// NamesAccepted condition (without lastTransitionTime), whose reason names
// the last conflict found.
func AcceptNames(def *apiextensionsv1.CustomResourceDefinition, known []*apiextensionsv1.CustomResourceDefinition) (apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition) {
	resources, kinds := sets.New[string](), sets.New[string]()
	for _, other := range known {
		if other.Spec.Group != def.Spec.Group {
			continue
		}
		an := other.Status.AcceptedNames
		resources.Insert(an.Plural, an.Singular)
		resources.Insert(an.ShortNames...)
		kinds.Insert(an.Kind, an.ListKind)
	}
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	requested, accepted := def.Spec.Names, def.Status.AcceptedNames
	out := accepted
	if err := freshName(requested.Plural, accepted.Plural, resources); err != nil {
		conflict("PluralConflict", err)
	} else {
		out.Plural = requested.Plural
	}
	if err := freshName(requested.Singular, accepted.Singular, resources); err != nil {
		conflict("SingularConflict", err)
	} else {
		out.Singular = requested.Singular
	}
	if !slices.Equal(requested.ShortNames, accepted.ShortNames) {
		var errs []error
		mine := sets.New(accepted.ShortNames...)
		for _, sn := range requested.ShortNames {
			if mine.Has(sn) {
				continue
			}
			if err := freshName(sn, "", resources); err != nil {
				errs = append(errs, err)
			}
		}
		if err := utilerrors.NewAggregate(errs); err != nil {
			conflict("ShortNamesConflict", err)
		} else {
			out.ShortNames = requested.ShortNames
		}
	}
	if err := freshName(requested.Kind, accepted.Kind, kinds); err != nil {
		conflict("KindConflict", err)
	} else {
		out.Kind = requested.Kind
	}
	if err := freshName(requested.ListKind, accepted.ListKind, kinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		out.ListKind = requested.ListKind
	}
	out.Categories = requested.Categories
	if cond.Status == apiextensionsv1.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	return out, cond
}

// freshName accepts a requested name that is already the CRD's own or that
// no CRD of the group has taken.
func freshName(requested, accepted string, used sets.Set[string]) error {
	if requested == accepted || !used.Has(requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// MarkForDeletion is upstream's CRD delete: def gets the cleanup finalizer
// (its custom resources go first, then the CRD) and a Terminating
// condition (stamped, as in SetStatus, with time.Now() rather than now).
func MarkForDeletion(def *apiextensionsv1.CustomResourceDefinition, now metav1.Time) {
	if !apihelpers.CRDHasFinalizer(def, apiextensionsv1.CustomResourceCleanupFinalizer) {
		def.Finalizers = append(def.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
	}
	apihelpers.SetCRDCondition(def, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue, Reason: "InstanceDeletionPending",
		Message:            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
		LastTransitionTime: now,
	})
}
