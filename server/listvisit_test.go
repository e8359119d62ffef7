package server

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/registry"
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

// TestProtobufWatchFrameMsgIsTheFrameOfTheEnvelope checks that a watch
// frame written in one buffer is byte for byte the frame of the object's
// envelope, for small and large messages (longer length varints).
func TestProtobufWatchFrameMsgIsTheFrameOfTheEnvelope(t *testing.T) {
	for _, tc := range []struct {
		typ, apiVersion, kind string
		size                  int
	}{
		{"ADDED", "v1", "ConfigMap", 10},
		{"MODIFIED", "apps/v1", "Deployment", 200},
		{"DELETED", "v1", "Pod", 70000},
		{"ADDED", "v1", "ConfigMap", 0},
	} {
		msg := bytes.Repeat([]byte{0x0a}, tc.size)
		env, err := registry.ProtobufEnvelope(tc.apiVersion, tc.kind, msg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := registry.ProtobufWatchFrame(tc.typ, env)
		if err != nil {
			t.Fatal(err)
		}
		got, err := protobufWatchFrameMsg(tc.typ, tc.apiVersion, tc.kind, msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s %s %d bytes: got %x, want %x", tc.typ, tc.kind, tc.size, got[:min(len(got), 64)], want[:min(len(want), 64)])
		}
	}
}
