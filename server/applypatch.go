package server

import (
	"bytes"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	jsonutil "k8s.io/apimachinery/pkg/util/json"
	kjson "sigs.k8s.io/json"
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
	if plainJSONObject(body) {
		var m map[string]any
		strictErrs, err := kjson.UnmarshalStrict(body, &m, kjson.DisallowDuplicateFields)
		if err == nil && len(strictErrs) == 0 && m != nil {
			return &applyPatchBody{plain: body, decoded: m}, nil
		}
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
			if err := kjson.UnmarshalCaseSensitivePreserveInts(p.plain, &m); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err)) // decoded before
			}
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

// identity returns the patch's metadata.namespace and metadata.name, empty
// where they are missing or not strings.
func (p *applyPatchBody) identity() (namespace, name string) {
	data := p.json
	if p.plain != nil {
		data = p.plain
	}
	var head struct {
		Metadata struct {
			Namespace any `json:"namespace"`
			Name      any `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(data, &head) != nil {
		return "", ""
	}
	namespace, _ = head.Metadata.Namespace.(string)
	name, _ = head.Metadata.Name.(string)
	return namespace, name
}

// Limits of plainJSONObject, well inside YAML's: a key must end within
// 1024 characters of its start to be read as a key, and nesting is limited
// to 10000 levels.
const (
	plainJSONMaxKey   = 512
	plainJSONMaxDepth = 100
	// plainJSONMaxDigits keeps every integer an int64 for YAML and JSON alike.
	plainJSONMaxDigits = 18
)

// plainJSONObject reports whether body is, if it is valid JSON, a JSON
// object that YAML reads exactly as JSON does: printable ASCII, whitespace
// only spaces and line breaks, no key longer than plainJSONMaxKey or parted
// from its colon by a line break, strings without the escapes YAML lacks
// (\/) or reads differently (\u, for surrogate pairs), numbers only
// integers of at most plainJSONMaxDigits digits (YAML reads 1.0 as the
// integer 1) and at most plainJSONMaxDepth levels of nesting. It does not
// check that body is valid JSON: the decoder that follows does.
func plainJSONObject(b []byte) bool {
	i := skipJSONSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	depth := 0
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			start := i
			i++
			for i < len(b) && b[i] != '"' {
				c := b[i]
				if c == '\\' {
					if i+1 >= len(b) {
						return false
					}
					switch b[i+1] {
					case '"', '\\', 'b', 'f', 'n', 'r', 't':
					default:
						return false
					}
					i += 2
					continue
				}
				if c < 0x20 || c > 0x7e {
					return false
				}
				i++
			}
			if i >= len(b) {
				return false
			}
			i++
			// A key: its colon must follow on the same line.
			j := i
			for j < len(b) && b[j] == ' ' {
				j++
			}
			if j < len(b) && b[j] == ':' {
				if i-start > plainJSONMaxKey {
					return false
				}
			} else if k := skipJSONSpace(b, j); k < len(b) && b[k] == ':' {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if c == '-' {
				i++
			}
			digits := 0
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
				digits++
			}
			if digits == 0 || digits > plainJSONMaxDigits {
				return false
			}
			if i < len(b) {
				switch b[i] {
				case '.', 'e', 'E':
					return false
				}
			}
		case c == '{' || c == '[':
			depth++
			if depth > plainJSONMaxDepth {
				return false
			}
			i++
		case c == '}' || c == ']':
			depth--
			i++
		case c == ' ' || c == '\n' || c == '\r' || c == ',' || c == ':':
			i++
		case c == 't':
			if !bytes.HasPrefix(b[i:], []byte("true")) {
				return false
			}
			i += 4
		case c == 'f':
			if !bytes.HasPrefix(b[i:], []byte("false")) {
				return false
			}
			i += 5
		case c == 'n':
			if !bytes.HasPrefix(b[i:], []byte("null")) {
				return false
			}
			i += 4
		default:
			return false
		}
	}
	return true
}

// skipJSONSpace returns the index of the first byte from i on that is not a
// space or a line break.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
