package registry

import (
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/storage/names"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// errRVSetOnCreate is what kube-apiserver's storage answers (a bare 500)
// when an object to be created has a resourceVersion: only once the object
// is valid, and not on a dry run, which does not reach the storage.
func errRVSetOnCreate() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500, Message: "resourceVersion should not be set on objects to be created"}}
}

// rvSetOnCreate says whether upstream's storage refuses to create an object
// with resourceVersion rv: when it parses as a revision other than 0 (its
// APIObjectVersioner.ObjectResourceVersion). Any other value is replaced by
// the revision of the create, as upstream's PrepareObjectForStorage does.
func rvSetOnCreate(rv string) bool {
	v, err := strconv.ParseUint(rv, 10, 64)
	return err == nil && v != 0
}

// prepareCreate sets the server-owned metadata of a new object and
// validates its ObjectMeta, as upstream's BeforeCreate does.
func (s *Registry) prepareCreate(c *Request, o *Object) error {
	m := o.Meta
	if err := EnsureRequestNamespace(c, m); err != nil {
		return err
	}
	if m.GetName() == "" && m.GetGenerateName() != "" {
		// The strategy's name generator, as upstream's BeforeCreate: most
		// add five random characters after the prefix, cut to 58
		// characters (strategy.Base); an IPAddress's adds nothing.
		gen := names.SimpleNameGenerator
		if st, ok := For(c.Res.GR); ok {
			if ng, ok := st.(names.NameGenerator); ok {
				gen = ng
			}
		}
		m.SetName(gen.GenerateName(m.GetGenerateName()))
	}
	m.SetUID(types.UID(uuid.NewUUID()))
	m.SetCreationTimestamp(metav1.NewTime(s.now().Truncate(timePrecision)))
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetSelfLink("")
	// A resource whose strategy tracks generations starts at 1; another
	// keeps the generation the client sent, as upstream's BeforeCreate
	// leaves it (a negative one fails validation).
	if c.Res.generation {
		m.SetGeneration(1)
	}
	// The metadata is validated with the rest of the object, after
	// admission (see validateCreate), as upstream's BeforeCreate does.
	return nil
}

// timePrecision is the precision of metav1.Time in JSON.
const timePrecision = 1e9

// validateMeta runs upstream's ObjectMeta validation for a new object.
func (s *Registry) validateMeta(c *Request, o *Object) field.ErrorList {
	errs := validation.ValidateObjectMetaAccessor(o.Meta, c.Res.Namespaced, nameRule(c, o), field.NewPath("metadata"))
	return append(errs, kubeFinalizerErrors(c.Res, o.Meta)...)
}

// pathSegmentName is kube-apiserver's generic rule for a name, whatever the
// type: a path segment (rest.ValidateCreate's validatePathSegment).
func pathSegmentName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

