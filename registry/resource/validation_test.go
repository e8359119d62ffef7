package resource

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateCreate validates a new object as the server does with a
// strategy embedding Validation: meta, the metadata errors, then the
// handwritten errors, merged with the declarative ones.
func validateCreate(meta field.ErrorList, obj runtime.Object) field.ErrorList {
	ctx := context.Background()
	return Validation{}.ValidateDeclaratively(ctx, append(meta, Validation{}.Validate(ctx, obj)...), obj, nil, false)
}

// TestValidationMergesDeclarativeErrors checks the merge of handwritten and
// declarative errors: other kinds are left alone, a covered handwritten
// error gives way to the declarative one (which comes last), and an object
// is validated with upstream's defaults without being changed.
func TestValidationMergesDeclarativeErrors(t *testing.T) {
	meta := field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "Bad_Name", "bad")}
	if got := withDeclarative(context.Background(), meta, &corev1.ConfigMap{}, nil, false); !reflect.DeepEqual(got, meta) {
		t.Errorf("a ConfigMap's errors changed: %v", got)
	}

	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}, Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{}}}}
	errs := validateCreate(field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "Bad_Name", "generic")}, class)
	var got []string
	for _, e := range errs {
		got = append(got, e.Field)
	}
	if want := []string{"spec.selectors[0].cel", "metadata.name"}; !reflect.DeepEqual(got, want) {
		t.Errorf("error fields %v, want %v (%v)", got, want, errs)
	}
	if errs[1].Detail == "generic" {
		t.Errorf("the class name's handwritten error was kept: %v", errs)
	}

	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
		Requests: []resourcev1.DeviceRequest{{Name: "a", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu"}}},
	}}}
	if errs := validateCreate(nil, claim); len(errs) != 0 {
		t.Errorf("a claim without an allocation mode (defaulted): %v", errs)
	}
	if claim.Spec.Devices.Requests[0].Exactly.AllocationMode != "" {
		t.Errorf("validation defaulted the object itself")
	}
}

// TestTruncateKey checks the shortening of long map keys in field paths
// (upstream's truncateIfTooLong).
func TestTruncateKey(t *testing.T) {
	for _, tc := range []struct {
		key   string
		limit int
		want  string
	}{
		{"short", 63, "short"},
		{"abcdefghijklmnopqrstuvwxyz", 10, "abcdefg...uvwxyz"},
		{"abcdefghijklmnopqrstuvwxyz", 20, "abcdefghi...stuvwxyz"},
	} {
		if got := truncateKey(tc.key, tc.limit); got != tc.want {
			t.Errorf("truncateKey(%q, %d) = %q, want %q", tc.key, tc.limit, got, tc.want)
		}
	}
}

// TestStatusValidationChecksOnlyStatusRules checks that a write to /status
// is held to the status rules (a DeviceTaintRule's conditions) and not to
// the rules of the rest of the object.
func TestStatusValidationChecksOnlyStatusRules(t *testing.T) {
	ctx := context.Background()
	old := &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "r"}}
	for _, tc := range []struct {
		name       string
		conditions int
		want       []string
	}{
		{name: "within the limit", conditions: 0},
		{name: "too many conditions", conditions: resourcev1.DeviceTaintRuleStatusMaxConditions + 1, want: []string{"status.conditions"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rule := old.DeepCopy()
			rule.Spec.Taint.Effect = "Bad" // not a status rule
			for i := range tc.conditions {
				rule.Status.Conditions = append(rule.Status.Conditions, metav1.Condition{
					Type: fmt.Sprintf("T%d", i), Status: metav1.ConditionTrue, Reason: "R", LastTransitionTime: metav1.Now(),
				})
			}
			var got []string
			for _, e := range (StatusValidation{}).ValidateStatusUpdate(ctx, rule, old) {
				got = append(got, e.Field)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("error fields %v, want %v", got, tc.want)
			}
		})
	}
}

// TestResourceCELSelectorCompilation checks the field errors of a device
// selector's expression by kind (an Invalid compilation error, a Forbidden
// cost, a TooLong length) and that a stored expression is not compiled.
func TestResourceCELSelectorCompilation(t *testing.T) {
	fld := field.NewPath("spec", "selectors").Index(0).Child("cel", "expression")
	for _, tc := range []struct {
		name, expression string
		stored           bool
		want             field.ErrorType
	}{
		{name: "valid", expression: `device.driver == "a"`},
		{name: "unknown result", expression: `device.attributes["a"].b`},
		{name: "undeclared reference", expression: `nosuch`, want: field.ErrorTypeInvalid},
		{name: "undeclared reference stored", expression: `nosuch`, stored: true},
		{name: "too costly", expression: `device.attributes["a"].all(p, device.attributes["b"].all(q, device.attributes["c"].all(r, device.attributes["d"].all(s, p == s))))`, want: field.ErrorTypeForbidden},
		{name: "too long", expression: strings.Repeat(" ", resourcev1.CELSelectorExpressionMaxLength) + "true", want: field.ErrorTypeTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := validateCELSelector(tc.expression, fld, tc.stored)
			switch {
			case tc.want == "" && len(errs) != 0:
				t.Errorf("errors %v", errs)
			case tc.want != "" && (len(errs) != 1 || errs[0].Type != tc.want || errs[0].Field != fld.String()):
				t.Errorf("errors %v, want one %s at %s", errs, tc.want, fld)
			}
		})
	}
}
