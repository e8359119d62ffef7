package pod

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// errorStrings is errs as their messages.
func errorStrings(errs field.ErrorList) string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return strings.Join(out, "\n")
}

func TestContainerShouldRestart(t *testing.T) {
	rules := func(op corev1.ContainerRestartRuleOnExitCodesOperator, action corev1.ContainerRestartRuleAction, codes ...int32) []corev1.ContainerRestartRule {
		return []corev1.ContainerRestartRule{{Action: action, ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: op, Values: codes}}}
	}
	never, onFailure := ptr.To(corev1.ContainerRestartPolicyNever), ptr.To(corev1.ContainerRestartPolicyOnFailure)
	for _, tc := range []struct {
		name     string
		pod      corev1.RestartPolicy
		c        corev1.Container
		exitCode int32
		want     bool
	}{
		{"the pod's Always", corev1.RestartPolicyAlways, corev1.Container{}, 0, true},
		{"the pod's OnFailure after a success", corev1.RestartPolicyOnFailure, corev1.Container{}, 0, false},
		{"the pod's OnFailure after a failure", corev1.RestartPolicyOnFailure, corev1.Container{}, 3, true},
		{"the pod's Never", corev1.RestartPolicyNever, corev1.Container{}, 3, false},
		{"no policy is Always", "", corev1.Container{}, 0, true},
		{"the container's Never wins", corev1.RestartPolicyAlways, corev1.Container{RestartPolicy: never}, 0, false},
		{"the container's OnFailure wins", corev1.RestartPolicyNever, corev1.Container{RestartPolicy: onFailure}, 1, true},
		{"an In rule matching", corev1.RestartPolicyNever, corev1.Container{RestartPolicy: never, RestartPolicyRules: rules(corev1.ContainerRestartRuleOnExitCodesOpIn, corev1.ContainerRestartRuleActionRestart, 42)}, 42, true},
		{"an In rule not matching", corev1.RestartPolicyNever, corev1.Container{RestartPolicy: never, RestartPolicyRules: rules(corev1.ContainerRestartRuleOnExitCodesOpIn, corev1.ContainerRestartRuleActionRestart, 42)}, 1, false},
		{"a NotIn rule matching", corev1.RestartPolicyNever, corev1.Container{RestartPolicy: never, RestartPolicyRules: rules(corev1.ContainerRestartRuleOnExitCodesOpNotIn, corev1.ContainerRestartRuleActionRestart, 0)}, 1, true},
		{"a RestartAllContainers rule matching", corev1.RestartPolicyNever, corev1.Container{RestartPolicy: never, RestartPolicyRules: rules(corev1.ContainerRestartRuleOnExitCodesOpIn, corev1.ContainerRestartRuleActionRestartAllContainers, 7)}, 7, true},
		{"rules without a container policy are not read", corev1.RestartPolicyNever, corev1.Container{RestartPolicyRules: rules(corev1.ContainerRestartRuleOnExitCodesOpIn, corev1.ContainerRestartRuleActionRestart, 1)}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := containerShouldRestart(&tc.c, &corev1.PodSpec{RestartPolicy: tc.pod}, tc.exitCode); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidateContainerStateTransition(t *testing.T) {
	term := func(name string, code int32) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
	}
	run := func(name string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	}
	fld := field.NewPath("status", "containerStatuses")
	never := corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}
	restartAll := *never.DeepCopy()
	restartAll.Containers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
	restartAll.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestartAllContainers, ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{9}}}}
	always := corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "a"}}}
	const forbidden = ".state: Forbidden: may not be transitioned to non-terminated state"
	for _, tc := range []struct {
		name     string
		spec     corev1.PodSpec
		old, new []corev1.ContainerStatus
		want     string
	}{
		{"at the old status's index", never, []corev1.ContainerStatus{run("b"), term("a", 0)}, []corev1.ContainerStatus{run("a"), run("b")}, "status.containerStatuses[1]" + forbidden},
		{"once for a name", never, []corev1.ContainerStatus{term("a", 0)}, []corev1.ContainerStatus{term("a", 0), run("a"), run("a")}, "status.containerStatuses[0]" + forbidden},
		{"staying terminated", never, []corev1.ContainerStatus{term("a", 0)}, []corev1.ContainerStatus{term("a", 1)}, ""},
		{"left out", never, []corev1.ContainerStatus{term("a", 0)}, nil, ""},
		{"a RestartAllContainers rule lets any run again", restartAll, []corev1.ContainerStatus{term("a", 0), term("ghost", 0)}, []corev1.ContainerStatus{run("a"), run("ghost")}, ""},
		{"the pod's Always", always, []corev1.ContainerStatus{term("a", 0)}, []corev1.ContainerStatus{run("a")}, ""},
		{"not a container of the spec", always, []corev1.ContainerStatus{term("ghost", 0)}, []corev1.ContainerStatus{run("ghost")}, "status.containerStatuses[0]" + forbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := errorStrings(validateContainerStateTransition(tc.new, tc.old, fld, &tc.spec, tc.spec.Containers))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	ephemeral := errorStrings(validateEphemeralContainerStateTransition([]corev1.ContainerStatus{run("e"), run("e")}, []corev1.ContainerStatus{term("e", 0)}, field.NewPath("status", "ephemeralContainerStatuses")))
	if want := "status.ephemeralContainerStatuses[0]" + forbidden + "\nstatus.ephemeralContainerStatuses[0]" + forbidden; ephemeral != want {
		t.Errorf("ephemeral: got\n%s\nwant\n%s", ephemeral, want)
	}
}

func TestMatchesExtendedResourceClaimStatus(t *testing.T) {
	c := &corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		"example.com/gpu":  resource.MustParse("1"),
		"example.com/none": resource.MustParse("0"),
	}}}
	st := &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: "ext", RequestMappings: []corev1.ContainerExtendedResourceRequest{
		{ContainerName: "c", ResourceName: "example.com/gpu", RequestName: "r0"},
		{ContainerName: "c", ResourceName: "example.com/none", RequestName: "r1"},
		{ContainerName: "d", ResourceName: "example.com/gpu", RequestName: "r2"},
	}}
	for name, want := range map[corev1.ResourceName]bool{
		"claim:ext/r0":  true,
		"claim:ext/r1":  false, // a zero request
		"claim:ext/r2":  false, // another container's
		"claim:ext":     false,
		"claim:ext/":    false,
		"claim:/r0":     false,
		"claim:other/0": false,
		"ext/r0":        false,
	} {
		if got := matchesExtendedResourceClaimStatus(name, c, st); got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	if matchesExtendedResourceClaimStatus("claim:ext/r0", c, nil) {
		t.Error("matched without a status")
	}
}

func TestValidatePodExtendedResourceClaimStatusRequestNamePath(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}}}}}
	st := &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: "ext", RequestMappings: []corev1.ContainerExtendedResourceRequest{
		{ContainerName: "c", ResourceName: "example.com/gpu", RequestName: "ok"},
		{ContainerName: "c", ResourceName: "example.com/gpu", RequestName: "Bad"},
	}}
	got := errorStrings(validatePodExtendedResourceClaimStatus(st, spec, field.NewPath("status", "extendedResourceClaimStatus")))
	// Upstream reports the request name at the status, not the mapping.
	if want := `status.extendedResourceClaimStatus.requestName: Invalid value: "Bad": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
