package registry

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8sstorage "k8s.io/apiserver/pkg/storage"

	"github.com/fakeplane/fakeplane/store"
)

// CheckListOptions validates decoded list/watch options as upstream does and
// turns their field selector's labels into the fields they match.
func (s *Registry) CheckListOptions(c *Request, opts *metainternalversion.ListOptions) (*metainternalversion.ListOptions, error) {
	if c.Info.Name != "" {
		// A watch or list of one object (…/resource/name or fieldSelector) is
		// served as a metadata.name field selector.
		nameSel := fields.OneTermEqualSelector("metadata.name", c.Info.Name)
		if opts.FieldSelector == nil || opts.FieldSelector.Empty() {
			opts.FieldSelector = nameSel
		} else {
			opts.FieldSelector = fields.AndSelectors(opts.FieldSelector, nameSel)
		}
	}
	errs := metainternalversionvalidation.ValidateListOptions(opts, true)
	if opts.Watch && opts.Continue != "" && opts.ResourceVersionMatch == "" {
		// What kube-apiserver v1.37 answers a watch given a continue token.
		errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", errs)
	}
	if opts.FieldSelector != nil {
		sel, err := opts.FieldSelector.Transform(func(label, value string) (string, string, error) {
			to, ok := c.Res.convertField(label)
			if !ok {
				return "", "", c.Res.fieldLabelError(label)
			}
			return to, value, nil
		})
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		opts.FieldSelector = sel
	}
	return opts, nil
}

// Selection is a parsed label and field selector.
type Selection struct {
	labels labels.Selector
	fields fields.Selector
	res    *Resource
}

// NewSelection parses the label and field selectors of list options.
func NewSelection(res *Resource, opts *metainternalversion.ListOptions) *Selection {
	sel := &Selection{res: res, labels: opts.LabelSelector, fields: opts.FieldSelector}
	if sel.labels == nil {
		sel.labels = labels.Everything()
	}
	if sel.fields == nil {
		sel.fields = fields.Everything()
	}
	return sel
}

// Empty reports whether the selection selects everything.
func (sel *Selection) Empty() bool { return sel.labels.Empty() && sel.fields.Empty() }

// Matches reports whether a stored object passes the selectors.
func (sel *Selection) Matches(data []byte) bool {
	if sel.Empty() {
		return true
	}
	if sel.fields.Empty() {
		// Labels only: decode just metadata.labels.
		var o struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(data, &o); err != nil {
			return false
		}
		return sel.labels.Matches(labels.Set(o.Metadata.Labels))
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return false
	}
	return sel.matchesMap(m)
}

func (sel *Selection) matchesMap(m map[string]any) bool {
	if !sel.labels.Empty() {
		ls := labels.Set{}
		if l, ok := getField(m, "metadata", "labels"); ok {
			if lm, ok := l.(map[string]any); ok {
				for k, v := range lm {
					if s, ok := v.(string); ok {
						ls[k] = s
					}
				}
			}
		}
		if !sel.labels.Matches(ls) {
			return false
		}
	}
	if !sel.fields.Empty() {
		fs := fields.Set{}
		for _, req := range sel.fields.Requirements() {
			fs[req.Field] = fieldValue(m, req.Field)
		}
		if !sel.fields.Matches(fs) {
			return false
		}
	}
	return true
}

// fieldValue reads a field selector label from an object.
func fieldValue(m map[string]any, label string) string {
	path := fieldPaths[label]
	if path == nil {
		path = strings.Split(label, ".")
	}
	v, ok := getField(m, path...)
	if !ok || v == nil {
		switch label {
		case "spec.hostNetwork", "spec.unschedulable":
			return "false"
		case "status.replicas", "status.successful":
			return "0"
		}
		return ""
	}
	switch t := v.(type) {
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case []any:
		// status.podIPs: the first entry's ip, as upstream's pod attributes.
		if len(t) > 0 {
			if mm, ok := t[0].(map[string]any); ok {
				if ip, ok := mm["ip"].(string); ok {
					return ip
				}
			}
		}
		return ""
	default:
		return fmt.Sprint(t)
	}
}

// fieldPaths maps field labels whose object path differs from the label.
var fieldPaths = map[string][]string{
	"source": {"source", "component"},
}

