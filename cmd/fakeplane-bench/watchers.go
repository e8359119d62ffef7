package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// benchWatchers measures watch fan-out: -watchers watches open on one
// selection, -n creates one after the other, and for each create the time
// from its start until each watcher has its ADDED event. p50/p90/p99 are
// over all (event, watcher) deliveries; ops/s is events delivered to all
// watchers per second.
func (t *target) benchWatchers(ctx context.Context, cfg config, rep *report) error {
	if cfg.watchers == 0 {
		return nil
	}
	fmt.Fprintf(os.Stderr, "%s: watch with %d watchers\n", t.name, cfg.watchers)
	f, err := t.fanOut(ctx, "fanout", cfg.watchers, cfg.n)
	if err != nil {
		return err
	}
	rep.results["watchers"] = summarize(f.deliveries, float64(cfg.n)/f.elapsed.Seconds())
	return nil
}

// fanOutResult is what fanOut measured.
type fanOutResult struct {
	deliveries []time.Duration // from the start of a create to a watcher's event
	creates    []time.Duration // the creates' latencies
	elapsed    time.Duration
}

// fanOut opens watchers watches on the set's ConfigMaps (their opening is
// not timed), then creates n of them one after the other and waits, each
// time, until every watcher has the ADDED event.
func (t *target) fanOut(ctx context.Context, set string, watchers, n int) (*fanOutResult, error) {
	l, err := t.list(ctx, set, 0)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type delivery struct {
		name string
		at   time.Time
	}
	got := make(chan delivery, watchers*4)
	errc := make(chan error, watchers)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	open := func(_, _ int) error {
		w, err := t.c.CoreV1().ConfigMaps(t.ns).Watch(ctx, metav1.ListOptions{
			LabelSelector:   setLabel + "=" + set,
			ResourceVersion: l.ResourceVersion,
		})
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Stop()
			for {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						if ctx.Err() == nil {
							errc <- errors.New("watch closed")
						}
						return
					}
					if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added {
						select {
						case got <- delivery{cm.Name, time.Now()}:
						case <-ctx.Done():
							return
						}
					}
				case <-ctx.Done():
					return
				}
			}
		}()
		return nil
	}
	if _, err := parallel(ctx, watchers, fillers, open); err != nil {
		return nil, fmt.Errorf("open %d watches: %w", watchers, err)
	}
	res := &fanOutResult{}
	start := time.Now()
	for i := range n {
		name := fmt.Sprintf("%s-%d", set, i)
		t0 := time.Now()
		if _, err := t.create(ctx, name, set); err != nil {
			return nil, err
		}
		res.creates = append(res.creates, time.Since(t0))
		timeout := time.NewTimer(time.Minute)
		for k := 0; k < watchers; {
			select {
			case d := <-got:
				if d.name != name {
					timeout.Stop()
					return nil, fmt.Errorf("watch delivered %s while %s was awaited", d.name, name)
				}
				res.deliveries = append(res.deliveries, d.at.Sub(t0))
				k++
			case err := <-errc:
				timeout.Stop()
				return nil, err
			case <-timeout.C:
				return nil, fmt.Errorf("%s: %d of %d watchers had the event within a minute", name, k, watchers)
			}
		}
		timeout.Stop()
	}
	res.elapsed = time.Since(start)
	return res, nil
}
