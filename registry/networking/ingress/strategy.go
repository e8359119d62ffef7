// Package ingress holds the Ingress strategy: kube-apiserver's
// pkg/registry/networking/ingress rules (pkg/apis/networking/validation on
// the v1 type; RelaxedServiceNameValidation is on in v1.37).
package ingress

import (
	"context"
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Ingress strategy.
var Strategy = ingressStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true}}

type ingressStrategy struct{ strategy.Base }

// Validate checks a new Ingress's rules, paths and backends.
func (ingressStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateIngress(obj.(*networkingv1.Ingress))
}

// ValidateUpdate checks the Ingress as on create.
func (s ingressStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}

var (
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
)

func validateIngress(ing *networkingv1.Ingress) field.ErrorList {
	spec := field.NewPath("spec")
	s := &ing.Spec
	var errs field.ErrorList
	if len(s.Rules) == 0 && s.DefaultBackend == nil {
		errs = append(errs, field.Invalid(spec, validate.InternalValue(s.Rules), "either `defaultBackend` or `rules` must be specified"))
	}
	if s.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(s.DefaultBackend, spec.Child("defaultBackend"))...)
	}
	for i, r := range s.Rules {
		rf := spec.Child("rules").Index(i)
		if r.Host != "" {
			if netutils.ParseIPSloppy(r.Host) != nil {
				errs = append(errs, field.Invalid(rf.Child("host"), r.Host, "must be a DNS name, not an IP address"))
			}
			if strings.Contains(r.Host, "*") {
				for _, msg := range validation.IsWildcardDNS1123Subdomain(r.Host) {
					errs = append(errs, field.Invalid(rf.Child("host"), r.Host, msg))
				}
			} else {
				for _, msg := range validation.IsDNS1123Subdomain(r.Host) {
					errs = append(errs, field.Invalid(rf.Child("host"), r.Host, msg))
				}
			}
		}
		if r.HTTP != nil {
			hf := rf.Child("http")
			if len(r.HTTP.Paths) == 0 {
				errs = append(errs, field.Required(hf.Child("paths"), ""))
			}
			for j := range r.HTTP.Paths {
				errs = append(errs, validateIngressPath(&r.HTTP.Paths[j], hf.Child("paths").Index(j))...)
			}
		}
	}
	for i, t := range s.TLS {
		tf := spec.Child("tls").Index(i)
		for j, h := range t.Hosts {
			check := validation.IsDNS1123Subdomain
			if strings.Contains(h, "*") {
				check = validation.IsWildcardDNS1123Subdomain
			}
			for _, msg := range check(h) {
				errs = append(errs, field.Invalid(tf.Child("hosts").Index(j), h, msg))
			}
		}
		if t.SecretName != "" {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(t.SecretName, false) {
				errs = append(errs, field.Invalid(tf.Child("secretName"), t.SecretName, msg))
			}
		}
	}
	if c := s.IngressClassName; c != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(spec.Child("ingressClassName"), *c, msg))
		}
	}
	return errs
}

func validateIngressPath(p *networkingv1.HTTPIngressPath, fld *field.Path) field.ErrorList {
	if p.PathType == nil {
		return field.ErrorList{field.Required(fld.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	switch *p.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(p.Path, "/") {
			errs = append(errs, field.Invalid(fld.Child("path"), p.Path, "must be an absolute path"))
		}
		if p.Path != "" {
			for _, seq := range invalidPathSequences {
				if strings.Contains(p.Path, seq) {
					errs = append(errs, field.Invalid(fld.Child("path"), p.Path, fmt.Sprintf("must not contain '%s'", seq)))
				}
			}
			for _, suf := range invalidPathSuffixes {
				if strings.HasSuffix(p.Path, suf) {
					errs = append(errs, field.Invalid(fld.Child("path"), p.Path, fmt.Sprintf("cannot end with '%s'", suf)))
				}
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
			errs = append(errs, field.Invalid(fld.Child("path"), p.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("pathType"), *p.PathType, []string{"Exact", "ImplementationSpecific", "Prefix"}))
	}
	return append(errs, validateIngressBackend(&p.Backend, fld.Child("backend"))...)
}

func validateIngressBackend(b *networkingv1.IngressBackend, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(fld, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		r := b.Resource
		rf := fld.Child("resource")
		if r.APIGroup != nil {
			for _, msg := range validation.IsDNS1123Subdomain(*r.APIGroup) {
				errs = append(errs, field.Invalid(rf.Child("apiGroup"), *r.APIGroup, msg))
			}
		}
		errs = append(errs, validate.RequiredPathSegment(rf.Child("kind"), r.Kind)...)
		errs = append(errs, validate.RequiredPathSegment(rf.Child("name"), r.Name)...)
	case b.Service != nil:
		sv := b.Service
		if sv.Name == "" {
			errs = append(errs, field.Required(fld.Child("service", "name"), ""))
		} else {
			for _, msg := range apimachineryvalidation.NameIsDNSLabel(sv.Name, false) {
				errs = append(errs, field.Invalid(fld.Child("service", "name"), sv.Name, msg))
			}
		}
		hasName, hasNumber := sv.Port.Name != "", sv.Port.Number != 0
		switch {
		case hasName && hasNumber:
			errs = append(errs, field.Invalid(fld, "", "cannot set both port name & port number"))
		case hasName:
			for _, msg := range validation.IsValidPortName(sv.Port.Name) {
				errs = append(errs, field.Invalid(fld.Child("service", "port", "name"), sv.Port.Name, msg))
			}
		case hasNumber:
			for _, msg := range validation.IsValidPortNum(int(sv.Port.Number)) {
				errs = append(errs, field.Invalid(fld.Child("service", "port", "number"), sv.Port.Number, msg))
			}
		default:
			errs = append(errs, field.Required(fld, "port name or number is required"))
		}
	default:
		errs = append(errs, field.Invalid(fld, "", "resource or service backend is required"))
	}
	return errs
}
