package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/auth"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// clusterRolesBucket is the store bucket of ClusterRoles.
const clusterRolesBucket = "rbac.authorization.k8s.io/clusterroles"

var clusterRolesGVR = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}

// ClusterRoleAggregation sets the rules of every ClusterRole with an
// aggregationRule to the rules of the ClusterRoles its selectors match, as
// kube-controller-manager's clusterrole-aggregation controller does
// (auth.AggregateClusterRole computes them). It writes as that controller's
// service account, kube-system/clusterrole-aggregation-controller, which
// the bootstrap RBAC policy allows to escalate ClusterRoles.
//
// An aggregated ClusterRole that others aggregate in turn (edit, aggregated
// into admin) is followed within the same sync.
type ClusterRoleAggregation struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	// roles are the stored ClusterRoles, by name.
	roles map[string]*aggregationRole
}

// aggregationRole is a stored ClusterRole as the aggregation knows it. Its
// rules are decoded only once it has an aggregationRule or a selector of
// one matches it: of a fresh cluster's ~70 roles about a dozen are, and
// decoding every role's rules at each start was most of the controller's
// first sync.
type aggregationRole struct {
	// cr has the role's name, labels and aggregationRule; its rules too
	// once raw is nil.
	cr *rbacv1.ClusterRole
	// raw is the stored JSON, until its rules are decoded.
	raw []byte
}

// decodeClusterRoleHead decodes what the aggregation reads of every stored
// ClusterRole: its name, labels and aggregationRule. It scans past the
// rest (the rules, the managedFields) without decoding it.
func decodeClusterRoleHead(data []byte) (*rbacv1.ClusterRole, error) {
	top, err := registry.RawFields(data, "metadata", "aggregationRule")
	if err != nil {
		return nil, err
	}
	cr := &rbacv1.ClusterRole{}
	if top[0] != nil {
		md, err := registry.RawFields(top[0], "name", "labels")
		if err != nil {
			return nil, err
		}
		for i, into := range []any{&cr.Name, &cr.Labels} {
			if md[i] != nil {
				if err := json.Unmarshal(md[i], into); err != nil {
					return nil, err
				}
			}
		}
	}
	if top[1] != nil {
		if err := json.Unmarshal(top[1], &cr.AggregationRule); err != nil {
			return nil, err
		}
	}
	return cr, nil
}

// NewClusterRoleAggregation returns the ClusterRole aggregation controller,
// writing through reg and logging to log.
func NewClusterRoleAggregation(reg registry.Interface, log *slog.Logger) *ClusterRoleAggregation {
	const ns, name = "kube-system", "clusterrole-aggregation-controller"
	return &ClusterRoleAggregation{
		reg: reg,
		log: log,
		user: &user.DefaultInfo{
			Name:   serviceaccount.MakeUsername(ns, name),
			Groups: append(serviceaccount.MakeGroupNames(ns), user.AllAuthenticated),
		},
		roles: map[string]*aggregationRole{},
	}
}

// Name implements Controller.
func (c *ClusterRoleAggregation) Name() string { return "clusterrole-aggregation-controller" }

// Resources implements Controller.
func (c *ClusterRoleAggregation) Resources() []string { return []string{clusterRolesBucket} }

// Sync implements Controller: every aggregated ClusterRole is brought up to
// date once per batch of changes, however many came.
func (c *ClusterRoleAggregation) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted {
			delete(c.roles, ev.Key)
			continue
		}
		if r, ok := c.roles[ev.Key]; ok && r.raw == nil && r.cr.ResourceVersion == strconv.FormatInt(ev.Revision, 10) {
			continue // the controller's own write, which it holds already
		}
		cr, err := decodeClusterRoleHead(ev.Value)
		if err != nil {
			c.log.Error("decode ClusterRole", "key", ev.Key, "revision", ev.Revision, "err", err)
			delete(c.roles, ev.Key)
			continue
		}
		c.roles[ev.Key] = &aggregationRole{cr: cr, raw: ev.Value}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "clusterrole-aggregation-controller") // as upstream's controller
	var aggregated []string
	var selectors []labels.Selector
	for name, r := range c.roles {
		if r.cr.AggregationRule == nil {
			continue
		}
		aggregated = append(aggregated, name)
		for i := range r.cr.AggregationRule.ClusterRoleSelectors {
			if sel, err := metav1.LabelSelectorAsSelector(&r.cr.AggregationRule.ClusterRoleSelectors[i]); err == nil {
				selectors = append(selectors, sel)
			}
		}
	}
	sort.Strings(aggregated)
	c.decodeRules(selectors)
	// Each pass writes the roles whose rules changed; the next one follows
	// them into the roles that aggregate those. Rules only accumulate, so
	// this ends; the bound is for safety.
	var errs []error
	for pass := 0; pass <= len(aggregated); pass++ {
		errs = errs[:0]
		all := make([]*rbacv1.ClusterRole, 0, len(c.roles))
		for _, r := range c.roles {
			all = append(all, r.cr)
		}
		wrote := false
		for _, name := range aggregated {
			r, ok := c.roles[name]
			if !ok || r.cr.AggregationRule == nil || sameRules(auth.AggregateClusterRole(r.cr, all), r.cr.Rules) {
				continue
			}
			updated, err := c.aggregate(ctx, name, all)
			switch {
			case apierrors.IsNotFound(err): // its event is on the way
			case err != nil:
				errs = append(errs, err)
			default:
				c.roles[name] = &aggregationRole{cr: updated}
				wrote = true
			}
		}
		if !wrote {
			break
		}
	}
	return errors.Join(errs...)
}

// decodeRules decodes the rules of the roles that have an aggregationRule
// or that one of selectors matches, where not decoded yet. A role whose
// JSON does not decode is dropped, as one whose head did not decode is.
func (c *ClusterRoleAggregation) decodeRules(selectors []labels.Selector) {
	for key, r := range c.roles {
		if r.raw == nil {
			continue
		}
		needed := r.cr.AggregationRule != nil
		for _, sel := range selectors {
			if needed {
				break
			}
			needed = sel.Matches(labels.Set(r.cr.Labels))
		}
		if !needed {
			continue
		}
		rules, err := registry.RawFields(r.raw, "rules")
		if err == nil && rules[0] != nil {
			err = json.Unmarshal(rules[0], &r.cr.Rules)
		}
		if err != nil {
			c.log.Error("decode ClusterRole", "key", key, "err", err)
			delete(c.roles, key)
			continue
		}
		r.raw = nil
	}
}

// aggregate writes the aggregated rules of the ClusterRole name, as
// computed from its current state and all.
func (c *ClusterRoleAggregation) aggregate(ctx context.Context, name string, all []*rbacv1.ClusterRole) (*rbacv1.ClusterRole, error) {
	obj, err := c.reg.Update(ctx, clusterRolesGVR, "", name, func(cur runtime.Object) (runtime.Object, error) {
		cr := cur.(*rbacv1.ClusterRole)
		cr.Rules = auth.AggregateClusterRole(cr, all)
		return cr, nil
	})
	if err != nil {
		return nil, fmt.Errorf("aggregate ClusterRole %s: %w", name, err)
	}
	cr, ok := obj.(*rbacv1.ClusterRole)
	if !ok {
		return nil, fmt.Errorf("aggregate ClusterRole %s: the registry answered with a %T", name, obj)
	}
	return cr, nil
}

// sameRules reports whether two rule lists are stored alike.
func sameRules(a, b []rbacv1.PolicyRule) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}
