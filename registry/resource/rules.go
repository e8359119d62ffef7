package resource

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// The handwritten rules of kube-apiserver v1.37's resource.k8s.io
// strategies (pkg/apis/resource/validation), on the v1 types: the rules
// declarative validation does not answer for (required fields, names and
// references, unions, the node selection of slices). Errors upstream
// marks as covered by declarative validation are marked so here too, and
// give way to the declarative error they match (see withDeclarative).
// CEL selectors are compiled with upstream's compiler (cel.go). Not
// reimplemented: derived attributes (DRADerivedAttributes is off in
// v1.37), the admin-access namespace check, and the rules of fields behind
// other feature gates that are off in v1.37.

// validateResourceRules returns the handwritten errors of a create (old
// nil) or an update of a resource.k8s.io/v1 object, metadata excluded.
func validateResourceRules(obj, old runtime.Object) field.ErrorList {
	switch n := obj.(type) {
	case *resourcev1.DeviceClass:
		var os *resourcev1.DeviceClassSpec
		if old != nil {
			os = &old.(*resourcev1.DeviceClass).Spec
		}
		return validateDeviceClassSpec(&n.Spec, os, field.NewPath("spec"))
	case *resourcev1.ResourceClaim:
		if old != nil {
			// The spec is immutable, which declarative validation checks.
			return nil
		}
		return validateDeviceClaim(&n.Spec.Devices, field.NewPath("spec", "devices"), false)
	case *resourcev1.ResourceClaimTemplate:
		spec := field.NewPath("spec")
		errs := validateTemplateMeta(&n.Spec, spec.Child("metadata"))
		errs = append(errs, validateDeviceClaim(&n.Spec.Spec.Devices, spec.Child("spec", "devices"), false)...)
		if old != nil {
			errs = append(errs, validate.ImmutableInternal(n.Spec, old.(*resourcev1.ResourceClaimTemplate).Spec, spec)...)
		}
		return errs
	case *resourcev1.ResourceSlice:
		var os *resourcev1.ResourceSliceSpec
		if old != nil {
			os = &old.(*resourcev1.ResourceSlice).Spec
		}
		return validateResourceSliceSpec(&n.Spec, os, field.NewPath("spec"))
	case *resourcev1.DeviceTaintRule:
		var ot *resourcev1.DeviceTaint
		if old != nil {
			ot = &old.(*resourcev1.DeviceTaintRule).Spec.Taint
		}
		spec := field.NewPath("spec")
		errs := validateDeviceTaintSelector(n.Spec.DeviceSelector, spec.Child("deviceSelector"))
		return append(errs, validateDeviceTaint(n.Spec.Taint, ot, spec.Child("taint"))...)
	}
	return nil
}

// validateResourceStatusRules returns the handwritten errors of a status
// update of a resource.k8s.io/v1 object, metadata excluded.
func validateResourceStatusRules(obj, old runtime.Object) field.ErrorList {
	switch n := obj.(type) {
	case *resourcev1.ResourceClaim:
		o := old.(*resourcev1.ResourceClaim)
		return validateClaimStatus(&n.Status, &o.Status, n.DeletionTimestamp != nil, claimRequestNames(&n.Spec.Devices), field.NewPath("status"))
	case *resourcev1.DeviceTaintRule:
		conditions := field.NewPath("status", "conditions")
		errs := metav1validation.ValidateConditions(n.Status.Conditions, conditions)
		if len(n.Status.Conditions) > resourcev1.DeviceTaintRuleStatusMaxConditions {
			errs = append(errs, field.TooMany(conditions, len(n.Status.Conditions), resourcev1.DeviceTaintRuleStatusMaxConditions))
		}
		return errs
	}
	return nil
}

// listRule says which of a list's checks declarative validation covers.
type listRule struct {
	// size: the maximum length; unique: the duplicates of a set; keys:
	// the keys of a map.
	size, unique, keys bool
}

// covered marks errs covered when c is set.
func covered(errs field.ErrorList, c bool) field.ErrorList {
	if c {
		return errs.MarkCoveredByDeclarative()
	}
	return errs
}

// validateList validates a list's items after its length (limit < 0: no
// limit; too long a list is not looked into).
func validateList[T any](items []T, limit int, item func(T, *field.Path) field.ErrorList, fld *field.Path, rule listRule) field.ErrorList {
	if limit >= 0 && len(items) > limit {
		return covered(field.ErrorList{field.TooMany(fld, len(items), limit).WithOrigin("maxItems")}, rule.size)
	}
	var errs field.ErrorList
	for i, it := range items {
		errs = append(errs, item(it, fld.Index(i))...)
	}
	return errs
}

// validateSet is validateList for a list whose keys are unique.
func validateSet[T any, K comparable](items []T, limit int, item func(T, *field.Path) field.ErrorList, key func(T) K, fld *field.Path, rule listRule) field.ErrorList {
	if limit >= 0 && len(items) > limit {
		return validateList(items, limit, item, fld, rule)
	}
	errs := validateList(items, -1, item, fld, rule)
	seen := sets.New[K]()
	for i, it := range items {
		k := key(it)
		if seen.Has(k) {
			errs = append(errs, covered(field.ErrorList{field.Duplicate(fld.Index(i), k)}, rule.unique)...)
		}
		seen.Insert(k)
	}
	return errs
}

// validateResourceMap validates a map's keys (reported on the map's path)
// and values (on the key's, truncated to keyLen), in sorted key order.
func validateResourceMap[K ~string, T any](m map[K]T, limit, keyLen int, key func(K, *field.Path) field.ErrorList, item func(T, *field.Path) field.ErrorList, fld *field.Path, rule listRule) field.ErrorList {
	if limit >= 0 && len(m) > limit {
		return field.ErrorList{field.TooMany(fld, len(m), limit)}
	}
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var errs field.ErrorList
	for _, k := range keys {
		errs = append(errs, covered(key(k, fld), rule.keys)...)
		errs = append(errs, item(m[k], fld.Key(truncateKey(string(k), keyLen)))...)
	}
	return errs
}

