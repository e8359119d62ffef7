// Package strategy defines what one built-in resource's strategy is: the
// create and update rules of k8s.io/apiserver's registry/rest
// (RESTCreateStrategy, RESTUpdateStrategy), which a strategy implements, and
// the optional parts fakeplane asks of it (status validation, defaulting,
// declarative validation, field selector labels).
// Base gives the parts most resources share, as upstream's strategies embed
// the scheme and the name generator.
package strategy

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Strategy is one built-in resource's create and update rules, as
// kube-apiserver's pkg/registry/<group>/<resource>/strategy.go holds them.
type Strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// StatusStrategy is implemented by a strategy whose resource has a status
// subresource with rules of its own (upstream's status strategy).
type StatusStrategy interface {
	// ValidateStatusUpdate validates a write to /status.
	ValidateStatusUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// StatusPreparer is implemented by a strategy whose resource's writes to
// /status are prepared (upstream's status strategy's PrepareForUpdate): the
// server calls PrepareForStatusUpdate instead of PrepareForUpdate for them.
type StatusPreparer interface {
	// PrepareForStatusUpdate prepares a write to /status before it is
	// validated.
	PrepareForStatusUpdate(ctx context.Context, obj, old runtime.Object)
}

// ApprovalPreparer is implemented by a strategy whose resource has an
// approval subresource (a CertificateSigningRequest's): the server calls
// PrepareForApprovalUpdate instead of PrepareForUpdate for a write to it, as
// upstream's approval strategy's PrepareForUpdate.
type ApprovalPreparer interface {
	// PrepareForApprovalUpdate prepares a write to /approval before it is
	// validated.
	PrepareForApprovalUpdate(ctx context.Context, obj, old runtime.Object)
}

// ApprovalValidator is implemented by a strategy whose resource has an
// approval subresource with rules of its own (a CertificateSigningRequest's
// Approved and Denied conditions): the server calls ValidateApprovalUpdate
// instead of ValidateUpdate for a write to it, as upstream's approval
// strategy's ValidateUpdate.
type ApprovalValidator interface {
	// ValidateApprovalUpdate validates a write to /approval.
	ValidateApprovalUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// FinalizePreparer is implemented by a strategy whose resource has a
// finalize subresource (a Namespace's): the server calls
// PrepareForFinalizeUpdate instead of PrepareForUpdate for a write to it, as
// upstream's finalize strategy's PrepareForUpdate.
type FinalizePreparer interface {
	// PrepareForFinalizeUpdate prepares a write to /finalize before it is
	// validated.
	PrepareForFinalizeUpdate(ctx context.Context, obj, old runtime.Object)
}

// FinalizeValidator is implemented by a strategy whose resource has a
// finalize subresource with rules of its own (a Namespace's finalizer
// names): the server calls ValidateFinalizeUpdate instead of
// ValidateUpdate for a write to it.
type FinalizeValidator interface {
	// ValidateFinalizeUpdate validates a write to /finalize.
	ValidateFinalizeUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// StatusWarner is implemented by a strategy whose status strategy upstream
// warns about (a Pod's IPs in a non-standard form): the server adds
// WarningsOnStatusUpdate's warnings to a valid write to /status, as it adds
// WarningsOnUpdate's to a write to the resource.
type StatusWarner interface {
	// WarningsOnStatusUpdate returns the warnings of a valid write to /status.
	WarningsOnStatusUpdate(ctx context.Context, obj, old runtime.Object) []string
}

// GarbageCollector is implemented by a strategy whose resource's deletes
// do not default to deleting its dependents in the background (upstream's
// rest.GarbageCollectionDeleteStrategy): v1 Jobs and ReplicationControllers
// orphan them, and Events take no policy at all.
type GarbageCollector interface {
	// DefaultGarbageCollectionPolicy is the policy of a delete that names
	// none, for the request in ctx (its API version decides for Jobs).
	DefaultGarbageCollectionPolicy(ctx context.Context) rest.GarbageCollectionPolicy
}

// DeleteWarner is implemented by a strategy whose deletes upstream warns
// about (a v1 Job's, which orphans its pods unless told otherwise).
type DeleteWarner interface {
	// WarningsOnDelete returns the warnings of a delete or a delete of a
	// collection with opts, whatever it deletes.
	WarningsOnDelete(ctx context.Context, opts *metav1.DeleteOptions) []string
}

// EphemeralContainersStrategy is implemented by the pod strategy: the
// server calls its methods instead of PrepareForUpdate and ValidateUpdate
// for a write to pods/ephemeralcontainers.
type EphemeralContainersStrategy interface {
	// PrepareForEphemeralContainersUpdate prepares a write to
	// /ephemeralcontainers before it is validated.
	PrepareForEphemeralContainersUpdate(ctx context.Context, obj, old runtime.Object)
	// ValidateEphemeralContainersUpdate validates it.
	ValidateEphemeralContainersUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// ResizeStrategy is implemented by the pod strategy: the server calls its
// methods instead of PrepareForUpdate and ValidateUpdate for a write to
// pods/resize (upstream's resize strategy).
type ResizeStrategy interface {
	// PrepareForResizeUpdate prepares a write to /resize before it is
	// validated.
	PrepareForResizeUpdate(ctx context.Context, obj, old runtime.Object)
	// ValidateResizeUpdate validates it.
	ValidateResizeUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// GenerationTracker is implemented by a strategy that says whether its
// resource's metadata.generation is set at create and incremented with each
// change outside status (what upstream's PrepareForCreate and
// PrepareForUpdate do for the resources that have a spec).
type GenerationTracker interface {
	// TracksGeneration reports whether metadata.generation is kept.
	TracksGeneration() bool
}

// DeleteReturner is implemented by a strategy that says whether a delete
// answers with the deleted object (upstream's Store.ReturnDeletedObject).
type DeleteReturner interface {
	// ReturnsDeletedObject reports whether a delete answers with the
	// deleted object rather than a Status.
	ReturnsDeletedObject() bool
}

// Defaulter is implemented by a strategy whose resource has defaults: what
// kube-apiserver's scheme (SetDefaults_*) sets when it decodes an object.
type Defaulter interface {
	// Default sets the defaults of a decoded object.
	Default(obj runtime.Object)
}

// DeclarativeValidator is implemented by a strategy whose resource is also
// validated declaratively (the Validate_* functions generated from
// k8s.io/api's tags), as upstream's rest.ValidateDeclaratively does: the
// server calls ValidateDeclaratively last, with every error found so far.
type DeclarativeValidator interface {
	// ValidateDeclaratively merges errs, the metadata errors and the
	// strategy's own (Validate, ValidateUpdate, ValidateStatusUpdate) of
	// obj, with its declarative errors, and returns the errors to answer.
	// old is nil on create; status is set for a write to /status.
	ValidateDeclaratively(ctx context.Context, errs field.ErrorList, obj, old runtime.Object, status bool) field.ErrorList
}

// NameValidator is implemented by a strategy whose metadata.name rule
// depends on the object, as upstream's ClusterTrustBundle validation's
// does (a bundle's name starts with its signer's).
type NameValidator interface {
	// NameRule is the metadata.name rule for obj.
	NameRule(obj runtime.Object) validation.ValidateNameFunc
}

// Base is the part of a strategy that most resources share: upstream's
// scheme and name generator, no preparation, no warnings, no
// canonicalization. A strategy embeds it and sets Namespaced.
type Base struct {
	// Namespaced says whether the resource's objects live in namespaces.
	Namespaced bool
	// CreateOnUpdate lets a PUT of a missing object create it.
	CreateOnUpdate bool
	// UnconditionalUpdate lets a PUT without metadata.resourceVersion
	// replace the object.
	UnconditionalUpdate bool
	// Generation says that metadata.generation is 1 at create and
	// incremented with each change outside status.
	Generation bool
	// ResetStatusOnCreate makes PrepareForCreate clear the status a new
	// object is sent with, as upstream's strategies of resources with a
	// status subresource do.
	ResetStatusOnCreate bool
	// ReturnDeleted makes a delete answer with the deleted object rather
	// than a Status (upstream's Store.ReturnDeletedObject).
	ReturnDeleted bool
	// StatusWritesMetadata makes a write to /status also set the labels,
	// annotations, finalizers and owner references it carries, as the
	// status strategies of upstream's older resources (workloads, pods,
	// services, nodes, ...) let through; without it a write to /status
	// changes the status alone, as the newer ones (ResetObjectMetaForStatus)
	// and custom resources do. A StatusPreparer may put some back.
	StatusWritesMetadata bool
	// NoMetadataRules says that upstream's validation of the type checks
	// no metadata, as core/v1 Events' and PodDisruptionBudgets' does.
	// kube-apiserver's generic rules then check it alone: the name need
	// only be a path segment, no finalizer rule of the core group applies,
	// and a create's metadata is checked only when the type's own rules
	// found nothing (rest.ValidateCreate).
	NoMetadataRules bool
	// NameRuleOnCreateOnly says that upstream's update validation of the
	// type checks its metadata with the update rules alone, not with its
	// name rule, as the workloads', Services' and Leases' does: on update
	// an invalid generateName is then only one that is not a path segment.
	NameRuleOnCreateOnly bool
	// NameRuleOnStatus says that upstream's validation of a write to the
	// type's /status checks its name rule too, as VolumeAttachments' does;
	// most status validations check the metadata update rules alone.
	NameRuleOnStatus bool
	// StatusKeepsStoredMetadata says that a write to the type's /status
	// keeps the stored metadata whole but for the managed fields, as
	// upstream's FlowSchema and PriorityLevelConfiguration status
	// strategies (and custom resources') do: what else the write sends in
	// metadata is dropped unchecked.
	StatusKeepsStoredMetadata bool
	// StatusSkipsKubeFinalizerRules says that upstream's validation of a
	// write to the type's /status checks the generic metadata update
	// rules only, not the core group's finalizer name rule, as CronJobs'
	// does: a finalizer "x" is accepted there.
	StatusSkipsKubeFinalizerRules bool
}

// UpdateNameRule is implemented by every strategy built on Base: it says
// whether the type's validation of an update, and of a write to /status,
// checks its name rule, and the finalizer rule of the core group on
// /status (see Base.NameRuleOnCreateOnly, Base.NameRuleOnStatus and
// Base.StatusSkipsKubeFinalizerRules).
type UpdateNameRule interface {
	ChecksNameRuleOnUpdate() bool
	ChecksNameRuleOnStatus() bool
	ChecksKubeFinalizersOnStatus() bool
}

// ChecksNameRuleOnUpdate implements UpdateNameRule.
func (b Base) ChecksNameRuleOnUpdate() bool { return !b.NameRuleOnCreateOnly }

// ChecksNameRuleOnStatus implements UpdateNameRule.
func (b Base) ChecksNameRuleOnStatus() bool { return b.NameRuleOnStatus }

// ChecksKubeFinalizersOnStatus implements UpdateNameRule.
func (b Base) ChecksKubeFinalizersOnStatus() bool { return !b.StatusSkipsKubeFinalizerRules }

// MetadataRules is implemented by every strategy built on Base: it says
// whether the type's validation checks its metadata (see
// Base.NoMetadataRules).
type MetadataRules interface {
	ChecksMetadata() bool
}

// ChecksMetadata implements MetadataRules.
func (b Base) ChecksMetadata() bool { return !b.NoMetadataRules }

// StatusMetadata is implemented by every strategy built on Base: it says
// whether a write to /status also sets metadata (Base.StatusWritesMetadata).
type StatusMetadata interface {
	StatusSetsMetadata() bool
	StatusKeepsMetadata() bool
}

// StatusSetsMetadata implements StatusMetadata.
func (b Base) StatusSetsMetadata() bool { return b.StatusWritesMetadata }

// StatusKeepsMetadata implements StatusMetadata.
func (b Base) StatusKeepsMetadata() bool { return b.StatusKeepsStoredMetadata }

// ObjectKinds implements runtime.ObjectTyper with client-go's scheme, which
// knows every built-in type.
func (Base) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return clientgoscheme.Scheme.ObjectKinds(obj)
}

// Recognizes implements runtime.ObjectTyper.
func (Base) Recognizes(gvk schema.GroupVersionKind) bool {
	return clientgoscheme.Scheme.Recognizes(gvk)
}

// GenerateName implements names.NameGenerator as upstream's strategies do.
func (Base) GenerateName(base string) string { return names.SimpleNameGenerator.GenerateName(base) }

// NamespaceScoped reports whether objects live in namespaces.
func (b Base) NamespaceScoped() bool { return b.Namespaced }

// PrepareForCreate clears the status when ResetStatusOnCreate is set. A
// strategy with a PrepareForCreate of its own calls it first.
func (b Base) PrepareForCreate(_ context.Context, obj runtime.Object) {
	if b.ResetStatusOnCreate {
		ResetStatus(obj)
	}
}

// ResetStatus sets a built-in object's Status field to its zero value; an
// object without one is left alone.
func ResetStatus(obj runtime.Object) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	if f := v.Elem().FieldByName("Status"); f.IsValid() && f.CanSet() {
		f.Set(reflect.Zero(f.Type()))
	}
}

// PrepareForUpdate does nothing.
func (Base) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// WarningsOnCreate returns none.
func (Base) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }

// WarningsOnUpdate returns none.
func (Base) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string { return nil }

// Canonicalize does nothing.
func (Base) Canonicalize(runtime.Object) {}

// AllowCreateOnUpdate reports CreateOnUpdate.
func (b Base) AllowCreateOnUpdate(context.Context) bool { return b.CreateOnUpdate }

// AllowUnconditionalUpdate reports UnconditionalUpdate.
func (b Base) AllowUnconditionalUpdate(context.Context) bool { return b.UnconditionalUpdate }

// TracksGeneration reports Generation.
func (b Base) TracksGeneration() bool { return b.Generation }

// ReturnsDeletedObject reports ReturnDeleted.
func (b Base) ReturnsDeletedObject() bool { return b.ReturnDeleted }
