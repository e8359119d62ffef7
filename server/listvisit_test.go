package server

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestJSONListItemByItemIsWriteListJSON checks that a JSON list assembled
// item by item (appendListItem, then the head put in front with
// prependHead) is byte for byte what writeListJSON writes, with and
// without a continue token and remaining count, for heads that fit the
// room kept for them and one that does not.
func TestJSONListItemByItemIsWriteListJSON(t *testing.T) {
	n := int64(7)
	items := [][]byte{
		[]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}`),
		[]byte(`{"kind":"ConfigMap","apiVersion":"v1"}`),
		[]byte(`{"metadata":{"name":"c"}}`),
	}
	tests := []struct {
		name  string
		lm    metav1.ListMeta
		items [][]byte
		typed bool
	}{
		{name: "empty", lm: metav1.ListMeta{ResourceVersion: "5"}},
		{name: "typed items", lm: metav1.ListMeta{ResourceVersion: "5"}, items: items, typed: true},
		{name: "untyped items", lm: metav1.ListMeta{ResourceVersion: "5"}, items: items},
		{name: "continue", lm: metav1.ListMeta{ResourceVersion: "9", Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", RemainingItemCount: &n}, items: items, typed: true},
		{name: "head longer than its room", lm: metav1.ListMeta{ResourceVersion: "9", Continue: strings.Repeat("x", 2*listHeadRoom)}, items: items, typed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want bytes.Buffer
			writeListJSON(&want, "v1", "ConfigMapList", tt.lm, tt.items, tt.typed)
			body := make([]byte, listHeadRoom)
			for i, it := range tt.items {
				body = appendListItem(body, i, it, tt.typed)
			}
			body = append(body, "]}"...)
			got := prependHead(body, appendListHead(nil, "v1", "ConfigMapList", &tt.lm))
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("item by item:\n%s\nwriteListJSON:\n%s", got, want.Bytes())
			}
		})
	}
}
