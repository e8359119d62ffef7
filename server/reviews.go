package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/fakeplane/fakeplane/registry"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/warning"

	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/internal/validate"
)

// serveVirtual answers the resources that are computed, not stored: the
// review APIs, bindings and componentstatuses.
func (s *Server) serveVirtual(c *call) error {
	switch c.Res.Resource.Resource {
	case "bindings":
		if c.Info.Verb != "create" {
			return c.ErrMethodNotSupported()
		}
		return s.serveBindingsCollection(c)
	case "componentstatuses":
		return s.serveComponentStatuses(c)
	}
	if c.Info.Verb != "create" {
		return c.ErrMethodNotSupported()
	}
	// Upstream's create handler serves the reviews: it checks the create
	// options, decodes with their field validation and records the
	// request's managed fields before the review's storage sees it (so a
	// review answered with the request's object shows them, and so does a
	// 422 quoting its metadata).
	wo, err := parseWriteOptions(c, "")
	if err != nil {
		return err
	}
	o, err := c.decodeRequestObject(wo.fieldValidation)
	if err != nil {
		return err
	}
	addWarnings(c.w, o.Warnings)
	if err := registry.EnsureRequestNamespace(c.Request, o.Meta); err != nil {
		return err
	}
	c.TrackManagedFields(nil, o, wo.fieldManager)
	var out any
	switch obj := o.Obj.(type) {
	case *authenticationv1.SelfSubjectReview:
		// Upstream answers with a new review: the request's metadata is not
		// kept, and creationTimestamp is the time of the review.
		out = &authenticationv1.SelfSubjectReview{
			TypeMeta:   obj.TypeMeta,
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(s.now())},
			Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: userInfoOf(c.User)},
		}
	case *authenticationv1.TokenReview:
		if obj.Spec.Token == "" {
			// Upstream's TokenReview storage checks this before anything.
			return apierrors.NewBadRequest("token is required for TokenReview in authentication")
		}
		if err := s.reviewToken(c, obj); err != nil {
			return err
		}
		out = obj
	case *authorizationv1.SubjectAccessReview:
		errs := validateSARSpec(obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes, field.NewPath("spec"))
		if len(obj.Spec.User) == 0 && len(obj.Spec.Groups) == 0 {
			errs = append(errs, field.Invalid(field.NewPath("spec", "user"), obj.Spec.User, `at least one of user or group must be specified`))
		}
		errs = append(errs, validateReviewMeta(obj.ObjectMeta, false)...)
		if len(errs) > 0 {
			return reviewInvalid(errs)
		}
		obj.Status = s.reviewAccess(c, specUser(obj.Spec), obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes)
		out = obj
	case *authorizationv1.LocalSubjectAccessReview:
		if obj.Namespace == "" {
			obj.Namespace = c.Namespace
		}
		errs := validateSARSpec(obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes, field.NewPath("spec"))
		if len(obj.Spec.User) == 0 && len(obj.Spec.Groups) == 0 {
			errs = append(errs, field.Invalid(field.NewPath("spec", "user"), obj.Spec.User, `at least one of user or group must be specified`))
		}
		errs = append(errs, validateReviewMeta(obj.ObjectMeta, true)...)
		if ra := obj.Spec.ResourceAttributes; ra != nil && ra.Namespace != obj.Namespace {
			errs = append(errs, field.Invalid(field.NewPath("spec", "resourceAttributes", "namespace"), ra.Namespace, `must match metadata.namespace`))
		}
		if obj.Spec.NonResourceAttributes != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "nonResourceAttributes"), validate.InternalValue(obj.Spec.NonResourceAttributes), `disallowed on this kind of request`))
		}
		if len(errs) > 0 {
			return reviewInvalid(errs)
		}
		if obj.Namespace != c.Namespace {
			return apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", c.Namespace))
		}
		obj.Status = s.reviewAccess(c, specUser(obj.Spec), obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes)
		out = obj
	case *authorizationv1.SelfSubjectAccessReview:
		errs := validateSARSpec(obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes, field.NewPath("spec"))
		errs = append(errs, validateReviewMeta(obj.ObjectMeta, false)...)
		if len(errs) > 0 {
			return reviewInvalid(errs)
		}
		obj.Status = s.reviewAccess(c, c.User, obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes)
		out = obj
	case *authorizationv1.SelfSubjectRulesReview:
		if obj.Spec.Namespace == "" {
			return apierrors.NewBadRequest("no namespace on request")
		}
		// Upstream answers with a new review holding the status alone.
		out = &authorizationv1.SelfSubjectRulesReview{
			TypeMeta: obj.TypeMeta,
			Status:   auth.RulesFor(c.Context(), s.auth.rules, c.User, obj.Spec.Namespace),
		}
	default:
		return c.ErrMethodNotSupported()
	}
	b, err := json.Marshal(out)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	return s.writeObject(c, http.StatusCreated, b)
}

