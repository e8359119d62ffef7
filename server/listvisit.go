package server

import (
	"net/http"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/registry"
)

// listBufs holds the buffers list answers are assembled in, reused from
// one list to the next: a list's body is written before its handler
// returns (both HTTP/1's and HTTP/2's Write have consumed it when they
// return), so the buffer is free again then. A cache of spare memory, not
// state: which buffer a list gets changes nothing it answers.
var listBufs = sync.Pool{New: func() any { return new(listBuf) }}

// listBuf is a pooled list buffer: the body and the items' protobuf
// messages.
type listBuf struct {
	body []byte
	msgs [][]byte
}

// maxPooledList bounds the size of a body buffer kept for reuse, so that
// one huge list does not keep its memory in the pool.
const maxPooledList = 8 << 20

// getListBuf takes a list buffer from the pool.
func getListBuf() *listBuf { return listBufs.Get().(*listBuf) }

// putListBuf returns a list buffer to the pool, dropping what it must not
// keep: the references to cached messages and an oversized body.
func putListBuf(lb *listBuf) {
	clear(lb.msgs)
	lb.msgs = lb.msgs[:0]
	if cap(lb.body) > maxPooledList {
		lb.body = nil
	}
	lb.body = lb.body[:0]
	listBufs.Put(lb)
}

// writeProtobufListVisit answers a list in protobuf, reading the page
// item by item (registry.VisitServed): each item's cached protobuf message
// goes into the list, its stored bytes are not copied. (The messages are
// the encoding cache's, never the store's memory: they outlive the read.)
func (s *Server) writeProtobufListVisit(c *call, opts *metainternalversion.ListOptions) error {
	lb := getListBuf()
	defer putListBuf(lb)
	lm, err := s.VisitServed(c.Request, opts, true, func(_ string, _ int64, msg []byte) error {
		lb.msgs = append(lb.msgs, msg)
		return nil
	})
	if err != nil {
		return err
	}
	b, err := registry.AppendProtobufListEnvelope(lb.body[:0], c.Res.APIVersion(), c.Res.ListKind, &lm, lb.msgs)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	lb.body = b
	writeRaw(c.w, c.r, http.StatusOK, mediaProtobuf, b)
	return nil
}

// listHeadRoom is the space a JSON list's body keeps before its items for
// the list's head ({"kind":…,"metadata":{…},"items":[), which is known only
// once the items are read; a longer head is copied in front of them.
const listHeadRoom = 1024

// writeJSONListVisit answers a list in JSON or YAML, reading the page item
// by item (registry.VisitServed) and copying each item's JSON straight into
// the body, as writeListJSON writes it.
func (s *Server) writeJSONListVisit(c *call, opts *metainternalversion.ListOptions) error {
	lb := getListBuf()
	defer putListBuf(lb)
	body := append(lb.body[:0], make([]byte, listHeadRoom)...)
	typed := c.Res.Typed != nil
	n := 0
	lm, err := s.VisitServed(c.Request, opts, false, func(_ string, _ int64, served []byte) error {
		body = appendListItem(body, n, served, typed)
		n++
		return nil
	})
	lb.body = body
	if err != nil {
		return err
	}
	var hb [listHeadRoom]byte
	var head []byte
	if c.Res.CRD == "" {
		body = append(body, "]}"...)
		head = appendListHead(hb[:0], c.Res.APIVersion(), c.Res.ListKind, &lm)
	} else {
		body = appendUnstructuredListTail(body, c.Res.ListKind, &lm)
		head = appendUnstructuredListHead(hb[:0], c.Res.APIVersion())
	}
	lb.body = body
	writeBytes(c.w, c.r, http.StatusOK, c.media.kind, prependHead(body, head))
	return nil
}

// appendUnstructuredListHead appends the head of a custom resource's JSON
// list, up to the opening bracket of its items. kube-apiserver encodes
// such a list as an unstructured map, whose keys come in sorted order:
// apiVersion, items, kind, metadata.
func appendUnstructuredListHead(b []byte, apiVersion string) []byte {
	b = append(b, `{"apiVersion":`...)
	b = strconv.AppendQuote(b, apiVersion)
	return append(b, `,"items":[`...)
}

// appendUnstructuredListTail appends the end of a custom resource's JSON
// list after its items: the kind and the metadata, whose keys are sorted
// too, with continue always present (empty on the last page), as upstream's
// unstructured list carries it.
func appendUnstructuredListTail(b []byte, kind string, lm *metav1.ListMeta) []byte {
	b = append(b, `],"kind":`...)
	b = strconv.AppendQuote(b, kind)
	b = append(b, `,"metadata":{"continue":`...)
	b = strconv.AppendQuote(b, lm.Continue)
	if lm.RemainingItemCount != nil {
		b = append(b, `,"remainingItemCount":`...)
		b = strconv.AppendInt(b, *lm.RemainingItemCount, 10)
	}
	b = append(b, `,"resourceVersion":`...)
	b = strconv.AppendQuote(b, lm.ResourceVersion)
	return append(b, "}}"...)
}

// prependHead returns head followed by what body holds after its first
// listHeadRoom bytes: in place when head fits there, else in a new buffer.
func prependHead(body, head []byte) []byte {
	if len(head) <= listHeadRoom {
		start := listHeadRoom - len(head)
		copy(body[start:], head)
		return body[start:]
	}
	out := make([]byte, 0, len(head)+len(body)-listHeadRoom)
	return append(append(out, head...), body[listHeadRoom:]...)
}

// appendListItem appends the JSON of a list's item n (from 0), as
// writeListJSON writes it.
func appendListItem(body []byte, n int, item []byte, typed bool) []byte {
	body = ensure(body, len(item)+1)
	if n > 0 {
		body = append(body, ',')
	}
	if rest, ok := fieldsAfterTypeMeta(item); typed && ok {
		body = append(body, '{')
		return append(body, rest...)
	}
	return append(body, item...)
}

// ensure returns b with room for n more bytes, doubling its capacity when
// it grows (append grows a large slice by a quarter at a time, which for a
// list of many MB leaves several times its size behind).
func ensure(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	grown := make([]byte, len(b), max(2*cap(b), len(b)+n))
	copy(grown, b)
	return grown
}

// appendListHead appends the head of a JSON list, up to the opening bracket
// of its items, as writeListJSON writes it.
func appendListHead(b []byte, apiVersion, kind string, lm *metav1.ListMeta) []byte {
	b = append(b, `{"kind":`...)
	b = strconv.AppendQuote(b, kind)
	b = append(b, `,"apiVersion":`...)
	b = strconv.AppendQuote(b, apiVersion)
	b = append(b, `,"metadata":{"resourceVersion":`...)
	b = strconv.AppendQuote(b, lm.ResourceVersion)
	if lm.Continue != "" {
		b = append(b, `,"continue":`...)
		b = strconv.AppendQuote(b, lm.Continue)
	}
	if lm.RemainingItemCount != nil {
		b = append(b, `,"remainingItemCount":`...)
		b = strconv.AppendInt(b, *lm.RemainingItemCount, 10)
	}
	return append(b, `},"items":[`...)
}
