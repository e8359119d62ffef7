package runtimeconfig

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	cliflag "k8s.io/component-base/cli/flag"
	apiregistrationinstall "k8s.io/kube-aggregator/pkg/apis/apiregistration/install"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
)

// (Written after k8s.io/apiserver's APIEnablementOptions.Validate and
// resourceconfig.MergeAPIResourceConfigs, not imported: their packages
// bring the generic server and its etcd storage into the binary, which
// would lengthen every start.)

// registry is what a server registers: runtime.Scheme has it.
type registry interface {
	IsGroupRegistered(group string) bool
	IsVersionRegistered(gv schema.GroupVersion) bool
}

// server is one of the three servers kube-apiserver is made of, as it
// merges --runtime-config: the group versions it registers, those it turns
// on by default, and those it has storage for.
type server struct {
	registry registry
	defaults []schema.GroupVersion // on; the others of served off
	served   []schema.GroupVersion
}

// servers are kube-apiserver's own (whose registry client-go's scheme
// stands for: the same group versions), apiextensions-apiserver and
// kube-aggregator, in the order kube-apiserver merges their
// configuration.
func servers() []server {
	extensions := runtime.NewScheme()
	apiextensionsinstall.Install(extensions)
	aggregator := runtime.NewScheme()
	apiregistrationinstall.Install(aggregator)
	return []server{
		{registry: clientgoscheme.Scheme, defaults: servedByDefault, served: slices.Concat(servedByDefault, servedWhenTurnedOn)},
		{registry: extensions, defaults: []schema.GroupVersion{apiextensionsv1beta1.SchemeGroupVersion, apiextensionsV1}, served: []schema.GroupVersion{apiextensionsV1}},
		{registry: aggregator, defaults: []schema.GroupVersion{apiregistrationV1, apiregistrationv1beta1.SchemeGroupVersion}, served: []schema.GroupVersion{apiregistrationV1}},
	}
}

// enablement is which versions, and resources, a server turns on.
type enablement struct {
	versions  map[schema.GroupVersion]bool
	resources map[schema.GroupVersionResource]bool
}

// defaultEnablement is s's default: its defaults on, its other served
// versions off.
func (s server) defaultEnablement() enablement {
	e := enablement{versions: map[schema.GroupVersion]bool{}, resources: map[schema.GroupVersionResource]bool{}}
	for _, gv := range s.served {
		e.versions[gv] = false
	}
	for _, gv := range s.defaults {
		e.versions[gv] = true
	}
	return e
}

// resourceEnabled reports whether gvr is served: its own preference, else
// its version's.
func (e enablement) resourceEnabled(gvr schema.GroupVersionResource) bool {
	if on, ok := e.resources[gvr]; ok {
		return on
	}
	return e.versions[gvr.GroupVersion()]
}

// The keys that address versions by their maturity, in the order they
// apply, and what they match.
var (
	matcherKeys = []string{"api/all", "api/ga", "api/beta", "api/alpha"}
	matchers    = map[string]*regexp.Regexp{
		"api/all":   regexp.MustCompile(``),
		"api/ga":    regexp.MustCompile(`^v\d+$`),
		"api/beta":  regexp.MustCompile(`^v\d+beta\d+$`),
		"api/alpha": regexp.MustCompile(`^v\d+alpha\d+$`),
	}
)

// Check takes --runtime-config's values (each a comma-separated list of
// key[=value]) as kube-apiserver v1.37 does, and returns its error for
// values it refuses, or one saying what is not built for values that would
// change which API versions or resources are served.
func Check(values []string) error {
	if len(values) == 0 {
		return nil
	}
	config := cliflag.ConfigurationMap{}
	for _, v := range values {
		if err := config.Set(v); err != nil {
			return err
		}
	}
	complete(config)
	srvs := servers()
	var errs []error
	errs = append(errs, validatePriorityAndFairness(config)...)
	errs = append(errs, validate(config, srvs)...)
	if err := utilerrors.NewAggregate(errs); err != nil {
		return err
	}
	for _, s := range srvs {
		merged, err := merge(s, config)
		if err != nil {
			return err
		}
		if err := sameAsDefault(merged, s.defaultEnablement(), s.served); err != nil {
			return err
		}
	}
	return nil
}

// validate checks the keys as kube-apiserver's API enablement options do:
// not api/all=false alone, every key a matcher's or group/version[/...],
// every group registered by one of the servers.
func validate(config cliflag.ConfigurationMap, srvs []server) []error {
	if config["api/all"] == "false" && len(config) == 1 {
		return []error{fmt.Errorf("invalid runtime-config with only api/all=false")}
	}
	unknown := map[string]bool{}
	for key := range config {
		if _, ok := matchers[key]; ok {
			continue
		}
		tokens := strings.Split(key, "/")
		if len(tokens) != 2 && len(tokens) != 3 {
			return []error{fmt.Errorf("runtime-config invalid key %s", key)}
		}
		gv, err := schema.ParseGroupVersion(tokens[0] + "/" + tokens[1])
		if err != nil {
			return []error{fmt.Errorf("runtime-config invalid key %s", key)}
		}
		if !slices.ContainsFunc(srvs, func(s server) bool { return s.registry.IsGroupRegistered(gv.Group) }) {
			unknown[gv.String()] = true
		}
	}
	if len(unknown) > 0 {
		names := slices.Sorted(maps.Keys(unknown))
		return []error{fmt.Errorf("unknown api groups %s", strings.Join(names, ","))}
	}
	return nil
}

