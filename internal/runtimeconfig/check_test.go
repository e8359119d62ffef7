package runtimeconfig

import "testing"

func TestCheckAsKubeAPIServer(t *testing.T) {
	const notBuilt = " is not built: fakeplane serves the API versions and resources kube-apiserver v1.37 serves by default"
	for _, tt := range []struct {
		name   string
		values []string
		// want is "" when the values are accepted. kube-apiserver's
		// errors were recorded from kube-apiserver v1.37.2 (refplane);
		// the values it accepts that fakeplane refuses turn a served API
		// on or off.
		want string
	}{
		{"nothing", nil, ""},
		{"a served version on", []string{"apps/v1=true"}, ""},
		{"a key without a value is on", []string{"apps/v1,batch/v1"}, ""},
		{"every GA version on", []string{"api/ga=true"}, ""},
		{"the APIService API on", []string{"apiregistration.k8s.io/v1=true"}, ""},
		{"a served resource on", []string{"apps/v1/deployments=true"}, ""},
		{"api/legacy, dropped", []string{"api/legacy=false"}, ""},
		{"a version registered but not served", []string{"batch/v1beta1=true"}, ""},
		{"the CRD API's v1beta1, not served", []string{"apiextensions.k8s.io/v1beta1=true"}, ""},
		{"the APIService API's v1beta1, not served", []string{"apiregistration.k8s.io/v1beta1=false"}, ""},
		{"repeated, merged", []string{"apps/v1=false", "apps/v1=true"}, ""},

		{"a beta version on", []string{"resource.k8s.io/v1beta1=true"}, "--runtime-config: turning resource.k8s.io/v1beta1 on" + notBuilt},
		{"every alpha version on", []string{"api/alpha=true"}, "--runtime-config: turning admissionregistration.k8s.io/v1alpha1 on" + notBuilt},
		{"every version on", []string{"api/all=true"}, "--runtime-config: turning admissionregistration.k8s.io/v1alpha1 on" + notBuilt},
		{"a served version off", []string{"batch/v1=false"}, "--runtime-config: turning batch/v1 off" + notBuilt},
		{"the core version off", []string{"v1=false"}, "--runtime-config: turning v1 off" + notBuilt},
		{"a served resource off", []string{"apps/v1/deployments=false"}, "--runtime-config: turning apps/v1/deployments off" + notBuilt},
		{"a resource of a beta version on", []string{"resource.k8s.io/v1beta2/deviceclasses=true"}, "--runtime-config: turning resource.k8s.io/v1beta2/deviceclasses on" + notBuilt},
		{"the CRD API off", []string{"apiextensions.k8s.io/v1=false"}, "--runtime-config: turning apiextensions.k8s.io/v1 off" + notBuilt},

		{"a value that is not a bool for api/all", []string{"api/all=maybe"}, "invalid value api/all=maybe"},
		{"a value that is not a bool", []string{"apps/v1=maybe"}, `invalid value of apps/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax`},
		{"a version not registered", []string{"apps/v9=true"}, "group version apps/v9 that has not been registered"},
		{"a version removed", []string{"batch/v2alpha1=true"}, "group version batch/v2alpha1 that has not been registered"},
		{"a CRD API version not registered", []string{"apiextensions.k8s.io/v9=true"}, "group version apiextensions.k8s.io/v9 that has not been registered"},
		{"an unknown group", []string{"foo.example.com/v1=true"}, "unknown api groups foo.example.com/v1"},
		{"api/v2", []string{"api/v2=true"}, "unknown api groups api/v2"},
		{"a resource not in lower case", []string{"apps/v1/Deployments=false"}, `invalid key apps/v1/Deployments: group/version/resource and resource is always lowercase plural, not "Deployments"`},
		{"a group alone", []string{"apps=true"}, "runtime-config invalid key apps"},
		{"too many parts", []string{"a/b/c/d=true"}, "runtime-config invalid key a/b/c/d"},
		{"a version alone", []string{"v2=true"}, "runtime-config invalid key v2"},
		{"an empty key", []string{"=true"}, "runtime-config invalid key "},
		{"everything off", []string{"api/all=false"}, "[--runtime-config=api/all=false conflicts with --enable-priority-and-fairness=true, invalid runtime-config with only api/all=false]"},
		{"everything off but one", []string{"internal.apiserver.k8s.io/v1alpha1=false,api/all=false"}, "--runtime-config=api/all=false conflicts with --enable-priority-and-fairness=true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.values)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
