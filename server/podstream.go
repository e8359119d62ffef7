package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	genericrest "k8s.io/apiserver/pkg/registry/generic/rest"
	"k8s.io/apiserver/pkg/util/flushwriter"
	translator "k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/streaming/pkg/httpstream/wsstream"
)

// podsGVR names pods for the Go API.
var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// extendWebSocketsToKubelet is the node feature of kubelets that serve
// WebSocket streams themselves: kube-apiserver v1.37 (its
// ExtendWebSocketsToKubelet gate is on) then proxies WebSockets to them
// instead of translating them to SPDY.
const extendWebSocketsToKubelet = "ExtendWebSocketsToKubelet"

// getPod reads the request's pod.
func (s *Server) getPod(c *call) (*corev1.Pod, error) {
	obj, err := s.API().Get(c.Request.GoCtx, podsGVR, c.Namespace, c.Info.Name)
	if err != nil {
		return nil, err
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("pod %s decoded as %T", c.Info.Name, obj))
	}
	return pod, nil
}

// podContainer is upstream's validateContainer: the container named, or
// the pod's only one.
func podContainer(pod *corev1.Pod, container string) (string, error) {
	if container == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
		}
		var names []string
		for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for _, c := range cs {
				names = append(names, c.Name)
			}
		}
		for _, c := range pod.Spec.EphemeralContainers {
			names = append(names, c.Name)
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod.Name, names))
	}
	has := func(c corev1.Container) bool { return c.Name == container }
	if slices.ContainsFunc(pod.Spec.Containers, has) || slices.ContainsFunc(pod.Spec.InitContainers, has) ||
		slices.ContainsFunc(pod.Spec.EphemeralContainers, func(c corev1.EphemeralContainer) bool { return c.Name == container }) {
		return container, nil
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod.Name))
}

// servePodLog serves pods/log as upstream's LogREST does: the options
// validated, then the kubelet's containerLogs streamed back as text.
func (s *Server) servePodLog(c *call) error {
	if c.Info.Verb != "get" {
		return c.ErrMethodNotSupported()
	}
	opts, err := decodePodLogOptions(c.r.URL.Query())
	if err != nil {
		return err
	}
	if errs := validatePodLogOptions(opts); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "PodLogOptions"}, c.Info.Name, errs)
	}
	pod, err := s.getPod(c)
	if err != nil {
		return err
	}
	container, err := podContainer(pod, opts.Container)
	if err != nil {
		return err
	}
	ls := &genericrest.LocationStreamer{
		ContentType:     "text/plain",
		Flush:           opts.Follow,
		ResponseChecker: genericrest.NewGenericHttpResponseChecker(schema.GroupResource{Resource: "pods/log"}, c.Info.Name),
		RedirectChecker: genericrest.PreventRedirects,
	}
	if pod.Spec.NodeName != "" {
		conn, err := s.podKubeletConnection(c.Request.GoCtx, pod.Spec.NodeName)
		if err != nil {
			return err
		}
		ls.Location = &url.URL{
			Scheme:   conn.scheme,
			Host:     net.JoinHostPort(conn.host, conn.port),
			Path:     fmt.Sprintf("/containerLogs/%s/%s/%s", pod.Namespace, pod.Name, container),
			RawQuery: logParams(opts).Encode(),
		}
		ls.Transport = conn.transport
		if opts.InsecureSkipTLSVerifyBackend {
			ls.Transport = conn.insecureTransport
		}
	}
	out, flush, contentType, err := ls.InputStream(c.Request.GoCtx, "v1", c.r.Header.Get("Accept"))
	if err != nil {
		return err
	}
	if out == nil {
		// A pod on no node has no logs yet: upstream answers 204.
		c.w.WriteHeader(http.StatusNoContent)
		return nil
	}
	defer out.Close()
	if wsstream.IsWebSocketRequest(c.r) {
		r := wsstream.NewReader(out, true, wsstream.NewDefaultReaderProtocols())
		if err := r.Copy(c.w, c.r); err != nil {
			s.log.Debug("pods/log over a websocket", "err", err)
		}
		return nil
	}
	c.w.Header().Set("Content-Type", contentType)
	c.w.WriteHeader(http.StatusOK)
	if f, ok := c.w.(http.Flusher); ok {
		f.Flush()
	}
	var w io.Writer = c.w
	if flush {
		w = flushwriter.Wrap(c.w)
	}
	_, _ = io.Copy(w, out)
	return nil
}

