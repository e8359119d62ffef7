package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// ttlBoundaries are kube-controller-manager's TTL steps by cluster size:
// a step is left upward above its sizeMax and downward below its sizeMin
// (the ranges overlap, so the TTL does not flap at a boundary).
var ttlBoundaries = []struct{ sizeMin, sizeMax, seconds int }{
	{0, 100, 0},
	{90, 500, 15},
	{450, 1000, 30},
	{900, 2000, 60},
	{1800, math.MaxInt32, 300},
}

// TTL annotates every Node with node.alpha.kubernetes.io/ttl, how long
// kubelets may cache the Secrets and ConfigMaps their pods use, as
// kube-controller-manager's ttl-controller does: the seconds of the step
// the number of nodes is in (0 up to 100 nodes), set when a node lacks it
// or has another value.
type TTL struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	// annotations are the nodes' ttl annotations by name ("" for none).
	annotations map[string]string
	// step is the index in ttlBoundaries of the current TTL.
	step int
}

// NewTTL returns the TTL controller, writing through reg and logging to
// log.
func NewTTL(reg registry.Interface, log *slog.Logger) *TTL {
	if log == nil {
		log = slog.Default()
	}
	return &TTL{reg: reg, log: log, user: controllerUser("ttl-controller"), annotations: map[string]string{}}
}

// Name implements Controller.
func (c *TTL) Name() string { return TTLName }

// Resources implements Controller.
func (c *TTL) Resources() []string { return []string{nodesBucket} }

// Sync implements Controller.
func (c *TTL) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted {
			delete(c.annotations, ev.Key)
			continue
		}
		var node struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(ev.Value, &node); err != nil {
			c.log.Warn("undecodable Node", "name", ev.Key, "err", err)
			continue
		}
		c.annotations[ev.Key] = node.Metadata.Annotations[corev1.ObjectTTLAnnotationKey]
	}
	for n := len(c.annotations); n > ttlBoundaries[c.step].sizeMax; {
		c.step++
	}
	for n := len(c.annotations); n < ttlBoundaries[c.step].sizeMin; {
		c.step--
	}
	want := strconv.Itoa(ttlBoundaries[c.step].seconds)
	names := make([]string, 0, len(c.annotations))
	for name, v := range c.annotations {
		if v != want {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, name := range names {
		_, err := c.reg.Update(ctx, nodesGVR, "", name, func(cur runtime.Object) (runtime.Object, error) {
			node := cur.(*corev1.Node)
			if node.Annotations[corev1.ObjectTTLAnnotationKey] == want {
				return nil, errNoChange
			}
			if node.Annotations == nil {
				node.Annotations = map[string]string{}
			}
			node.Annotations[corev1.ObjectTTLAnnotationKey] = want
			return node, nil
		})
		switch {
		case err == nil, errors.Is(err, errNoChange), apierrors.IsNotFound(err):
			c.annotations[name] = want
		default:
			errs = append(errs, fmt.Errorf("annotate node %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
