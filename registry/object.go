package registry

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// Object is a decoded API object with its metadata accessor.
type Object struct {
	Obj  runtime.Object
	Meta metav1.Object
	// Warnings are unknown or duplicate fields found while decoding with
	// fieldValidation=Warn.
	Warnings []string
	// Stored is the JSON Obj was decoded from, when the write path hands
	// over the object it read (nil otherwise; a copy does not keep it).
	Stored []byte
}

// DeepCopy returns an independent copy of o.
func (o *Object) DeepCopy() *Object {
	obj := o.Obj.DeepCopyObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("object %T has no metadata: %v", obj, err)) // o had it
	}
	return &Object{Obj: obj, Meta: m, Warnings: o.Warnings}
}

// NewObject makes an empty object of the resource's kind.
func (r *Resource) NewObject() runtime.Object {
	if r.Typed != nil {
		return r.Typed()
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(r.GVK)
	return u
}

// DecodeObject parses JSON into the resource's kind, as kube-apiserver's
// create and update handlers do: for a built-in type a missing
// apiVersion/kind takes the URL's, for a custom resource it is a 400; a
// different group/version or kind is a 400, and built-in types drop fields
// they do not have.
func (r *Resource) DecodeObject(data []byte) (*Object, error) {
	return r.DecodeObjectValidating(data, metav1.FieldValidationIgnore)
}

// DecodeObjectValidating is decodeObject with a fieldValidation directive:
// Strict turns unknown and duplicate fields into a 400, Warn into warnings.
func (r *Resource) DecodeObjectValidating(data []byte, directive string) (*Object, error) {
	o, _, err := r.decodeObject(data, directive, false, nil)
	return o, err
}

// DecodeObjectValidatingAfter is DecodeObjectValidating for data converted
// to JSON from original, the body as sent (a YAML one), whose conversion
// found strict errors of its own (duplicate keys, which the conversion
// drops): they are judged with the decoding's, first, as upstream's YAML
// decoder reports them. A custom resource without a kind is refused
// quoting original, as upstream's decoder quotes what it was given.
func (r *Resource) DecodeObjectValidatingAfter(data, original []byte, directive string, bodyErrs []error) (*Object, error) {
	head, err := interpretTypeHead(data)
	if err != nil {
		return nil, r.DecodeError(data, nil, err)
	}
	if err := r.missingKind(head, original); err != nil {
		return nil, err
	}
	o, _, err := r.decodeObjectAs(data, head, directive, false, bodyErrs)
	return o, err
}

// DecodeObjectStrictErrors is DecodeObject that also returns the strict
// decoding errors the same decoding finds (for a built-in type duplicate and
// unknown fields, for a custom resource the unknown fields its schema
// prunes), for a caller that words them itself (a patch).
func (r *Resource) DecodeObjectStrictErrors(data []byte) (*Object, []error, error) {
	return r.decodeObject(data, metav1.FieldValidationIgnore, true, nil)
}

// decodeObject decodes as DecodeObjectValidating does; with collect, a
// built-in type is decoded strictly, a custom resource's pruned fields are
// tracked, and the strict errors are returned rather than judged. bodyErrs
// are strict errors found before decoding, judged first (not collected).
func (r *Resource) decodeObject(data []byte, directive string, collect bool, bodyErrs []error) (*Object, []error, error) {
	head, err := interpretTypeHead(data)
	if err != nil {
		return nil, nil, r.DecodeError(data, nil, err)
	}
	return r.decodeObjectAs(data, head, directive, collect, bodyErrs)
}

// wrongVersion is upstream's answer to a body of another apiVersion that
// decodes: it is not one the resource's endpoint accepts.
func (r *Resource) wrongVersion(gvk schema.GroupVersionKind) error {
	return wrongVersion(gvk, r.GVK)
}

func wrongVersion(gvk, own schema.GroupVersionKind) error {
	return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion().String(), own.GroupVersion().String()))
}

// CheckBodyTypeMeta is upstream's decoding of the apiVersion and kind of a
// create's or update's JSON body for a built-in type, own (a subresource's
// such as a Scale): nil when the body is one of own, else upstream's 400.
func CheckBodyTypeMeta(data []byte, own schema.GroupVersionKind) error {
	gvk, err := BodyGVK(data, own)
	if err != nil {
		return decodeError(data, nil, own.Kind, err)
	}
	if gvk != own {
		return typedBodyError(data, gvk, own)
	}
	return nil
}

