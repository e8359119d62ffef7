package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	jsonutil "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// applyPatchBody is a server-side apply patch parsed once per request.
//
// Upstream reads the body three times, each a YAML parse: the patch
// handler checks that it converts to JSON (yaml.YAMLToJSON), the apply
// patcher decodes it (k8s.io/apimachinery's yaml.Unmarshal: YAML to JSON,
// then JSON with numbers kept as int64 or float64) and, unless
// fieldValidation is Ignore, decodes it again strictly to find duplicate
// fields (yaml.UnmarshalStrict). parseApplyPatch does one strict
// conversion, which gives the same JSON as the lenient one when it
// succeeds; only a body it refuses is converted leniently as well. A body
// that is plain JSON of the kind clients send, which YAML reads exactly as
// JSON does, is not converted at all.
type applyPatchBody struct {
	// json is the patch converted to JSON (nil for a plain JSON body).
	json []byte
	// plain is a body that is plain JSON, and decoded that body decoded
	// (nil once the first attempt of the write took it).
	plain   []byte
	decoded map[string]any
	// strictErr is what yaml.UnmarshalStrict reports (duplicate fields),
	// nil when it accepts the body.
	strictErr error
}

// parseApplyPatch parses an apply patch body. A body that is not YAML gets
// the error of yaml.YAMLToJSON, which callers word.
func parseApplyPatch(body []byte) (*applyPatchBody, error) {
	if m, ok := decodePlainJSON(body); ok {
		return &applyPatchBody{plain: body, decoded: m}, nil
	}
	j, err := yaml.YAMLToJSONStrict(body)
	if err == nil {
		return &applyPatchBody{json: j}, nil
	}
	// As yaml.UnmarshalStrict words it.
	strictErr := fmt.Errorf("error converting YAML to JSON: %w", err)
	if j, err = yaml.YAMLToJSON(body); err != nil {
		return nil, err
	}
	return &applyPatchBody{json: j, strictErr: strictErr}, nil
}

// object decodes the patch into a new object, as k8s.io/apimachinery's
// yaml.Unmarshal decodes it into a map, with upstream's 400 when it does
// not decode.
func (p *applyPatchBody) object() (*unstructured.Unstructured, error) {
	if p.plain != nil {
		// Each attempt of a write gets a patch of its own.
		m := p.decoded
		p.decoded = nil
		if m == nil {
			m, _ = decodePlainJSON(p.plain) // decoded before
		}
		return &unstructured.Unstructured{Object: m}, nil
	}
	patch := &unstructured.Unstructured{Object: map[string]any{}}
	// What sigs.k8s.io/yaml does with the JSON it converted: a decoder
	// with UseNumber decodes it into the map through an interface value.
	d := json.NewDecoder(bytes.NewReader(p.json))
	d.UseNumber()
	var target any = &patch.Object
	if err := d.Decode(&target); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: error unmarshaling JSON: while decoding JSON: %v", err))
	}
	if err := jsonutil.ConvertMapNumbers(patch.Object, 0); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	return patch, nil
}

// Limits of decodePlainJSON, well inside YAML's: a key must end within
// 1024 characters of its start to be read as a key, and nesting is limited
// to 10000 levels.
const (
	plainJSONMaxKey   = 512
	plainJSONMaxDepth = 100
	// plainJSONMaxDigits keeps every integer an int64 for YAML and JSON alike.
	plainJSONMaxDigits = 18
)

// decodePlainJSON decodes body when it is a JSON object that YAML reads
// exactly as JSON does, as sigs.k8s.io/json decodes it (integers as int64):
// printable ASCII, whitespace only spaces and line breaks, no key longer
// than plainJSONMaxKey or parted from its colon by a line break, no
// duplicate keys, strings without the escapes YAML lacks (\/) or reads
// differently (\u, for surrogate pairs), numbers only integers of at most
// plainJSONMaxDigits digits (YAML reads 1.0 as the integer 1) and at most
// plainJSONMaxDepth levels of nesting. Anything else, valid JSON or not,
// is left to the YAML conversion (false).
func decodePlainJSON(body []byte) (map[string]any, bool) {
	d := plainDecoder{b: body}
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return nil, false
	}
	v, ok := d.object()
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.b)
}

// plainDecoder reads the JSON subset decodePlainJSON accepts.
type plainDecoder struct {
	b     []byte
	i     int
	depth int
}

// space skips spaces and line breaks.
func (d *plainDecoder) space() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

// value reads any value.
func (d *plainDecoder) value() (any, bool) {
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.string()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

// object reads an object, at '{'.
func (d *plainDecoder) object() (map[string]any, bool) {
	if d.depth++; d.depth > plainJSONMaxDepth {
		return nil, false
	}
	defer func() { d.depth-- }()
	d.i++
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		start := d.i
		k, ok := d.string()
		if !ok || d.i-start > plainJSONMaxKey {
			return nil, false
		}
		// YAML reads a key only when its colon follows on its line.
		for d.i < len(d.b) && d.b[d.i] == ' ' {
			d.i++
		}
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false // YAML's strict decoding reports it
		}
		m[k] = v
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

// array reads an array, at '['.
func (d *plainDecoder) array() ([]any, bool) {
	if d.depth++; d.depth > plainJSONMaxDepth {
		return nil, false
	}
	defer func() { d.depth-- }()
	d.i++
	out := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return out, true
	}
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			return out, true
		default:
			return nil, false
		}
	}
}

// string reads a string, at '"'.
func (d *plainDecoder) string() (string, bool) {
	d.i++
	start := d.i
	var sb []byte // the unescaped string, once an escape was seen
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if sb != nil {
				return string(append(sb, s...)), true
			}
			return string(s), true
		case c == '\\':
			if d.i+1 >= len(d.b) {
				return "", false
			}
			var r byte
			switch d.b[d.i+1] {
			case '"':
				r = '"'
			case '\\':
				r = '\\'
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default:
				return "", false
			}
			sb = append(append(sb, d.b[start:d.i]...), r)
			d.i += 2
			start = d.i
		case c < 0x20 || c > 0x7e:
			return "", false
		default:
			d.i++
		}
	}
	return "", false
}

// number reads an integer.
func (d *plainDecoder) number() (any, bool) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - digits
	if n == 0 || n > plainJSONMaxDigits || n > 1 && d.b[digits] == '0' {
		return nil, false
	}
	if d.i < len(d.b) && !isPlainDelimiter(d.b[d.i]) {
		return nil, false // a fraction, an exponent or garbage
	}
	v, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
	return v, err == nil
}

// literal reads true, false or null.
func (d *plainDecoder) literal(lit string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(lit)) {
		return false
	}
	d.i += len(lit)
	return d.i == len(d.b) || isPlainDelimiter(d.b[d.i])
}

// isPlainDelimiter reports whether c may follow a number or literal.
func isPlainDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r'
}
