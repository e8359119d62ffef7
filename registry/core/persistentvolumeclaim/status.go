package persistentvolumeclaim

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	apivalidate "k8s.io/apimachinery/pkg/api/validate"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// ValidateStatusUpdate checks a write to /status: upstream's
// ValidatePersistentVolumeClaimStatusUpdate less the metadata (the
// capacity, the health conditions' reasons, and, RecoverVolumeExpansionFailure
// being GA, the allocated resources and their resize statuses), then the
// status's declarative rules (those of status.healthStatus, standard).
// PrepareForStatusUpdate drops a healthStatus the stored claim does not
// have, so the last apply only to a claim stored with one.
func (claimStrategy) ValidateStatusUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	n, p := obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim)
	return validate.WithDeclarative(ctx, validateStatusUpdate(n), declareStatus(&n.Status, &p.Status))
}

// resizeStatuses are the values of status.allocatedResourceStatuses.
var resizeStatuses = sets.New(
	corev1.PersistentVolumeClaimControllerResizeInProgress,
	corev1.PersistentVolumeClaimControllerResizeInfeasible,
	corev1.PersistentVolumeClaimNodeResizePending,
	corev1.PersistentVolumeClaimNodeResizeInProgress,
	corev1.PersistentVolumeClaimNodeResizeInfeasible,
)

