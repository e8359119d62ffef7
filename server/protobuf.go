package server

import (
	"encoding/binary"
	"fmt"
	"net/http"

	"github.com/fakeplane/fakeplane/registry"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/api/meta"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Built-in types are served in Kubernetes protobuf (application/
// vnd.kubernetes.protobuf) when a client prefers it, as client-go's typed
// clients do. Objects are stored as JSON, so each one is decoded into its Go
// type and encoded again.

// writeProtobufObject answers with one object in protobuf: the message the
// write path encoded, else the cached message of the object a get read,
// else the object decoded and encoded.
func (s *Server) writeProtobufObject(c *call, code int, data []byte) error {
	obj := c.Result
	var msg []byte
	switch {
	case obj != nil && c.ResultProto != nil && obj.GetObjectKind().GroupVersionKind() == c.Res.GVK:
		msg = c.ResultProto
	case obj == nil && c.read != nil && c.Res.Typed != nil:
		if p, err := s.Encodings().ProtoOf(c.Res, c.read.Key, c.read.Revision, data); err == nil {
			msg = p
		}
	}
	if msg != nil {
		b, err := registry.ProtobufEnvelope(c.Res.APIVersion(), c.Res.GVK.Kind, msg)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		writeRaw(c.w, c.r, code, mediaProtobuf, b)
		return nil
	}
	if obj == nil || obj.GetObjectKind().GroupVersionKind() != c.Res.GVK {
		var err error
		if obj, err = c.Res.TypedFromStored(data); err != nil {
			return apierrors.NewInternalError(err)
		}
	}
	b, err := registry.ProtobufEncode(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	writeRaw(c.w, c.r, code, mediaProtobuf, b)
	return nil
}

// protobufWatchFrame encodes one watch event as a length-prefixed
// metav1.WatchEvent whose object is in the protobuf envelope, the framing
// of application/vnd.kubernetes.protobuf;stream=watch.
func protobufWatchFrame(typ string, obj runtime.Object) ([]byte, error) {
	raw, err := registry.ProtobufEncode(obj)
	if err != nil {
		return nil, err
	}
	return registry.ProtobufWatchFrame(typ, raw)
}

// protobufWatchFrameMsg is registry.ProtobufWatchFrame of an object's protobuf
// message in its envelope (registry.ProtobufEnvelope), written in one
// buffer: the frame's length, then the WatchEvent (its type, and its
// object: a runtime.RawExtension whose raw bytes are the envelope).
func protobufWatchFrameMsg(typ, apiVersion, kind string, msg []byte) ([]byte, error) {
	typeMeta, err := registry.ProtobufTypeMeta(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	envLen := registry.ProtobufEnvelopeSize(typeMeta, len(msg))
	rawLen := protowire.SizeTag(1) + protowire.SizeBytes(envLen)
	bodyLen := protowire.SizeTag(1) + protowire.SizeBytes(len(typ)) + protowire.SizeTag(2) + protowire.SizeBytes(rawLen)
	out := make([]byte, 4, 4+bodyLen)
	binary.BigEndian.PutUint32(out, uint32(bodyLen))
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendString(out, typ)
	out = protowire.AppendTag(out, 2, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(rawLen))
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(envLen))
	out = registry.AppendProtobufEnvelopeHead(out, typeMeta, len(msg))
	out = append(out, msg...)
	return registry.AppendProtobufEnvelopeTail(out), nil
}

// protoMessage is a Go API type's generated protobuf encoder.
type protoMessage interface{ Marshal() ([]byte, error) }

// protobufDoc encodes m in the protobuf envelope, as apiVersion and kind.
func protobufDoc(apiVersion, kind string, m protoMessage) ([]byte, error) {
	msg, err := m.Marshal()
	if err != nil {
		return nil, err
	}
	return registry.ProtobufEnvelope(apiVersion, kind, msg)
}

// writeRaw writes an encoded body as is, gzipped as writeCompressible
// decides for r (nil for never).
func writeRaw(w http.ResponseWriter, r *http.Request, code int, mediaType string, body []byte) {
	w.Header().Set("Content-Type", mediaType)
	w.Header().Set("Cache-Control", "no-cache, private")
	writeCompressible(w, r, code, body, nil)
}

// decodeRequestObject reads the request body as an object of the resource:
// protobuf straight into the Go type, JSON and YAML through
// decodeObjectValidating.
func (c *call) decodeRequestObject(directive string) (*registry.Object, error) {
	return c.decodeRequestObjectAs(c.Res, directive)
}

// decodeRequestObjectAs is decodeRequestObject for a body of res's kind
// (a subresource's, such as a TokenRequest) rather than the request's
// resource's.
func (c *call) decodeRequestObjectAs(res *registry.Resource, directive string) (*registry.Object, error) {
	raw, err := readBody(c.r)
	if err != nil {
		return nil, err
	}
	return c.decodeBodyAs(res, directive, raw)
}

// decodeBodyAs is decodeRequestObjectAs for a body already read.
func (c *call) decodeBodyAs(res *registry.Resource, directive string, raw []byte) (*registry.Object, error) {
	if res.Typed == nil || mediaTypeOf(c.r) != mediaProtobuf {
		var data []byte
		var bodyErrs []error
		var err error
		if directive != metav1.FieldValidationIgnore && mediaTypeOf(c.r) == mediaYAML {
			data, bodyErrs, err = yamlToJSONStrict(raw, res.Kind)
		} else {
			data, err = bodyToJSONFor(c.r, raw, res.Kind)
		}
		if err != nil {
			return nil, err
		}
		o, err := res.DecodeObjectValidatingAfter(data, raw, directive, bodyErrs)
		if err == nil {
			auditRequestObject(c, res, o.Obj)
		}
		return o, err
	}
	obj, gvk, err := registry.ProtobufSerializer().Decode(raw, nil, res.Typed())
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", res.Kind, err, registry.Summarize(raw, 30)))
	}
	if gvk.GroupVersion() != res.GVK.GroupVersion() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion().String(), res.GVK.GroupVersion().String()))
	}
	if gvk.Kind != res.Kind {
		return nil, res.DecodeError(raw, gvk, fmt.Errorf("converting (%s.%s) to (%s.%s): unknown conversion", gvk.Version, gvk.Kind, registry.InternalPackage(res.Group), res.Kind))
	}
	obj.GetObjectKind().SetGroupVersionKind(res.GVK)
	res.Defaults(obj)
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	auditRequestObject(c, res, obj)
	return &registry.Object{Obj: obj, Meta: acc}, nil
}
