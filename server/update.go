package server

import (
	"errors"
	"net/http"
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
	if err := checkName(c.request, o); err != nil {
		return err
	}
	dry := wo.dryRun
	addWarnings(c.w, o.warnings)
	code := http.StatusOK
	out, created, err := s.updateObject(c.request, statusOnly, dry, func(old *object) (*object, error) {
		// The write path changes the object it is given, and may retry.
		attempt := o.deepCopy()
		c.trackManagedFields(old.obj, attempt, wo.fieldManager)
		return attempt, nil
	})
	if err != nil {
		if errors.Is(err, errCreateInstead) {
			c.trackManagedFields(nil, o, wo.fieldManager)
			out, err = s.createObject(c.request, o, dry)
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
