package admission

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// stopTransport ends the requests of the plugins' loopback client when the
// chain stops: upstream's plugins start goroutines the chain cannot wait
// for (MutatingAdmissionPolicy's OpenAPI poller), which end once their
// request returns. Each request's context is cancelled on stop until its
// response body is closed.
type stopTransport struct {
	next http.RoundTripper
	stop context.Context
}

// RoundTrip implements http.RoundTripper.
func (t stopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.stop.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(req.Context())
	unregister := context.AfterFunc(t.stop, cancel)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		unregister()
		cancel()
		return nil, err
	}
	resp.Body = &stopBody{ReadCloser: resp.Body, done: func() { unregister(); cancel() }}
	return resp, nil
}

// stopBody releases its request's stop registration when closed.
type stopBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

// Close implements io.Closer.
func (b *stopBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}
