package fakeplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	apiserverconfiginstall "k8s.io/apiserver/pkg/apis/apiserver/install"
	"k8s.io/component-base/tracing"
	tracingapi "k8s.io/component-base/tracing/api/v1"
)

// WithTracingConfigFile is kube-apiserver's --tracing-config-file: a
// TracingConfiguration (apiserver.config.k8s.io/v1, v1beta1 or v1alpha1)
// naming an OpenTelemetry collector (endpoint, default localhost:4317,
// reached over OTLP gRPC without TLS) and how many requests in a million
// are traced (samplingRatePerMillion; a request whose trace context says
// sampled is traced whatever it says). Each traced request is a span as
// kube-apiserver's request filter makes it (its name, such as
// "GET /api/v1/namespaces/{:namespace}/configmaps/{:name}", and attributes),
// of the service "apiserver"; the spans kube-apiserver makes inside a
// request (its handlers' steps, etcd calls, webhook calls) are not built.
// The file is read and checked at start with kube-apiserver's errors.
//
// Without it, as on kube-apiserver, nothing is recorded, but a request's
// trace context (traceparent, baggage) still reaches the admission and
// conversion webhooks it calls.
func WithTracingConfigFile(path string) Option {
	return func(o *options) { o.tracingConfigFile = path }
}

// tracingShutdownTimeout bounds how long Stop waits for the spans still
// buffered to reach the collector.
const tracingShutdownTimeout = 2 * time.Second

// startTracing returns the tracer provider of the tracing configuration at
// path, nil when path is empty. id is the server's identity (the spans'
// service.instance.id).
func startTracing(path, id string) (tracing.TracerProvider, error) {
	if path == "" {
		return nil, nil
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("tracing-config-file %s does not exist", path)
		}
		return nil, fmt.Errorf("error checking if tracing-config-file %s exists: %v", path, err)
	}
	cfg, err := readTracingConfiguration(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read tracing config: %v", err)
	}
	if errs := tracingapi.ValidateTracingConfiguration(cfg, nil, nil); len(errs) > 0 {
		return nil, fmt.Errorf("failed to validate tracing configuration: %v", errs.ToAggregate())
	}
	return tracing.NewProvider(context.Background(), cfg, nil, []resource.Option{resource.WithAttributes(
		semconv.ServiceNameKey.String("apiserver"),
		semconv.ServiceInstanceIDKey.String(id),
	)})
}

// readTracingConfiguration reads a TracingConfiguration file of any of its
// versions, with kube-apiserver's errors.
func readTracingConfiguration(path string) (*tracingapi.TracingConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read tracing configuration from %q: %v", path, err)
	}
	// A scheme of its own: nothing global shared between control planes.
	scheme := runtime.NewScheme()
	apiserverconfiginstall.Install(scheme)
	cfg := &apiserverconfig.TracingConfiguration{}
	if err := runtime.DecodeInto(serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDecoder(), data, cfg); err != nil {
		return nil, fmt.Errorf("unable to decode tracing configuration data: %v", err)
	}
	return &cfg.TracingConfiguration, nil
}

// tracerProvider is the control plane's tracer provider: one that records
// nothing without a tracing configuration, which still carries a
// request's trace context to the webhooks it calls.
func (cp *ControlPlane) tracerProvider() tracing.TracerProvider {
	if cp.tracer == nil {
		return tracing.NewNoopTracerProvider()
	}
	return cp.tracer
}

// stopTracing sends the spans the provider still holds, waiting
// tracingShutdownTimeout at most, and ends its exporter.
func stopTracing(tp tracing.TracerProvider) error {
	if tp == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tracingShutdownTimeout)
	defer cancel()
	if err := tp.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("fakeplane: tracing: %w", err)
	}
	return nil
}