// typedBodyError is upstream's answer to a body of the built-in type own
// that names gvk instead (read and defaulted).
func typedBodyError(data []byte, gvk, own schema.GroupVersionKind) error {
	switch {
	case gvk.Version == "":
		return decodeError(data, &gvk, own.Kind, runtime.NewMissingVersionErr(string(data)))
	case !TypesScheme().Recognizes(gvk):
		return decodeError(data, &gvk, own.Kind, runtime.NewNotRegisteredErrForKind(UpstreamSchemeName, gvk))
	}
	// Upstream decodes the body as the kind it names before it converts:
	// that decoding's errors come first.
	if into, err := TypesScheme().New(gvk); err == nil {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, into); err != nil {
			return decodeError(data, &gvk, own.Kind, err)
		}
	}
	switch {
	case gvk.Kind != own.Kind:
		return decodeError(data, &gvk, own.Kind, fmt.Errorf("converting (%s.%s) to (%s.%s): unknown conversion", gvk.Version, gvk.Kind, InternalPackage(own.Group), own.Kind))
	default:
		// The kind in another version, which upstream decodes and
		// converts, then refuses.
		return wrongVersion(gvk, own)
	}
}

// UpstreamSchemeName is the scheme kube-apiserver's decoders name when a
// body's kind is not registered.
const UpstreamSchemeName = "pkg/runtime/scheme.go:111"

// interpretTypeHead reads a JSON object's apiVersion and kind as upstream's
// JSON serializer does, with its errors: encoding/json into a struct of
// its own.
func interpretTypeHead(data []byte) (typeHead, error) {
	var found struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}
	if err := json.Unmarshal(data, &found); err != nil {
		return typeHead{}, fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	return typeHead(found), nil
}

// BodyGVK reads a JSON body's apiVersion and kind as upstream's JSON
// serializer does, filling in what it lacks from def; its errors are
// upstream's (a body that is not an object, an apiVersion that does not
// parse).
func BodyGVK(data []byte, def schema.GroupVersionKind) (schema.GroupVersionKind, error) {
	head, err := interpretTypeHead(data)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return withDefaults(gv.WithKind(head.Kind), def), nil
}

// withDefaults fills in what gvk, read from a body, lacks from def, as
// upstream's JSON serializer does: the kind, and the group and version when
// both are empty or the version when the group is def's.
func withDefaults(gvk, def schema.GroupVersionKind) schema.GroupVersionKind {
	if gvk.Kind == "" {
		gvk.Kind = def.Kind
	}
	if gvk.Version == "" && gvk.Group == "" {
		gvk.Group, gvk.Version = def.Group, def.Version
	}
	if gvk.Version == "" && gvk.Group == def.Group {
		gvk.Version = def.Version
	}
	return gvk
}

// decodeServerObject is DecodeObject for the server's own JSON (bootstrap
// objects, fixtures), whose apiVersion and kind the caller has read.
func (r *Resource) decodeServerObject(data []byte, head typeHead) (*Object, error) {
	o, _, err := r.decodeObjectAs(data, head, metav1.FieldValidationIgnore, false, nil)
	return o, err
}

// missingKind refuses a custom resource's body without a kind, quoting
// body: the unstructured decoder takes nothing from the URL, so without a
// kind it is not an object at all (and without an apiVersion, one of the
// wrong version, which decodeObjectAs tells).
func (r *Resource) missingKind(head typeHead, body []byte) error {
	if r.Typed == nil && head.Kind == "" {
		return r.DecodeError(body, nil, runtime.NewMissingKindErr(string(body)))
	}
	return nil
}

