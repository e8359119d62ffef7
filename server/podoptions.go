package server

import (
	"net/url"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The query decoding of the pod subresources' options, field by field as
// upstream's generated url.Values conversions do it (k8s.io/api has none
// for these types): booleans are true unless "0" or "false", numbers and
// times fail the request with a 400.

// queryDecoder decodes query fields, keeping the first error.
type queryDecoder struct {
	q   url.Values
	err error
}

func (d *queryDecoder) bool(name string, out *bool) {
	if v, ok := d.q[name]; ok && d.err == nil {
		d.err = runtime.Convert_Slice_string_To_bool(&v, out, nil)
	}
}

func (d *queryDecoder) string(name string, out *string) {
	if v, ok := d.q[name]; ok && d.err == nil {
		d.err = runtime.Convert_Slice_string_To_string(&v, out, nil)
	}
}

func (d *queryDecoder) int64(name string, out **int64) {
	if v, ok := d.q[name]; ok && d.err == nil {
		d.err = runtime.Convert_Slice_string_To_Pointer_int64(&v, out, nil)
	}
}

func (d *queryDecoder) time(name string, out **metav1.Time) {
	if v, ok := d.q[name]; ok && d.err == nil {
		d.err = metav1.Convert_Slice_string_To_Pointer_v1_Time(&v, out, nil)
	}
}

func (d *queryDecoder) done() error {
	if d.err != nil {
		return apierrors.NewBadRequest(d.err.Error())
	}
	return nil
}

// decodePodLogOptions decodes pods/log's query.
func decodePodLogOptions(q url.Values) (*corev1.PodLogOptions, error) {
	o := &corev1.PodLogOptions{}
	d := &queryDecoder{q: q}
	d.string("container", &o.Container)
	d.bool("follow", &o.Follow)
	d.bool("previous", &o.Previous)
	d.int64("sinceSeconds", &o.SinceSeconds)
	d.time("sinceTime", &o.SinceTime)
	d.bool("timestamps", &o.Timestamps)
	d.int64("tailLines", &o.TailLines)
	d.int64("limitBytes", &o.LimitBytes)
	d.bool("insecureSkipTLSVerifyBackend", &o.InsecureSkipTLSVerifyBackend)
	if v, ok := q["stream"]; ok && len(v) > 0 {
		s := v[0]
		o.Stream = &s
	}
	return o, d.done()
}

// decodeStreamOptions decodes pods/exec's and pods/attach's query: the
// streams, the container and (exec) the command.
func decodeStreamOptions(q url.Values) (*corev1.PodExecOptions, error) {
	o := &corev1.PodExecOptions{}
	d := &queryDecoder{q: q}
	d.bool("stdin", &o.Stdin)
	d.bool("stdout", &o.Stdout)
	d.bool("stderr", &o.Stderr)
	d.bool("tty", &o.TTY)
	d.string("container", &o.Container)
	o.Command = q["command"]
	return o, d.done()
}

// decodePortForwardOptions decodes pods/portforward's ports.
func decodePortForwardOptions(q url.Values) (*corev1.PodPortForwardOptions, error) {
	o := &corev1.PodPortForwardOptions{}
	if v, ok := q["ports"]; ok {
		if err := metav1.Convert_Slice_string_To_Slice_int32(&v, &o.Ports, nil); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	return o, nil
}
