package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
)

// loggingFlagValues are kube-apiserver's logging flags (component-base's
// LoggingConfiguration): the format, the flush frequency, klog's
// per-file verbosity (--vmodule, for the upstream libraries' klog lines),
// and the alpha options that LoggingAlphaOptions, off in v1.37 and not
// turned on by fakeplane, forbids.
type loggingFlagValues struct {
	format         *string
	flushFrequency *time.Duration
	textSplit      *bool
	jsonSplit      *bool
	textBuffer     quantity
	jsonBuffer     quantity
	vmodule        logsapi.VModuleConfiguration
}

// quantity is a flag of a resource.Quantity ("512", "1Ki", "3M").
type quantity struct{ resource.Quantity }

// Set parses v as a quantity, with its error.
func (q *quantity) Set(v string) error {
	parsed, err := resource.ParseQuantity(v)
	if err != nil {
		return err
	}
	q.Quantity = parsed
	return nil
}

// loggingFlags defines the logging flags on fs.
func loggingFlags(fs *flag.FlagSet) *loggingFlagValues {
	v := &loggingFlagValues{}
	v.format = fs.String("logging-format", "text", "Sets the log format. Permitted formats: \"json\", \"text\" (log/slog's text or JSON lines).")
	v.flushFrequency = fs.Duration("log-flush-frequency", 5*time.Second, "Maximum number of seconds between log flushes (fakeplane's log lines are written as they come)")
	v.textSplit = fs.Bool("log-text-split-stream", false, "[Alpha] In text format, write error messages to stderr and info messages to stdout. Enable the LoggingAlphaOptions feature gate to use this (fakeplane takes v1.37's default feature gates only).")
	v.jsonSplit = fs.Bool("log-json-split-stream", false, "[Alpha] In JSON format, write error messages to stderr and info messages to stdout. Enable the LoggingAlphaOptions feature gate to use this (fakeplane takes v1.37's default feature gates only).")
	fs.Var(&v.textBuffer, "log-text-info-buffer-size", "[Alpha] In text format with split output streams, the info messages can be buffered for a while to increase performance. Enable the LoggingAlphaOptions feature gate to use this.")
	fs.Var(logsapi.VModuleConfigurationPflag(&v.vmodule), "vmodule", "comma-separated list of pattern=N settings for file-filtered logging (only works for text log format): klog's, for the lines of the upstream libraries fakeplane runs")
	fs.Var(&v.jsonBuffer, "log-json-info-buffer-size", "[Alpha] In JSON format with split output streams, the info messages can be buffered for a while to increase performance. Enable the LoggingAlphaOptions feature gate to use this.")
	return v
}

// handler checks the flags as kube-apiserver validates its logging
// configuration (every error, in its order and words) and returns the log
// handler writing to w at level.
func (v *loggingFlagValues) handler(w io.Writer, level slog.Level) (slog.Handler, error) {
	var errs field.ErrorList
	if *v.flushFrequency <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("flushFrequency"), v.flushFrequency.String(), "Must be greater than zero"))
	}
	var h slog.Handler
	switch *v.format {
	case "text":
		h = slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
	case "json":
		h = slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
	default:
		errs = append(errs, field.Invalid(field.NewPath("format"), *v.format, "Unsupported log format"))
	}
	// (The flag's parser already refuses what the rest of upstream's
	// checks of each pattern would.)
	if len(v.vmodule) > 0 && *v.format != "text" {
		errs = append(errs, field.Forbidden(field.NewPath("vmodule"), "Only supported for text log format"))
	}
	const disabled = "Feature LoggingAlphaOptions is disabled"
	options := field.NewPath("options")
	for _, o := range []struct {
		format string
		split  bool
		buffer quantity
	}{{"text", *v.textSplit, v.textBuffer}, {"json", *v.jsonSplit, v.jsonBuffer}} {
		if o.split {
			errs = append(errs, field.Forbidden(options.Child(o.format, "splitStream"), disabled))
		}
		if o.buffer.Value() != 0 {
			errs = append(errs, field.Forbidden(options.Child(o.format, "infoBufferSize"), disabled))
		}
	}
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	if len(v.vmodule) > 0 {
		// klog's settings are the process's, as kube-apiserver's are.
		klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(klogFlags)
		if err := klogFlags.Set("vmodule", logsapi.VModuleConfigurationPflag(&v.vmodule).String()); err != nil {
			return nil, fmt.Errorf("internal error while setting klog vmodule: %w", err)
		}
	}
	return h, nil
}
