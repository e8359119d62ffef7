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

// BenchmarkCreateIndexed creates objects with and without the index (one
// term each, given by the writer as the server gives them): the index's
// cost on the write path.
func BenchmarkCreateIndexed(b *testing.B) {
	for _, tc := range []struct {
		name  string
		terms func(string, []byte) []string
	}{{"no index", nil}, {"index", func(string, []byte) []string { return []string{"l:app=bench"} }}} {
		b.Run(tc.name, func(b *testing.B) {
			s := openTest(b, Options{IndexTerms: tc.terms})
			fn := func(*Object) (Write, error) {
				return Write{Value: benchValue, Index: []string{"l:app=bench"}}, nil
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
