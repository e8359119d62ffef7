package server

import (
	"encoding/json"
	"sync"

	"bytes"
	"fmt"
	"io"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"mime"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"
)

// Media types the server reads and writes.
const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// acceptedMediaTypes are listed in 406 answers, as kube-apiserver lists them.
var acceptedMediaTypes = []string{mediaJSON, mediaYAML, mediaProtobuf}

// mediaChoice is the negotiated response format.
type mediaChoice struct {
	kind string // mediaJSON or mediaYAML
	// as is "Table" or "PartialObjectMetadata"/"PartialObjectMetadataList"
	// when the client asked for a meta.k8s.io transformation, "" otherwise.
	as      string
	version string // meta.k8s.io version of the transformation (v1, v1beta1)
}

// negotiate picks the first media type in an Accept header that the server
// can produce. An empty header or a wildcard means JSON.
func negotiate(accept string) (mediaChoice, bool) { return negotiateFor(accept, false) }

// negotiateFor is negotiate for a resource; protobufOK says whether it has
// a protobuf encoding (built-in types do, custom resources do not).
func negotiateFor(accept string, protobufOK bool) (mediaChoice, bool) {
	if strings.TrimSpace(accept) == "" {
		return mediaChoice{kind: mediaJSON}, true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", mediaJSON, mediaYAML:
		case mediaProtobuf:
			if protobufOK && params["as"] == "" {
				return mediaChoice{kind: mediaProtobuf}, true
			}
			// Metadata-only answers are meta.k8s.io types, which have a
			// protobuf encoding whatever the resource.
			if as := params["as"]; (as == asPartial || as == asPartialList) && params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1") {
				return mediaChoice{kind: mediaProtobuf, as: as, version: params["v"]}, true
			}
			continue
		default:
			continue
		}
		kind := mediaJSON
		if mt == mediaYAML {
			kind = mediaYAML
		}
		as := params["as"]
		if as == "" {
			return mediaChoice{kind: kind}, true
		}
		if params["g"] != "meta.k8s.io" {
			continue
		}
		v := params["v"]
		switch {
		case (as == "Table" || as == asPartial || as == asPartialList) && (v == "v1" || v == "v1beta1"):
			return mediaChoice{kind: kind, as: as, version: v}, true
		}
	}
	return mediaChoice{}, false
}

// writeBytes writes a complete response body. JSON is indented for
// ?pretty=true and for curl, Wget and browsers, as kube-apiserver does.
func writeBytes(w http.ResponseWriter, r *http.Request, code int, mediaType string, body []byte) {
	if mediaType == mediaYAML {
		y, err := yaml.JSONToYAML(body)
		if err == nil {
			body = y
		}
	}
	// kube-apiserver's JSON encoder ends a body with a newline; its
	// indenting one (for ?pretty and curl) does not.
	newline := mediaType == mediaJSON
	if mediaType == mediaJSON && r != nil && isPretty(r) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err == nil {
			body, newline = buf.Bytes(), false
		}
	}
	w.Header().Set("Content-Type", mediaType)
	if w.Header().Get("Cache-Control") == "" {
		w.Header().Set("Cache-Control", "no-cache, private")
	}
	w.WriteHeader(code)
	_, _ = w.Write(body)
	if newline {
		_, _ = w.Write([]byte{'\n'})
	}
}

// readBody reads a request body up to MaxRequestBodyBytes and turns it into
// JSON according to its Content-Type. allowed lists the accepted types for
// the 415 answer.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, apierrors.NewBadRequest("the body of the request was empty")
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBodyBytes+1))
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to read the request body: %v", err))
	}
	if len(data) > MaxRequestBodyBytes {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", MaxRequestBodyBytes))
	}
	return data, nil
}

// bodyToJSON converts an object body (create, update, delete options) to JSON.
func bodyToJSON(r *http.Request, data []byte) ([]byte, error) {
	return bodyToJSONFor(r, data, "")
}

// bodyToJSONFor is bodyToJSON for a body of the given kind ("" when not
// known), which names it in protobuf decoding errors.
func bodyToJSONFor(r *http.Request, data []byte, kind string) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt := mediaJSON
	if ct != "" {
		parsed, _, err := mime.ParseMediaType(ct)
		if err != nil {
			return nil, errUnsupportedMediaType(acceptedMediaTypes)
		}
		mt = parsed
	}
	switch mt {
	case mediaJSON, "*/*":
		return data, nil
	case mediaYAML:
		return yamlToJSON(data)
	case mediaProtobuf:
		return protobufToJSON(data, kind)
	default:
		return nil, errUnsupportedMediaType(acceptedMediaTypes)
	}
}

// protobufSerializer decodes Kubernetes protobuf envelopes of built-in types.
var protobufSerializer = sync.OnceValue(func() *protobuf.Serializer {
	return protobuf.NewSerializer(typesScheme(), typesScheme())
})

// protobufToJSON decodes a protobuf body of a built-in type into its JSON.
func protobufToJSON(data []byte, kind string) ([]byte, error) {
	obj, gvk, err := protobufSerializer().Decode(data, nil, nil)
	if err != nil {
		if kind != "" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", kind, err, summarize(data, 30)))
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized: %v", err))
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return b, nil
}

// yamlToJSON converts one YAML document to JSON with kube-apiserver's error wording.
func yamlToJSON(data []byte) ([]byte, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error converting YAML to JSON: %v", err))
	}
	return j, nil
}

// isEmptyBody reports whether a body has nothing but whitespace.
func isEmptyBody(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// isPretty reports whether a response should be indented.
func isPretty(r *http.Request) bool {
	if v := r.URL.Query().Get("pretty"); v != "" {
		b, _ := strconv.ParseBool(v)
		return b
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// objectBody reads the request body (an object) and returns it as JSON.
func (c *call) objectBody() ([]byte, error) {
	data, err := readBody(c.r)
	if err != nil {
		return nil, err
	}
	return bodyToJSONFor(c.r, data, c.res.Kind)
}