// continueToken is upstream's opaque continue token. ResourceVersion -1
// means the current revision.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// encodeContinue is upstream's token for a page that ends at lastKey, a
// key of a list whose keys start with prefix (the namespace and a slash,
// or nothing): upstream's start key is relative to the list's key prefix,
// so it is "/name" in a namespace's list and "/namespace/name" in one of
// all namespaces.
func encodeContinue(rv int64, lastKey, prefix string) string {
	start := "/" + strings.TrimPrefix(lastKey, prefix) + "\x00"
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rv, StartKey: start})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue reads a continue token of a list whose keys start with
// prefix (see encodeContinue) and returns the key its page follows.
func decodeContinue(tok, prefix string) (rv int64, after string, err error) {
	// Upstream's own decoding: its checks (a start key that climbs out of
	// the list's prefix among them) and their words.
	key, rv, err := k8sstorage.DecodeContinue(tok, prefix)
	if err != nil {
		return 0, "", err
	}
	return rv, strings.TrimSuffix(key, "\x00"), nil
}

// ListServed reads the page of a list that opts selects: its list metadata,
// the stored objects and their JSON in the served version.
func (s *Registry) ListServed(c *Request, opts *metainternalversion.ListOptions) (metav1.ListMeta, []store.Object, [][]byte, error) {
	var later []pendingEntry
	sel, lo, err := s.listStoreOptions(c, opts, &later)
	if err != nil {
		return metav1.ListMeta{}, nil, nil, err
	}
	res, err := s.store.List(c.Res.Bucket, lo)
	s.enc.adopt(later)
	if err != nil {
		return metav1.ListMeta{}, nil, nil, listError(err, opts, lo)
	}
	lm := listMeta(sel, res, lastKey(res.Items), lo.Prefix)
	// A batch that fails is converted again object by object, so that the
	// error names each object that cannot be read, as upstream's does.
	_ = s.enc.prefetchServed(c.Res, res.Items)
	items := make([][]byte, len(res.Items))
	var failed []ReadFailure
	for i, it := range res.Items {
		b, err := s.enc.ServedOf(c.Res, it.Key, it.Revision, it.Value)
		if err != nil {
			failed = append(failed, ReadFailure{Key: it.Key, Revision: it.Revision, Err: err})
			if len(failed) == maxReadFailures {
				break
			}
			continue
		}
		items[i] = b
	}
	if len(failed) > 0 {
		return lm, nil, nil, ErrStorageReadMany(c.Res, failed)
	}
	return lm, res.Items, items, nil
}

// VisitServed reads the page of a list that opts selects, as ListServed
// does, but hands each item to visit, in order, instead of collecting the
// items: the stored object's key and revision and, with proto, its
// protobuf message (see EncCache.ProtoOf), else its JSON in the served
// version. data may alias the store's memory: it is valid only during the
// call and must not be changed. visit may run inside the store's read (in
// protobuf, the items from the first whose message is not cached on are
// visited after it), so it must not call the store. An error from visit
// ends the list and is returned as it is, unless the list has unreadable
// objects: their answer comes first, as ListServed's (visit may have seen
// the others).
func (s *Registry) VisitServed(c *Request, opts *metainternalversion.ListOptions, proto bool, visit func(key string, rev int64, data []byte) error) (metav1.ListMeta, error) {
	if _, ok := c.Res.conv.(batchConverter); ok {
		// A converter that converts a page in one batch needs the page
		// first.
		lm, stored, items, err := s.ListServed(c, opts)
		if err != nil {
			return lm, err
		}
		for i, it := range stored {
			data := items[i]
			if proto {
				if data, err = s.enc.ProtoOf(c.Res, it.Key, it.Revision, data); err != nil {
					return lm, apierrors.NewInternalError(err)
				}
			}
			if err := visit(it.Key, it.Revision, data); err != nil {
				return lm, err
			}
		}
		return lm, nil
	}
	// The cache entries that need the store's word are kept after the
	// read (see EncCache.entryIn).
	var later []pendingEntry
	defer func() { s.enc.adopt(later) }()
	sel, lo, err := s.listStoreOptions(c, opts, &later)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	var failed []ReadFailure
	var visitErr error
	last := ""
	// In protobuf, the items are visited as they are read until one's
	// message is not cached; from there on they are gathered, and visited
	// after the read once the missing messages are encoded, on every core
	// when there are many (the first list of many objects).
	var gathered []protoItem
	res, err := store.Visit(s.store, c.Res.Bucket, lo, func(it store.Object) error {
		last = it.Key
		b, err := s.enc.servedOfIn(c.Res, it.Key, it.Revision, it.Value, &later)
		if err != nil {
			failed = append(failed, ReadFailure{Key: it.Key, Revision: it.Revision, Err: err})
			if len(failed) == maxReadFailures {
				return errStopList
			}
			return nil
		}
		if len(failed) > 0 || visitErr != nil {
			// After an error the rest is read only for the unreadable
			// objects, whose answer comes first, as ListServed's.
			return nil
		}
		if proto {
			pi := s.enc.protoItemIn(c.Res, it.Key, it.Revision, b, &later)
			if pi.msg == nil || gathered != nil {
				gathered = append(gathered, pi)
				return nil
			}
			b = pi.msg
		}
		visitErr = visit(it.Key, it.Revision, b)
		return nil
	})
	switch {
	case err != nil && err != errStopList:
		return metav1.ListMeta{}, listError(err, opts, lo)
	case len(failed) > 0:
		return metav1.ListMeta{}, ErrStorageReadMany(c.Res, failed)
	case visitErr != nil:
		return metav1.ListMeta{}, visitErr
	}
	if err := s.enc.encodeMissing(c.Res, gathered); err != nil {
		return metav1.ListMeta{}, apierrors.NewInternalError(err)
	}
	for _, pi := range gathered {
		if err := visit(pi.key, pi.rev, pi.msg); err != nil {
			return metav1.ListMeta{}, err
		}
	}
	return listMeta(sel, res, last, lo.Prefix), nil
}