// merge applies config to s's default as kube-apiserver merges it: the
// matchers first (api/all, then api/ga, api/beta, api/alpha), then each
// version of a group s registers, then each resource.
func merge(s server, config cliflag.ConfigurationMap) (enablement, error) {
	e := s.defaultEnablement()
	for _, key := range matcherKeys {
		value, ok := config[key]
		if !ok {
			continue
		}
		if value != "true" && value != "false" {
			return e, fmt.Errorf("invalid value %v=%v", key, value)
		}
		for gv := range e.versions {
			if matchers[key].MatchString(gv.Version) {
				e.versions[gv] = value == "true"
			}
		}
	}
	versions := map[schema.GroupVersion]bool{}
	resources := map[schema.GroupVersionResource]bool{}
	for key, value := range config {
		if _, ok := matchers[key]; ok {
			continue
		}
		tokens := strings.Split(key, "/")
		if len(tokens) < 2 || len(tokens) > 3 {
			continue
		}
		gv, err := schema.ParseGroupVersion(tokens[0] + "/" + tokens[1])
		if err != nil {
			return e, fmt.Errorf("invalid key %s", key)
		}
		if !s.registry.IsGroupRegistered(gv.Group) {
			continue // another server's
		}
		if !s.registry.IsVersionRegistered(gv) {
			return e, fmt.Errorf("group version %s that has not been registered", gv.String())
		}
		on := true
		if value != "" {
			if on, err = strconv.ParseBool(value); err != nil {
				return e, fmt.Errorf("invalid value of %s: %s, err: %v", key, value, err)
			}
		}
		if len(tokens) == 2 {
			versions[gv] = on
			continue
		}
		if strings.ToLower(tokens[2]) != tokens[2] {
			return e, fmt.Errorf("invalid key %v: group/version/resource and resource is always lowercase plural, not %q", key, tokens[2])
		}
		resources[gv.WithResource(tokens[2])] = on
	}
	maps.Copy(e.versions, versions)
	maps.Copy(e.resources, resources)
	return e, nil
}

// complete rewrites the keys as kube-apiserver completes its options: the
// core API's v1, v1/..., api/v1 and api/v1/... become /v1 (the whole
// version), api/legacy is dropped.
func complete(config cliflag.ConfigurationMap) {
	for key, value := range config {
		if key == "v1" || strings.HasPrefix(key, "v1/") || key == "api/v1" || strings.HasPrefix(key, "api/v1/") {
			delete(config, key)
			config["/v1"] = value
		}
		if key == "api/legacy" {
			delete(config, key)
		}
	}
}

// validatePriorityAndFairness refuses, as kube-apiserver with its default
// --enable-priority-and-fairness, a value turning off the flowcontrol API
// its priority and fairness uses: the first of these keys the flag's text
// names decides.
func validatePriorityAndFairness(config cliflag.ConfigurationMap) []error {
	text := config.String()
	for _, key := range []string{"flowcontrol.apiserver.k8s.io/v1", "api/ga", "api/all"} {
		if strings.Contains(text, key+"=false") {
			return []error{fmt.Errorf("--runtime-config=%s=false conflicts with --enable-priority-and-fairness=true", key)}
		}
		if strings.Contains(text, key+"=true") {
			return nil
		}
	}
	return nil
}

// sameAsDefault returns an error naming the first served version, or
// resource of one, that merged turns on or off unlike defaults.
func sameAsDefault(merged, defaults enablement, served []schema.GroupVersion) error {
	var changed []string
	for _, gv := range served {
		if merged.versions[gv] != defaults.versions[gv] {
			changed = append(changed, onOff(gv.String(), merged.versions[gv]))
		}
	}
	for gvr, on := range merged.resources {
		if slices.Contains(served, gvr.GroupVersion()) && on != defaults.resourceEnabled(gvr) {
			changed = append(changed, onOff(gvr.GroupVersion().String()+"/"+gvr.Resource, on))
		}
	}
	if len(changed) == 0 {
		return nil
	}
	slices.Sort(changed)
	return fmt.Errorf("--runtime-config: turning %s is not built: fakeplane serves the API versions and resources kube-apiserver v1.37 serves by default", changed[0])
}

// onOff is what turned on or off.
func onOff(what string, on bool) string {
	if on {
		return what + " on"
	}
	return what + " off"
}
