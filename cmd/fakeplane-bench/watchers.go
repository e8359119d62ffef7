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
	l, err := t.list(ctx, "fanout", 0)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type delivery struct {
		name string
		at   time.Time
	}
	got := make(chan delivery, cfg.watchers*4)
	errc := make(chan error, cfg.watchers)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for range cfg.watchers {
		w, err := t.c.CoreV1().ConfigMaps(t.ns).Watch(ctx, metav1.ListOptions{
			LabelSelector:   setLabel + "=fanout",
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
	}
	var lat []time.Duration
	start := time.Now()
	for i := range cfg.n {
		name := fmt.Sprintf("fanout-%d", i)
		t0 := time.Now()
		if _, err := t.create(ctx, name, "fanout"); err != nil {
			return err
		}
		timeout := time.NewTimer(time.Minute)
		for n := 0; n < cfg.watchers; {
			select {
			case d := <-got:
				if d.name != name {
					timeout.Stop()
					return fmt.Errorf("watch delivered %s while %s was awaited", d.name, name)
				}
				lat = append(lat, d.at.Sub(t0))
				n++
			case err := <-errc:
				timeout.Stop()
				return err
			case <-timeout.C:
				return fmt.Errorf("%s: %d of %d watchers had the event within a minute", name, n, cfg.watchers)
			}
		}
		timeout.Stop()
	}
	rep.results["watchers"] = summarize(lat, float64(cfg.n)/time.Since(start).Seconds())
	return nil
}
