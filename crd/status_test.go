package crd

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// widgets is a CRD of group example.com requesting the widget names, with
// accepted those it has been given.
func widgets(accepted apiextensionsv1.CustomResourceDefinitionNames) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", ShortNames: []string{"wd", "wdg"},
				Kind: "Widget", ListKind: "WidgetList", Categories: []string{"all"},
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true},
				{Name: "v1", Served: true, Storage: true},
			},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: accepted},
	}
}

// other is a CRD that has accepted names in a group.
func other(group string, names apiextensionsv1.CustomResourceDefinitionNames) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: names.Plural + "." + group},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Names: names},
		Status:     apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: names},
	}
}

func TestAcceptNames(t *testing.T) {
	all := widgets(apiextensionsv1.CustomResourceDefinitionNames{}).Spec.Names
	for _, tc := range []struct {
		name     string
		accepted apiextensionsv1.CustomResourceDefinitionNames
		known    []*apiextensionsv1.CustomResourceDefinition
		want     apiextensionsv1.CustomResourceDefinitionNames
		status   apiextensionsv1.ConditionStatus
		reason   string
		message  string
	}{{
		name:   "no other CRD",
		want:   all,
		status: apiextensionsv1.ConditionTrue, reason: "NoConflicts", message: "no conflicts found",
	}, {
		name:   "names taken in another group",
		known:  []*apiextensionsv1.CustomResourceDefinition{other("other.example.com", all)},
		want:   all,
		status: apiextensionsv1.ConditionTrue, reason: "NoConflicts", message: "no conflicts found",
	}, {
		name:     "its own earlier names",
		accepted: all,
		known:    []*apiextensionsv1.CustomResourceDefinition{widgets(all)},
		want:     all,
		status:   apiextensionsv1.ConditionTrue, reason: "NoConflicts", message: "no conflicts found",
	}, {
		name:  "plural taken as another CRD's singular",
		known: []*apiextensionsv1.CustomResourceDefinition{other("example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "widgets", Kind: "Gadget", ListKind: "GadgetList"})},
		want: apiextensionsv1.CustomResourceDefinitionNames{
			Singular: "widget", ShortNames: []string{"wd", "wdg"}, Kind: "Widget", ListKind: "WidgetList", Categories: []string{"all"},
		},
		status: apiextensionsv1.ConditionFalse, reason: "PluralConflict", message: `"widgets" is already in use`,
	}, {
		name:  "a short name taken",
		known: []*apiextensionsv1.CustomResourceDefinition{other("example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", ShortNames: []string{"wdg"}, Kind: "Gadget", ListKind: "GadgetList"})},
		want: apiextensionsv1.CustomResourceDefinitionNames{
			Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", Categories: []string{"all"},
		},
		status: apiextensionsv1.ConditionFalse, reason: "ShortNamesConflict", message: `"wdg" is already in use`,
	}, {
		name:     "a new short name that is free",
		accepted: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Kind: "Widget", ListKind: "WidgetList"},
		known:    []*apiextensionsv1.CustomResourceDefinition{widgets(apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Kind: "Widget", ListKind: "WidgetList"})},
		want:     all,
		status:   apiextensionsv1.ConditionTrue, reason: "NoConflicts", message: "no conflicts found",
	}, {
		name:  "kind and list kind taken: the last conflict names the condition",
		known: []*apiextensionsv1.CustomResourceDefinition{other("example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Widget", ListKind: "WidgetList"})},
		want: apiextensionsv1.CustomResourceDefinitionNames{
			Plural: "widgets", Singular: "widget", ShortNames: []string{"wd", "wdg"}, Categories: []string{"all"},
		},
		status: apiextensionsv1.ConditionFalse, reason: "ListKindConflict", message: `"WidgetList" is already in use`,
	}, {
		name:     "a taken name keeps the accepted one",
		accepted: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", ShortNames: []string{"wd", "wdg"}, Kind: "OldWidget", ListKind: "WidgetList"},
		known:    []*apiextensionsv1.CustomResourceDefinition{other("example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Widget", ListKind: "GadgetList"})},
		want: apiextensionsv1.CustomResourceDefinitionNames{
			Plural: "widgets", Singular: "widget", ShortNames: []string{"wd", "wdg"}, Kind: "OldWidget", ListKind: "WidgetList", Categories: []string{"all"},
		},
		status: apiextensionsv1.ConditionFalse, reason: "KindConflict", message: `"Widget" is already in use`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			names, cond := AcceptNames(widgets(tc.accepted), tc.known)
			if !equalNames(names, tc.want) {
				t.Errorf("names = %+v, want %+v", names, tc.want)
			}
			if cond.Type != apiextensionsv1.NamesAccepted || cond.Status != tc.status || cond.Reason != tc.reason || cond.Message != tc.message {
				t.Errorf("condition = %s %s %s %q, want NamesAccepted %s %s %q", cond.Type, cond.Status, cond.Reason, cond.Message, tc.status, tc.reason, tc.message)
			}
		})
	}
}

func equalNames(a, b apiextensionsv1.CustomResourceDefinitionNames) bool {
	return a.Plural == b.Plural && a.Singular == b.Singular && a.Kind == b.Kind && a.ListKind == b.ListKind &&
		slices.Equal(a.ShortNames, b.ShortNames) && slices.Equal(a.Categories, b.Categories)
}

