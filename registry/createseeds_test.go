package registry

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newPrivateRegistry is a registry over a fresh store, with a memo of its
// own creates of its own.
func newPrivateRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := New(Config{Store: newTestStore(t), PrivateCreateMemo: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// seedDocs are documents of the server's own creates, of several kinds.
var seedDocs = [][]byte{
	[]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`),
	[]byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"seeded-reader","labels":{"kubernetes.io/bootstrapping":"rbac-defaults"}},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}`),
	[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"seeded","namespace":"default"},"data":{"a":"1"}}`),
	[]byte(`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"seeded-priority"},"value":1000}`),
}

// storedMasked returns the stored JSON of every object r's creates of docs
// stored, with their uids and times masked.
func storedMasked(t *testing.T, r *Registry, docs [][]byte) []string {
	t.Helper()
	stamps := regexp.MustCompile(`"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"`)
	var out []string
	for _, d := range docs {
		c, o, err := r.decodeInternal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.store.Get(c.Res.Bucket, ObjectKey(c.Namespace, o.Meta.GetName()))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		var m struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(got.Value, &m); err != nil {
			t.Fatal(err)
		}
		masked := bytes.ReplaceAll(got.Value, []byte(m.Metadata.UID), []byte("UID"))
		out = append(out, string(stamps.ReplaceAll(masked, []byte(`"TIME"`))))
	}
	return out
}

// TestCreateSeedsStandForTheirDocuments checks that the seeds one registry
// records, given to another with a memo of its own, fill its memo without
// a create (the object, validated, and its encoding), and that its creates
// from them store what the first registry's stored.
func TestCreateSeedsStandForTheirDocuments(t *testing.T) {
	computed := newPrivateRegistry(t)
	if err := computed.CreateAll(seedDocs, nil); err != nil {
		t.Fatal(err)
	}
	file, left, err := computed.RecordCreateSeeds(seedDocs)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Fatalf("documents left out: %s", left)
	}
	seeds, err := ParseCreateSeeds(file)
	if err != nil {
		t.Fatal(err)
	}
	if seeds.Len() != len(seedDocs) {
		t.Fatalf("%d seeds, want %d", seeds.Len(), len(seedDocs))
	}

	// Decoded through seeds, the memo holds what only a create would
	// have put there had the documents been decoded.
	warmed := newPrivateRegistry(t)
	for _, d := range seedDocs {
		if _, _, err := warmed.decodeCreate(d, seeds); err != nil {
			t.Fatal(err)
		}
		e := warmed.creates.lookup(d)
		if e == nil || e.obj == nil || !e.validated.Load() || e.encoding.Load() == nil {
			t.Fatalf("%s: not filled from its seed", d)
		}
	}

	seeded := newPrivateRegistry(t)
	if err := seeded.CreateAll(seedDocs, &Precomputed{Seeds: seeds}); err != nil {
		t.Fatal(err)
	}
	want, got := storedMasked(t, computed, seedDocs), storedMasked(t, seeded, seedDocs)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("created from its seed\n%s\ncreated from its document\n%s", got[i], want[i])
		}
	}
	// The seeded registry's memo records the same seeds.
	again, _, err := seeded.RecordCreateSeeds(seedDocs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, file) {
		t.Error("the seeded memo records other seeds than the ones it was given")
	}
}

// TestCreateSeedsLeaveOutWhatProtobufChanges checks that a document whose
// object protobuf cannot carry (an empty list, which decodes back as nil)
// gets no seed, and one whose memo has no encoding yet gets none either.
func TestCreateSeedsLeaveOutWhatProtobufChanges(t *testing.T) {
	emptyRules := []byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"seeded-empty"},"rules":[]}`)
	notCreated := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"seeded-not-created"}}`)
	r := newPrivateRegistry(t)
	if err := r.CreateAll([][]byte{emptyRules}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.decodeCreate(notCreated, nil); err != nil { // decoded, never created
		t.Fatal(err)
	}
	file, left, err := r.RecordCreateSeeds([][]byte{emptyRules, notCreated, []byte(`{"unknown":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 3 {
		t.Errorf("left out %d documents, want 3", len(left))
	}
	if string(file) != createSeedsHeader {
		t.Errorf("file %q, want the header alone", file)
	}
}

// TestParseCreateSeedsRefusesBrokenFiles checks what ParseCreateSeeds
// refuses: another format, a truncated record, offsets outside the JSON.
func TestParseCreateSeedsRefusesBrokenFiles(t *testing.T) {
	computed := newPrivateRegistry(t)
	if err := computed.CreateAll(seedDocs[:1], nil); err != nil {
		t.Fatal(err)
	}
	file, _, err := computed.RecordCreateSeeds(seedDocs[:1])
	if err != nil {
		t.Fatal(err)
	}
	seed := computed.creates.lookup(seedDocs[0]).encoding.Load()
	outside := append([]byte(createSeedsHeader), make([]byte, 32)...)
	for _, f := range []string{"v1", "Namespace", "x", "x", "{}"} {
		outside = append(append(outside, byte(len(f))), f...)
	}
	outside = append(outside, 5, 0) // a uid at 5 in a JSON of 2 bytes, no times

	for _, tt := range []struct {
		name, file, want string
	}{
		{"another format", "fakeplane create seeds v0\n", "not a file of this version"},
		{"no header", string(file[len(createSeedsHeader):]), "not a file of this version"},
		{"truncated in the sum", string(file[:len(createSeedsHeader)+10]), "truncated"},
		{"truncated in the JSON", string(file[:len(file)-len(seed.timeAt)-10]), "truncated"},
		{"uid outside the JSON", string(outside), "outside its JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCreateSeeds([]byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseCreateSeeds: %v, want an error with %q", err, tt.want)
			}
		})
	}
	if s, err := ParseCreateSeeds([]byte(createSeedsHeader)); err != nil || s.Len() != 0 {
		t.Errorf("a file of no seeds: %v, %d seeds", err, s.Len())
	}
}
