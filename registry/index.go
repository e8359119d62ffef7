package registry

import (
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/selection"
)

// The store's index (store.ListOptions.Index) holds the objects' labels as
// terms "l:key=value", so that a list whose label selector requires a
// label value reads only the objects that have it.

// labelTerm is the index term of the label key=value.
func labelTerm(key, value string) string { return "l:" + key + "=" + value }

// LabelIndexTerms returns the index terms of an object's labels.
func LabelIndexTerms(l map[string]string) []string {
	terms := make([]string, 0, len(l))
	for k, v := range l {
		terms = append(terms, labelTerm(k, v))
	}
	slices.Sort(terms)
	return terms
}

// StoredIndexTerms returns the index terms of a stored object (its JSON),
// for store.Options.IndexTerms: what LabelIndexTerms returns for its
// labels. A value that is not a JSON object has none.
func StoredIndexTerms(_ string, value []byte) []string {
	var o struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(value, &o); err != nil {
		return []string{}
	}
	return LabelIndexTerms(o.Metadata.Labels)
}

// indexedExactly reports whether the objects with IndexTerm's label value
// are exactly those sel selects: its one requirement is that value, and it
// selects no fields.
func (sel *Selection) indexedExactly() bool {
	if !sel.fields.Empty() {
		return false
	}
	reqs, _ := sel.labels.Requirements()
	return len(reqs) == 1 && sel.IndexTerm() != ""
}

// IndexTerm returns a store index term (store.ListOptions.Index) that every
// object sel selects has, or "" if its label selector requires no single
// label value: the first requirement "key=value", "key==value" or
// "key in (value)".
func (sel *Selection) IndexTerm() string {
	reqs, _ := sel.labels.Requirements()
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if vals := r.Values(); vals.Len() == 1 {
				return labelTerm(r.Key(), vals.UnsortedList()[0])
			}
		}
	}
	return ""
}