// validatePodLogOptions is upstream's ValidatePodLogOptions with the
// PodLogsQuerySplitStreams gate off, as it is by default in v1.37.
func validatePodLogOptions(o *corev1.PodLogOptions) field.ErrorList {
	var errs field.ErrorList
	if o.TailLines != nil && *o.TailLines < 0 {
		errs = append(errs, field.Invalid(field.NewPath("tailLines"), *o.TailLines, "must be greater than or equal to 0"))
	}
	if o.LimitBytes != nil && *o.LimitBytes < 1 {
		errs = append(errs, field.Invalid(field.NewPath("limitBytes"), *o.LimitBytes, "must be greater than 0"))
	}
	switch {
	case o.SinceSeconds != nil && o.SinceTime != nil:
		errs = append(errs, field.Forbidden(field.NewPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
	case o.SinceSeconds != nil && *o.SinceSeconds < 1:
		errs = append(errs, field.Invalid(field.NewPath("sinceSeconds"), *o.SinceSeconds, "must be greater than 0"))
	}
	if o.Stream != nil {
		errs = append(errs, field.Forbidden(field.NewPath("stream"), "may not be specified"))
	}
	return errs
}

// logParams is the kubelet's containerLogs query for opts.
func logParams(o *corev1.PodLogOptions) url.Values {
	p := url.Values{}
	if o.Follow {
		p.Add("follow", "true")
	}
	if o.Previous {
		p.Add("previous", "true")
	}
	if o.Timestamps {
		p.Add("timestamps", "true")
	}
	if o.SinceSeconds != nil {
		p.Add("sinceSeconds", strconv.FormatInt(*o.SinceSeconds, 10))
	}
	if o.SinceTime != nil {
		p.Add("sinceTime", o.SinceTime.Format(time.RFC3339))
	}
	if o.TailLines != nil {
		p.Add("tailLines", strconv.FormatInt(*o.TailLines, 10))
	}
	if o.LimitBytes != nil {
		p.Add("limitBytes", strconv.FormatInt(*o.LimitBytes, 10))
	}
	return p
}

// servePodStream serves pods/exec, pods/attach and pods/portforward as
// upstream's ExecREST, AttachREST and PortForwardREST do: a GET (a
// WebSocket) must also be allowed to create, the upgrade is proxied to the
// pod's kubelet, and WebSocket streams are translated to SPDY unless the
// node declares it serves them itself.
func (s *Server) servePodStream(c *call) error {
	if c.Info.Verb != "get" && c.Info.Verb != "create" {
		return c.ErrMethodNotSupported()
	}
	q := c.r.URL.Query()
	var streamOpts *corev1.PodExecOptions
	var forwardOpts *corev1.PodPortForwardOptions
	var err error
	if c.Info.Subresource == "portforward" {
		forwardOpts, err = decodePortForwardOptions(q)
	} else {
		streamOpts, err = decodeStreamOptions(q)
	}
	if err != nil {
		return err
	}
	if err := s.authorizedTo(c, "create"); err != nil {
		return err
	}
	if err := s.admitPodConnect(c, streamOpts, forwardOpts); err != nil {
		return err
	}
	pod, err := s.getPod(c)
	if err != nil {
		return err
	}
	params := url.Values{}
	var path string
	var streams translator.Options
	if streamOpts != nil {
		o := streamOpts
		streams = translator.Options{Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, Tty: o.TTY}
		if c.Info.Subresource == "exec" {
			for _, cmd := range o.Command {
				params.Add("command", cmd)
			}
		}
		container, err := podContainer(pod, o.Container)
		if err != nil {
			return err
		}
		for name, on := range map[string]bool{corev1.ExecStdinParam: o.Stdin, corev1.ExecStdoutParam: o.Stdout, corev1.ExecStderrParam: o.Stderr, corev1.ExecTTYParam: o.TTY} {
			if on {
				params.Add(name, "1")
			}
		}
		path = fmt.Sprintf("/%s/%s/%s/%s", c.Info.Subresource, pod.Namespace, pod.Name, container)
	} else {
		if len(forwardOpts.Ports) > 0 {
			ports := make([]string, len(forwardOpts.Ports))
			for i, p := range forwardOpts.Ports {
				ports[i] = strconv.Itoa(int(p))
			}
			params.Add(corev1.PortHeader, strings.Join(ports, ","))
		}
		path = fmt.Sprintf("/portForward/%s/%s", pod.Namespace, pod.Name)
	}
	if pod.Spec.NodeName == "" {
		return apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.Name))
	}
	conn, err := s.podKubeletConnection(c.Request.GoCtx, pod.Spec.NodeName)
	if err != nil {
		return err
	}
	location := &url.URL{Scheme: conn.scheme, Host: net.JoinHostPort(conn.host, conn.port), Path: path, RawQuery: params.Encode()}
	upgrading := proxy.NewUpgradeAwareHandler(location, conn.transport, false, true, proxy.NewErrorResponder(&streamResponder{w: c.w, r: c.r}))
	upgrading.MaxBytesPerSec = s.cfg.MaxConnectionBytesPerSec
	var h http.Handler = upgrading
	if !s.nodeServesWebSockets(c.Request.GoCtx, pod.Spec.NodeName) {
		if c.Info.Subresource == "portforward" {
			h = translator.NewTranslatingHandler(h, translator.NewTunnelingHandler(h), wsstream.IsWebSocketRequestWithTunnelingProtocol)
		} else {
			h = translator.NewTranslatingHandler(h, translator.NewStreamTranslatorHandler(location, conn.transport, s.cfg.MaxConnectionBytesPerSec, streams), wsstream.IsWebSocketRequestWithStreamCloseProtocol)
		}
	}
	h.ServeHTTP(c.w, c.r)
	return nil
}

