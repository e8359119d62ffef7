package server

import (
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/storage/names"
)

// prepareCreate sets the server-owned metadata of a new object and
// validates its ObjectMeta, as upstream's BeforeCreate does.
func (s *Server) prepareCreate(c *request, o *object) error {
	m := o.meta
	if m.GetResourceVersion() != "" {
		// kube-apiserver answers this with a bare 500.
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500, Message: "resourceVersion should not be set on objects to be created"}}
	}
	if err := setNamespace(c, m); err != nil {
		return err
	}
	if m.GetName() == "" && m.GetGenerateName() != "" {
		// Upstream's strategies all use SimpleNameGenerator: five random
		// characters after the prefix, cut to 58 characters.
		m.SetName(names.SimpleNameGenerator.GenerateName(m.GetGenerateName()))
	}
	m.SetUID(types.UID(uuid.NewUUID()))
	m.SetCreationTimestamp(metav1.NewTime(s.now().Truncate(timePrecision)))
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetSelfLink("")
	if c.res.generation {
		m.SetGeneration(1)
	} else {
		m.SetGeneration(0)
	}
	// The metadata is validated with the rest of the object, after
	// admission (see validateCreate), as upstream's BeforeCreate does.
	return nil
}

// timePrecision is the precision of metav1.Time in JSON.
const timePrecision = 1e9

// validateMeta runs upstream's ObjectMeta validation for a new object.
func (s *Server) validateMeta(c *request, o *object) field.ErrorList {
	return validation.ValidateObjectMetaAccessor(o.meta, c.res.Namespaced, c.res.nameValid, field.NewPath("metadata"))
}

// prepareUpdate carries server-owned metadata from the stored object into
// the new one and validates the change of metadata, as upstream's
// BeforeUpdate does; the errors found are returned to be reported with
// those of the rest of the object (see validateUpdate).
func (s *Server) prepareUpdate(c *request, o, old *object) (field.ErrorList, error) {
	m, om := o.meta, old.meta
	if err := setNamespace(c, m); err != nil {
		return nil, err
	}
	if m.GetUID() == "" {
		m.SetUID(om.GetUID())
	}
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	m.SetDeletionTimestamp(om.GetDeletionTimestamp())
	m.SetDeletionGracePeriodSeconds(om.GetDeletionGracePeriodSeconds())
	m.SetSelfLink("")
	if m.GetName() == "" {
		m.SetName(om.GetName())
	}
	m.SetGeneration(om.GetGeneration())
	errs := validation.ValidateObjectMetaAccessor(m, c.res.Namespaced, c.res.nameValid, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateObjectMetaAccessorUpdate(m, om, field.NewPath("metadata"))...)
	return errs, nil
}

// stampRV writes the commit revision into an object's metadata.
func stampRV(o *object, rev int64) {
	o.meta.SetResourceVersion(strconv.FormatInt(rev, 10))
}

// checkName ensures the body's name matches the URL on update.
func checkName(c *request, o *object) error {
	if o.meta.GetName() != "" && o.meta.GetName() != c.info.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", o.meta.GetName(), c.info.Name))
	}
	if o.meta.GetName() == "" {
		o.meta.SetName(c.info.Name)
	}
	return nil
}

// setNamespace fills in or checks the namespace of an object against the URL.
func setNamespace(c *request, m metav1.Object) error {
	if !c.res.Namespaced {
		m.SetNamespace("")
		return nil
	}
	if m.GetNamespace() == "" {
		m.SetNamespace(c.ns)
	} else if m.GetNamespace() != c.ns {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}