// truncateKey shortens a long map key in its middle for a field path.
func truncateKey(s string, limit int) string {
	limit = max(limit, 16)
	if len(s) <= limit {
		return s
	}
	keep := limit - 3
	return s[:(keep+1)/2] + "..." + s[len(s)-keep/2:]
}

// dnsLabel is upstream's ValidateDNS1123Label (device, request and counter
// names).
func dnsLabel(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(fld, v, msg).WithOrigin("format=k8s-short-name"))
	}
	return errs
}

// dnsSubdomain is upstream's ValidateDNS1123Subdomain (class names).
func dnsSubdomain(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(v) {
		errs = append(errs, field.Invalid(fld, v, msg).WithOrigin("format=k8s-long-name"))
	}
	return errs
}

// driverName is upstream's ValidateCSIDriverName; declarative validation
// covers all of it where dv is set.
func driverName(name string, fld *field.Path, dv bool) field.ErrorList {
	if name == "" {
		return covered(field.ErrorList{field.Required(fld, "")}, dv)
	}
	var errs field.ErrorList
	if len(name) > resourcev1.DriverNameMaxLength {
		e := field.TooLong(fld, "", resourcev1.DriverNameMaxLength)
		if dv {
			e = e.WithOrigin("maxLength").MarkCoveredByDeclarative()
		}
		errs = append(errs, e)
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		e := field.Invalid(fld, name, msg)
		if dv {
			e = e.WithOrigin("format=k8s-long-name-caseless").MarkCoveredByDeclarative()
		}
		errs = append(errs, e)
	}
	return errs
}

// poolName validates a resource pool's name: slash-separated DNS
// subdomains.
func poolName(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	if len(name) > resourcev1.PoolNameMaxLength {
		errs = append(errs, field.TooLong(fld, "", resourcev1.PoolNameMaxLength).WithOrigin("format=k8s-resource-pool-name"))
	}
	for _, part := range strings.Split(name, "/") {
		errs = append(errs, dnsSubdomain(part, fld).WithOrigin("format=k8s-resource-pool-name")...)
	}
	return errs
}

// requestNames are a claim's request names, each with its subrequests'
// (nil for a request without).
type requestNames map[string]sets.Set[string]

// has reports whether ref names a request, or a request's subrequest
// ("request/subrequest").
func (r requestNames) has(ref string) bool {
	parts := strings.Split(ref, "/")
	if len(parts) > 2 {
		return false
	}
	subs, ok := r[parts[0]]
	if !ok {
		return false
	}
	return len(parts) == 1 || subs.Has(parts[1])
}

func claimRequestNames(c *resourcev1.DeviceClaim) requestNames {
	names := requestNames{}
	for _, r := range c.Requests {
		if len(r.FirstAvailable) == 0 {
			names[r.Name] = nil
			continue
		}
		subs := sets.New[string]()
		for _, s := range r.FirstAvailable {
			subs.Insert(s.Name)
		}
		names[r.Name] = subs
	}
	return names
}

const requestRefMsg = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"

func validateRequestRef(ref string, fld *field.Path, names requestNames) field.ErrorList {
	parts := strings.Split(ref, "/")
	if len(parts) > 2 {
		return field.ErrorList{field.Invalid(fld, ref, requestRefMsg)}
	}
	var errs field.ErrorList
	for _, p := range parts {
		errs = append(errs, dnsLabel(p, fld)...)
	}
	if !names.has(ref) {
		errs = append(errs, field.Invalid(fld, ref, requestRefMsg))
	}
	return errs
}

// validateDeviceClaim validates a claim's (or a claim template's) device
// requests, constraints and configuration.
func validateDeviceClaim(c *resourcev1.DeviceClaim, fld *field.Path, stored bool) field.ErrorList {
	names := claimRequestNames(c)
	errs := validateSet(c.Requests, resourcev1.DeviceRequestsMaxSize, validateDeviceRequest,
		func(r resourcev1.DeviceRequest) string { return r.Name }, fld.Child("requests"), listRule{size: true, unique: true})
	errs = append(errs, validateList(c.Constraints, resourcev1.DeviceConstraintsMaxSize, func(ct resourcev1.DeviceConstraint, fld *field.Path) field.ErrorList {
		errs := validateSet(ct.Requests, resourcev1.DeviceRequestsMaxSize, func(ref string, fld *field.Path) field.ErrorList {
			return validateRequestRef(ref, fld, names)
		}, func(s string) string { return s }, fld.Child("requests"), listRule{size: true, unique: true})
		if ct.MatchAttribute == nil && ct.DistinctAttribute == nil {
			// Upstream's message with DRAConsumableCapacity, on in v1.37.
			errs = append(errs, field.Required(fld, `exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set`))
		}
		return errs
	}, fld.Child("constraints"), listRule{size: true})...)
	errs = append(errs, validateList(c.Config, resourcev1.DeviceConfigMaxSize, func(cfg resourcev1.DeviceClaimConfiguration, fld *field.Path) field.ErrorList {
		errs := validateSet(cfg.Requests, resourcev1.DeviceRequestsMaxSize, func(ref string, fld *field.Path) field.ErrorList {
			return validateRequestRef(ref, fld, names)
		}, func(s string) string { return s }, fld.Child("requests"), listRule{size: true, unique: true})
		return append(errs, validateDeviceConfig(cfg.DeviceConfiguration, fld, stored)...)
	}, fld.Child("config"), listRule{size: true})...)
	return errs
}

