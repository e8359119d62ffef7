package server

import (
	"bytes"
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
	lm, stored, items, err := s.ListServed(c.Request, opts)
	if err != nil {
		return err
	}
	if c.media.as == asPartial || c.media.as == asPartialList {
		return writePartialList(c, lm, items)
	}
	if c.media.as == "Table" {
		c.listed = stored
		t, err := s.tableFor(c, items, &lm)
		if err != nil {
			return err
		}
		return writeEncoded(c, http.StatusOK, t)
	}
	if c.media.kind == mediaProtobuf {
		return s.writeProtobufList(c, lm, stored, items)
	}
	var buf bytes.Buffer
	size := 128
	for _, it := range items {
		size += len(it) + 1
	}
	buf.Grow(size)
	writeListJSON(&buf, c.Res.APIVersion(), c.Res.ListKind, lm, items, c.Res.Typed != nil)
	writeBytes(c.w, c.r, http.StatusOK, c.media.kind, buf.Bytes())
	return nil
}
