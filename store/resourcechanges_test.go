package store

import (
	"errors"
	"testing"
)

// TestResourceChangesCountsWhatChangesAResource checks that the count of a
// resource moves with each write to it that commits (in a Bulk call too)
// and with DeleteResource, and with nothing else: a write to another
// resource, an unchanged write, a failed one.
func TestResourceChangesCountsWhatChangesAResource(t *testing.T) {
	s := openTest(t, Options{})
	failed := errors.New("refused")
	steps := []struct {
		name string
		do   func() error
		want int64 // the count of "r" after the step
	}{
		{"create", func() error { _, _, err := s.Update("r", "ns/a", set("1")); return err }, 1},
		{"update", func() error { _, _, err := s.Update("r", "ns/a", set("2")); return err }, 2},
		{"write to another resource", func() error { _, _, err := s.Update("other", "ns/a", set("1")); return err }, 2},
		{"unchanged", func() error {
			_, _, err := s.Update("r", "ns/a", func(*Object) (Write, error) { return Write{}, ErrUnchanged })
			return err
		}, 2},
		{"refused by its UpdateFunc", func() error {
			_, _, err := s.Update("r", "ns/a", func(*Object) (Write, error) { return Write{}, failed })
			if errors.Is(err, failed) {
				return nil
			}
			return err
		}, 2},
		{"delete", func() error { _, _, err := s.Update("r", "ns/a", remove("2")); return err }, 3},
		{"two writes in a Bulk call", func() error {
			return s.Bulk(func() error {
				if _, _, err := s.Update("r", "ns/b", set("1")); err != nil {
					return err
				}
				_, _, err := s.Update("r", "ns/c", set("1"))
				return err
			})
		}, 5},
		{"DeleteResource", func() error { return s.DeleteResource("r") }, 6},
	}
	if got := s.ResourceChanges("r"); got != 0 {
		t.Fatalf("count of a resource never written: %d", got)
	}
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got := s.ResourceChanges("r"); got != step.want {
			t.Fatalf("after %s: count %d, want %d", step.name, got, step.want)
		}
	}
	if got := s.ResourceChanges("other"); got != 1 {
		t.Fatalf("count of the other resource: %d, want 1", got)
	}
}