func validateDeviceRequest(r resourcev1.DeviceRequest, fld *field.Path) field.ErrorList {
	errs := dnsLabel(r.Name, fld.Child("name"))
	switch first, exactly := len(r.FirstAvailable) > 0, r.Exactly != nil; {
	case !first && !exactly:
		errs = append(errs, field.Required(fld, "exactly one of `exactly` or `firstAvailable` is required"))
	case first && exactly:
		errs = append(errs, field.Invalid(fld, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
	case first:
		errs = append(errs, validateSet(r.FirstAvailable, resourcev1.FirstAvailableDeviceRequestMaxSize, func(s resourcev1.DeviceSubRequest, fld *field.Path) field.ErrorList {
			errs := dnsLabel(s.Name, fld.Child("name"))
			errs = append(errs, covered(deviceClassName(s.DeviceClassName, fld.Child("deviceClassName")), true)...)
			return append(errs, validateRequestDetails(s.Selectors, s.AllocationMode, s.Count, s.Tolerations, fld)...)
		}, func(s resourcev1.DeviceSubRequest) string { return s.Name }, fld.Child("firstAvailable"), listRule{size: true, unique: true})...)
	default:
		e := fld.Child("exactly")
		errs = append(errs, deviceClassName(r.Exactly.DeviceClassName, e.Child("deviceClassName"))...)
		errs = append(errs, validateRequestDetails(r.Exactly.Selectors, r.Exactly.AllocationMode, r.Exactly.Count, r.Exactly.Tolerations, e)...)
	}
	return errs
}

func deviceClassName(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	return dnsSubdomain(name, fld)
}

// validateRequestDetails validates what exact requests and subrequests
// have in common: selectors, the allocation mode and count, tolerations.
func validateRequestDetails(selectors []resourcev1.DeviceSelector, mode resourcev1.DeviceAllocationMode, count int64, tolerations []resourcev1.DeviceToleration, fld *field.Path) field.ErrorList {
	errs := validateSelectors(selectors, fld.Child("selectors"), false)
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		if count != 0 {
			errs = append(errs, field.Invalid(fld.Child("count"), count, fmt.Sprintf("must not be specified when allocationMode is '%s'", mode)))
		}
	case resourcev1.DeviceAllocationModeExactCount:
		if count <= 0 {
			errs = append(errs, field.Invalid(fld.Child("count"), count, "must be greater than zero"))
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("allocationMode"), mode, []resourcev1.DeviceAllocationMode{resourcev1.DeviceAllocationModeAll, resourcev1.DeviceAllocationModeExactCount}).MarkCoveredByDeclarative())
	}
	for i, t := range tolerations {
		errs = append(errs, validateDeviceToleration(t, fld.Child("tolerations").Index(i))...)
	}
	return errs
}

// validateSelectors checks that each selector has a valid CEL expression
// (see validateCELSelector; stored ones are not checked again).
func validateSelectors(selectors []resourcev1.DeviceSelector, fld *field.Path, stored bool) field.ErrorList {
	return validateList(selectors, resourcev1.DeviceSelectorsMaxSize, func(s resourcev1.DeviceSelector, fld *field.Path) field.ErrorList {
		if s.CEL == nil {
			return field.ErrorList{field.Required(fld.Child("cel"), "")}
		}
		return validateCELSelector(s.CEL.Expression, fld.Child("cel", "expression"), stored)
	}, fld, listRule{size: true})
}

func validateDeviceConfig(cfg resourcev1.DeviceConfiguration, fld *field.Path, stored bool) field.ErrorList {
	if cfg.Opaque == nil {
		return field.ErrorList{field.Required(fld.Child("opaque"), "")}
	}
	o := fld.Child("opaque")
	errs := driverName(cfg.Opaque.Driver, o.Child("driver"), true)
	return append(errs, validateRawObject(cfg.Opaque.Parameters, o.Child("parameters"), stored, resourcev1.OpaqueParametersMaxLength)...)
}

// validateRawObject checks that raw data is a JSON object of at most limit
// bytes (stored data may be longer).
func validateRawObject(raw runtime.RawExtension, fld *field.Path, stored bool, limit int) field.ErrorList {
	var v any
	switch {
	case len(raw.Raw) == 0:
		return field.ErrorList{field.Required(fld, "")}
	case !stored && len(raw.Raw) > limit:
		return field.ErrorList{field.TooLong(fld, "", limit)}
	}
	if err := json.Unmarshal(raw.Raw, &v); err != nil {
		return field.ErrorList{field.Invalid(fld, "<value omitted>", fmt.Sprintf("error parsing data as JSON: %v", err.Error()))}
	}
	switch v.(type) {
	case nil:
		return field.ErrorList{field.Required(fld, "")}
	case map[string]any:
		return nil
	}
	return field.ErrorList{field.Invalid(fld, "<value omitted>", "must be a valid JSON object")}
}

// validateDeviceClassSpec validates a class's selectors and configuration
// (unchanged ones count as stored).
func validateDeviceClassSpec(s, old *resourcev1.DeviceClassSpec, fld *field.Path) field.ErrorList {
	stored := old != nil && apiequality.Semantic.DeepEqual(s.Selectors, old.Selectors)
	errs := validateSelectors(s.Selectors, fld.Child("selectors"), stored)
	stored = old != nil && apiequality.Semantic.DeepEqual(s.Config, old.Config)
	return append(errs, validateList(s.Config, resourcev1.DeviceConfigMaxSize, func(c resourcev1.DeviceClassConfiguration, fld *field.Path) field.ErrorList {
		return validateDeviceConfig(c.DeviceConfiguration, fld, stored)
	}, fld.Child("config"), listRule{size: true})...)
}

// validateTemplateMeta is upstream's ValidateTemplateObjectMeta for a
// claim template's metadata: labels and annotations, nothing else.
func validateTemplateMeta(s *resourcev1.ResourceClaimTemplateSpec, fld *field.Path) field.ErrorList {
	errs := apimachineryvalidation.ValidateAnnotations(s.Annotations, fld.Child("annotations"))
	errs = append(errs, metav1validation.ValidateLabels(s.Labels, fld.Child("labels"))...)
	// Nothing else may be set: each other field of ObjectMeta that is,
	// in declaration order, is Forbidden under its Go name's lower-case
	// first letter.
	v := reflect.ValueOf(s.ObjectMeta)
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.Name == "Labels" || f.Name == "Annotations" || v.Field(i).IsZero() {
			continue
		}
		errs = append(errs, field.Forbidden(fld.Child(strings.ToLower(f.Name[:1])+f.Name[1:]), "cannot be set"))
	}
	return errs
}