// admitPodConnect runs CONNECT admission on pods/exec, pods/attach or
// pods/portforward with its options object, as upstream's ConnectResource
// handler does before it connects.
func (s *Server) admitPodConnect(c *call, streamOpts *corev1.PodExecOptions, forwardOpts *corev1.PodPortForwardOptions) error {
	var opts runtime.Object
	switch {
	case forwardOpts != nil:
		opts = forwardOpts
	case c.Info.Subresource == "attach":
		opts = &corev1.PodAttachOptions{Stdin: streamOpts.Stdin, Stdout: streamOpts.Stdout, Stderr: streamOpts.Stderr, TTY: streamOpts.TTY, Container: streamOpts.Container}
	default:
		opts = streamOpts
	}
	return s.AdmitConnect(c.Request, opts, connectKind(opts), c.Info.Name)
}

// connectKind is the kind of a core/v1 connect options object: its Go
// type's name.
func connectKind(opts runtime.Object) schema.GroupVersionKind {
	return corev1.SchemeGroupVersion.WithKind(reflect.TypeOf(opts).Elem().Name())
}

// nodeServesWebSockets reports whether the node declares the
// ExtendWebSocketsToKubelet feature.
func (s *Server) nodeServesWebSockets(ctx context.Context, name string) bool {
	obj, err := s.API().Get(ctx, nodesGVR, "", name)
	if err != nil {
		return false
	}
	node, ok := obj.(*corev1.Node)
	return ok && slices.Contains(node.Status.DeclaredFeatures, extendWebSocketsToKubelet)
}

// authorizedTo is upstream's ensureAuthorizedForVerb
// (AuthorizePodWebsocketUpgradeCreatePermission, on in v1.37): a request
// authorized for another verb must also be allowed verb.
func (s *Server) authorizedTo(c *call, verb string) error {
	if c.Info.Verb == verb {
		return nil
	}
	decision, reason, err := s.authorizeVerb(c, verb)
	if err != nil {
		return err
	}
	if decision != authorizer.DecisionAllow {
		return apierrors.NewForbidden(schema.GroupResource{Group: c.Info.APIGroup, Resource: c.Info.Resource}, c.Info.Name, errors.New(reason))
	}
	return nil
}

// authorizeVerb asks the authorizer whether the request would also be
// allowed with verb instead of its own; an error building the request's
// attributes is a 500.
func (s *Server) authorizeVerb(c *call, verb string) (authorizer.Decision, string, error) {
	attrs, err := filters.GetAuthorizerAttributes(c.Request.GoCtx)
	if err != nil {
		return authorizer.DecisionNoOpinion, "", apierrors.NewInternalError(fmt.Errorf("error building authorizer attributes: %w", err))
	}
	return s.auth.authz.Authorize(c.Request.GoCtx, overrideVerb{Attributes: attrs, verb: verb})
}

// overrideVerb is the request's attributes with another verb.
type overrideVerb struct {
	authorizer.Attributes
	verb string
}

// GetVerb implements authorizer.Attributes.
func (o overrideVerb) GetVerb() string { return o.verb }

// streamResponder writes the upgrade-aware proxy's errors as API errors.
type streamResponder struct {
	w http.ResponseWriter
	r *http.Request
}

// Object implements rest.Responder.
func (s *streamResponder) Object(code int, obj runtime.Object) {
	if st, ok := obj.(*metav1.Status); ok {
		writeError(s.w, s.r, &apierrors.StatusError{ErrStatus: *st})
		return
	}
	s.w.WriteHeader(code)
}

// Error implements rest.Responder.
func (s *streamResponder) Error(err error) { writeError(s.w, s.r, err) }

// podKubeletConnection is kubeletConnectionFor for a pod's log, exec,
// attach or port-forward: upstream's pod connection lookup answers a
// missing node as a missing pod of the node's name.
func (s *Server) podKubeletConnection(ctx context.Context, nodeName string) (*kubeletConnection, error) {
	conn, err := s.kubeletConnectionFor(ctx, nodeName)
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, nodeName)
	}
	return conn, err
}
