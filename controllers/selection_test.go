package controllers

import (
	"strings"
	"testing"
)

func TestSelectionEnabledAsKubeControllerManager(t *testing.T) {
	for _, tc := range []struct {
		name string
		sel  Selection
		ctrl string
		want bool
	}{
		{"star runs every controller", Selection{"*"}, DeploymentName, true},
		{"empty runs none", Selection{}, DeploymentName, false},
		{"named alone runs it", Selection{"deployment-controller"}, DeploymentName, true},
		{"named alone runs no other", Selection{"deployment-controller"}, JobName, false},
		{"minus turns one off under star", Selection{"*", "-job-controller"}, JobName, false},
		{"minus leaves the others on", Selection{"*", "-job-controller"}, DeploymentName, true},
		{"the first entry naming it decides", Selection{"-job-controller", "job-controller", "*"}, JobName, false},
		{"an alias names the controller", Selection{"*", "-garbagecollector"}, GarbageCollectorName, false},
		{"an alias turns one on", Selection{"deployment"}, DeploymentName, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sel.Enabled(tc.ctrl); got != tc.want {
				t.Errorf("%q.Enabled(%s) = %v, want %v", tc.sel, tc.ctrl, got, tc.want)
			}
		})
	}
}

func TestSelectionValidateRefusesUnknownNames(t *testing.T) {
	for _, tc := range []struct {
		sel  Selection
		want string // "" for valid
	}{
		{Selection{"*", "-nodeipam", "bootstrap-signer-controller"}, ""},
		{Selection{"*", "-deployment"}, ""},
		{Selection{"*", "deploymnet-controller"}, `"deploymnet-controller" is not in the list of known controllers`},
		{Selection{"-foo"}, `"-foo" is not in the list of known controllers`},
	} {
		err := tc.sel.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v, want valid", tc.sel, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.sel, err, tc.want)
		}
	}
}