// semverPattern is a semantic version as semver.org 2.0.0 defines it.
var semverPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

// validateResourceSliceSpec validates a slice's driver, pool, node
// selection and devices (old: the stored spec on update).
func validateResourceSliceSpec(s, old *resourcev1.ResourceSliceSpec, fld *field.Path) field.ErrorList {
	errs := driverName(s.Driver, fld.Child("driver"), false)
	pool := fld.Child("pool")
	errs = append(errs, poolName(s.Pool.Name, pool.Child("name"))...)
	if s.Pool.ResourceSliceCount <= 0 {
		errs = append(errs, field.Invalid(pool.Child("resourceSliceCount"), s.Pool.ResourceSliceCount, "must be greater than zero"))
	}
	if s.Pool.Generation < 0 {
		errs = append(errs, field.Invalid(pool.Child("generation"), s.Pool.Generation, "must be greater than or equal to zero"))
	}
	if old != nil {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.Pool.Name, old.Pool.Name, pool.Child("name"))...)
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.Driver, old.Driver, fld.Child("driver"))...)
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.NodeName, old.NodeName, fld.Child("nodeName"))...)
	}
	var set []string
	if s.NodeName != nil {
		if *s.NodeName != "" {
			set = append(set, "`nodeName`")
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*s.NodeName, false) {
				errs = append(errs, field.Invalid(fld.Child("nodeName"), *s.NodeName, msg))
			}
		} else {
			errs = append(errs, field.Invalid(fld.Child("nodeName"), *s.NodeName, "must be either unset or set to a non-empty string"))
		}
	}
	if s.NodeSelector != nil {
		set = append(set, "`nodeSelector`")
		errs = append(errs, validate.NodeSelector(s.NodeSelector, fld.Child("nodeSelector"))...)
		if len(s.NodeSelector.NodeSelectorTerms) != 1 {
			errs = append(errs, field.Invalid(fld.Child("nodeSelector", "nodeSelectorTerms"), validate.InternalValue(s.NodeSelector.NodeSelectorTerms), "must have exactly one node selector term"))
		}
	}
	if s.AllNodes != nil {
		if *s.AllNodes {
			set = append(set, "`allNodes`")
		} else {
			errs = append(errs, field.Invalid(fld.Child("allNodes"), *s.AllNodes, "must be either unset or set to true"))
		}
	}
	if s.PerDeviceNodeSelection != nil {
		if *s.PerDeviceNodeSelection {
			set = append(set, "`perDeviceNodeSelection`")
		} else {
			errs = append(errs, field.Invalid(fld.Child("perDeviceNodeSelection"), *s.PerDeviceNodeSelection, "must be either unset or set to true"))
		}
	}
	switch len(set) {
	case 0:
		errs = append(errs, field.Required(fld, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"))
	case 1:
	default:
		errs = append(errs, field.Invalid(fld, fmt.Sprintf("{%s}", strings.Join(set, ", ")), "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"))
	}
	if s.SharedCounters != nil && s.Devices != nil {
		errs = append(errs, field.Invalid(fld, "", "only one of `sharedCounters` or `devices` is allowed"))
	}
	maxDevices := resourcev1.ResourceSliceMaxDevices
	for _, d := range s.Devices {
		if len(d.Taints) > 0 || len(d.ConsumesCounters) > 0 || listAttributes(d) {
			maxDevices = resourcev1.ResourceSliceMaxDevicesWithAdvancedFeatures
		}
	}
	errs = append(errs, validateSet(s.Devices, maxDevices, func(d resourcev1.Device, fld *field.Path) field.ErrorList {
		var od *resourcev1.Device
		if old != nil {
			for i := range old.Devices {
				if old.Devices[i].Name == d.Name {
					od = &old.Devices[i]
					break
				}
			}
		}
		return validateDevice(d, od, fld, s.PerDeviceNodeSelection)
	}, func(d resourcev1.Device) string { return d.Name }, fld.Child("devices"), listRule{})...)
	errs = append(errs, validateSet(s.SharedCounters, resourcev1.ResourceSliceMaxCounterSets, func(cs resourcev1.CounterSet, fld *field.Path) field.ErrorList {
		// The name and the counters' names are checked declaratively.
		return validateResourceMap(cs.Counters, resourcev1.ResourceSliceMaxCountersPerCounterSet, validation.DNS1123LabelMaxLength,
			func(string, *field.Path) field.ErrorList { return nil }, func(resourcev1.Counter, *field.Path) field.ErrorList { return nil },
			fld.Child("counters"), listRule{keys: true})
	}, func(cs resourcev1.CounterSet) string { return cs.Name }, fld.Child("sharedCounters"), listRule{size: true, unique: true})...)
	return errs
}

func listAttributes(d resourcev1.Device) bool {
	for _, a := range d.Attributes {
		if a.BoolValues != nil || a.IntValues != nil || a.StringValues != nil || a.VersionValues != nil {
			return true
		}
	}
	return false
}

func validateDevice(d resourcev1.Device, old *resourcev1.Device, fld *field.Path, perDevice *bool) field.ErrorList {
	errs := dnsLabel(d.Name, fld.Child("name"))
	if n := len(d.Attributes) + len(d.Capacity); n > resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
		errs = append(errs, field.Invalid(fld, n, fmt.Sprintf("the total number of attributes and capacities must not exceed %d", resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice)))
	}
	values := 0
	for _, a := range d.Attributes {
		if n := len(a.BoolValues) + len(a.IntValues) + len(a.StringValues) + len(a.VersionValues); n > 0 {
			values += n
		} else {
			values++
		}
	}
	if values > resourcev1.ResourceSliceMaxAttributeValuesPerDevice {
		errs = append(errs, field.Invalid(fld, values, fmt.Sprintf("the total number of attribute values must not exceed %d", resourcev1.ResourceSliceMaxAttributeValuesPerDevice)))
	}
	keyLen := resourcev1.DeviceMaxDomainLength + 1 + resourcev1.DeviceMaxIDLength
	errs = append(errs, validateResourceMap(d.Attributes, -1, keyLen, qualifiedName, validateDeviceAttribute, fld.Child("attributes"), listRule{})...)
	if old == nil || !apiequality.Semantic.DeepEqual(old.Capacity, d.Capacity) {
		multi := d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
		errs = append(errs, validateResourceMap(d.Capacity, -1, keyLen, qualifiedName, func(c resourcev1.DeviceCapacity, fld *field.Path) field.ErrorList {
			return validateRequestPolicy(c, multi, fld.Child("requestPolicy"))
		}, fld.Child("capacity"), listRule{})...)
	}
	if old == nil || !apiequality.Semantic.DeepEqual(old.Taints, d.Taints) {
		errs = append(errs, validateList(d.Taints, resourcev1.DeviceTaintsMaxLength, func(t resourcev1.DeviceTaint, fld *field.Path) field.ErrorList {
			return validateDeviceTaint(t, nil, fld)
		}, fld.Child("taints"), listRule{})...)
	}
	errs = append(errs, validateSet(d.ConsumesCounters, resourcev1.ResourceSliceMaxDeviceCounterConsumptionsPerDevice, func(c resourcev1.DeviceCounterConsumption, fld *field.Path) field.ErrorList {
		// The counter set's name and the counters' names are checked
		// declaratively.
		return validateResourceMap(c.Counters, resourcev1.ResourceSliceMaxCountersPerDeviceCounterConsumption, validation.DNS1123LabelMaxLength,
			func(string, *field.Path) field.ErrorList { return nil }, func(resourcev1.Counter, *field.Path) field.ErrorList { return nil },
			fld.Child("counters"), listRule{keys: true})
	}, func(c resourcev1.DeviceCounterConsumption) string { return c.CounterSet }, fld.Child("consumesCounters"), listRule{size: true, unique: true})...)
	if perDevice != nil && *perDevice {
		var set []string
		if d.NodeName != nil {
			if *d.NodeName != "" {
				set = append(set, "`nodeName`")
				for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*d.NodeName, false) {
					errs = append(errs, field.Invalid(fld.Child("nodeName"), *d.NodeName, msg))
				}
			} else {
				errs = append(errs, field.Invalid(fld.Child("nodeName"), *d.NodeName, "must not be empty"))
			}
		}
		if d.NodeSelector != nil {
			set = append(set, "`nodeSelector`")
			errs = append(errs, validate.NodeSelector(d.NodeSelector, fld.Child("nodeSelector"))...)
		}
		if d.AllNodes != nil {
			if *d.AllNodes {
				set = append(set, "`allNodes`")
			} else {
				errs = append(errs, field.Invalid(fld.Child("allNodes"), *d.AllNodes, "must be either unset or set to true"))
			}
		}
		const msg = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec"
		switch len(set) {
		case 0:
			errs = append(errs, field.Required(fld, msg))
		case 1:
		default:
			errs = append(errs, field.Invalid(fld, fmt.Sprintf("{%s}", strings.Join(set, ", ")), msg))
		}
	} else if d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil {
		errs = append(errs, field.Invalid(fld, nil, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
	}
	return append(errs, validateBindingConditions(d.BindingConditions, d.BindingFailureConditions, fld)...)
}

// qualifiedName validates an attribute's or capacity's name: a C
// identifier, optionally behind a driver-name domain and a slash.
func qualifiedName(name resourcev1.QualifiedName, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	parts := strings.Split(string(name), "/")
	switch len(parts) {
	case 1:
		errs = append(errs, cIdentifier(parts[0], fld)...)
	case 2:
		if parts[0] == "" {
			errs = append(errs, field.Invalid(fld, "", "the domain must not be empty"))
		} else {
			errs = append(errs, driverName(parts[0], fld, false)...)
		}
		if parts[1] == "" {
			errs = append(errs, field.Invalid(fld, "", "the name must not be empty"))
		} else {
			errs = append(errs, cIdentifier(parts[1], fld)...)
		}
	}
	return errs
}

func cIdentifier(id string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(id) > resourcev1.DeviceMaxIDLength {
		errs = append(errs, field.TooLong(fld, "", resourcev1.DeviceMaxIDLength))
	}
	for _, msg := range content.IsCIdentifier(id) {
		errs = append(errs, field.Invalid(fld, id, msg))
	}
	return errs
}

func validateDeviceAttribute(a resourcev1.DeviceAttribute, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	fields := 0
	str := func(v string, fld *field.Path) field.ErrorList {
		if len(v) > resourcev1.DeviceAttributeMaxValueLength {
			return field.ErrorList{field.TooLong(fld, "", resourcev1.DeviceAttributeMaxValueLength)}
		}
		return nil
	}
	version := func(v string, fld *field.Path) field.ErrorList {
		var errs field.ErrorList
		if !semverPattern.MatchString(v) {
			errs = append(errs, field.Invalid(fld, v, "must be a string compatible with semver.org spec 2.0.0"))
		}
		return append(errs, str(v, fld)...)
	}
	if a.BoolValue != nil {
		fields++
	}
	if a.IntValue != nil {
		fields++
	}
	if a.StringValue != nil {
		fields++
		errs = append(errs, str(*a.StringValue, fld.Child("string"))...)
	}
	if a.VersionValue != nil {
		fields++
		errs = append(errs, version(*a.VersionValue, fld.Child("version"))...)
	}
	if a.BoolValues != nil {
		fields++
		if len(a.BoolValues) == 0 {
			errs = append(errs, field.Invalid(fld.Child("bools"), a.BoolValues, "must not be empty if specified"))
		}
	}
	if a.IntValues != nil {
		fields++
		if len(a.IntValues) == 0 {
			errs = append(errs, field.Invalid(fld.Child("ints"), a.IntValues, "must not be empty if specified"))
		}
	}
	if a.StringValues != nil {
		fields++
		if len(a.StringValues) == 0 {
			errs = append(errs, field.Invalid(fld.Child("strings"), a.StringValues, "must not be empty if specified"))
		}
		for i, v := range a.StringValues {
			errs = append(errs, str(v, fld.Child("strings").Index(i)).WithOrigin("maxBytes").MarkCoveredByDeclarative()...)
		}
	}
	if a.VersionValues != nil {
		fields++
		if len(a.VersionValues) == 0 {
			errs = append(errs, field.Invalid(fld.Child("versions"), a.VersionValues, "must not be empty if specified"))
		}
		for i, v := range a.VersionValues {
			errs = append(errs, version(v, fld.Child("versions").Index(i))...)
		}
	}
	switch fields {
	case 0:
		errs = append(errs, field.Invalid(fld, "", "exactly one value must be specified").WithOrigin("union").MarkCoveredByDeclarative())
	case 1:
	default:
		errs = append(errs, field.Invalid(fld, a, "exactly one value must be specified").WithOrigin("union").MarkCoveredByDeclarative())
	}
	return errs
}

func validateBindingConditions(conditions, failures []string, fld *field.Path) field.ErrorList {
	label := func(s string, fld *field.Path) field.ErrorList { return metav1validation.ValidateLabelName(s, fld) }
	errs := validateList(conditions, resourcev1.BindingConditionsMaxSize, label, fld.Child("bindingConditions"), listRule{size: true})
	errs = append(errs, validateList(failures, resourcev1.BindingFailureConditionsMaxSize, label, fld.Child("bindingFailureConditions"), listRule{size: true})...)
	seen := sets.New[string]()
	for i, c := range conditions {
		if seen.Has(c) {
			errs = append(errs, field.Duplicate(fld.Child("bindingConditions").Index(i), c))
		}
		seen.Insert(c)
	}
	conds, seenFailures := sets.New(conditions...), sets.New[string]()
	for i, c := range failures {
		if seenFailures.Has(c) {
			errs = append(errs, field.Duplicate(fld.Child("bindingFailureConditions").Index(i), c))
		}
		seenFailures.Insert(c)
		if conds.Has(c) {
			errs = append(errs, field.Invalid(fld.Child("bindingFailureConditions").Index(i), c, "bindingFailureConditions must not overlap with bindingConditions"))
		}
	}
	if len(conditions) == 0 && len(failures) > 0 {
		errs = append(errs, field.Invalid(fld.Child("bindingConditions"), conditions, "bindingConditions are required to use bindingFailureConditions"))
	}
	if len(failures) == 0 && len(conditions) > 0 {
		errs = append(errs, field.Invalid(fld.Child("bindingFailureConditions"), failures, "bindingFailureConditions are required to use bindingConditions"))
	}
	return errs
}

// deviceTaintEffects are the effects of device taints, sorted.
func deviceTaintEffects() []resourcev1.DeviceTaintEffect {
	return []resourcev1.DeviceTaintEffect{resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNone}
}

func validateDeviceTaint(t resourcev1.DeviceTaint, old *resourcev1.DeviceTaint, fld *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabelName(t.Key, fld.Child("key"))
	if t.Value != "" {
		errs = append(errs, labelValue(t.Value, fld.Child("value"))...)
	}
	if old == nil || old.Effect != t.Effect {
		switch {
		case t.Effect == "":
			errs = append(errs, field.Required(fld.Child("effect"), "").MarkCoveredByDeclarative())
		case !slices.Contains(deviceTaintEffects(), t.Effect):
			errs = append(errs, field.NotSupported(fld.Child("effect"), t.Effect, deviceTaintEffects()).MarkCoveredByDeclarative())
		}
	}
	return errs
}

func validateDeviceToleration(t resourcev1.DeviceToleration, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Key != "" {
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, fld.Child("key")).MarkCoveredByDeclarative()...)
	}
	switch t.Operator {
	case resourcev1.DeviceTolerationOpExists:
		if t.Value != "" {
			errs = append(errs, field.Invalid(fld.Child("value"), t.Value, "must be empty for operator `Exists`"))
		}
	case resourcev1.DeviceTolerationOpEqual:
		errs = append(errs, labelValue(t.Value, fld.Child("value"))...)
	case "":
		errs = append(errs, field.Required(fld.Child("operator"), "").MarkCoveredByDeclarative())
	default:
		errs = append(errs, field.NotSupported(fld.Child("operator"), t.Operator, []resourcev1.DeviceTolerationOperator{resourcev1.DeviceTolerationOpEqual, resourcev1.DeviceTolerationOpExists}).MarkCoveredByDeclarative())
	}
	if t.Effect != "" && !slices.Contains(deviceTaintEffects(), t.Effect) {
		errs = append(errs, field.NotSupported(fld.Child("effect"), t.Effect, deviceTaintEffects()).MarkCoveredByDeclarative())
	}
	return errs
}

