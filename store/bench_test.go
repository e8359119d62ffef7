package store

import (
	"fmt"
	"testing"
)

var benchValue = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"default"},"data":{"k":"v"}}`)

func BenchmarkUpdate(b *testing.B) {
	s := openTest(b, Options{})
	fn := func(*Object) (Write, error) { return Write{Value: benchValue}, nil }
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, err := s.Update("core/configmaps", fmt.Sprintf("default/cm-%d", i%1000), fn); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	s := openTest(b, Options{})
	for i := range 1000 {
		mustPut(b, s, "core/configmaps", fmt.Sprintf("default/cm-%d", i), string(benchValue))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Get("core/configmaps", fmt.Sprintf("default/cm-%d", i%1000)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkList10k(b *testing.B) {
	s := openTest(b, Options{})
	for i := range 10000 {
		mustPut(b, s, "core/configmaps", fmt.Sprintf("default/cm-%05d", i), string(benchValue))
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := s.List("core/configmaps", ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Items) != 10000 {
			b.Fatalf("listed %d", len(l.Items))
		}
	}
}

// BenchmarkListPaging pages through 10,000 objects 100 at a time, as a
// client following continue tokens does: the first page reads the current
// state, the others the state at its revision, after the previous page's
// last key. Each page reports the number of remaining items.
func BenchmarkListPaging(b *testing.B) {
	s := openTest(b, Options{})
	const n, limit = 10000, 100
	for i := range n {
		mustPut(b, s, "core/configmaps", fmt.Sprintf("default/cm-%05d", i), string(benchValue))
	}
	b.ReportAllocs()
	for b.Loop() {
		opts := ListOptions{Limit: limit}
		listed := 0
		for {
			l, err := s.List("core/configmaps", opts)
			if err != nil {
				b.Fatal(err)
			}
			listed += len(l.Items)
			if !l.More {
				break
			}
			if want := int64(n - listed); l.Remaining != want {
				b.Fatalf("Remaining = %d after %d items, want %d", l.Remaining, listed, want)
			}
			opts.Revision, opts.StartAfter = l.Revision, l.Items[len(l.Items)-1].Key
		}
		if listed != n {
			b.Fatalf("listed %d", listed)
		}
	}
}

// BenchmarkListPagingAtOldRevision pages through 10,000 objects 100 at a
// time at a revision since which every object was overwritten and 1,000
// were deleted, so every item comes from the history.
func BenchmarkListPagingAtOldRevision(b *testing.B) {
	s := openTest(b, Options{})
	const n, limit = 10000, 100
	for i := range n {
		mustPut(b, s, "core/configmaps", fmt.Sprintf("default/cm-%05d", i), string(benchValue))
	}
	at := s.CurrentRevision()
	for i := range n {
		mustPut(b, s, "core/configmaps", fmt.Sprintf("default/cm-%05d", i), string(benchValue))
		if i%10 == 0 {
			mustDelete(b, s, "core/configmaps", fmt.Sprintf("default/cm-%05d", i))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		opts := ListOptions{Limit: limit, Revision: at}
		listed := 0
		for {
			l, err := s.List("core/configmaps", opts)
			if err != nil {
				b.Fatal(err)
			}
			listed += len(l.Items)
			if !l.More {
				break
			}
			opts.StartAfter = l.Items[len(l.Items)-1].Key
		}
		if listed != n {
			b.Fatalf("listed %d", listed)
		}
	}
}

// BenchmarkCreateIndexed creates objects with and without the index (with
// one term each, as a ConfigMap with one label, and with four, as a pod of
// a Deployment, given by the writer as the server gives them): the index's
// cost on the write path.
func BenchmarkCreateIndexed(b *testing.B) {
	one := []string{"l:app=bench"}
	four := []string{"l:app=bench", "l:env=test", "l:pod-template-hash=5d8f7c9b4", "l:tier=web"}
	for _, tc := range []struct {
		name  string
		index bool
		terms []string
	}{{"no index", false, one}, {"index", true, one}, {"index 4 terms", true, four}} {
		b.Run(tc.name, func(b *testing.B) {
			var opts Options
			if tc.index {
				opts.IndexTerms = func(string, []byte) []string { return tc.terms }
			}
			s := openTest(b, opts)
			fn := func(*Object) (Write, error) {
				return Write{Value: benchValue, Index: tc.terms}, nil
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, _, err := s.Update("core/configmaps", fmt.Sprintf("default/cm-%07d", i), fn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