// errStopList ends a visit of a list that found maxReadFailures
// unreadable objects.
var errStopList = errors.New("list stopped at the read failures it names")

// lastKey is the key of the last of items ("" for none).
func lastKey(items []store.Object) string {
	if len(items) == 0 {
		return ""
	}
	return items[len(items)-1].Key
}

// listStoreOptions turns list options into the selection and the store
// list options of the page they ask for, waiting for a resourceVersion
// newer than the store's. Its filter runs inside the store's read: the
// cache entries it makes that need the store's word go to later.
func (s *Registry) listStoreOptions(c *Request, opts *metainternalversion.ListOptions, later *[]pendingEntry) (*Selection, store.ListOptions, error) {
	sel := NewSelection(c.Res, opts)
	lo := store.ListOptions{Limit: int(opts.Limit)}
	if opts.ResourceVersion == "0" && opts.ResourceVersionMatch != metav1.ResourceVersionMatchExact {
		// Upstream serves these from its watch cache, whole: the limit is
		// not applied.
		lo.Limit = 0
	}
	if c.Namespace != "" {
		lo.Prefix = c.Namespace + "/"
	}
	if !sel.Empty() {
		lo.Filter = s.filterForIn(c.Res, sel, later)
		lo.Index, lo.IndexExact = sel.IndexTerm(), sel.indexedExactly()
	}
	switch {
	case opts.Continue != "":
		rv, after, err := decodeContinue(opts.Continue, lo.Prefix)
		if err != nil {
			return nil, lo, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
		// A negative revision (the token of a 410 for a compacted one)
		// continues at the current revision, as upstream's.
		lo.StartAfter = after
		if rv > 0 {
			lo.Revision = rv
		}
	case opts.ResourceVersion != "" && opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact:
		rv, err := ParseRV(opts.ResourceVersion)
		if err != nil {
			return nil, lo, err
		}
		lo.Revision = rv
	case opts.ResourceVersion != "" && opts.ResourceVersion != "0":
		rv, err := ParseRV(opts.ResourceVersion)
		if err != nil {
			return nil, lo, err
		}
		if cur := s.store.CurrentRevision(); rv > cur {
			if err := s.WaitForRevision(c.Context(), rv); err != nil {
				return nil, lo, err
			}
		}
	}
	return sel, lo, nil
}

// listError is the API error for a store list's error.
func listError(err error, opts *metainternalversion.ListOptions, lo store.ListOptions) error {
	var ce *store.CompactedError
	var fe *store.FutureRevisionError
	switch {
	case errors.As(err, &ce) && opts.Continue != "":
		// Upstream's 410 for a compacted continue token carries one
		// that continues after the same key at the current revision.
		expired := apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
		expired.ErrStatus.ListMeta.Continue = encodeContinue(-1, lo.StartAfter, lo.Prefix)
		return expired
	case errors.As(err, &ce):
		return ErrExpired(fmt.Sprintf("The resourceVersion for the provided list is too old."))
	case errors.As(err, &fe):
		return tooLargeRV(fe.Requested, fe.Current)
	}
	return apierrors.NewInternalError(err)
}

// listMeta is the list metadata of a page read from the store; last is
// the key of its last item, prefix the list's key prefix.
func listMeta(sel *Selection, res *store.ListResult, last, prefix string) metav1.ListMeta {
	lm := metav1.ListMeta{ResourceVersion: strconv.FormatInt(res.Revision, 10)}
	if _, single := sel.fields.RequiresExactMatch("metadata.name"); single {
		// Upstream's store reads the one key a metadata.name selector
		// names: nothing can follow it, whatever the limit.
		return lm
	}
	if res.More && last != "" {
		lm.Continue = encodeContinue(res.Revision, last, prefix)
		if sel.Empty() {
			n := res.Remaining
			lm.RemainingItemCount = &n
		}
	}
	return lm
}

// ParseRV parses a resourceVersion query parameter of a list or a watch,
// with upstream's 400 for one that is not a revision.
func ParseRV(s string) (int64, error) {
	rv, err := parseRV(s)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
	}
	return rv, nil
}

