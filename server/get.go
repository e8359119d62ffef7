package server

import (
	"net/http"
)

// get answers a single object.
func (s *Server) get(c *call) error {
	if err := s.WaitForGetRevision(c.r.Context(), c.r.URL.Query().Get("resourceVersion")); err != nil {
		return err
	}
	read, served, err := s.GetStored(c.Request)
	if err != nil {
		return err
	}
	c.read = read
	return s.writeObject(c, http.StatusOK, served)
}
