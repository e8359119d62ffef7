package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
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
	err := scanMembers(data, skipSpace(data, 0), func(key string, _, valueAt, end int) bool {
		for k, want := range keys {
			if out[k] == nil && key == want {
				out[k] = json.RawMessage(data[valueAt:end])
				found++
			}
		}
		return found < len(keys)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanMembers calls fn for each member of the JSON object at data[start]
// with its key, the offset of the key's quote, of its value and of the end
// of its value, until fn returns false. Keys are compared unescaped only
// when they hold no escapes (metadata's keys never do).
func scanMembers(data []byte, start int, fn func(key string, keyAt, valueAt, end int) bool) error {
	if start >= len(data) || data[start] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	i := skipSpace(data, start+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for i < len(data) {
		if data[i] != '"' {
			return fmt.Errorf("malformed JSON object at offset %d", i)
		}
		keyEnd := skipValue(data, i)
		if keyEnd < 0 {
			return fmt.Errorf("unterminated JSON string")
		}
		key := string(data[i+1 : keyEnd-1])
		j := skipSpace(data, keyEnd)
		if j >= len(data) || data[j] != ':' {
			return fmt.Errorf("malformed JSON object at offset %d", j)
		}
		valueAt := skipSpace(data, j+1)
		end := skipValue(data, valueAt)
		if end < 0 || end == valueAt {
			return fmt.Errorf("malformed JSON value at offset %d", valueAt)
		}
		if !fn(key, i, valueAt, end) {
			return nil
		}
		i = skipSpace(data, end)
		if i < len(data) && data[i] == '}' {
			return nil
		}
		if i >= len(data) || data[i] != ',' {
			return fmt.Errorf("malformed JSON object at offset %d", i)
		}
		i = skipSpace(data, i+1)
	}
	return fmt.Errorf("unterminated JSON object")
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
			if i = closingQuote(data, i+1); i < 0 {
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

// closingQuote returns the index of the quote that ends the JSON string
// whose content starts at i, or -1 when the data ends first. It jumps from
// quote to quote (bytes.IndexByte), stepping through an escape only where
// there is one: most of a stored object is strings.
func closingQuote(data []byte, i int) int {
	for i < len(data) {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return -1
		}
		b := bytes.IndexByte(data[i:i+q], '\\')
		if b < 0 {
			return i + q
		}
		i += b + 2 // the backslash and the byte it escapes
	}
	return -1
}

// IsEmptyBody reports whether a body has nothing but whitespace.
func IsEmptyBody(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// DecodeWithoutManagedFields decodes a stored object's JSON into into,
// leaving metadata.managedFields out. The server's controllers read whole
// objects but never their managedFields, which can be as large as the
// rest and are the costliest part to decode.
func DecodeWithoutManagedFields(data []byte, into any) error {
	if cut, err := cutManagedFields(data); err == nil {
		data = cut
	}
	return json.Unmarshal(data, into)
}

// cutManagedFields returns data without its metadata's managedFields
// member (data itself when it has none).
func cutManagedFields(data []byte) ([]byte, error) {
	meta, found, err := topLevelValue(data, "metadata")
	if err != nil || !found {
		return data, err
	}
	from, to, prevEnd := -1, -1, -1
	err = scanMembers(data, meta, func(key string, keyAt, _, end int) bool {
		if key != "managedFields" {
			prevEnd = end
			return true
		}
		if prevEnd >= 0 {
			// Cut from the end of the member before: its comma goes.
			from, to = prevEnd, end
			return false
		}
		// The first member: cut up to the next one's key.
		from, to = keyAt, skipSpace(data, end)
		if to < len(data) && data[to] == ',' {
			to = skipSpace(data, to+1)
		}
		return false
	})
	if err != nil || from < 0 {
		return data, err
	}
	out := make([]byte, 0, len(data)-(to-from))
	return append(append(out, data[:from]...), data[to:]...), nil
}

// typeHead is an object's apiVersion and kind, as encoding/json decodes
// them from its JSON.
type typeHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// scanTypeHead reads an object's apiVersion and kind with a scan of its
// top-level members, without decoding the rest: encoding/json would check
// and walk all of it, a third of the time a cold start takes to decode the
// bootstrap objects. It answers only when that is what encoding/json
// gives: ok is false when a top-level key could match either field other
// than exactly once and plainly (another case, an escape, twice), when one
// is missing or not a plain string, or when the scan fails.
func scanTypeHead(data []byte) (head typeHead, ok bool) {
	var found [2]int
	plain := true
	err := scanMembers(data, skipSpace(data, 0), func(key string, _, valueAt, end int) bool {
		var field *string
		var n *int
		switch {
		case key == "apiVersion":
			field, n = &head.APIVersion, &found[0]
		case key == "kind":
			field, n = &head.Kind, &found[1]
		case strings.EqualFold(key, "apiVersion"), strings.EqualFold(key, "kind"), strings.IndexByte(key, '\\') >= 0, !plainText(key):
			plain = false
			return false
		default:
			return true
		}
		v := data[valueAt:end]
		if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !plainText(v) {
			plain = false
			return false
		}
		*field = string(v[1 : len(v)-1])
		*n++
		return true
	})
	return head, err == nil && plain && found == [2]int{1, 1}
}

// plainText reports whether s is all printable ASCII (no control
// characters, which JSON strings may not hold, and nothing Unicode case
// folding could match to ASCII).
func plainText[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x80 {
			return false
		}
	}
	return true
}
