package server

import (
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// upstreamApplyParse is what upstream's patch handler and apply patcher
// make of an apply body, each with its own YAML parse: the check that it
// converts to JSON, the decoded patch and the strict decoding's error.
func upstreamApplyParse(body []byte) (checkErr error, obj map[string]any, decodeErr, strictErr error) {
	if _, err := yaml.YAMLToJSON(body); err != nil {
		return err, nil, nil, nil
	}
	obj = map[string]any{}
	if err := utilyaml.Unmarshal(body, &obj); err != nil {
		return nil, nil, fmt.Errorf("error decoding patch: %v", err), nil
	}
	return nil, obj, nil, yaml.UnmarshalStrict(body, &map[string]any{})
}

// checkApplyParse compares parseApplyPatch with upstreamApplyParse on body
// and reports whether the body took the plain JSON path.
func checkApplyParse(t *testing.T, body []byte) (plain bool) {
	t.Helper()
	wantCheck, wantObj, wantDecode, wantStrict := upstreamApplyParse(body)
	p, err := parseApplyPatch(body)
	if fmt.Sprint(err) != fmt.Sprint(wantCheck) {
		t.Fatalf("body %q: parse error %v, upstream %v", body, err, wantCheck)
	}
	if err != nil {
		return false
	}
	for attempt := range 2 { // a retried write decodes the patch again
		got, err := p.object()
		var gotObj map[string]any
		if got != nil {
			gotObj = got.Object
		}
		if fmt.Sprint(err) != fmt.Sprint(wantDecode) {
			t.Fatalf("body %q (attempt %d): decode error %v, upstream %v", body, attempt, err, wantDecode)
		}
		if err == nil && !reflect.DeepEqual(gotObj, wantObj) {
			t.Fatalf("body %q (attempt %d):\n got %#v\nwant %#v", body, attempt, gotObj, wantObj)
		}
	}
	if wantDecode == nil && fmt.Sprint(p.strictErr) != fmt.Sprint(wantStrict) {
		t.Fatalf("body %q: strict error %v, upstream %v", body, p.strictErr, wantStrict)
	}
	return p.plain != nil
}

// TestApplyPatchParsesAsUpstream checks parseApplyPatch against upstream's
// three parses on bodies that differ between YAML and JSON, or that upstream
// refuses, and on random JSON documents.
func TestApplyPatchParsesAsUpstream(t *testing.T) {
	long := strings.Repeat("k", 1100)
	for _, tc := range []struct {
		body  string
		plain bool // parsed without YAML
	}{
		{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"a":"b"}},"data":{"i":"1"}}`, true},
		{"{\n  \"a\": {\"b\": [1, -2, 0, true, false, null, \"x\"]},\n  \"c\": []\n}\n", true},
		{`{"n":123456789012345678}`, true},
		{`{"n":1234567890123456789}`, false},
		{`{"n":123456789012345678901234567890}`, false},
		{`{"n":1.0}`, false},
		{`{"n":1.5}`, false},
		{`{"n":1e3}`, false},
		{`{"n":-0}`, true},
		{`{"s":"a\/b"}`, false},
		{`{"s":"\u00e9\ud83d\ude00"}`, false},
		{`{"s":"é"}`, false},
		{`{"s":"a\"b\\c\n\t\r\b\f"}`, true},
		{`{"s":"` + "\x7f" + `"}`, false},
		{`{"a":1,"a":2}`, false},
		{`{"a":{"b":1,"b":2}}`, false},
		{`{"` + long + `":1}`, false},
		{`{"v":"` + long + `"}`, true},
		{"{\"a\"\n:1}", false},
		{"{\"a\"   :1}", true},
		{"\t{\"a\":1}", false},
		{"{\"a\":\t1}", false},
		{"{\"a\":1}\r\n", true},
		{`{"<<":{"a":1}}`, true},
		{`{"a":"yes","b":"on","c":"~","d":"1"}`, true},
		{`[1,2]`, false},
		{`"x"`, false},
		{`null`, false},
		{``, false},
		{`{`, false},
		{`{"a":}`, false},
		{`{"a":1}{"b":2}`, false},
		{`{"a":1} x`, false},
		{"a: 1\nb: [1, 2]\n", false},
		{"a: 1\na: 2\n", false},
		{"a: 1.0\nb: 0x10\nc: yes\nd: .nan\n", false},
		{"a: [unclosed\n", false},
		{"- 1\n- 2\n", false},
		{"---\n", false},
		{"{1: 2}", false},
		{"{[1]: 2}", false},
		{strings.Repeat("[", 200) + strings.Repeat("]", 200), false},
		{`{"a":` + strings.Repeat("[", 150) + strings.Repeat("]", 150) + `}`, false},
	} {
		if got := checkApplyParse(t, []byte(tc.body)); got != tc.plain {
			t.Errorf("body %.60q: parsed as plain JSON %v, want %v", tc.body, got, tc.plain)
		}
	}

	rng := rand.New(rand.NewSource(1))
	plain := 0
	const n = 3000
	for range n {
		if checkApplyParse(t, []byte(randomJSONObject(rng))) {
			plain++
		}
	}
	if plain < n/10 || plain == n {
		t.Errorf("%d of %d random documents took the plain JSON path: the test does not exercise both", plain, n)
	}
}

// randomJSONObject writes a JSON object of random shape, spacing, keys and
// values, with now and then what YAML reads differently.
func randomJSONObject(rng *rand.Rand) string {
	var b strings.Builder
	writeRandomJSON(rng, &b, 0, true)
	return b.String()
}

func writeRandomJSON(rng *rand.Rand, b *strings.Builder, depth int, object bool) {
	space := func() {
		switch rng.Intn(12) {
		case 0:
			b.WriteString(" ")
		case 1:
			b.WriteString("\n  ")
		case 2:
			if rng.Intn(10) == 0 {
				b.WriteString("\t")
			}
		}
	}
	if !object {
		switch k := rng.Intn(10); {
		case depth < 4 && k == 0:
			object = true
		case depth < 4 && k == 1:
			b.WriteString("[")
			for i := range rng.Intn(4) {
				if i > 0 {
					b.WriteString(",")
				}
				space()
				writeRandomJSON(rng, b, depth+1, false)
			}
			b.WriteString("]")
			return
		case k < 5:
			b.WriteString(randomJSONString(rng))
			return
		case k < 8:
			b.WriteString(randomJSONNumber(rng))
			return
		default:
			b.WriteString([]string{"true", "false", "null"}[rng.Intn(3)])
			return
		}
	}
	b.WriteString("{")
	keys := []string{}
	for i := range rng.Intn(5) {
		if i > 0 {
			b.WriteString(",")
		}
		space()
		key := randomJSONString(rng)
		if len(keys) > 0 && rng.Intn(15) == 0 {
			key = keys[0] // a duplicate
		}
		keys = append(keys, key)
		b.WriteString(key)
		if rng.Intn(30) == 0 {
			b.WriteString("\n")
		}
		b.WriteString(":")
		space()
		writeRandomJSON(rng, b, depth+1, false)
	}
	space()
	b.WriteString("}")
}

func randomJSONString(rng *rand.Rand) string {
	pieces := []string{"a", "b", "name", " ", "-", "#", ": ", "yes", "1", `\"`, `\\`, `\n`, `\t`, "~", "<<", "&x", "*x", "!t", "%", "@", "`"}
	rare := []string{`\/`, `\u0041`, `\ud83d\ude00`, "é", "\x7f", strings.Repeat("k", 1030)}
	var b strings.Builder
	b.WriteString(`"`)
	for range rng.Intn(6) {
		if rng.Intn(40) == 0 {
			b.WriteString(rare[rng.Intn(len(rare))])
		} else {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
	}
	b.WriteString(`"`)
	return b.String()
}

func randomJSONNumber(rng *rand.Rand) string {
	switch rng.Intn(10) {
	case 0:
		return "1.0"
	case 1:
		return strconv.FormatFloat(rng.NormFloat64()*1e6, 'g', -1, 64)
	case 2:
		return "12345678901234567890123"
	case 3:
		return "-0"
	}
	return strconv.FormatInt(rng.Int63n(1<<40)-(1<<39), 10)
}

// FuzzApplyPatchParse compares parseApplyPatch with upstream's parses on
// arbitrary bodies.
func FuzzApplyPatchParse(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"\/"}`, "a: 1\n", `{"a":1,"a":2}`, `{"n":1.0}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkApplyParse(t, body)
	})
}