// decodeObjectAs is decodeObject for data whose apiVersion and kind are
// head.
func (r *Resource) decodeObjectAs(data []byte, head typeHead, directive string, collect bool, bodyErrs []error) (*Object, []error, error) {
	gvk := r.GVK
	if err := r.missingKind(head, data); err != nil {
		return nil, nil, err
	}
	if head.APIVersion != "" || head.Kind != "" {
		gv, err := schema.ParseGroupVersion(head.APIVersion)
		if err != nil {
			return nil, nil, r.DecodeError(data, nil, err)
		}
		gvk = gv.WithKind(head.Kind)
		if r.Typed != nil {
			gvk = withDefaults(gvk, r.GVK)
		}
		if gvk.Kind == "" {
			gvk.Kind = r.GVK.Kind
		}
	}
	wrongVersion := gvk.GroupVersion() != r.GVK.GroupVersion()
	switch {
	case !wrongVersion && gvk.Kind == r.GVK.Kind:
	case r.Typed == nil && wrongVersion:
		return nil, nil, r.wrongVersion(gvk)
	case r.Typed == nil:
		return nil, nil, r.wrongCustomKind(data, gvk)
	default:
		return nil, nil, typedBodyError(data, gvk, r.GVK)
	}
	obj := r.NewObject()
	var warnings []string
	var collected []error
	if u, ok := obj.(*unstructured.Unstructured); ok {
		// Judged as upstream's unstructured decoder judges them: a
		// duplicate field first (in the body's order), then the unknown
		// fields the schema prunes.
		judged := collect || (directive != "" && directive != metav1.FieldValidationIgnore)
		var m map[string]any
		var strictErrs []error
		if judged {
			decodeErrs, err := kjson.UnmarshalStrict(data, &m, kjson.DisallowDuplicateFields)
			if err != nil {
				return nil, nil, r.DecodeError(data, &gvk, err)
			}
			if !collect {
				strictErrs = append(strictErrs, bodyErrs...)
			}
			strictErrs = append(strictErrs, decodeErrs...)
		} else if err := utiljson.Unmarshal(data, &m); err != nil {
			return nil, nil, r.DecodeError(data, &gvk, err)
		}
		if m == nil {
			return nil, nil, apierrors.NewBadRequest("the body of the request was empty")
		}
		u.Object = m
		if r.schema != nil && directive != "" {
			unknown, err := r.schema.Decode(u, judged)
			if err != nil {
				return nil, nil, r.DecodeError(data, &gvk, err)
			}
			for _, p := range unknown {
				strictErrs = append(strictErrs, fmt.Errorf("unknown field %q", p))
			}
		}
		switch {
		case collect:
			// For the caller (a patch), which words them itself.
			collected = strictErrs
		case !judged || len(strictErrs) == 0:
		case directive == metav1.FieldValidationStrict:
			return nil, nil, r.DecodeError(data, &gvk, runtime.NewStrictDecodingError(strictErrs))
		default:
			warnings = StrictDecodingWarnings(strictErrs...)
		}
	} else if collect {
		var err error
		if collected, err = kjson.UnmarshalStrict(data, obj, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields); err != nil {
			return nil, nil, r.DecodeError(data, &gvk, err)
		}
	} else if directive == metav1.FieldValidationIgnore {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, obj); err != nil {
			return nil, nil, r.DecodeError(data, &gvk, err)
		}
	} else {
		decodeErrs, err := kjson.UnmarshalStrict(data, obj, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
		if err != nil {
			return nil, nil, r.DecodeError(data, &gvk, err)
		}
		if strictErrs := append(slices.Clip(bodyErrs), decodeErrs...); len(strictErrs) > 0 {
			if directive == metav1.FieldValidationStrict {
				return nil, nil, r.DecodeError(data, &gvk, runtime.NewStrictDecodingError(strictErrs))
			}
			warnings = StrictDecodingWarnings(strictErrs...)
		}
	}
	obj.GetObjectKind().SetGroupVersionKind(r.GVK)
	r.Defaults(obj)
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	return &Object{Obj: obj, Meta: acc, Warnings: warnings}, collected, nil
}

// wrongCustomKind is upstream's answer to a custom resource whose body names
// another kind of the right group/version: its decoder takes the body as it
// is and the strategy's type check refuses it, a 422 naming the body's kind.
// (Upstream runs admission before that check; fakeplane answers at once.)
func (r *Resource) wrongCustomKind(data []byte, gvk schema.GroupVersionKind) error {
	var head struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(data, &head)
	return apierrors.NewInvalid(gvk.GroupKind(), head.Metadata.Name, field.ErrorList{
		field.Invalid(field.NewPath("kind"), gvk.Kind, "must be "+r.GVK.Kind),
	})
}

// DecodeError words a decoding failure as kube-apiserver's transformDecodeError does.
func (r *Resource) DecodeError(data []byte, gvk *schema.GroupVersionKind, err error) error {
	return decodeError(data, gvk, r.GVK.Kind, err)
}

// decodeError is DecodeError for a body that must be of kind ownKind.
func decodeError(data []byte, gvk *schema.GroupVersionKind, ownKind string, err error) error {
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, ownKind, err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", ownKind, err, Summarize(data, 30)))
}

// Summarize shortens a body for an error message, as upstream's
// summarizeData does: JSON as text, anything else as hex.
func Summarize(data []byte, max int) string {
	if len(data) == 0 {
		return "<empty>"
	}
	if data[0] == '{' {
		if len(data) > max {
			return string(data[:max]) + " ..."
		}
		return string(data)
	}
	if len(data) > max {
		return hex.EncodeToString(data[:max]) + " ..."
	}
	return hex.EncodeToString(data)
}

