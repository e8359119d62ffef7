package server

import (
	"fmt"
	"github.com/fakeplane/fakeplane/internal/validate"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// PersistentVolumeClaims (pkg/apis/core/validation), Nodes and
// ResourceQuotas as upstream validates them.

// validatePVCSpec is upstream's ValidatePersistentVolumeClaimSpec.
func validatePVCSpec(s *corev1.PersistentVolumeClaimSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.AccessModes) == 0 {
		errs = append(errs, field.Required(fld.Child("accessModes"), "at least 1 access mode is required"))
	}
	if s.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
	}
	modes := []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}
	rwop, other := false, false
	for _, m := range s.AccessModes {
		known := slices.Contains(modes, string(m))
		if !known {
			errs = append(errs, field.NotSupported(fld.Child("accessModes"), m, modes))
		}
		if m == corev1.ReadWriteOncePod {
			rwop = true
		} else if known {
			other = true
		}
	}
	if rwop && other {
		errs = append(errs, field.Forbidden(fld.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	sf := fld.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := s.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, field.Required(sf, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, field.Invalid(sf, q.String(), "must be greater than zero"))
	}
	if c := s.StorageClassName; c != nil && *c != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(fld.Child("storageClassName"), *c, msg))
		}
	}
	if m := s.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, field.NotSupported(fld.Child("volumeMode"), *m, []string{"Block", "Filesystem"}))
	}
	if d := s.DataSource; d != nil {
		errs = append(errs, validateDataSource(d.Name, d.Kind, d.APIGroup, fld.Child("dataSource"))...)
	}
	if d := s.DataSourceRef; d != nil {
		errs = append(errs, validateDataSource(d.Name, d.Kind, d.APIGroup, fld.Child("dataSourceRef"))...)
		if d.Namespace != nil && *d.Namespace != "" {
			for _, msg := range apimachineryvalidation.ValidateNamespaceName(*d.Namespace, false) {
				errs = append(errs, field.Invalid(fld.Child("dataSourceRef", "namespace"), *d.Namespace, msg))
			}
		}
	}
	if d := s.DataSourceRef; d != nil && d.Namespace != nil && *d.Namespace != "" {
		if s.DataSource != nil {
			errs = append(errs, field.Invalid(fld, fld.Child("dataSource"), "may not be specified when dataSourceRef.namespace is specified"))
		}
	} else if s.DataSource != nil && d != nil {
		if !reflect.DeepEqual(s.DataSource.APIGroup, d.APIGroup) || s.DataSource.Kind != d.Kind || s.DataSource.Name != d.Name {
			errs = append(errs, field.Invalid(fld, fld.Child("dataSource"), "must match dataSourceRef"))
		}
	}
	if c := s.VolumeAttributesClassName; c != nil && *c != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(fld.Child("volumeAttributesClassName"), *c, msg))
		}
	}
	return errs
}

func validateDataSource(name, kind string, group *string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	}
	if kind == "" {
		errs = append(errs, field.Required(fld.Child("kind"), ""))
	}
	g := ""
	if group != nil {
		g = *group
	}
	if g == "" && kind != "PersistentVolumeClaim" {
		errs = append(errs, field.Invalid(fld, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
	}
	if g != "" {
		for _, msg := range validation.IsDNS1123Subdomain(g) {
			errs = append(errs, field.Invalid(fld.Child("apiGroup"), g, msg))
		}
	}
	return errs
}

// validatePVCUpdate is upstream's ValidatePersistentVolumeClaimUpdate less
// the metadata: the spec is immutable but for the volume name (once), the
// storage request (grown, of a bound claim) and the attributes class.
func validatePVCUpdate(n, p *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := validatePVCSpec(&n.Spec, field.NewPath("spec"))
	nc, pc := n.Spec.DeepCopy(), p.Spec.DeepCopy()
	if p.Spec.VolumeName == "" {
		pc.VolumeName = nc.VolumeName
	}
	if n.Status.Phase == corev1.ClaimBound {
		if nc.Resources.Requests != nil {
			nc.Resources.Requests[corev1.ResourceStorage] = p.Spec.Resources.Requests[corev1.ResourceStorage]
		}
		nc.VolumeAttributesClassName = pc.VolumeAttributesClassName
	}
	if !apiequality.Semantic.DeepEqual(*nc, *pc) {
		d := diff.Diff(goNamed(reflect.ValueOf(*pc)), goNamed(reflect.ValueOf(*nc)))
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"+d))
	}
	oldSize, newSize := p.Spec.Resources.Requests[corev1.ResourceStorage], n.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) < 0 {
		if statusSize := p.Status.Capacity[corev1.ResourceStorage]; newSize.Cmp(statusSize) <= 0 {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "resources", "requests", "storage"), "field can not be less than status.capacity"))
		}
	}
	return append(errs, validate.ImmutableField(n.Spec.VolumeMode, p.Spec.VolumeMode, field.NewPath("volumeMode"))...)
}