// ParseWatchRV parses a watch's resourceVersion query parameter, with
// upstream's 500 for one that is not a revision.
func ParseWatchRV(s string) (int64, error) {
	rv, err := parseRV(s)
	if err != nil {
		return 0, ErrUnknown(err)
	}
	return rv, nil
}

// parseRV parses a resourceVersion as upstream's APIObjectVersioner does:
// an unsigned number, its error naming the field.
func parseRV(s string) (int64, error) {
	rv, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), s, err.Error())}.ToAggregate()
	}
	return int64(min(rv, math.MaxInt64)), nil
}

// WaitForGetRevision is upstream's handling of a get's resourceVersion: a
// revision that is not there yet is waited for (as a list's), one that
// does not parse is a 500.
func (s *Registry) WaitForGetRevision(ctx context.Context, resourceVersion string) error {
	if resourceVersion == "" || resourceVersion == "0" {
		return nil
	}
	rv, err := parseRV(resourceVersion)
	if err != nil {
		return ErrUnknown(err)
	}
	if rv > s.store.CurrentRevision() {
		return s.WaitForRevision(ctx, rv)
	}
	return nil
}

// tooLargeRV is upstream's answer for a resourceVersion from the future.
func tooLargeRV(requested, current int64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", requested, current), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

// FilterFor is a store filter for a selection, using the encoding cache for
// label-only selectors. It may read the store: a list inside whose read it
// runs uses ListSelected (or the filter listStoreOptions makes) instead.
func (s *Registry) FilterFor(res *Resource, sel *Selection) func(store.Object) bool {
	return s.filterForIn(res, sel, nil)
}

// ListSelected lists the current state of res's objects with prefix that
// sel selects, as store.List with FilterFor's filter does; the filter's
// cache entries that need the store's word are kept after the read (see
// EncCache.entryIn).
func (s *Registry) ListSelected(res *Resource, sel *Selection, prefix string) (*store.ListResult, error) {
	var later []pendingEntry
	defer func() { s.enc.adopt(later) }()
	return s.store.List(res.Bucket, store.ListOptions{Prefix: prefix, Filter: s.filterForIn(res, sel, &later), Index: sel.IndexTerm(), IndexExact: sel.indexedExactly()})
}

// filterForIn is FilterFor for a filter that runs inside a store read when
// later is not nil (see EncCache.entryIn).
func (s *Registry) filterForIn(res *Resource, sel *Selection, later *[]pendingEntry) func(store.Object) bool {
	if !sel.fields.Empty() {
		return func(o store.Object) bool { return s.selectionMatchesIn(res, sel, o.Key, o.Revision, o.Value, later) }
	}
	return func(o store.Object) bool {
		l, ok := s.enc.labelsOfIn(res.Bucket, o.Key, o.Revision, o.Value, later)
		return ok && sel.labels.Matches(l)
	}
}

// SelectionMatches reports whether the stored object key at rev passes sel,
// judged as res serves it: a field selector on a custom resource reads the
// fields of the version asked for, which a conversion webhook may have
// renamed, as upstream's storage converts an object before it filters it.
func (s *Registry) SelectionMatches(res *Resource, sel *Selection, key string, rev int64, stored []byte) bool {
	return s.selectionMatchesIn(res, sel, key, rev, stored, nil)
}

// selectionMatchesIn is SelectionMatches inside a store read when later is
// not nil (see EncCache.entryIn).
func (s *Registry) selectionMatchesIn(res *Resource, sel *Selection, key string, rev int64, stored []byte, later *[]pendingEntry) bool {
	// (Built-in resources served from another version's bucket translate
	// their field labels to the stored object's fields instead.)
	if !sel.fields.Empty() && res.conv != nil && res.CRD != "" {
		served, err := s.enc.servedOfIn(res, key, rev, stored, later)
		if err != nil {
			return false
		}
		stored = served
	}
	return sel.Matches(stored)
}

// futureRVWait is how long a request for a future resourceVersion waits
// before answering "Too large resource version", as upstream's watch cache.
const futureRVWait = 3 * time.Second

// WaitForRevision waits until the store reaches rv, or answers 504.
func (s *Registry) WaitForRevision(ctx context.Context, rv int64) error {
	deadline := time.NewTimer(futureRVWait)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		cur := s.store.CurrentRevision()
		if cur >= rv {
			return nil
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return tooLargeRV(rv, cur)
		case <-ctx.Done():
			return tooLargeRV(rv, cur)
		}
	}
}
