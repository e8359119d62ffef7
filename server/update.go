package server

import (
	"errors"
	"net/http"

	"github.com/fakeplane/fakeplane/registry"
)

// update answers PUT on an object or its status.
func (s *Server) update(c *call, statusOnly bool) error {
	wo, err := parseWriteOptions(c, "")
	if err != nil {
		return err
	}
	o, err := c.decodeRequestObject(wo.fieldValidation)
	if err != nil {
		return err
	}
	// The handler's checks of the body, before storage: its namespace,
	// then its name.
	if err := registry.EnsureRequestNamespace(c.Request, o.Meta); err != nil {
		return err
	}
	if err := registry.CheckName(c.Request, o); err != nil {
		return err
	}
	dry := wo.dryRun
	addWarnings(c.w, o.Warnings)
	registry.DedupOwnerReferences(c.Request, o.Meta, false)
	code := http.StatusOK
	out, created, err := s.UpdateObject(c.Request, statusOnly, dry, func(old *registry.Object) (*registry.Object, error) {
		if uid := o.Meta.GetUID(); uid != "" && uid != old.Meta.GetUID() {
			return nil, registry.ErrUIDPrecondition(c.Res, c.Key(), c.Info.Name, string(uid), string(old.Meta.GetUID()), dry)
		}
		// The write path changes the object it is given, and may retry.
		attempt := o.DeepCopy()
		c.TrackManagedFieldsFrom(old, attempt, wo.fieldManager)
		return attempt, nil
	})
	if err != nil {
		if errors.Is(err, registry.ErrCreateInstead) {
			// As upstream's store when an update creates: the UID is still
			// a precondition, the resourceVersion is ignored.
			if uid := o.Meta.GetUID(); uid != "" {
				return registry.ErrUIDPrecondition(c.Res, c.Key(), c.Info.Name, string(uid), "", dry)
			}
			o.Meta.SetResourceVersion("")
			c.TrackManagedFields(nil, o, wo.fieldManager)
			out, err = s.CreateObject(c.Request, o, dry)
			if err != nil {
				return err
			}
			return s.writeObject(c, http.StatusCreated, out)
		}
		return err
	}
	if created {
		code = http.StatusCreated
	}
	return s.writeObject(c, code, out)
}
