package server

import (
	"testing"

	"github.com/fakeplane/fakeplane/internal/validate"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestDedupErrors(t *testing.T) {
	a := field.Invalid(field.NewPath("metadata", "labels"), "x y", "bad")
	b := field.Required(field.NewPath("spec", "x"), "")
	got := validate.Dedup(field.ErrorList{a, b, a, b})
	if len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("dedupErrors kept %v", got)
	}
}
