package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RawMetadata returns the metadata of a JSON object as it is written. It
// scans only the top-level keys, skipping the other values without parsing
// them (stored objects put metadata before their content).
func RawMetadata(data []byte) (json.RawMessage, error) {
	v, err := RawFields(data, "metadata")
	if err != nil {
		return nil, err
	}
	if v[0] == nil {
		return json.RawMessage("{}"), nil
	}
	return v[0], nil
}

// RawFields returns the values of a JSON object's top-level keys, as they
// are written, one per key (nil for a key the object lacks). It scans only
// the top-level keys, skipping the other values without parsing them, and
// stops once it has found every key.
func RawFields(data []byte, keys ...string) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(keys))
	found := 0
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	i++
	for found < len(keys) {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			return out, nil
		}
		keyStart := i
		i = skipValue(data, i)
		if i < 0 || i-keyStart < 2 || data[keyStart] != '"' {
			return nil, fmt.Errorf("malformed JSON object")
		}
		key := data[keyStart+1 : i-1]
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return nil, fmt.Errorf("malformed JSON object")
		}
		i = skipSpace(data, i+1)
		valStart := i
		if i = skipValue(data, i); i < 0 {
			return nil, fmt.Errorf("malformed JSON object")
		}
		for k, want := range keys {
			if out[k] == nil && string(key) == want {
				out[k] = json.RawMessage(data[valStart:i])
				found++
			}
		}
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	return out, nil
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at i, or
// -1 when the data ends first.
func skipValue(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			i++
			for i < len(data) && data[i] != '"' {
				if data[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(data) {
				return -1
			}
			i++
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				// The end of the object or array holding a number,
				// true, false or null.
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\n', '\t', '\r', ':':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	if depth == 0 {
		return i
	}
	return -1
}

// IsEmptyBody reports whether a body has nothing but whitespace.
func IsEmptyBody(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }
