package server

import (
	"bytes"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
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
	// A list whose answer is audited is made whole, to be recorded.
	if c.media.as == "" && !auditWantsResponse(c.r) {
		if c.media.kind == mediaProtobuf {
			return s.writeProtobufListVisit(c, opts)
		}
		return s.writeJSONListVisit(c, opts)
	}
	lm, stored, items, err := s.ListServed(c.Request, opts)
	if err != nil {
		return err
	}
	return s.writeListed(c, lm, stored, items)
}

// writeListed answers with a list of stored objects (stored, served as
// items) in the negotiated form: a Table, metadata, protobuf, JSON or
// YAML. A list (as=Table or metadata) and a deletecollection answer
// through it; a plain list streams its page instead (writeJSONListVisit,
// writeProtobufListVisit).
func (s *Server) writeListed(c *call, lm metav1.ListMeta, stored []store.Object, items [][]byte) error {
	switch {
	case c.media.as == "Table":
		c.listed = stored
		t, err := s.tableFor(c, items, &lm)
		if err != nil {
			return err
		}
		return writeEncoded(c, http.StatusOK, t)
	case c.media.as == asPartial || c.media.as == asPartialList:
		return writePartialList(c, lm, items)
	case c.media.kind == mediaProtobuf && c.Res.Typed != nil:
		msgs := make([][]byte, len(items))
		for i, it := range stored {
			msg, err := s.Encodings().ProtoOf(c.Res, it.Key, it.Revision, items[i])
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			msgs[i] = msg
		}
		if auditWantsResponse(c.r) {
			var buf bytes.Buffer
			writeListJSON(&buf, c.Res.APIVersion(), c.Res.ListKind, lm, items, true)
			auditResponseJSON(c.r, buf.Bytes())
		}
		b, err := registry.AppendProtobufListEnvelope(nil, c.Res.APIVersion(), c.Res.ListKind, &lm, msgs)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		writeRaw(c.w, c.r, http.StatusOK, mediaProtobuf, b)
		return nil
	}
	var body []byte
	if c.Res.CRD == "" {
		var buf bytes.Buffer
		writeListJSON(&buf, c.Res.APIVersion(), c.Res.ListKind, lm, items, c.Res.Typed != nil)
		body = buf.Bytes()
	} else {
		// A custom resource's list in its unstructured layout, as a list of
		// them is written.
		body = appendUnstructuredListHead(nil, c.Res.APIVersion())
		for i, it := range items {
			body = appendListItem(body, i, it, false)
		}
		body = appendUnstructuredListTail(body, c.Res.ListKind, &lm)
	}
	kind := c.media.kind
	if kind != mediaYAML {
		kind = mediaJSON
	}
	auditResponseJSON(c.r, body)
	writeBytes(c.w, c.r, http.StatusOK, kind, body)
	return nil
}