// kubeFinalizerGroups are the API groups whose types upstream validates
// with the core group's ValidateObjectMeta (k8s.io/kubernetes'
// pkg/apis/*/validation), which checks finalizer names further.
var kubeFinalizerGroups = sets.New("", "apps", "autoscaling", "batch", "certificates.k8s.io", "discovery.k8s.io",
	"events.k8s.io", "flowcontrol.apiserver.k8s.io", "internal.apiserver.k8s.io", "networking.k8s.io",
	"rbac.authorization.k8s.io", "resource.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "storagemigration.k8s.io")

// kubeFinalizerErrors are the finalizer name errors upstream's own types add
// to ObjectMeta's, for a resource of one of kubeFinalizerGroups.
func kubeFinalizerErrors(r *Resource, m metav1.Object) field.ErrorList {
	if r.Typed == nil || !kubeFinalizerGroups.Has(r.GR.Group) || r.noMetadataRules {
		return nil
	}
	var errs field.ErrorList
	for i, f := range m.GetFinalizers() {
		errs = append(errs, strategy.KubeFinalizerErrors(f, field.NewPath("metadata", "finalizers").Index(i))...)
	}
	return errs
}

// nameRule is the metadata.name rule for o: its strategy's when that
// depends on the object, else the resource's.
func nameRule(c *Request, o *Object) validation.ValidateNameFunc {
	if st, ok := For(c.Res.GR); ok {
		if nv, ok := st.(strategy.NameValidator); ok {
			return nv.NameRule(o.Obj)
		}
	}
	return c.Res.nameValid
}

// prepareUpdate carries server-owned metadata from the stored object into
// the new one, as upstream's BeforeUpdate does; the metadata is validated
// later, once the strategy has prepared the write (beforeUpdate,
// metaUpdateErrors).
func (s *Registry) prepareUpdate(c *Request, o, old *Object) error {
	m, om := o.Meta, old.Meta
	if err := EnsureRequestNamespace(c, m); err != nil {
		return err
	}
	if m.GetUID() == "" {
		m.SetUID(om.GetUID())
	}
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	// An update can neither remove nor change a deletion timestamp or
	// grace period; one that sets them on an object not being deleted (or
	// changes the grace period) fails validation, as upstream's.
	if ts := om.GetDeletionTimestamp(); ts != nil {
		m.SetDeletionTimestamp(ts)
	}
	if g := om.GetDeletionGracePeriodSeconds(); g != nil && m.GetDeletionGracePeriodSeconds() == nil {
		m.SetDeletionGracePeriodSeconds(g)
	}
	m.SetSelfLink("")
	if m.GetName() == "" {
		m.SetName(om.GetName())
	}
	m.SetGeneration(om.GetGeneration())
	return nil
}

// metaUpdateErrors are the metadata errors of an update of old to o: first
// kube-apiserver's checks of every update (validateCommonFields), the
// metadata with names that need only be path segments, then the update
// rules; then the type's own. A built-in type's are answered once each
// (Dedup), a type whose validation is not declarative repeats them.
func metaUpdateErrors(c *Request, mode writeMode, o, old *Object) field.ErrorList {
	m, path := o.Meta, field.NewPath("metadata")
	errs := validation.ValidateObjectMetaAccessor(m, c.Res.Namespaced, pathSegmentName, path)
	errs = append(errs, validation.ValidateObjectMetaAccessorUpdate(m, old.Meta, path)...)
	if c.Res.repeatsMetaErrors {
		errs = append(errs, validation.ValidateObjectMetaAccessorUpdate(m, old.Meta, path)...)
	}
	if (mode != statusWrite && c.Res.nameRuleOnUpdate) || (mode == statusWrite && c.Res.nameRuleOnStatus) {
		errs = append(errs, validation.ValidateObjectMetaAccessor(m, c.Res.Namespaced, nameRule(c, o), path)...)
	}
	if mode == statusWrite && c.Res.noKubeFinalizersOnStatus {
		return errs
	}
	return append(errs, kubeFinalizerErrors(c.Res, m)...)
}

// dedupMetaErrors answers each of errs once, unless the resource's
// validation repeats them (see metaUpdateErrors).
func dedupMetaErrors(r *Resource, errs field.ErrorList) field.ErrorList {
	if r.repeatsMetaErrors {
		return errs
	}
	return validate.Dedup(errs)
}

// stampRV writes the commit revision into an object's metadata.
func stampRV(o *Object, rev int64) {
	o.Meta.SetResourceVersion(strconv.FormatInt(rev, 10))
}

// CheckName is kube-apiserver's check of an updated object's name: the one
// on the URL, and not empty.
func CheckName(c *Request, o *Object) error {
	return URLNameError(o.Meta.GetName(), c.Info.Name)
}

// URLNameError is kube-apiserver's answer to an updated, patched or applied
// object whose name is not the one on the URL, nil if it is.
func URLNameError(objName, urlName string) error {
	switch {
	case objName == "":
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", urlName))
	case objName != urlName:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", objName, urlName))
	}
	return nil
}

// EnsureRequestNamespace is upstream's create handler check of a body's
// namespace against the URL's (EnsureObjectNamespaceMatchesRequestNamespace):
// filled in when empty, cleared for a cluster-scoped resource, a 400 when
// it names another namespace.
func EnsureRequestNamespace(c *Request, m metav1.Object) error {
	if !c.Res.Namespaced {
		m.SetNamespace("")
		return nil
	}
	if m.GetNamespace() == "" {
		m.SetNamespace(c.Namespace)
	} else if m.GetNamespace() != c.Namespace {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}
