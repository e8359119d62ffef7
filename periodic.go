package fakeplane

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// periodic runs a task of the control plane's own every interval, on a
// goroutine of its own, until close: kube-apiserver's identity Lease
// renewals, the kubernetes Service's endpoint reconciliation.
type periodic struct {
	stop context.CancelFunc
	done sync.WaitGroup
}

// start runs task every interval until close; an error of a run that was
// not cut short by close is logged as what failed.
func (p *periodic) start(interval time.Duration, task func(context.Context) error, log *slog.Logger, what string) {
	ctx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	p.done.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := task(ctx); err != nil && ctx.Err() == nil {
					log.Warn(what, "err", err)
				}
			}
		}
	})
}

// close stops the runs and waits for the one in flight.
func (p *periodic) close() {
	if p.stop != nil {
		p.stop()
	}
	p.done.Wait()
}
