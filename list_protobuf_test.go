package fakeplane_test

import (
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestProtobufListOfObjectsNotReadYet lists, in protobuf, objects whose
// messages the server has not encoded for a read yet (a write's message is
// kept only for the latest writes): more than one core encodes at once,
// the latest writes' messages come from those writes, and the list is the
// JSON list's, in order, the first time as the next.
func TestProtobufListOfObjectsNotReadYet(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	js := clientset(t, cp)
	pb := protobufClientset(t, cp)
	// Enough objects for the encoding to use every core of a 2-core
	// machine, more than the writes whose messages are kept.
	const n = 700
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Labels: map[string]string{"i": strconv.Itoa(i)}}, Data: map[string]string{"k": strconv.Itoa(i)}}
		if _, err := pb.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// One object read first: the list starts with messages it has, then
	// meets those it has not.
	if _, err := pb.CoreV1().ConfigMaps("default").Get(ctx, "cm-0000", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	want, err := js.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, round := range []string{"first", "second"} {
		got, err := pb.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("%s protobuf list: %v", round, err)
		}
		if len(got.Items) != len(want.Items) || len(got.Items) < n {
			t.Fatalf("%s protobuf list: %d items, JSON %d", round, len(got.Items), len(want.Items))
		}
		for i := range got.Items {
			if !apiequality.Semantic.DeepEqual(got.Items[i], want.Items[i]) {
				t.Fatalf("%s protobuf list, item %d: %s, JSON %s", round, i, got.Items[i].Name, want.Items[i].Name)
			}
		}
	}
}