// userInfoOf converts an authenticated identity to the API's UserInfo.
func userInfoOf(u user.Info) authenticationv1.UserInfo {
	ui := authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	if extra := u.GetExtra(); len(extra) > 0 {
		ui.Extra = map[string]authenticationv1.ExtraValue{}
		for k, v := range extra {
			ui.Extra[k] = v
		}
	}
	return ui
}

// reviewToken authenticates spec.token with the server's authenticators.
func (s *Server) reviewToken(c *call, tr *authenticationv1.TokenReview) error {
	if tr.Spec.Token == "" {
		return apierrors.NewInvalid(c.Res.GVK.GroupKind(), "", field.ErrorList{field.Required(field.NewPath("spec", "token"), "")})
	}
	auds := s.auth.audience
	if len(tr.Spec.Audiences) > 0 {
		auds = tr.Spec.Audiences
	}
	req, _ := http.NewRequestWithContext(authenticator.WithAudiences(c.Context(), auds), http.MethodGet, "/", nil)
	req.Header.Set("Authorization", "Bearer "+tr.Spec.Token)
	resp, ok, err := s.auth.authn.AuthenticateRequest(req)
	tr.Status = authenticationv1.TokenReviewStatus{}
	if err != nil {
		tr.Status.Error = err.Error()
	}
	if ok && err == nil && resp.User.GetName() != user.Anonymous {
		tr.Status.Authenticated = true
		tr.Status.User = userInfoOf(resp.User)
		tr.Status.Audiences = resp.Audiences
		if len(tr.Status.Audiences) == 0 {
			tr.Status.Audiences = auds
		}
	}
	return nil
}

// specUser is the identity a SubjectAccessReview asks about.
func specUser(spec authorizationv1.SubjectAccessReviewSpec) user.Info {
	extra := map[string][]string{}
	for k, v := range spec.Extra {
		extra[k] = v
	}
	return &user.DefaultInfo{Name: spec.User, UID: spec.UID, Groups: spec.Groups, Extra: extra}
}

// validateSARSpec applies upstream's access review spec rules: exactly one
// of the resource and non-resource attributes (reported at the spec, the
// value shown in upstream's internal form), and the selectors of the
// resource attributes.
func validateSARSpec(ra *authorizationv1.ResourceAttributes, na *authorizationv1.NonResourceAttributes, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if (ra != nil) == (na != nil) {
		errs = append(errs, field.Invalid(p, validate.InternalValue(na), `exactly one of nonResourceAttributes or resourceAttributes must be specified`))
	}
	if ra == nil {
		return errs
	}
	rp := p.Child("resourceAttributes")
	if fs := ra.FieldSelector; fs != nil {
		fp := rp.Child("fieldSelector")
		errs = append(errs, selectorAttributes(fp, fs.RawSelector, len(fs.Requirements))...)
		for i, r := range fs.Requirements {
			errs = append(errs, metav1validation.ValidateFieldSelectorRequirement(r, metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}, fp.Child("requirements").Index(i))...)
		}
	}
	if ls := ra.LabelSelector; ls != nil {
		lp := rp.Child("labelSelector")
		errs = append(errs, selectorAttributes(lp, ls.RawSelector, len(ls.Requirements))...)
		for i, r := range ls.Requirements {
			errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(r, metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}, lp.Child("requirements").Index(i))...)
		}
	}
	return errs
}

