package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/fakeplane/fakeplane/registry"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
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

// negotiate picks the response format for an answer that is not a resource
// (discovery, Table bodies): JSON or YAML, never protobuf, chosen
// among the Accept header's clauses by their q-weights as negotiateFor does.
// An empty header means JSON.
func negotiate(accept string) (mediaChoice, bool) {
	return negotiateAmong(accept, textSerializers(), resourceRestrictions{})
}

// negotiateFor is negotiate for a resource; protobufOK says whether it has
// a protobuf encoding (built-in types do, custom resources do not, though
// their metadata-only answers do). It is kube-apiserver's negotiation
// (negotiation.NegotiateMediaTypeOptions: clauses ordered by q-weight, the
// first one the endpoint can serve wins, an empty header means JSON) with
// the restrictions of its resource handlers. tableOK says whether the
// endpoint converts to a Table: upstream's do where the storage has a
// table convertor (a resource, its status and scale; not the reviews nor
// subresources such as log, token, binding or eviction).
func negotiateFor(accept string, protobufOK, tableOK bool) (mediaChoice, bool) {
	return negotiateAmong(accept, resourceSerializers(), resourceRestrictions{protobuf: protobufOK, noTable: !tableOK})
}

// negotiateAmong runs kube-apiserver's negotiation over the given
// serializers and turns its answer into a mediaChoice.
func negotiateAmong(accept string, serializers []runtime.SerializerInfo, restrictions negotiation.EndpointRestrictions) (mediaChoice, bool) {
	opts, ok := negotiation.NegotiateMediaTypeOptions(accept, serializers, restrictions)
	if !ok {
		return mediaChoice{}, false
	}
	m := mediaChoice{kind: opts.Accepted.MediaType}
	if opts.Convert != nil {
		m.as, m.version = opts.Convert.Kind, opts.Convert.Version
	}
	return m, true
}

// resourceSerializers are the media types a resource handler of
// kube-apiserver negotiates over, in its order (its CodecFactory's, and
// apiextensions' for custom resources). Only the fields negotiation reads
// are set: the names, and a StreamSerializer where the type can stream
// watch events (stream=watch is refused on the others).
func resourceSerializers() []runtime.SerializerInfo {
	return []runtime.SerializerInfo{
		{MediaType: mediaJSON, MediaTypeType: "application", MediaTypeSubType: "json", EncodesAsText: true, StreamSerializer: &runtime.StreamSerializerInfo{EncodesAsText: true}},
		{MediaType: mediaYAML, MediaTypeType: "application", MediaTypeSubType: "yaml", EncodesAsText: true},
		{MediaType: mediaProtobuf, MediaTypeType: "application", MediaTypeSubType: "vnd.kubernetes.protobuf", StreamSerializer: &runtime.StreamSerializerInfo{}},
	}
}

// textSerializers are resourceSerializers without protobuf.
func textSerializers() []runtime.SerializerInfo { return resourceSerializers()[:2] }

// resourceRestrictions is kube-apiserver's handlers.RequestScope seen as
// negotiation.EndpointRestrictions: the meta.k8s.io transformations (Table
// in JSON or YAML, PartialObjectMetadata(List) in any type), server version
// v1, watch streams; protobuf is served untransformed only when the
// resource has a protobuf encoding (apiextensions leaves it out of a custom
// resource's StandardSerializers).
type resourceRestrictions struct {
	protobuf bool
	// noTable refuses the conversion to a Table.
	noTable bool
}

// AllowsMediaTypeTransform reports whether the endpoint serves a media type
// with the requested transformation (target nil: none).
func (r resourceRestrictions) AllowsMediaTypeTransform(mimeType, mimeSubType string, target *schema.GroupVersionKind) bool {
	if target == nil {
		return r.protobuf || mimeType+"/"+mimeSubType != mediaProtobuf
	}
	if target.Group != metav1.GroupName || (target.Version != "v1" && target.Version != "v1beta1") {
		return false
	}
	switch target.Kind {
	case "Table":
		return !r.noTable && mimeType == "application" && (mimeSubType == "json" || mimeSubType == "yaml")
	case asPartial, asPartialList:
		return true
	}
	return false
}

// AllowsServerVersion reports whether sv= names the meta group version.
func (resourceRestrictions) AllowsServerVersion(version string) bool {
	return version == metav1.SchemeGroupVersion.Version
}

// AllowsStreamSchema reports whether stream= names a stream the endpoint serves.
func (resourceRestrictions) AllowsStreamSchema(s string) bool { return s == "watch" }

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
	// indenting one (for ?pretty and curl) does not. Aggregated discovery
	// (JSON with parameters) is written by the same encoders.
	isJSON := mediaType == mediaJSON || strings.HasPrefix(mediaType, mediaJSON+";")
	newline := isJSON
	if isJSON && r != nil && isPretty(r) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err == nil {
			body, newline = buf.Bytes(), false
		}
	}
	w.Header().Set("Content-Type", mediaType)
	if w.Header().Get("Cache-Control") == "" {
		w.Header().Set("Cache-Control", "no-cache, private")
	}
	var tail []byte
	if newline {
		tail = newlineTail
	}
	writeCompressible(w, r, code, body, tail)
}

// newlineTail is the newline kube-apiserver's JSON encoder ends a body with.
var newlineTail = []byte{'\n'}

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
		return yamlToJSON(data, kind)
	case mediaProtobuf:
		return protobufToJSON(data, kind)
	default:
		return nil, errUnsupportedMediaType(acceptedMediaTypes)
	}
}

// protobufToJSON decodes a protobuf body of a built-in type into its JSON.
func protobufToJSON(data []byte, kind string) ([]byte, error) {
	obj, gvk, err := registry.ProtobufSerializer().Decode(data, nil, nil)
	if err != nil {
		if kind != "" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", kind, err, registry.Summarize(data, 30)))
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

// yamlToJSON converts one YAML document, a body of the given kind ("" when
// not known), to JSON. A body that is not YAML is a 400 worded as
// kube-apiserver's: the kind it should have been and the body's start
// (transformDecodeError) when known, the YAML error alone otherwise (delete
// options).
func yamlToJSON(data []byte, kind string) ([]byte, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		if kind != "" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", kind, err, registry.Summarize(data, 30)))
		}
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return j, nil
}

// yamlToJSONStrict converts a YAML body to JSON as upstream's YAML
// serializer does when it judges strict errors: strictly first, and when
// that finds errors (duplicate keys, which the plain conversion drops),
// plainly, returning the strict conversion's error to be judged with the
// decoding's. A body that is not YAML gets yamlToJSON's 400 for kind.
func yamlToJSONStrict(raw []byte, kind string) ([]byte, []error, error) {
	j, strictErr := yaml.YAMLToJSONStrict(raw)
	if strictErr == nil {
		return j, nil, nil
	}
	j, err := yamlToJSON(raw, kind)
	if err != nil {
		return nil, nil, err
	}
	return j, []error{strictErr}, nil
}

// isPretty reports whether a response should be indented.
func isPretty(r *http.Request) bool {
	if v := r.URL.Query().Get("pretty"); v != "" {
		b, _ := strconv.ParseBool(v)
		return b
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}
