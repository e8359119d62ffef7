package server

import (
	"net/http"
	"sync"

	"github.com/klauspost/compress/gzip"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/features"
)

// gzipThresholdBytes is the size above which kube-apiserver compresses a
// response body when the client accepts gzip (its response writer's
// defaultGzipThresholdBytes): a list of the bootstrap ClusterRoles is, a
// single ConfigMap is not.
const gzipThresholdBytes = 128 * 1024

// gzipWriters are gzip writers at kube-apiserver's level (1, BestSpeed),
// klauspost/compress's rather than the standard library's: they compress a
// list of 10,000 ConfigMaps in half the time (BenchmarkGzipListBody). The
// compressed bytes differ from kube-apiserver's, what they decompress to
// does not. A pool holds no state between uses (a writer is Reset to each
// response).
var gzipWriters = sync.Pool{New: func() any {
	w, err := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	if err != nil {
		panic(err) // BestSpeed is a valid level
	}
	return w
}}

// writeCompressible writes a response's status and body (body, then tail)
// as kube-apiserver writes an encoded object: gzipped, with
// Content-Encoding and Vary headers, when the request's Accept-Encoding
// takes gzip and the body with its tail is larger than gzipThresholdBytes,
// as it is otherwise. The Content-Type and other headers are set already.
// A nil r never compresses (responses kube-apiserver writes raw, such as
// /version).
func writeCompressible(w http.ResponseWriter, r *http.Request, code int, body, tail []byte) {
	if r == nil || len(body)+len(tail) <= gzipThresholdBytes ||
		responsewriters.ContentEncodingSupported(r, features.APIResponseCompression) != "gzip" {
		w.WriteHeader(code)
		_, _ = w.Write(body)
		if len(tail) > 0 {
			_, _ = w.Write(tail)
		}
		return
	}
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	w.WriteHeader(code)
	gw := gzipWriters.Get().(*gzip.Writer)
	gw.Reset(w)
	_, _ = gw.Write(body)
	if len(tail) > 0 {
		_, _ = gw.Write(tail)
	}
	_ = gw.Close()
	gw.Reset(nil)
	gzipWriters.Put(gw)
}
