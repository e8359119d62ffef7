package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/fakeplane/fakeplane/registry"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/ptr"
)

// deleteOptions reads DeleteOptions from the body (JSON or YAML) or the query.
func deleteOptions(c *call) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	data, err := readBody(c.r)
	if err != nil {
		return nil, err
	}
	// As upstream's delete handlers: the options come from the body when
	// there is one, else from the query (a query beside a body is ignored).
	if !registry.IsEmptyBody(data) {
		if data, err = bodyToJSON(c.r, data); err != nil {
			return nil, err
		}
		// Upstream decodes the body as whatever kind it names: DeleteOptions
		// in any version, nothing else.
		gvk, err := registry.BodyGVK(data, metav1.SchemeGroupVersion.WithKind("DeleteOptions"))
		switch {
		case err != nil:
			return nil, apierrors.NewBadRequest(err.Error())
		case gvk.Kind == "DeleteOptions":
		default:
			obj, err := metainternalversionscheme.Scheme.New(gvk)
			if err != nil {
				return nil, apierrors.NewBadRequest(runtime.NewNotRegisteredErrForKind(registry.UpstreamSchemeName, gvk).Error())
			}
			return nil, apierrors.NewBadRequest(fmt.Sprintf("converting (%s) to (v1.DeleteOptions): unknown conversion", reflect.TypeOf(obj).Elem()))
		}
		if err := json.Unmarshal(data, opts); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if auditWantsRequest(c.r) {
			// As upstream: the options decoded from the body, in its version.
			logged := *opts
			logged.TypeMeta = metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: gvk.GroupVersion().String()}
			if b, err := json.Marshal(&logged); err == nil {
				auditRequestJSON(c.r, b)
			}
		}
	} else if err := metainternalversionscheme.ParameterCodec.DecodeParameters(c.r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
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
	s.DeleteWarnings(c.Request, opts)
	if ptr.Deref(opts.IgnoreStoreReadErrorWithClusterBreakingPotential, false) {
		return s.unsafeDelete(c, opts)
	}
	out, deleted, err := s.DeleteObject(c.Request, c.Key(), c.Info.Name, opts)
	if err != nil {
		return err
	}
	if deleted && !c.Res.ReturnDeleted {
		o, err := c.Res.DecodeStored(out)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		st := metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   metav1.StatusSuccess,
			Details:  &metav1.StatusDetails{Name: o.Meta.GetName(), Group: c.Res.Group, Kind: c.Res.Resource.Resource, UID: o.Meta.GetUID()},
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
	if ptr.Deref(opts.IgnoreStoreReadErrorWithClusterBreakingPotential, false) {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", field.ErrorList{
			field.Invalid(field.NewPath("ignoreStoreReadErrorWithClusterBreakingPotential"), true, "is not allowed with DELETECOLLECTION, try again after removing the option"),
		})
	}
	lopts, err := s.listOptions(c)
	if err != nil {
		return err
	}
	s.DeleteWarnings(c.Request, opts)
	// As upstream's store: the collection is listed with the request's
	// list options (resourceVersion, limit and continue included), each
	// object listed is deleted (one gone meanwhile is skipped), and the
	// answer is the list as it was listed.
	lm, stored, items, err := s.ListServed(c.Request, lopts)
	if err != nil {
		return err
	}
	for _, it := range stored {
		name := it.Key
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if _, _, err := s.DeleteObject(c.Request, it.Key, name, opts); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return s.writeListed(c, lm, stored, items)
}

// unsafeDeleteVerb is the verb a user must also be allowed on the resource
// to delete with ignoreStoreReadErrorWithClusterBreakingPotential.
const unsafeDeleteVerb = "unsafe-delete-ignore-read-errors"

// unsafeDelete answers a delete with ignoreStoreReadErrorWithClusterBreakingPotential
// as kube-apiserver's delete handler does: the resource must have a
// corrupt object deleter, the user must be allowed unsafeDeleteVerb, and the
// object must be corrupt (registry.UnsafeDeleteObject). The answer names
// the kind, the object being unreadable.
func (s *Server) unsafeDelete(c *call, opts *metav1.DeleteOptions) error {
	audit.AddAuditAnnotation(c.Request.GoCtx, "apiserver.k8s.io/unsafe-delete-ignore-read-error", "")
	if registry.NoUnsafeDeleter(c.Res.GR) {
		return apierrors.NewInternalError(errors.New("no unsafe deleter provided, can not honor ignoreStoreReadErrorWithClusterBreakingPotential"))
	}
	gr := schema.GroupResource{Group: c.Info.APIGroup, Resource: c.Info.Resource}
	decision, reason, err := s.authorizeVerb(c, unsafeDeleteVerb)
	var status apierrors.APIStatus
	switch {
	case errors.As(err, &status):
		return err
	case err != nil:
		return apierrors.NewForbidden(gr, c.Info.Name, fmt.Errorf("error while checking permission for %q, %w", unsafeDeleteVerb, err))
	case decision != authorizer.DecisionAllow:
		return apierrors.NewForbidden(gr, c.Info.Name, fmt.Errorf("not permitted to do %q, reason: %s", unsafeDeleteVerb, reason))
	}
	if err := s.UnsafeDeleteObject(c.Request, c.Key(), c.Info.Name, len(opts.DryRun) > 0); err != nil {
		return err
	}
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Code:     http.StatusOK,
		Details:  &metav1.StatusDetails{Name: c.Info.Name, Kind: c.Res.Kind},
	}
	return writeEncoded(c, http.StatusOK, &st)
}
