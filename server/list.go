package server

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// listOptions parses and validates list/watch query parameters as upstream does.
func (s *Server) listOptions(c *call) (*metainternalversion.ListOptions, error) {
	opts := &metainternalversion.ListOptions{}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(c.r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return s.CheckListOptions(c.Request, opts)
}

// list answers a list request.
func (s *Server) list(c *call) error {
	opts, err := s.listOptions(c)
	if err != nil {
		return err
	}
	if c.media.as == "" {
		if c.media.kind == mediaProtobuf {
			return s.writeProtobufListVisit(c, opts)
		}
		return s.writeJSONListVisit(c, opts)
	}
	lm, stored, items, err := s.ListServed(c.Request, opts)
	if err != nil {
		return err
	}
	if c.media.as == asPartial || c.media.as == asPartialList {
		return writePartialList(c, lm, items)
	}
	c.listed = stored
	t, err := s.tableFor(c, items, &lm)
	if err != nil {
		return err
	}
	return writeEncoded(c, http.StatusOK, t)
}
