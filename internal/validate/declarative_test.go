package validate

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// TestWithDeclarative checks the merge of handwritten and declarative
// errors: a covered handwritten error that an enforced declarative one
// matches (type, origin, field) gives way to it, at the end; one that none
// matches stays, as do the uncovered ones; alpha declarative errors are
// not answered.
func TestWithDeclarative(t *testing.T) {
	a, b := field.NewPath("a"), field.NewPath("b")
	handwritten := field.ErrorList{
		field.Required(a, "handwritten detail").MarkCoveredByDeclarative(),
		field.Invalid(b, "x", "uncovered"),
		field.Invalid(b, "y", "covered, unmatched").WithOrigin("format").MarkCoveredByDeclarative(),
	}
	declarative := field.ErrorList{
		field.Required(a, "").MarkBeta(),
		field.Forbidden(b, "").MarkAlpha(),
	}
	validatetest.ExpectErrors(t, WithDeclarative(context.Background(), handwritten, declarative), []string{
		`b: Invalid value: "x": uncovered`,
		`b: Invalid value: "y": covered, unmatched`,
		"a: Required value",
	})
}

// TestUnchanged checks the ratcheting of declarative rules: only an
// update's semantically equal values are skipped.
func TestUnchanged(t *testing.T) {
	one, other := "a", "a"
	var none *string
	for _, tc := range []struct {
		name     string
		update   bool
		obj, old *string
		want     bool
	}{
		{name: "a create", obj: &one, old: &other},
		{name: "an equal value", update: true, obj: &one, old: &other, want: true},
		{name: "two nils", update: true, obj: none, old: none, want: true},
		{name: "a new value", update: true, obj: &one, old: none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unchanged(Operation(tc.update), tc.obj, tc.old); got != tc.want {
				t.Errorf("Unchanged %v, want %v", got, tc.want)
			}
		})
	}
}