// DecodeStored parses a stored object.
func (r *Resource) DecodeStored(data []byte) (*Object, error) {
	obj := r.NewObject()
	if u, ok := obj.(*unstructured.Unstructured); ok {
		var m map[string]any
		if err := utiljson.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("decode stored %s: %w", r.GR, err)
		}
		u.Object = m
	} else if err := json.Unmarshal(data, obj); err != nil {
		return nil, fmt.Errorf("decode stored %s: %w", r.GR, err)
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	return &Object{Obj: obj, Meta: acc}, nil
}

// encodeAsSent serialises an object as it is, empty lists included: what
// admission and conversion see of a request's object, and what the memos
// of computations over it key on. Encode is what is stored and answered.
func encodeAsSent(obj runtime.Object) ([]byte, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return json.Marshal(u.Object)
	}
	return json.Marshal(obj)
}

// Encode serialises an object for storage and responses.
func Encode(obj runtime.Object) ([]byte, error) {
	b, err := encodeAsSent(obj)
	if _, ok := obj.(*unstructured.Unstructured); ok {
		return b, err
	}
	if err != nil || !hasEmptyList(b) || !nilEmptySlices(reflect.ValueOf(obj), false) {
		return b, err
	}
	// A built-in object is written, and read back, as kube-apiserver's
	// protobuf storage has it: no empty lists (nilEmptySlices). The object
	// itself is left as it is: validation still sees them.
	obj = obj.DeepCopyObject()
	nilEmptySlices(reflect.ValueOf(obj), true)
	return json.Marshal(obj)
}

// toMap returns the object as a generic map (a copy for typed objects).
func toMap(obj runtime.Object) (map[string]any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.Object, nil
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
}

// sameContent reports whether two objects are equal outside metadata (and
// outside status when skipStatus), used for generation bumps.
func sameContent(a, b runtime.Object, skipStatus bool) bool {
	ma, err1 := toMap(a)
	mb, err2 := toMap(b)
	if err1 != nil || err2 != nil {
		return false
	}
	ja, _ := json.Marshal(stripKeys(ma, skipStatus))
	jb, _ := json.Marshal(stripKeys(mb, skipStatus))
	return bytes.Equal(ja, jb)
}

func stripKeys(m map[string]any, skipStatus bool) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k == "metadata" || k == "apiVersion" || k == "kind" || (skipStatus && k == "status") {
			continue
		}
		out[k] = v
	}
	return out
}

// getField reads a nested field of an object as a map path.
func getField(m map[string]any, path ...string) (any, bool) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = mm[p]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// InternalPackage is the Go package name of upstream's internal version of a
// group, as it appears in conversion errors.
func InternalPackage(group string) string {
	switch group {
	case "", "events.k8s.io":
		return "core"
	}
	if i := strings.Index(group, "."); i > 0 {
		return group[:i]
	}
	return group
}

// jsonUnmarshal decodes JSON case-sensitively, as kube-apiserver does.
func JSONUnmarshal(data []byte, v any) error {
	return kjson.UnmarshalCaseSensitivePreserveInts(data, v)
}

// ProtobufEncode encodes a built-in object in the protobuf envelope.
func ProtobufEncode(obj runtime.Object) ([]byte, error) {
	return runtime.Encode(ProtobufSerializer(), obj)
}

// TypedFromStored decodes a stored (served-version) JSON object into its Go type.
func (r *Resource) TypedFromStored(data []byte) (runtime.Object, error) {
	obj := r.Typed()
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, fmt.Errorf("decode stored %s: %w", r.GR, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(r.GVK)
	return obj, nil
}

// ProtobufSerializer decodes Kubernetes protobuf envelopes of built-in types.
var ProtobufSerializer = sync.OnceValue(func() *protobuf.Serializer {
	return protobuf.NewSerializer(TypesScheme(), TypesScheme())
})

// objectMetaDocs are ObjectMeta's field descriptions, which upstream's
// generated columns (a CRD's Age) carry.
var objectMetaDocs = metav1.ObjectMeta{}.SwaggerDoc()

// StrictDecodingWarnings words strict decoding errors as kube-apiserver's
// handlers record them as warnings (addStrictDecodingWarnings): a YAML
// decoder's error is a warning per violation, without its "yaml: unmarshal
// errors:" heading; any other error is one warning, as it is.
func StrictDecodingWarnings(errs ...error) []string {
	var out []string
	for _, err := range errs {
		msg := err.Error()
		rest, ok := strings.CutPrefix(msg, "yaml: unmarshal errors:\n")
		if !ok {
			rest, ok = strings.CutPrefix(msg, "error converting YAML to JSON: yaml: unmarshal errors:\n")
		}
		if !ok {
			out = append(out, msg)
			continue
		}
		for _, line := range strings.Split(rest, "\n") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}