// selectorAttributes is upstream's rule for a review's field or label
// selector: a raw selector or requirements, not both.
func selectorAttributes(fld *field.Path, raw string, requirements int) field.ErrorList {
	switch {
	case raw != "" && requirements > 0:
		return field.ErrorList{field.Invalid(fld.Child("rawSelector"), raw, "may not specified at the same time as requirements")}
	case raw == "" && requirements == 0:
		return field.ErrorList{field.Required(fld.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", fld))}
	}
	return nil
}

// validateReviewMeta is upstream's rule for an access review's metadata:
// empty (but for its namespace, for a local review), managed fields aside.
func validateReviewMeta(m metav1.ObjectMeta, local bool) field.ErrorList {
	c := m
	c.ManagedFields = nil
	msg := "must be empty"
	if local {
		c.Namespace = ""
		msg = "must be empty except for namespace"
	}
	if apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, c) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata"), validate.InternalValue(m), msg)}
}

// reviewInvalid is upstream's 422 for an access review: the object it
// decoded has no kind, so the error names the group alone.
func reviewInvalid(errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName}, "", errs)
}

// reviewAccess asks the authorizer about a user and attributes.
func (s *Server) reviewAccess(c *call, u user.Info, ra *authorizationv1.ResourceAttributes, na *authorizationv1.NonResourceAttributes) authorizationv1.SubjectAccessReviewStatus {
	attrs := authorizer.AttributesRecord{User: u}
	if ra != nil {
		attrs.Verb, attrs.Namespace, attrs.APIGroup, attrs.APIVersion = ra.Verb, ra.Namespace, ra.Group, ra.Version
		attrs.Resource, attrs.Subresource, attrs.Name = ra.Resource, ra.Subresource, ra.Name
		attrs.ResourceRequest = true
	} else if na != nil {
		attrs.Verb, attrs.Path = na.Verb, na.Path
	}
	decision, reason, err := s.auth.authz.Authorize(c.Context(), attrs)
	st := authorizationv1.SubjectAccessReviewStatus{
		Allowed: decision == authorizer.DecisionAllow,
		Denied:  decision == authorizer.DecisionDeny,
		Reason:  reason,
	}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

// tokenRequestKind is the kind admission sees on serviceaccounts/token.
var tokenRequestKind = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// serveTokenRequest answers serviceaccounts/{name}/token (TokenRequest).
func (s *Server) serveTokenRequest(c *call) error {
	if c.Info.Verb != "create" {
		return c.ErrMethodNotSupported()
	}
	// Upstream's create handler: the create options are checked, the body
	// decoded (and defaulted) with their field validation, and the field
	// manager records the request before TokenREST sees it.
	wo, err := parseWriteOptions(c, "")
	if err != nil {
		return err
	}
	o, err := c.decodeRequestObjectAs(registry.TokenRequests, wo.fieldValidation)
	if err != nil {
		return err
	}
	addWarnings(c.w, o.Warnings)
	gk := schema.GroupKind{Group: "authentication.k8s.io", Kind: "TokenRequest"}
	// In upstream's order: the create handler's namespace check, then
	// TokenREST's name check, its service account lookup and UID check,
	// and only then the request's validation.
	if err := registry.EnsureRequestNamespace(c.Request, o.Meta); err != nil {
		return err
	}
	c.TrackManagedFields(nil, o, wo.fieldManager)
	tr := o.Obj.(*authenticationv1.TokenRequest)
	if tr.Name != "" && tr.Name != c.Info.Name {
		return apierrors.NewInvalid(gk, c.Info.Name, field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), tr.Name, "must match the service account name if specified")})
	}
	if err := registry.CheckNameParameter(c.Info.Name); err != nil {
		return err
	}
	getter := s.ServiceAccounts()
	sa, err := getter.ServiceAccount(c.Namespace, c.Info.Name)
	if err != nil {
		return err
	}
	if tr.UID != "" && tr.UID != sa.UID {
		return apierrors.NewConflict(schema.GroupResource{Group: gk.Group, Resource: gk.Kind}, c.Info.Name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", tr.UID, sa.UID))
	}
	var errs field.ErrorList
	if *tr.Spec.ExpirationSeconds < 600 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "expirationSeconds"), *tr.Spec.ExpirationSeconds, "may not specify a duration less than 10 minutes"))
	}
	if *tr.Spec.ExpirationSeconds > 1<<32 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "expirationSeconds"), *tr.Spec.ExpirationSeconds, "may not specify a duration larger than 2^32 seconds"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(gk, "", errs)
	}
	var bound *auth.BoundObject
	if ref := tr.Spec.BoundObjectRef; ref != nil {
		bound = &auth.BoundObject{Kind: ref.Kind, Name: ref.Name, UID: ref.UID}
		var uid string
		kind := ref.Kind
		if schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).Group != "" {
			kind = "" // only the core group's kinds bind
		}
		if kind == "Pod" || kind == "Secret" || kind == "Node" {
			// The storage's answer to a get without a name, or a bad one.
			if err := registry.CheckNameParameter(ref.Name); err != nil {
				return err
			}
		}
		switch kind {
		case "Pod":
			pod, err := getter.Pod(c.Namespace, ref.Name)
			if err != nil {
				return err
			}
			uid, bound.NodeName = string(pod.UID), pod.Spec.NodeName
			if pod.Spec.NodeName != "" {
				if n, err := getter.Node(pod.Spec.NodeName); err == nil {
					bound.NodeUID = n.UID
				}
			}
		case "Secret":
			sec, err := getter.Secret(c.Namespace, ref.Name)
			if err != nil {
				return err
			}
			uid = string(sec.UID)
		case "Node":
			n, err := getter.Node(ref.Name)
			if err != nil {
				return err
			}
			uid = string(n.UID)
		default:
			return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)))
		}
		if ref.UID != "" && string(ref.UID) != uid {
			return apierrors.NewConflict(schema.GroupResource{Resource: ref.Kind}, ref.Name, fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
		}
		bound.UID = types.UID(uid)
	}
	audiences := tr.Spec.Audiences
	if len(audiences) == 0 {
		audiences = s.auth.audience
	}
	// Admission sees a CREATE of serviceaccounts/token with the
	// TokenRequest, its audiences defaulted, as upstream's TokenREST.
	tr.Spec.Audiences = audiences
	tr.Name, tr.Namespace = sa.Name, sa.Namespace
	if tr.UID == "" {
		tr.UID = sa.UID
	}
	tr.CreationTimestamp = metav1.NewTime(s.now().Truncate(time.Second))
	dry := wo.dryRun
	if err := s.AdmitCreate(c.Request, tr, tokenRequestKind, c.Info.Name, dry); err != nil {
		return err
	}
	audiences = tr.Spec.Audiences
	if tr.Spec.ExpirationSeconds == nil || *tr.Spec.ExpirationSeconds < 600 {
		return apierrors.NewInvalid(gk, "", field.ErrorList{field.Invalid(field.NewPath("spec", "expirationSeconds"), tr.Spec.ExpirationSeconds, "may not specify a duration less than 10 minutes")})
	}
	if maxSeconds := int64(s.cfg.Auth.ServiceAccountMaxTokenExpiration / time.Second); maxSeconds > 0 && *tr.Spec.ExpirationSeconds > maxSeconds {
		warning.AddWarning(c.r.Context(), "", fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", *tr.Spec.ExpirationSeconds, maxSeconds))
		tr.Spec.ExpirationSeconds = &maxSeconds
	}
	token, exp, err := s.auth.tokens.Issue(sa, audiences, *tr.Spec.ExpirationSeconds, bound)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	// The answer is the request as TokenREST leaves it: its metadata (the
	// service account's name, namespace and UID where it gave none), the
	// time of the request, its audiences defaulted, and the token.
	tr.TypeMeta = metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenRequest"}
	tr.Spec.Audiences = audiences
	tr.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(exp)}
	return writeEncoded(c, http.StatusCreated, tr)
}