func labelValue(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidLabelValue(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

func validateDeviceTaintSelector(s *resourcev1.DeviceTaintSelector, fld *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Driver != nil {
		errs = append(errs, driverName(*s.Driver, fld.Child("driver"), false)...)
	}
	if s.Pool != nil {
		errs = append(errs, poolName(*s.Pool, fld.Child("pool"))...)
	}
	if s.Device != nil {
		errs = append(errs, dnsLabel(*s.Device, fld.Child("device"))...)
	}
	return errs
}

// validateClaimStatus validates a claim's status update: its consumers,
// its allocation (which may be set once) and the invariants between them.
func validateClaimStatus(s, old *resourcev1.ResourceClaimStatus, deleted bool, names requestNames, fld *field.Path) field.ErrorList {
	errs := validateSet(s.ReservedFor, resourcev1.ResourceClaimReservedForMaxSize, func(r resourcev1.ResourceClaimConsumerReference, fld *field.Path) field.ErrorList {
		var errs field.ErrorList
		if r.Resource == "" {
			errs = append(errs, field.Required(fld.Child("resource"), ""))
		}
		if r.Name == "" {
			errs = append(errs, field.Required(fld.Child("name"), ""))
		}
		if r.UID == "" {
			errs = append(errs, field.Required(fld.Child("uid"), ""))
		}
		return errs
	}, func(r resourcev1.ResourceClaimConsumerReference) string { return string(r.UID) }, fld.Child("reservedFor"), listRule{size: true, unique: true})
	allocated := sets.New[allocatedDevice]()
	if s.Allocation != nil {
		for _, r := range s.Allocation.Devices.Results {
			allocated.Insert(allocatedDevice{Driver: r.Driver, Pool: r.Pool, Device: r.Device, ShareID: string(ptrValue(r.ShareID))})
		}
	}
	errs = append(errs, validateSet(s.Devices, -1, func(d resourcev1.AllocatedDeviceStatus, fld *field.Path) field.ErrorList {
		return validateDeviceStatus(d, allocated, fld)
	}, func(d resourcev1.AllocatedDeviceStatus) allocatedDevice {
		return allocatedDevice{Driver: d.Driver, Pool: d.Pool, Device: d.Device, ShareID: ptrValue(d.ShareID)}
	}, fld.Child("devices"), listRule{unique: true})...)
	if len(s.ReservedFor) > 0 {
		if s.Allocation == nil {
			errs = append(errs, field.Forbidden(fld.Child("reservedFor"), "may not be specified when `allocated` is not set"))
		} else if deleted {
			before := sets.New(old.ReservedFor...)
			for _, r := range s.ReservedFor {
				if !before.Has(r) {
					errs = append(errs, field.Forbidden(fld.Child("reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"))
					break
				}
			}
		}
	}
	if old.Allocation != nil && s.Allocation != nil {
		// Immutable once set, which declarative validation checks.
		return errs
	}
	if s.Allocation != nil {
		a := fld.Child("allocation")
		devices := a.Child("devices")
		errs = append(errs, validateList(s.Allocation.Devices.Results, resourcev1.AllocationResultsMaxSize, func(r resourcev1.DeviceRequestAllocationResult, fld *field.Path) field.ErrorList {
			errs := validateRequestRef(r.Request, fld.Child("request"), names)
			errs = append(errs, driverName(r.Driver, fld.Child("driver"), true)...)
			errs = append(errs, poolName(r.Pool, fld.Child("pool")).MarkCoveredByDeclarative()...)
			errs = append(errs, dnsLabel(r.Device, fld.Child("device"))...)
			errs = append(errs, validateBindingConditions(r.BindingConditions, r.BindingFailureConditions, fld)...)
			for i, t := range r.Tolerations {
				errs = append(errs, validateDeviceToleration(t, fld.Child("tolerations").Index(i))...)
			}
			return errs
		}, devices.Child("results"), listRule{size: true})...)
		errs = append(errs, validateList(s.Allocation.Devices.Config, 2*resourcev1.DeviceConfigMaxSize, func(c resourcev1.DeviceAllocationConfiguration, fld *field.Path) field.ErrorList {
			// The source is checked declaratively.
			errs := validateSet(c.Requests, resourcev1.DeviceRequestsMaxSize, func(ref string, fld *field.Path) field.ErrorList {
				return validateRequestRef(ref, fld, names)
			}, func(s string) string { return s }, fld.Child("requests"), listRule{size: true, unique: true})
			return append(errs, validateDeviceConfig(c.DeviceConfiguration, fld, false)...)
		}, devices.Child("config"), listRule{size: true})...)
		if s.Allocation.NodeSelector != nil {
			errs = append(errs, validate.NodeSelector(s.Allocation.NodeSelector, a.Child("nodeSelector"))...)
		}
	}
	return errs
}

// allocatedDevice names an allocated device (and its share), as upstream's
// messages show it.
type allocatedDevice struct {
	Driver, Pool, Device, ShareID string
}

func ptrValue[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// validateDeviceStatus validates what a driver reports about a device
// allocated to a claim.
func validateDeviceStatus(d resourcev1.AllocatedDeviceStatus, allocated sets.Set[allocatedDevice], fld *field.Path) field.ErrorList {
	errs := driverName(d.Driver, fld.Child("driver"), false)
	errs = append(errs, poolName(d.Pool, fld.Child("pool"))...)
	errs = append(errs, dnsLabel(d.Device, fld.Child("device"))...)
	// The share's ID is checked declaratively.
	if id := (allocatedDevice{Driver: d.Driver, Pool: d.Pool, Device: d.Device, ShareID: ptrValue(d.ShareID)}); !allocated.Has(id) {
		errs = append(errs, field.Invalid(fld, id, "must be an allocated device in the claim"))
	}
	conditions := fld.Child("conditions")
	if len(d.Conditions) > resourcev1.AllocatedDeviceStatusMaxConditions {
		errs = append(errs, field.TooMany(conditions, len(d.Conditions), resourcev1.AllocatedDeviceStatusMaxConditions))
	}
	errs = append(errs, metav1validation.ValidateConditions(d.Conditions, conditions)...)
	if d.Data != nil && len(d.Data.Raw) > 0 {
		errs = append(errs, validateRawObject(*d.Data, fld.Child("data"), false, resourcev1.AllocatedDeviceStatusDataMaxLength)...)
	}
	if n := d.NetworkData; n != nil {
		// The lengths of the interface name and hardware address are
		// checked declaratively.
		errs = append(errs, validateSet(n.IPs, resourcev1.NetworkDeviceDataMaxIPs, func(ip string, fld *field.Path) field.ErrorList {
			return validation.IsValidInterfaceAddress(fld, ip)
		}, func(s string) string { return s }, fld.Child("networkData", "ips"), listRule{size: true, unique: true})...)
	}
	return errs
}

// requestPolicyMaxOptions is upstream's CapacityRequestPolicyDiscreteMaxOptions.
const requestPolicyMaxOptions = 10

// validateRequestPolicy validates how a consumable capacity may be
// requested (DRAConsumableCapacity; DRAFractionalCapacityRange is off):
// only by a device allocated more than once, by valid values or a range,
// each with a default.
func validateRequestPolicy(c resourcev1.DeviceCapacity, multi bool, fld *field.Path) field.ErrorList {
	p := c.RequestPolicy
	switch {
	case p == nil:
		return nil
	case !multi:
		return field.ErrorList{field.Forbidden(fld, "allowMultipleAllocations must be true")}
	case len(p.ValidValues) > 0 && p.ValidRange != nil:
		return field.ErrorList{field.Forbidden(fld, `exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time`)}
	case len(p.ValidValues) > 0 && p.Default == nil:
		return field.ErrorList{field.Required(fld.Child("default"), "required when validValues is defined")}
	case p.ValidRange != nil && p.Default == nil:
		return field.ErrorList{field.Required(fld.Child("default"), "required when validRange is defined")}
	case len(p.ValidValues) > 0:
		values := fld.Child("validValues")
		var errs field.ErrorList
		for i := 0; i+1 < len(p.ValidValues); i++ {
			if p.ValidValues[i].Cmp(p.ValidValues[i+1]) > 0 {
				errs = append(errs, field.Invalid(values.Index(i+1), p.ValidValues[i+1].String(), "values must be sorted in ascending order"))
			}
		}
		found := false
		errs = append(errs, validateSet(p.ValidValues, requestPolicyMaxOptions, func(q apiresource.Quantity, fld *field.Path) field.ErrorList {
			if q.Cmp(*p.Default) == 0 {
				found = true
			}
			if q.Cmp(c.Value) > 0 {
				return field.ErrorList{field.Invalid(fld, q.String(), fmt.Sprintf("option is larger than capacity value: %s", c.Value.String()))}
			}
			return nil
		}, func(q apiresource.Quantity) string { return strconv.FormatInt(q.Value(), 10) }, values, listRule{})...)
		if !found {
			errs = append(errs, field.Invalid(values, p.Default.String(), "default value is not valid according to the requestPolicy"))
		}
		return errs
	case p.ValidRange != nil:
		return validateRequestRange(*p.Default, c.Value, *p.ValidRange, fld.Child("validRange"))
	}
	return nil
}

// validateRequestRange validates a range of requestable capacity: within
// the capacity, holding the default, its bounds reached in steps.
func validateRequestRange(def, capacity apiresource.Quantity, r resourcev1.CapacityRequestPolicyRange, fld *field.Path) field.ErrorList {
	if r.Min == nil {
		return field.ErrorList{field.Required(fld.Child("min"), "required when validRange is defined")}
	}
	var errs field.ErrorList
	if r.Min.Cmp(capacity) > 0 {
		errs = append(errs, field.Invalid(fld.Child("min"), r.Min.String(), fmt.Sprintf("min is larger than capacity value: %s", capacity.String())))
	}
	if def.Cmp(*r.Min) < 0 {
		errs = append(errs, field.Invalid(fld.Child("default"), def.String(), fmt.Sprintf("default is less than min: %s", r.Min.String())))
	}
	if r.Max != nil {
		if r.Min.Cmp(*r.Max) > 0 {
			errs = append(errs, field.Invalid(fld.Child("max"), r.Min.String(), fmt.Sprintf("min is larger than max: %s", r.Max.String())))
		}
		if r.Max.Cmp(capacity) > 0 {
			errs = append(errs, field.Invalid(fld.Child("max"), r.Max.String(), fmt.Sprintf("max is larger than capacity value: %s", capacity.String())))
		}
		if def.Cmp(*r.Max) > 0 {
			errs = append(errs, field.Invalid(fld.Child("default"), def.String(), fmt.Sprintf("default is more than max: %s", r.Max.String())))
		}
	}
	if r.Step == nil {
		return errs
	}
	if r.Step.Sign() <= 0 {
		return append(errs, field.Invalid(fld.Child("step"), r.Step.String(), "must be greater than zero"))
	}
	one := r.Min.DeepCopy()
	one.Add(*r.Step)
	if one.Cmp(capacity) > 0 {
		errs = append(errs, field.Invalid(fld.Child("step"), r.Step.String(), fmt.Sprintf("one step %s is larger than capacity value: %s", one.String(), capacity.String())))
	}
	// Quantity.Value is only usable in [0, MaxInt64].
	unsafe := false
	for _, b := range []struct {
		q    *apiresource.Quantity
		name string
	}{{&def, "default"}, {r.Min, "min"}, {r.Max, "max"}, {r.Step, "step"}} {
		switch {
		case b.q == nil:
		case b.q.Sign() < 0:
			errs = append(errs, field.Invalid(fld.Child(b.name), b.q.String(), apimachineryvalidation.IsNegativeErrorMsg))
			unsafe = true
		case b.q.CmpInt64(math.MaxInt64) > 0:
			errs = append(errs, field.Invalid(fld.Child(b.name), b.q.String(), "must not be larger than 9223372036854775807"))
			unsafe = true
		}
	}
	if unsafe {
		return errs
	}
	inSteps := func(v apiresource.Quantity) field.ErrorList {
		if (v.Value()-r.Min.Value())%r.Step.Value() != 0 {
			return field.ErrorList{field.Invalid(fld.Child("step"), v.String(), fmt.Sprintf("value is not a multiple of a given step (%s) from (%s)", r.Step.String(), r.Min.String()))}
		}
		return nil
	}
	errs = append(errs, inSteps(def)...)
	if r.Max != nil {
		errs = append(errs, inSteps(*r.Max)...)
	}
	return errs
}
