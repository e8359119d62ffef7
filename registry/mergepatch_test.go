package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// decodeAny decodes JSON keeping numbers as written.
func decodeAny(t testing.TB, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s does not decode: %v", data, err)
	}
	return v
}

// checkAsJSONPatch fails t unless ApplyMergePatch either declines doc and
// patch or gives what json-patch's MergePatch gives, decoded.
func checkAsJSONPatch(t testing.TB, doc, patch string) (handled bool) {
	t.Helper()
	got, ok := ApplyMergePatch([]byte(doc), []byte(patch))
	want, err := jsonpatch.MergePatch([]byte(doc), []byte(patch))
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("ApplyMergePatch(%s, %s) = %s, json-patch fails: %v", doc, patch, got, err)
	}
	if g, w := decodeAny(t, got), decodeAny(t, want); !reflect.DeepEqual(g, w) {
		t.Fatalf("ApplyMergePatch(%s, %s) = %s, json-patch gives %s", doc, patch, got, want)
	}
	return true
}

func TestApplyMergePatchMatchesJSONPatch(t *testing.T) {
	for _, tc := range []struct {
		name, doc, patch string
		declined         bool
	}{
		{name: "replaces a key", doc: `{"a":"1","b":{"c":2}}`, patch: `{"a":"2"}`},
		{name: "adds a key after the others", doc: `{"a":1}`, patch: `{"z":{"y":1}}`},
		{name: "deletes a key with null", doc: `{"a":1,"b":2}`, patch: `{"a":null}`},
		{name: "null for an absent key adds nothing", doc: `{"a":1}`, patch: `{"x":null}`},
		{name: "merges nested objects", doc: `{"m":{"a":1,"b":{"c":1,"d":2}}}`, patch: `{"m":{"b":{"d":null,"e":[1]}}}`},
		{name: "drops nulls inside an added object", doc: `{}`, patch: `{"a":{"b":null,"c":{"d":null,"e":1}}}`},
		{name: "keeps nulls that are array elements", doc: `{}`, patch: `{"a":[null,{"b":null},[{"c":null}]]}`},
		{name: "an array replaces an object as written", doc: `{"a":{"x":1}}`, patch: `{"a":[{"b":null}]}`},
		{name: "an object replaces a string without its nulls", doc: `{"a":"s"}`, patch: `{"a":{"b":null,"c":1}}`},
		{name: "a value replaces null", doc: `{"a":null}`, patch: `{"a":{"b":null}}`},
		{name: "an empty patch", doc: `{"a":1}`, patch: `{}`},
		{name: "an empty document", doc: `{}`, patch: `{"a":1}`},
		{name: "spaces in both", doc: " {\"a\" : { \"b\" : 1 } , \"c\":[ 1 , 2 ] } ", patch: " { \"a\" : { \"d\" : null , \"e\" : \"x y\" } , \"c\" : null } "},
		{name: "strings holding quotes, braces and null", doc: `{"a":"x\"}{null"}`, patch: `{"b":"null","a":"q\\\"null"}`},
		{name: "numbers as written", doc: `{"a":1.50}`, patch: `{"b":12345678901234567890,"c":1e3}`},
		{name: "a patch that is not an object", doc: `{"a":1}`, patch: `[{"a":null}]`, declined: true},
		{name: "a patch key given twice", doc: `{"a":1}`, patch: `{"a":2,"a":3}`, declined: true},
		{name: "a nested patch key given twice", doc: `{}`, patch: `{"a":{"b":null,"b":1}}`, declined: true},
		{name: "a patch key with an escape", doc: `{"ab":1}`, patch: `{"a\u0062":null}`, declined: true},
		{name: "a document key with an escape", doc: `{"a\u003cb":1}`, patch: `{"a<b":null}`, declined: true},
		{name: "a non-ASCII key", doc: `{"é":1}`, patch: `{"é":2}`, declined: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if handled := checkAsJSONPatch(t, tc.doc, tc.patch); handled == tc.declined {
				t.Fatalf("handled = %v, want %v", handled, !tc.declined)
			}
		})
	}
}

// randomJSON writes a random JSON value of at most depth levels, with keys
// from a small set so that documents and patches share them.
func randomJSON(r *rand.Rand, b *strings.Builder, depth int) {
	kind := r.IntN(8)
	if depth == 0 {
		kind = r.IntN(4)
	}
	space := func() {
		if r.IntN(4) == 0 {
			b.WriteString(" \n"[:1+r.IntN(2)])
		}
	}
	switch kind {
	case 0:
		b.WriteString("null")
	case 1:
		fmt.Fprintf(b, "%d", r.IntN(100)-50)
	case 2:
		b.WriteString([]string{`"x"`, `"null"`, `"a\"b"`, `"{}"`, `""`, `true`, `false`, `1.5e2`}[r.IntN(8)])
	case 3:
		b.WriteString("null")
	case 4, 5, 6:
		b.WriteByte('{')
		n := r.IntN(4)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			fmt.Fprintf(b, `"%c":`, 'a'+r.IntN(4)+i*4) // distinct keys within one object
			space()
			randomJSON(r, b, depth-1)
		}
		b.WriteByte('}')
	default:
		b.WriteByte('[')
		n := r.IntN(3)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(r, b, depth-1)
			space()
		}
		b.WriteByte(']')
	}
}

// randomObject is randomJSON that is always an object.
func randomObject(r *rand.Rand) string {
	for {
		var b strings.Builder
		randomJSON(r, &b, 4)
		if s := b.String(); s[0] == '{' {
			return s
		}
	}
}

func TestApplyMergePatchMatchesJSONPatchOnRandomDocuments(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	handled := 0
	for range 20000 {
		doc, patch := randomObject(r), randomObject(r)
		if checkAsJSONPatch(t, doc, patch) {
			handled++
		}
	}
	if handled < 19000 {
		t.Fatalf("only %d of 20000 random patches handled", handled)
	}
}

func FuzzApplyMergePatch(f *testing.F) {
	f.Add(`{"a":{"b":1},"c":"d"}`, `{"a":{"b":null,"e":[null,{"f":null}]},"g":1}`)
	f.Add(`{"a":1}`, `{"a":{"b":null}}`)
	f.Add(`{}`, `{"a":[]}`)
	f.Fuzz(func(t *testing.T, doc, patch string) {
		if !json.Valid([]byte(doc)) || !json.Valid([]byte(patch)) {
			return
		}
		checkAsJSONPatch(t, doc, patch)
	})
}
