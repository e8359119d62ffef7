package validate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// deprecatedNodeLabels are the node labels upstream warns about
// (pkg/api/node), with the warning's text.
var deprecatedNodeLabels = map[string]string{
	`beta.kubernetes.io/arch`:                       `deprecated since v1.14; use "kubernetes.io/arch" instead`,
	`beta.kubernetes.io/os`:                         `deprecated since v1.14; use "kubernetes.io/os" instead`,
	`failure-domain.beta.kubernetes.io/region`:      `deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
	`failure-domain.beta.kubernetes.io/zone`:        `deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
	`beta.kubernetes.io/instance-type`:              `deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
	`app.kubernetes.io/created-by`:                  `deprecated since v1.9`,
	`scheduler.alpha.kubernetes.io/preferAvoidPods`: `deprecated since v1.22; use Taints and Tolerations instead`,
	`node-role.kubernetes.io/master`:                `use "node-role.kubernetes.io/control-plane" instead`,
}

// DeprecatedNodeLabel returns what upstream's warnings say of a deprecated
// node label key, and whether key is one.
func DeprecatedNodeLabel(key string) (string, bool) {
	msg, ok := deprecatedNodeLabels[key]
	return msg, ok
}

// NodeSelectorTermWarnings are upstream's warnings for a node selector term
// (GetWarningsForNodeSelectorTerm): deprecated node labels among its
// expressions' keys, and, with checkLabelValue, values that are not label
// values.
func NodeSelectorTermWarnings(term corev1.NodeSelectorTerm, checkLabelValue bool, fld *field.Path) []string {
	var warnings []string
	for i, e := range term.MatchExpressions {
		if msg, ok := DeprecatedNodeLabel(e.Key); ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s is %s", fld.Child("matchExpressions").Index(i).Child("key"), e.Key, msg))
		}
		if checkLabelValue {
			for j, v := range e.Values {
				for _, msg := range validation.IsValidLabelValue(v) {
					warnings = append(warnings, fmt.Sprintf("%s: %s is invalid, %s", fld.Child("matchExpressions").Index(i).Child("values").Index(j), v, msg))
				}
			}
		}
	}
	return warnings
}

// LabelSelectorNodeWarnings are upstream's warnings for a label selector
// over nodes (GetWarningsForNodeSelector): deprecated node labels among its
// expressions' keys and its labels.
func LabelSelectorNodeWarnings(sel *metav1.LabelSelector, fld *field.Path) []string {
	if sel == nil {
		return nil
	}
	var warnings []string
	for i, e := range sel.MatchExpressions {
		if msg, ok := DeprecatedNodeLabel(e.Key); ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s is %s", fld.Child("matchExpressions").Index(i).Child("key"), e.Key, msg))
		}
	}
	for _, k := range SortedKeys(sel.MatchLabels) {
		if msg, ok := DeprecatedNodeLabel(k); ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s", fld.Child("matchLabels").Child(k), msg))
		}
	}
	return warnings
}

// FractionalBytes is upstream's warning for a memory or storage quantity
// that is not a whole number of bytes, or nil when q is one.
func FractionalBytes(fld *field.Path, q apiresource.Quantity) []string {
	if q.MilliValue()%1000 == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: fractional byte value %q is invalid, must be an integer", fld, q.String())}
}

// PVCSpecWarnings are upstream's warnings for a claim's spec
// (GetWarningsForPersistentVolumeClaimSpec): a storage request or limit
// that is not a whole number of bytes.
func PVCSpecWarnings(fld *field.Path, spec corev1.PersistentVolumeClaimSpec) []string {
	var warnings []string
	r := fld.Child("resources")
	if q, ok := spec.Resources.Requests[corev1.ResourceStorage]; ok {
		warnings = append(warnings, FractionalBytes(r.Child("requests").Key(string(corev1.ResourceStorage)), q)...)
	}
	if q, ok := spec.Resources.Limits[corev1.ResourceStorage]; ok {
		warnings = append(warnings, FractionalBytes(r.Child("limits").Key(string(corev1.ResourceStorage)), q)...)
	}
	return warnings
}

// IPWarnings is upstream's GetWarningsForIP for a value that parses as an
// IP (leading zeros, an IPv4-mapped or non-canonical IPv6 form), and nil
// for one that does not: upstream warns only about valid values.
func IPWarnings(fld *field.Path, ip string) []string {
	if netutils.ParseIPSloppy(ip) != nil {
		return validation.GetWarningsForIP(fld, ip)
	}
	return nil
}

// CIDRWarnings is upstream's GetWarningsForCIDR for a value that parses as
// a CIDR, and nil for one that does not.
func CIDRWarnings(fld *field.Path, cidr string) []string {
	if _, _, err := netutils.ParseCIDRSloppy(cidr); err == nil {
		return validation.GetWarningsForCIDR(fld, cidr)
	}
	return nil
}
