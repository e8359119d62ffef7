package runtimeconfig

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/server/resourceconfig"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	cliflag "k8s.io/component-base/cli/flag"
	apiregistrationinstall "k8s.io/kube-aggregator/pkg/apis/apiregistration/install"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
)

// server is one of the three servers kube-apiserver is made of, as it
// merges --runtime-config: the group versions it registers, those it turns
// on by default, and those it has storage for.
type server struct {
	registry resourceconfig.GroupVersionRegistry
	defaults func() *serverstorage.ResourceConfig
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
		{
			registry: clientgoscheme.Scheme,
			defaults: func() *serverstorage.ResourceConfig {
				c := serverstorage.NewResourceConfig()
				c.EnableVersions(servedByDefault...)
				c.DisableVersions(servedWhenTurnedOn...)
				return c
			},
			served: slices.Concat(servedByDefault, servedWhenTurnedOn),
		},
		{
			registry: extensions,
			defaults: func() *serverstorage.ResourceConfig {
				c := serverstorage.NewResourceConfig()
				c.EnableVersions(apiextensionsv1beta1.SchemeGroupVersion, apiextensionsv1.SchemeGroupVersion)
				return c
			},
			served: []schema.GroupVersion{apiextensionsV1},
		},
		{
			registry: aggregator,
			defaults: func() *serverstorage.ResourceConfig {
				c := serverstorage.NewResourceConfig()
				c.EnableVersions(apiregistrationv1.SchemeGroupVersion, apiregistrationv1beta1.SchemeGroupVersion)
				return c
			},
			served: []schema.GroupVersion{apiregistrationV1},
		},
	}
}

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
	registries := make([]genericoptions.GroupRegistry, len(srvs))
	for i, s := range srvs {
		registries[i] = s.registry
	}
	errs = append(errs, (&genericoptions.APIEnablementOptions{RuntimeConfig: config}).Validate(registries...)...)
	if err := utilerrors.NewAggregate(errs); err != nil {
		return err
	}
	for _, s := range srvs {
		merged, err := resourceconfig.MergeAPIResourceConfigs(s.defaults(), config, s.registry)
		if err != nil {
			return err
		}
		if err := sameAsDefault(merged, s.defaults(), s.served); err != nil {
			return err
		}
	}
	return nil
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
	for _, key := range []string{"flowcontrol.apiserver.k8s.io/v1", resourceconfig.APIGA, resourceconfig.APIAll} {
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
func sameAsDefault(merged, defaults *serverstorage.ResourceConfig, served []schema.GroupVersion) error {
	var changed []string
	for _, gv := range served {
		// (A resource name no preference names: the version's state.)
		gvr := gv.WithResource("")
		if merged.ResourceEnabled(gvr) != defaults.ResourceEnabled(gvr) {
			changed = append(changed, onOff(gv.String(), merged.ResourceEnabled(gvr)))
		}
	}
	for gvr, on := range merged.ResourceConfigs {
		if slices.Contains(served, gvr.GroupVersion()) && on != defaults.ResourceEnabled(gvr) {
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
