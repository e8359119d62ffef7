package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/fakeplane/fakeplane/registry"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Metadata-only answers: a client that accepts
// "as=PartialObjectMetadata;g=meta.k8s.io;v=v1" (client-go's metadata client,
// controller-runtime's metadata cache) gets each object's metadata only, in
// JSON, YAML or protobuf, for every resource including custom ones.
const (
	asPartial     = "PartialObjectMetadata"
	asPartialList = "PartialObjectMetadataList"
)

// partialJSON turns a served object into a PartialObjectMetadata in JSON:
// for a built-in type, its metadata as stored (in ObjectMeta's field
// order); for a custom resource (custom), whose stored keys are sorted, its
// metadata through ObjectMeta, as kube-apiserver converts it, so in that
// order too.
func partialJSON(version string, data []byte, custom bool) ([]byte, error) {
	if custom {
		p, err := partialObject(data)
		if err != nil {
			return nil, err
		}
		p.TypeMeta = metav1.TypeMeta{Kind: asPartial, APIVersion: "meta.k8s.io/" + version}
		return json.Marshal(&p)
	}
	md, err := registry.RawMetadata(data)
	if err != nil {
		return nil, fmt.Errorf("partial object metadata: %w", err)
	}
	var buf bytes.Buffer
	buf.Grow(len(md) + 80)
	buf.WriteString(`{"kind":"PartialObjectMetadata","apiVersion":`)
	buf.WriteString(strconv.Quote("meta.k8s.io/" + version))
	buf.WriteString(`,"metadata":`)
	buf.Write(md)
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// partialObject decodes the metadata of a served object.
func partialObject(data []byte) (metav1.PartialObjectMetadata, error) {
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return metav1.PartialObjectMetadata{}, fmt.Errorf("partial object metadata: %w", err)
	}
	return metav1.PartialObjectMetadata{ObjectMeta: m.Metadata}, nil
}

// partialProtobuf encodes the PartialObjectMetadata of a served object in
// the protobuf envelope.
func partialProtobuf(version string, data []byte) ([]byte, error) {
	p, err := partialObject(data)
	if err != nil {
		return nil, err
	}
	return protobufDoc("meta.k8s.io/"+version, asPartial, &p)
}

// internalTypeName names the Go type kube-apiserver holds for a resource
// (or its list), as its 406 answers for a mismatched "as" name it.
func internalTypeName(r *registry.Resource, list bool) string {
	if r.CRD != "" {
		if list {
			return "*unstructured.UnstructuredList"
		}
		return "*unstructured.Unstructured"
	}
	kind := r.Kind
	if list {
		kind += "List"
	}
	return "*" + registry.InternalPackage(r.Group) + "." + kind
}

// errPartialNotAList is the 406 for PartialObjectMetadataList asked of one
// object. apiextensions' handler converts a custom resource as a list
// anyway, and fails with its error, a 500.
func (c *call) errPartialNotAList() error {
	if c.Res.Typed == nil {
		return registry.ErrUnknown(errors.New("content is not a list"))
	}
	return notAcceptable(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%s)", internalTypeName(c.Res, false)))
}

// errPartialIsAList is the 406 for PartialObjectMetadata asked of a list.
func (c *call) errPartialIsAList() error {
	return notAcceptable(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%s)", internalTypeName(c.Res, true)))
}

func notAcceptable(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable, Message: msg,
	}}
}

// writePartial answers with the metadata of one object.
func writePartial(c *call, code int, data []byte) error {
	if c.media.as == asPartialList {
		return c.errPartialNotAList()
	}
	if c.media.kind == mediaProtobuf {
		if auditWantsResponse(c.r) {
			if j, err := partialJSON(c.media.version, data, c.Res.Typed == nil); err == nil {
				auditResponseJSON(c.r, j)
			}
		}
		b, err := partialProtobuf(c.media.version, data)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		writeRaw(c.w, c.r, code, mediaProtobuf, b)
		return nil
	}
	b, err := partialJSON(c.media.version, data, c.Res.Typed == nil)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	auditResponseJSON(c.r, b)
	writeBytes(c.w, c.r, code, c.media.kind, b)
	return nil
}

// writePartialList answers with the metadata of a list's objects.
func writePartialList(c *call, lm metav1.ListMeta, items [][]byte) error {
	if c.media.as == asPartial {
		return c.errPartialIsAList()
	}
	apiVersion := "meta.k8s.io/" + c.media.version
	if c.media.kind == mediaProtobuf {
		list := &metav1.PartialObjectMetadataList{ListMeta: lm, Items: make([]metav1.PartialObjectMetadata, len(items))}
		for i, data := range items {
			p, err := partialObject(data)
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			p.TypeMeta = metav1.TypeMeta{APIVersion: apiVersion, Kind: asPartial}
			list.Items[i] = p
		}
		if auditWantsResponse(c.r) {
			list.TypeMeta = metav1.TypeMeta{APIVersion: apiVersion, Kind: asPartialList}
			if j, err := json.Marshal(list); err == nil {
				auditResponseJSON(c.r, j)
			}
		}
		b, err := protobufDoc(apiVersion, asPartialList, list)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		writeRaw(c.w, c.r, http.StatusOK, mediaProtobuf, b)
		return nil
	}
	partial := make([][]byte, len(items))
	for i, data := range items {
		b, err := partialJSON(c.media.version, data, c.Res.Typed == nil)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		partial[i] = b
	}
	var buf bytes.Buffer
	writeListJSON(&buf, apiVersion, asPartialList, lm, partial, false)
	auditResponseJSON(c.r, buf.Bytes())
	writeBytes(c.w, c.r, http.StatusOK, c.media.kind, buf.Bytes())
	return nil
}
