package server

import (
	"net/http"

	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/fakeplane/fakeplane/registry"
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
	// As upstream's create handler, the system fields a client sent
	// (uid, creationTimestamp, deletionTimestamp and its grace period)
	// are wiped before admission and the field manager see the object.
	rest.WipeObjectMetaSystemFields(o.Meta)
	registry.DedupOwnerReferences(c.Request, o.Meta, false)
	c.TrackManagedFields(nil, o, wo.fieldManager)
	out, err := s.CreateObject(c.Request, o, wo.dryRun)
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusCreated, out)
}
