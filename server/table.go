package server

import (
	"fmt"
	"time"

	"github.com/fakeplane/fakeplane/registry"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1beta1validation "k8s.io/apimachinery/pkg/apis/meta/v1beta1/validation"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/printers"
)

// tableFor renders stored objects as a meta.k8s.io Table.
func (s *Server) tableFor(c *call, items [][]byte, lm *metav1.ListMeta) (*metav1.Table, error) {
	opts, err := tableOptions(c)
	if err != nil {
		return nil, err
	}
	if c.Res.Table != nil {
		return s.crdTable(c, items, lm, opts)
	}
	p := printers.Lookup(c.Res.GR)
	include := opts.IncludeObject
	if include == "" {
		include = metav1.IncludeMetadata
	}
	t := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/" + c.media.version}, ColumnDefinitions: p.Columns(), Rows: []metav1.TableRow{}}
	if lm != nil {
		t.ListMeta = *lm
	}
	objs := make([]*registry.Object, len(items))
	for i, data := range items {
		o, err := s.decodeForTable(c, i, data)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		objs[i] = o
	}
	if lm == nil && len(objs) == 1 {
		// The Table of one object has the object's resourceVersion.
		t.ResourceVersion = objs[0].Meta.GetResourceVersion()
	}
	order, cells := tableCells(p, objs, lm != nil, s.now())
	for i, idx := range order {
		row := metav1.TableRow{Cells: cells[i], Conditions: p.Conditions(objs[idx].Obj)}
		if row.Object, err = tableRowObject(c, include, items[idx]); err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// tableOptions reads a Table request's options from its query and checks
// them as kube-apiserver does before it converts anything.
func tableOptions(c *call) (*metav1.TableOptions, error) {
	opts := &metav1.TableOptions{}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(c.r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	switch errs := metav1beta1validation.ValidateTableOptions(opts); len(errs) {
	case 0:
		return opts, nil
	case 1:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs[0].Error()))
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs))
	}
}

// tableCells prints objects' rows, ages counted up to now: the index of
// the object each row shows and its cells. A list is printed as one (a few
// resources' list rows depend on all the items).
func tableCells(p *printers.Printer, objs []*registry.Object, list bool, now time.Time) ([]int, [][]any) {
	if list {
		typed := make([]runtime.Object, len(objs))
		for i, o := range objs {
			typed[i] = o.Obj
		}
		return p.ListCells(typed, now)
	}
	order := make([]int, len(objs))
	cells := make([][]any, len(objs))
	for i, o := range objs {
		order[i] = i
		cells[i] = p.Cells(o.Obj, now)
	}
	return order, cells
}

// crdTable renders custom resources with upstream's table convertor for the
// CRD version's additionalPrinterColumns.
func (s *Server) crdTable(c *call, items [][]byte, lm *metav1.ListMeta, opts *metav1.TableOptions) (*metav1.Table, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": c.Res.APIVersion(), "kind": c.Res.ListKind, "metadata": map[string]any{}}}
	for _, data := range items {
		o, err := c.Res.DecodeStored(data)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		list.Items = append(list.Items, *o.Obj.(*unstructured.Unstructured))
	}
	var obj runtime.Object = list
	if lm == nil && len(list.Items) == 1 {
		obj = &list.Items[0]
	}
	if opts.IncludeObject == "" {
		opts.IncludeObject = metav1.IncludeMetadata
	}
	t, err := c.Res.Table.ConvertToTable(c.Context(), obj, opts)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	t.APIVersion, t.Kind = "meta.k8s.io/"+c.media.version, "Table"
	if lm != nil {
		t.ResourceVersion, t.Continue, t.RemainingItemCount = lm.ResourceVersion, lm.Continue, lm.RemainingItemCount
	}
	for i := range t.Rows {
		if t.Rows[i].Object, err = tableRowObject(c, opts.IncludeObject, items[i]); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// tableRowObject is the object of the Table row of a stored object, as the
// request's includeObject asks: the object (Object), its
// PartialObjectMetadata (Metadata), or none (None).
func tableRowObject(c *call, include metav1.IncludeObjectPolicy, item []byte) (runtime.RawExtension, error) {
	switch include {
	case metav1.IncludeObject:
		return runtime.RawExtension{Raw: item}, nil
	case metav1.IncludeMetadata:
		b, err := partialJSON(c.media.version, item, c.Res.Typed == nil)
		if err != nil {
			return runtime.RawExtension{}, apierrors.NewInternalError(err)
		}
		return runtime.RawExtension{Raw: b}, nil
	}
	return runtime.RawExtension{}, nil
}

// protoUnmarshaler is a built-in type's generated protobuf decoder.
type protoUnmarshaler interface{ Unmarshal([]byte) error }

// decodeForTable decodes the i-th object of a Table: a listed built-in
// object from its cached protobuf message (several times faster than its
// JSON), anything else from its JSON.
func (s *Server) decodeForTable(c *call, i int, data []byte) (*registry.Object, error) {
	if c.Res.Typed != nil && len(c.listed) > i {
		it := c.listed[i]
		if msg, err := s.Encodings().ProtoOf(c.Res, it.Key, it.Revision, data); err == nil {
			obj := c.Res.Typed()
			if pu, ok := obj.(protoUnmarshaler); ok && pu.Unmarshal(msg) == nil {
				obj.GetObjectKind().SetGroupVersionKind(c.Res.GVK)
				if acc, err := meta.Accessor(obj); err == nil {
					return &registry.Object{Obj: obj, Meta: acc}, nil
				}
			}
		}
	}
	return c.Res.DecodeStored(data)
}
