package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/store"
)

// deleteOptions reads DeleteOptions from the body (JSON or YAML) or the query.
func deleteOptions(c *call) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	data, err := readBody(c.r)
	if err != nil {
		return nil, err
	}
	if !isEmptyBody(data) {
		if data, err = bodyToJSON(c.r, data); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, opts); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type DeleteOptions): %v (%s)", err, summarize(data, 30)))
		}
	}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(c.r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	return opts, nil
}

// delete answers DELETE on one object.
func (s *Server) delete(c *call) error {
	opts, err := deleteOptions(c)
	if err != nil {
		return err
	}
	out, deleted, err := s.deleteObject(c.request, c.key(), c.info.Name, opts)
	if err != nil {
		return err
	}
	if deleted && !c.res.returnDeleted {
		o, err := c.res.decodeStored(out)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		st := metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   metav1.StatusSuccess,
			Details:  &metav1.StatusDetails{Name: o.meta.GetName(), Group: c.res.Group, Kind: c.res.Resource.Resource, UID: o.meta.GetUID()},
		}
		return writeEncoded(c, http.StatusOK, &st)
	}
	code := http.StatusOK
	if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents { //nolint:staticcheck // upstream keeps this for old clients
		code = http.StatusAccepted
	}
	return s.writeObject(c, code, out)
}

// deleteCollection answers DELETE on a collection: every selected object is
// deleted as by a single delete, and the answer lists them.
func (s *Server) deleteCollection(c *call) error {
	opts, err := deleteOptions(c)
	if err != nil {
		return err
	}
	lopts, err := s.listOptions(c)
	if err != nil {
		return err
	}
	sel := newSelection(c.res, lopts)
	prefix := ""
	if c.ns != "" {
		prefix = c.ns + "/"
	}
	lst, err := s.store.List(c.res.bucket, store.ListOptions{Prefix: prefix, Filter: s.filterFor(c.res, sel)})
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var items [][]byte
	for _, it := range lst.Items {
		o, err := c.res.decodeStored(it.Value)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		out, _, err := s.deleteObject(c.request, it.Key, o.meta.GetName(), opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		items = append(items, out)
	}
	var buf bytes.Buffer
	writeListJSON(&buf, c.res.apiVersion(), c.res.listKind, metav1.ListMeta{ResourceVersion: strconv.FormatInt(s.store.CurrentRevision(), 10)}, items)
	writeBytes(c.w, c.r, http.StatusOK, c.media.kind, buf.Bytes())
	return nil
}