func TestSetStatus(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	// cond is a condition expected after SetStatus; kept says that its
	// lastTransitionTime is the one it had before.
	type cond struct {
		status apiextensionsv1.ConditionStatus
		reason string
		kept   bool
	}
	for _, tc := range []struct {
		name string
		// before prepares the CRD (a fresh one when nil) and the known CRDs.
		before      func() (*apiextensionsv1.CustomResourceDefinition, []*apiextensionsv1.CustomResourceDefinition)
		names       cond
		established cond
	}{{
		name: "a new CRD is named, and installing",
		before: func() (*apiextensionsv1.CustomResourceDefinition, []*apiextensionsv1.CustomResourceDefinition) {
			return widgets(apiextensionsv1.CustomResourceDefinitionNames{}), nil
		},
		names:       cond{apiextensionsv1.ConditionTrue, "NoConflicts", false},
		established: cond{apiextensionsv1.ConditionFalse, "Installing", false},
	}, {
		name: "an installing CRD is established next",
		before: func() (*apiextensionsv1.CustomResourceDefinition, []*apiextensionsv1.CustomResourceDefinition) {
			def := widgets(apiextensionsv1.CustomResourceDefinitionNames{})
			SetStatus(def, nil, t0)
			return def, []*apiextensionsv1.CustomResourceDefinition{def.DeepCopy()}
		},
		names:       cond{apiextensionsv1.ConditionTrue, "NoConflicts", true},
		established: cond{apiextensionsv1.ConditionTrue, "InitialNamesAccepted", false},
	}, {
		name: "a CRD whose names are taken waits",
		before: func() (*apiextensionsv1.CustomResourceDefinition, []*apiextensionsv1.CustomResourceDefinition) {
			return widgets(apiextensionsv1.CustomResourceDefinitionNames{}), []*apiextensionsv1.CustomResourceDefinition{
				other("example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"}),
			}
		},
		names:       cond{apiextensionsv1.ConditionFalse, "PluralConflict", false},
		established: cond{apiextensionsv1.ConditionFalse, "NotAccepted", false},
	}, {
		name: "an established CRD stays so; an unchanged condition keeps its time",
		before: func() (*apiextensionsv1.CustomResourceDefinition, []*apiextensionsv1.CustomResourceDefinition) {
			def := widgets(apiextensionsv1.CustomResourceDefinitionNames{})
			SetStatus(def, nil, t0)
			SetStatus(def, []*apiextensionsv1.CustomResourceDefinition{def.DeepCopy()}, t0)
			def.Spec.Names.Kind = "Gadget" // taken by now
			return def, []*apiextensionsv1.CustomResourceDefinition{
				def.DeepCopy(),
				other("example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"}),
			}
		},
		names:       cond{apiextensionsv1.ConditionFalse, "KindConflict", false},
		established: cond{apiextensionsv1.ConditionTrue, "InitialNamesAccepted", true},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			def, known := tc.before()
			before := def.DeepCopy()
			SetStatus(def, known, t1)
			for typ, want := range map[apiextensionsv1.CustomResourceDefinitionConditionType]cond{
				apiextensionsv1.NamesAccepted: tc.names, apiextensionsv1.Established: tc.established,
			} {
				got := apihelpers.FindCRDCondition(def, typ)
				if got == nil {
					t.Fatalf("no %s condition", typ)
				}
				if got.Status != want.status || got.Reason != want.reason {
					t.Errorf("%s = %s %s, want %s %s", typ, got.Status, got.Reason, want.status, want.reason)
				}
				if got.LastTransitionTime.IsZero() {
					t.Errorf("%s has no lastTransitionTime", typ)
				}
				if old := apihelpers.FindCRDCondition(before, typ); want.kept && (old == nil || !old.LastTransitionTime.Equal(&got.LastTransitionTime)) {
					t.Errorf("%s lastTransitionTime changed from %v to %s", typ, old, got.LastTransitionTime)
				}
			}
			if len(def.Status.StoredVersions) != 0 {
				t.Errorf("SetStatus set stored versions %v", def.Status.StoredVersions)
			}
		})
	}
}

func TestRecordStorageVersionAddsTheStorageVersionOnce(t *testing.T) {
	for _, tc := range []struct {
		name         string
		storage      int // index of the storage version among v1beta1, v1
		stored, want []string
	}{
		{name: "a new CRD stores in its storage version", storage: 1, want: []string{"v1"}},
		{name: "a stored version is not added again", storage: 1, stored: []string{"v1"}, want: []string{"v1"}},
		{name: "a new storage version is added after the earlier ones", storage: 0, stored: []string{"v1"}, want: []string{"v1", "v1beta1"}},
		{name: "a storage version given up stays", storage: 1, stored: []string{"v1beta1", "v1"}, want: []string{"v1beta1", "v1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def := widgets(apiextensionsv1.CustomResourceDefinitionNames{})
			for i := range def.Spec.Versions {
				def.Spec.Versions[i].Storage = i == tc.storage
			}
			def.Status.StoredVersions = tc.stored
			RecordStorageVersion(def)
			if !slices.Equal(def.Status.StoredVersions, tc.want) {
				t.Errorf("stored versions = %v, want %v", def.Status.StoredVersions, tc.want)
			}
		})
	}
}

func TestMarkForDeletion(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	def := widgets(apiextensionsv1.CustomResourceDefinitionNames{})
	def.Finalizers = []string{"example.com/keep"}
	MarkForDeletion(def, now)
	MarkForDeletion(def, now)
	if want := []string{"example.com/keep", apiextensionsv1.CustomResourceCleanupFinalizer}; !slices.Equal(def.Finalizers, want) {
		t.Errorf("finalizers = %v, want %v", def.Finalizers, want)
	}
	c := apihelpers.FindCRDCondition(def, apiextensionsv1.Terminating)
	if c == nil || c.Status != apiextensionsv1.ConditionTrue || c.Reason != "InstanceDeletionPending" {
		t.Errorf("Terminating condition = %+v", c)
	}
}