// validateStatusUpdate is the handwritten part of ValidateStatusUpdate.
// Maps are walked in the order of their sorted keys (upstream's in Go's
// random order).
func validateStatusUpdate(n *corev1.PersistentVolumeClaim) field.ErrorList {
	var errs field.ErrorList
	if n.ResourceVersion == "" {
		errs = append(errs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	if len(n.Spec.AccessModes) == 0 {
		// Upstream's path, capital S included.
		errs = append(errs, field.Required(field.NewPath("Spec", "accessModes"), ""))
	}
	st := &n.Status
	capPath := field.NewPath("status", "capacity")
	for _, name := range validate.ResourceNames(st.Capacity) {
		errs = append(errs, validQuantity(st.Capacity[corev1.ResourceName(name)], capPath.Key(name))...)
	}
	if hs := st.HealthStatus; hs != nil {
		conds := field.NewPath("status", "healthStatus", "healthConditions")
		for i, c := range hs.HealthConditions {
			if c.Reason == "" {
				continue
			}
			for _, msg := range metav1validation.IsValidConditionReason(c.Reason) {
				errs = append(errs, field.Invalid(conds.Index(i).Child("reason"), c.Reason, msg))
			}
		}
	}
	resizePath := field.NewPath("status", "allocatedResourceStatuses")
	resizeKeys := map[string]corev1.ClaimResourceStatus{}
	for k, v := range st.AllocatedResourceStatuses {
		resizeKeys[string(k)] = v
	}
	for _, k := range validate.SortedKeys(resizeKeys) {
		errs = append(errs, claimResourceKey(k, resizePath)...)
		if !resizeStatuses.Has(resizeKeys[k]) {
			// Upstream reports the key, not the unsupported value.
			errs = append(errs, field.NotSupported(resizePath, k, sets.List(resizeStatuses)))
		}
	}
	allocPath := field.NewPath("status", "allocatedResources")
	for _, name := range validate.ResourceNames(st.AllocatedResources) {
		if keyErrs := claimResourceKey(name, allocPath); len(keyErrs) > 0 {
			errs = append(errs, keyErrs...)
			continue
		}
		q, fld := st.AllocatedResources[corev1.ResourceName(name)], allocPath.Key(name)
		if qErrs := validQuantity(q, fld); len(qErrs) > 0 {
			errs = append(errs, qErrs...)
		} else {
			errs = append(errs, validate.Quantity(string(corev1.ResourceStorage), q, fld)...)
		}
	}
	return errs
}

// validQuantity is upstream's validateBasicResource: a quantity whose
// value, rounded away from zero, is not negative.
func validQuantity(q apiresource.Quantity, fld *field.Path) field.ErrorList {
	if v := q.Value(); v < 0 {
		return field.ErrorList{field.Invalid(fld, v, "must be a valid resource quantity")}
	}
	return nil
}

// claimResourceKey is upstream's validatePersistentVolumeClaimResourceKey:
// a qualified name, and storage if it is a native (kubernetes.io) one. fld
// is the map's path: upstream does not name the key in it.
func claimResourceKey(name string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(fld, name, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if validate.IsNativeResource(name) && name != string(corev1.ResourceStorage) {
		errs = append(errs, field.NotSupported(fld, name, []string{string(corev1.ResourceStorage)}))
	}
	return errs
}

// healthStatusTypes are the values of a health condition's status.
var healthStatusTypes = sets.New(corev1.VolumeHealthDataLoss, corev1.VolumeHealthDegraded, corev1.VolumeHealthInaccessible)

// maxHealthConditions is the most health conditions a claim may have.
const maxHealthConditions = 16

// declareStatus is the declarative validation of a write to /status (the
// tags of k8s.io/api's types, standard): status.healthStatus's conditions,
// at most 16, unique by status and reason, each with a known status, a
// reason of at most 256 bytes and a message of at most 1024. What the write
// keeps of the stored status is not validated again.
func declareStatus(st, old *corev1.PersistentVolumeClaimStatus) field.ErrorList {
	if equality.Semantic.DeepEqual(st, old) || st.HealthStatus == nil ||
		equality.Semantic.DeepEqual(st.HealthStatus, old.HealthStatus) {
		return nil
	}
	var oldConds []corev1.VolumeHealthCondition
	if old.HealthStatus != nil {
		oldConds = old.HealthStatus.HealthConditions
	}
	conds := st.HealthStatus.HealthConditions
	if equality.Semantic.DeepEqual(conds, oldConds) {
		return nil
	}
	ctx, op := context.Background(), operation.Operation{Type: operation.Update}
	fld := field.NewPath("status", "healthStatus", "healthConditions")
	if errs := apivalidate.MaxItems(ctx, op, fld, conds, oldConds, maxHealthConditions); len(errs) > 0 {
		return errs
	}
	if len(conds) == 0 {
		return nil
	}
	sameKey := func(a, b *corev1.VolumeHealthCondition) bool { return a.Status == b.Status && a.Reason == b.Reason }
	errs := apivalidate.ValSliceUnique(ctx, op, fld, conds, oldConds, sameKey)
	return append(errs, apivalidate.EachValSliceVal(ctx, op, fld, conds, oldConds, sameKey,
		apivalidate.DirectEqual[corev1.VolumeHealthCondition], declareHealthCondition)...)
}

// declareHealthCondition is one health condition's declarative
// validation: a status of the known ones, a reason of at most 256 bytes,
// a message of at most 1024; each field kept from old (nil when the
// condition is new) is not validated again.
func declareHealthCondition(ctx context.Context, op operation.Operation, fld *field.Path, c, old *corev1.VolumeHealthCondition) field.ErrorList {
	var errs field.ErrorList
	if old == nil || c.Status != old.Status {
		if e := apivalidate.RequiredValue(ctx, op, fld.Child("status"), &c.Status, nil); len(e) > 0 {
			errs = append(errs, e...)
		} else {
			errs = append(errs, apivalidate.Enum(ctx, op, fld.Child("status"), &c.Status, nil, healthStatusTypes, nil)...)
		}
	}
	if old == nil || c.Reason != old.Reason {
		if e := apivalidate.RequiredValue(ctx, op, fld.Child("reason"), &c.Reason, nil); len(e) > 0 {
			errs = append(errs, e...)
		} else {
			errs = append(errs, apivalidate.MaxBytes(ctx, op, fld.Child("reason"), &c.Reason, nil, 256)...)
		}
	}
	if (old == nil || c.Message != old.Message) && c.Message != "" {
		errs = append(errs, apivalidate.MaxBytes(ctx, op, fld.Child("message"), &c.Message, nil, 1024)...)
	}
	return errs
}
