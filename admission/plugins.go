package admission

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// OrderedPlugins are kube-apiserver v1.37's admission plugins in the order
// it runs them (its AllOrderedPlugins): the order of the flags that name
// them does not matter.
var OrderedPlugins = []string{
	"AlwaysAdmit",
	"NamespaceAutoProvision",
	"NamespaceLifecycle",
	"NamespaceExists",
	"LimitPodHardAntiAffinityTopology",
	"LimitRanger",
	"ServiceAccount",
	"NodeRestriction",
	"TaintNodesByCondition",
	"AlwaysPullImages",
	"ImagePolicyWebhook",
	PodSecurityPluginName,
	"PodNodeSelector",
	"Priority",
	"DefaultTolerationSeconds",
	"PodTolerationRestriction",
	"EventRateLimit",
	"ExtendedResourceToleration",
	"DefaultStorageClass",
	"StorageObjectInUseProtection",
	"PodGroupProtection",
	"OwnerReferencesPermissionEnforcement",
	"PersistentVolumeClaimResize",
	"RuntimeClass",
	"CertificateApproval",
	"CertificateSigning",
	"ClusterTrustBundleAttest",
	"CertificateSubjectRestriction",
	"DefaultIngressClass",
	"DenyServiceExternalIPs",
	"PodTopologyLabels",
	"NodeDeclaredFeatureValidator",
	"PodResizeValidator",
	"MutatingAdmissionPolicy",
	"MutatingAdmissionWebhook",
	"ValidatingAdmissionPolicy",
	"ValidatingAdmissionWebhook",
	"ResourceQuota",
	"AlwaysDeny",
}

// defaultOnPlugins are the plugins kube-apiserver runs unless
// --disable-admission-plugins names them.
var defaultOnPlugins = map[string]bool{
	"NamespaceLifecycle": true, "LimitRanger": true, "ServiceAccount": true, "DefaultStorageClass": true,
	"PersistentVolumeClaimResize": true, "DefaultTolerationSeconds": true, "MutatingAdmissionWebhook": true,
	"ValidatingAdmissionWebhook": true, "ResourceQuota": true, "StorageObjectInUseProtection": true,
	"PodGroupProtection": true, "Priority": true, "TaintNodesByCondition": true, "RuntimeClass": true,
	"CertificateApproval": true, "CertificateSigning": true, "ClusterTrustBundleAttest": true,
	"CertificateSubjectRestriction": true, "DefaultIngressClass": true, PodSecurityPluginName: true,
	"PodTopologyLabels": true, "MutatingAdmissionPolicy": true, "ValidatingAdmissionPolicy": true,
	"NodeDeclaredFeatureValidator": true, "PodResizeValidator": true,
}

// Plugins is a selection of admission plugins, as kube-apiserver's
// --enable-admission-plugins, --disable-admission-plugins and the
// deprecated --admission-control make it. The zero value is
// kube-apiserver's default selection.
type Plugins struct {
	// enabled and disabled change the default selection; only, when
	// set, replaces it (--admission-control).
	enabled, disabled, only map[string]bool
}

// NewPlugins checks and builds a selection from the plugin names of
// --enable-admission-plugins (enable), --disable-admission-plugins
// (disable) and the deprecated --admission-control (only), with
// kube-apiserver's errors (aggregated as it prints them): unknown names, a name both enabled and
// disabled, --admission-control with either of the others.
func NewPlugins(enable, disable, only []string) (Plugins, error) {
	var errs []error
	if len(only) > 0 && (len(enable) > 0 || len(disable) > 0) {
		errs = append(errs, errors.New("admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive"))
	}
	for _, name := range only {
		if !slices.Contains(OrderedPlugins, name) {
			errs = append(errs, fmt.Errorf("admission-control plugin %q is unknown", name))
		}
	}
	for _, name := range enable {
		if !slices.Contains(OrderedPlugins, name) {
			errs = append(errs, fmt.Errorf("enable-admission-plugins plugin %q is unknown", name))
		}
	}
	for _, name := range disable {
		if !slices.Contains(OrderedPlugins, name) {
			errs = append(errs, fmt.Errorf("disable-admission-plugins plugin %q is unknown", name))
		}
	}
	p := Plugins{enabled: setOf(enable), disabled: setOf(disable), only: setOf(only)}
	var both []string
	for name := range p.enabled {
		if p.disabled[name] {
			both = append(both, name)
		}
	}
	if len(both) > 0 {
		sort.Strings(both)
		errs = append(errs, fmt.Errorf("%v in enable-admission-plugins and disable-admission-plugins overlapped", both))
	}
	if len(errs) > 0 {
		return Plugins{}, utilerrors.NewAggregate(errs)
	}
	return p, nil
}

// setOf is the set of names (nil for none).
func setOf(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Enabled reports whether the selection runs the plugin name.
func (p Plugins) Enabled(name string) bool {
	if p.only != nil {
		return p.only[name]
	}
	if p.disabled[name] {
		return false
	}
	return defaultOnPlugins[name] || p.enabled[name]
}

// Names are the selected plugins in kube-apiserver's order.
func (p Plugins) Names() []string {
	var out []string
	for _, name := range OrderedPlugins {
		if p.Enabled(name) {
			out = append(out, name)
		}
	}
	return out
}
