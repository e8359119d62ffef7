package server

import (
	"bytes"
	"encoding/json"
	"errors"
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

// deleteObject deletes one object, or marks it for deletion when finalizers
// remain. It returns the object's last state and whether it is gone.
func (s *Server) deleteObject(c *request, key, name string, opts *metav1.DeleteOptions) ([]byte, bool, error) {
	dry := len(opts.DryRun) > 0
	deleted := false
	_, cur, err := s.store.Update(c.res.bucket, key, func(cur *store.Object) (store.Write, error) {
		deleted = false
		if cur == nil {
			return store.Write{}, apierrors.NewNotFound(c.res.gr, name)
		}
		curServed, err := c.res.fromStorage(cur.Value)
		if err != nil {
			return store.Write{}, errStorageDecode(c.res, cur.Key, cur.Revision, err)
		}
		o, err := c.res.decodeStored(curServed)
		if err != nil {
			return store.Write{}, err
		}
		if p := opts.Preconditions; p != nil {
			// Upstream's storage precondition check names the kind, not the resource.
			kindGR := schema.GroupResource{Group: c.res.Group, Resource: c.res.Kind}
			if p.UID != nil && *p.UID != o.meta.GetUID() {
				return store.Write{}, apierrors.NewConflict(kindGR, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, o.meta.GetUID()))
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != o.meta.GetResourceVersion() {
				return store.Write{}, apierrors.NewConflict(kindGR, name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, o.meta.GetResourceVersion()))
			}
		}
		if fins, changed := deletionFinalizers(o.meta.GetFinalizers(), opts); changed {
			o.meta.SetFinalizers(fins)
		}
		graceful := s.markForDeletion(c, o)
		if graceful || len(o.meta.GetFinalizers()) > 0 {
			if o.meta.GetDeletionTimestamp() == nil {
				now := metav1.NewTime(s.now().Truncate(timePrecision))
				o.meta.SetDeletionTimestamp(&now)
				if c.res.Resource.Resource != "namespaces" {
					zero := int64(0)
					o.meta.SetDeletionGracePeriodSeconds(&zero)
				}
			}
			b, err := encode(o.obj)
			if err != nil {
				return store.Write{}, err
			}
			if bytes.Equal(b, curServed) {
				return store.Write{}, store.ErrUnchanged
			}
			if dry {
				return store.Write{}, &dryRunResult{data: b}
			}
			return s.storageWrite(c.res, key, o, false)
		}
		deleted = true
		if dry {
			return store.Write{}, &dryRunResult{data: curServed}
		}
		return s.storageWrite(c.res, key, o, true)
	})
	var dr *dryRunResult
	if errors.As(err, &dr) {
		return dr.data, deleted, nil
	}
	if err != nil {
		return nil, false, storeErr(err)
	}
	out, err := c.res.fromStorage(cur.Value)
	if err != nil {
		return nil, false, errStorageDecode(c.res, cur.Key, cur.Revision, err)
	}
	s.afterCommit(c, key, nil, cur.Value, deleted)
	if deleted {
		s.enc.forget(c.res.bucket, key)
	}
	return out, deleted, nil
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