// validateNode is the part of upstream's ValidateNode (old nil) and
// ValidateNodeUpdate about taints, resource quantities, pod CIDRs and the
// provider ID. (Upstream reports taints under metadata.taints.)
func validateNode(n, old *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	if old == nil && len(n.Spec.Taints) > 0 {
		errs = append(errs, validateNodeTaints(n.Spec.Taints)...)
	}
	for _, l := range []struct {
		list corev1.ResourceList
		name string
	}{{n.Status.Capacity, "capacity"}, {n.Status.Allocatable, "allocatable"}} {
		for _, k := range validate.SortedKeys(resourceMap(l.list)) {
			errs = append(errs, validateQuantity(k, l.list[corev1.ResourceName(k)], field.NewPath("status", l.name, k))...)
		}
	}
	cidrs := field.NewPath("spec", "podCIDRs")
	if old == nil && len(n.Spec.PodCIDRs) > 0 {
		for i, c := range n.Spec.PodCIDRs {
			errs = append(errs, validation.IsValidCIDRForLegacyField(cidrs.Index(i), c, false, nil)...)
		}
		if len(n.Spec.PodCIDRs) > 1 {
			dual, err := netutils.IsDualStackCIDRStrings(n.Spec.PodCIDRs)
			if err != nil {
				errs = append(errs, field.InternalError(cidrs, fmt.Errorf("invalid PodCIDRs. failed to check with dual stack with error:%v", err)))
			}
			if !dual || len(n.Spec.PodCIDRs) > 2 {
				errs = append(errs, field.Invalid(cidrs, n.Spec.PodCIDRs, "may specify no more than one CIDR for each IP family"))
			}
		}
	}
	if old == nil {
		return errs
	}
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range n.Status.Addresses {
		if seen[a] {
			errs = append(errs, field.Duplicate(field.NewPath("status", "addresses").Index(i), internalValue(a)))
		}
		seen[a] = true
	}
	if len(old.Spec.PodCIDRs) > 0 {
		const msg = `node updates may not change podCIDR except from "" to valid`
		if len(old.Spec.PodCIDRs) != len(n.Spec.PodCIDRs) {
			errs = append(errs, field.Forbidden(cidrs, msg))
		} else {
			for i, c := range old.Spec.PodCIDRs {
				if c != n.Spec.PodCIDRs[i] {
					errs = append(errs, field.Forbidden(cidrs, msg))
				}
			}
		}
	}
	if o, p := old.Spec.ProviderID, n.Spec.ProviderID; o != "" && p != "" && o != p {
		errs = append(errs, field.Invalid(field.NewPath("spec", "providerID"), nil, "field cannot be modified once set"))
	} else if o != "" && p == "" {
		errs = append(errs, field.Invalid(field.NewPath("spec", "providerID"), nil, "field cannot be cleared once set"))
	}
	if len(n.Spec.Taints) > 0 {
		errs = append(errs, validateNodeTaints(n.Spec.Taints)...)
	}
	if n.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}

// validateNodeTaints is upstream's validateNodeTaints.
func validateNodeTaints(ts []corev1.Taint) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("metadata", "taints")
	seen := map[corev1.TaintEffect]map[string]bool{}
	for i, t := range ts {
		idx := fld.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, idx.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(idx.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		switch t.Effect {
		case "":
			errs = append(errs, field.Required(idx.Child("effect"), ""))
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(idx.Child("effect"), t.Effect, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
		}
		if seen[t.Effect][t.Key] {
			d := field.Duplicate(idx, internalValue(t))
			d.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, d)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	return errs
}

var standardQuotaResources = []string{"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
	"requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
	"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
	"configmaps", "services.nodeports", "services.loadbalancers"}

var quotaScopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
	corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopePriorityClass,
	corev1.ResourceQuotaScopeCrossNamespacePodAffinity, corev1.ResourceQuotaScopeVolumeAttributesClass}

// validateResourceQuota is the part of upstream's ValidateResourceQuotaSpec
// about the hard limits' names and values and the scopes' values and
// conflicts (not which scope fits which resource, nor the scope selector).
func validateResourceQuota(q *corev1.ResourceQuota) field.ErrorList {
	var errs field.ErrorList
	hard := field.NewPath("spec", "hard")
	for _, k := range validate.SortedKeys(resourceMap(q.Spec.Hard)) {
		kf := hard.Key(k)
		var nameErrs field.ErrorList
		for _, msg := range validation.IsQualifiedName(k) {
			nameErrs = append(nameErrs, field.Invalid(kf, k, msg))
		}
		if len(nameErrs) == 0 && !strings.Contains(k, "/") && !standardResourceNames.Has(k) &&
			!strings.HasPrefix(k, "hugepages-") && !strings.HasPrefix(k, "requests.hugepages-") {
			nameErrs = append(nameErrs, field.Invalid(kf, k, "must be a standard resource type or fully qualified"))
		}
		if !strings.Contains(k, "/") && !slices.Contains(standardQuotaResources, k) &&
			!strings.HasPrefix(k, "hugepages-") && !strings.HasPrefix(k, "requests.hugepages-") {
			nameErrs = append(nameErrs, field.Invalid(kf, k, "must be a standard resource for quota"))
		}
		errs = append(errs, nameErrs...)
		errs = append(errs, validateQuantity(k, q.Spec.Hard[corev1.ResourceName(k)], kf)...)
	}
	if len(q.Spec.Scopes) > 0 {
		sf := field.NewPath("spec", "scopes")
		set := map[corev1.ResourceQuotaScope]bool{}
		for _, sc := range q.Spec.Scopes {
			if !slices.Contains(quotaScopes, sc) {
				errs = append(errs, field.Invalid(sf, q.Spec.Scopes, "unsupported scope"))
			}
			set[sc] = true
		}
		if set[corev1.ResourceQuotaScopeBestEffort] && set[corev1.ResourceQuotaScopeNotBestEffort] ||
			set[corev1.ResourceQuotaScopeTerminating] && set[corev1.ResourceQuotaScopeNotTerminating] {
			errs = append(errs, field.Invalid(sf, q.Spec.Scopes, "conflicting scopes"))
		}
	}
	return errs
}
