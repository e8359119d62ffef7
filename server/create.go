package server

import (
	"net/http"
)

// create answers POST on a collection.
func (s *Server) create(c *call) error {
	wo, err := parseWriteOptions(c, "")
	if err != nil {
		return err
	}
	o, err := c.decodeRequestObject(wo.fieldValidation)
	if err != nil {
		return err
	}
	// The decoder's warnings go with the answer whatever it is, as upstream
	// records them while decoding.
	addWarnings(c.w, o.Warnings)
	c.TrackManagedFields(nil, o, wo.fieldManager)
	out, err := s.CreateObject(c.Request, o, wo.dryRun)
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusCreated, out)
}
