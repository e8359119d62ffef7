package server

import (
	"net/http"
)

// get answers a single object.
func (s *Server) get(c *call) error {
	served, err := s.GetServed(c.Request)
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusOK, served)
}
