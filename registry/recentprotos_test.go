package registry

import (
	"bytes"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEncCacheKeepsAProtoOnceRead checks where an object's protobuf message
// comes from and whether the cache keeps it: a write's message is served
// to its watches and to the next read without decoding the stored JSON,
// but only a read (list, get) fills the cache; a watch never does.
func TestEncCacheKeepsAProtoOnceRead(t *testing.T) {
	tests := []struct {
		name string
		// written: the object's write put its message (putProto); the
		// fixture's message differs from the stored JSON's, so that it
		// shows which was served.
		written bool
		// read: ProtoOf (a list or a get), else WatchProtoOf.
		read       bool
		wantWrites bool // the write's message was served
		wantCached bool
	}{
		{name: "a watch sends the write's message and keeps nothing", written: true, wantWrites: true},
		{name: "a read takes the write's message and keeps it", written: true, read: true, wantWrites: true, wantCached: true},
		{name: "a watch of an object written elsewhere encodes it once and keeps nothing"},
		{name: "a read of an object written elsewhere encodes it and keeps it", read: true, wantCached: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newEncCacheFixture(t)
			o := f.put("default/a")
			written := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", Labels: map[string]string{"from": "write"}}}
			var want []byte
			if tt.written {
				want = f.ec.putProto(f.res, o.Key, o.Revision, written)
			}
			if f.cachedRev(o.Key) != 0 {
				t.Fatal("a write filled the cache")
			}
			get := f.ec.WatchProtoOf
			if tt.read {
				get = f.ec.ProtoOf
			}
			var first []byte
			for range 2 {
				p, err := get(f.res, o.Key, o.Revision, o.Value)
				if err != nil {
					t.Fatal(err)
				}
				if fromWrite := bytes.Contains(p, []byte("write")); fromWrite != tt.wantWrites || tt.wantWrites && !bytes.Equal(p, want) {
					t.Errorf("served the write's message: %v, want %v", fromWrite, tt.wantWrites)
				}
				// The second call is served what the first encoded (the
				// cache's, or recentProtos' for a watch), not encoded again.
				if first != nil && &p[0] != &first[0] {
					t.Error("encoded again for the second call")
				}
				first = p
			}
			if cached := f.cachedRev(o.Key) == o.Revision; cached != tt.wantCached {
				t.Errorf("cached: %v, want %v", cached, tt.wantCached)
			}
		})
	}
}

// TestRecentProtosAreBounded checks that recentProtos keeps the latest
// maxRecentProtos messages, at most maxRecentProtoSize bytes each.
func TestRecentProtosAreBounded(t *testing.T) {
	var rp recentProtos
	key := func(i int) protoKey {
		return protoKey{bucket: "/configmaps", key: fmt.Sprintf("default/%d", i), apiVersion: "v1", rev: int64(i + 1)}
	}
	for i := range maxRecentProtos + 10 {
		rp.put(key(i), []byte(fmt.Sprint(i)))
	}
	if len(rp.m) != maxRecentProtos {
		t.Errorf("holds %d messages, want %d", len(rp.m), maxRecentProtos)
	}
	if rp.get(key(9)) != nil {
		t.Error("holds an evicted message")
	}
	if got, want := string(rp.get(key(maxRecentProtos+9))), fmt.Sprint(maxRecentProtos+9); got != want {
		t.Errorf("the latest message: %q, want %q", got, want)
	}
	rp.put(key(-1), make([]byte, maxRecentProtoSize+1))
	if rp.get(key(-1)) != nil {
		t.Error("holds a message over maxRecentProtoSize")
	}
}
