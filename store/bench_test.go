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
