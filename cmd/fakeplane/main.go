// Command fakeplane serves a fake Kubernetes control plane on loopback and
// writes an admin kubeconfig for it.
//
//	go run ./cmd/fakeplane
//	export KUBECONFIG=$PWD/fakeplane.kubeconfig
//	kubectl get ns
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/fakeplane/fakeplane"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fakeplane:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("fakeplane", flag.ContinueOnError)
	listen := fs.String("listen", fakeplane.DefaultListenAddress, "host:port to serve HTTPS on (port 0 lets the kernel pick)")
	kubeconfig := fs.String("kubeconfig", "fakeplane.kubeconfig", "where to write the admin kubeconfig")
	dataDir := fs.String("data-dir", "", "keep state in this directory across restarts (default: a temporary directory removed at exit)")
	verbose := fs.Bool("v", false, "log requests' errors and controller messages to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	path, err := filepath.Abs(*kubeconfig)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	opts := []fakeplane.Option{fakeplane.WithListenAddress(*listen), fakeplane.WithKubeconfigPath(path), fakeplane.WithLogger(logger)}
	if *dataDir != "" {
		opts = append(opts, fakeplane.WithDataDir(*dataDir))
	}
	cp, err := fakeplane.New(opts...)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cp.Start(ctx); err != nil {
		return err
	}
	fmt.Printf("fakeplane is serving %s; use it with: export KUBECONFIG=%s\n", cp.URL(), path)
	<-ctx.Done()
	return cp.Stop()
}