// serveBindingsCollection answers POST /api/v1/namespaces/{ns}/bindings.
func (s *Server) serveBindingsCollection(c *call) error {
	return s.serveBindingAs(c, c.Res, func(o *registry.Object) string { return o.Meta.GetName() })
}

// componentStatusNames are the components kube-apiserver reports in
// componentstatuses, in the order a list usually has them (upstream's
// order is whichever health check answers first; etcd's is the slowest).
var componentStatusNames = []string{"controller-manager", "scheduler", "etcd-0"}

// componentStatus is a component's ComponentStatus: healthy, with its
// /healthz answer "ok", as kube-apiserver reports a running component.
func componentStatus(name string) corev1.ComponentStatus {
	return corev1.ComponentStatus{
		TypeMeta:   metav1.TypeMeta{Kind: "ComponentStatus", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Conditions: []corev1.ComponentCondition{{Type: corev1.ComponentHealthy, Status: corev1.ConditionTrue, Message: "ok"}},
	}
}

// serveComponentStatuses answers get and list of the deprecated
// componentstatuses as upstream's storage does: typed objects, a list
// filtered by its label and field selectors (metadata.name and
// metadata.namespace) and without paging, a NotFound naming the singular
// "componentstatus", and no watch.
func (s *Server) serveComponentStatuses(c *call) error {
	switch c.Info.Verb {
	case "get":
		if !slices.Contains(componentStatusNames, c.Info.Name) {
			return apierrors.NewNotFound(schema.GroupResource{Resource: "componentstatus"}, c.Info.Name)
		}
		cs := componentStatus(c.Info.Name)
		b, err := json.Marshal(&cs)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		return s.writeObject(c, http.StatusOK, b)
	case "list":
		opts, err := s.listOptions(c)
		if err != nil {
			return err
		}
		sel := registry.NewSelection(c.Res, opts)
		list := corev1.ComponentStatusList{TypeMeta: metav1.TypeMeta{Kind: "ComponentStatusList", APIVersion: "v1"}, Items: []corev1.ComponentStatus{}}
		var raw [][]byte
		for _, name := range componentStatusNames {
			cs := componentStatus(name)
			b, err := json.Marshal(&cs)
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			if !sel.Matches(b) {
				continue
			}
			raw = append(raw, b)
			cs.TypeMeta = metav1.TypeMeta{} // a typed list's items carry none
			list.Items = append(list.Items, cs)
		}
		switch {
		case c.media.as == "Table":
			t, err := s.tableFor(c, raw, &metav1.ListMeta{})
			if err != nil {
				return err
			}
			return writeEncoded(c, http.StatusOK, t)
		case c.media.as == asPartial || c.media.as == asPartialList:
			return writePartialList(c, metav1.ListMeta{}, raw)
		case c.media.kind == mediaProtobuf:
			if auditWantsResponse(c.r) {
				if j, err := json.Marshal(&list); err == nil {
					auditResponseJSON(c.r, j)
				}
			}
			b, err := protobufDoc("v1", "ComponentStatusList", &list)
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			writeRaw(c.w, c.r, http.StatusOK, mediaProtobuf, b)
			return nil
		}
		return writeEncoded(c, http.StatusOK, &list)
	case "watch":
		// The list route took it; upstream's storage cannot watch.
		return apierrors.NewMethodNotSupported(c.Res.GR, "watch")
	}
	return c.ErrMethodNotSupported()
}
