package registry

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// TestUpdatesRecordWhatAFreshFieldManagerRecords runs random sequences of
// updates (values changed, keys added and removed, list items changed,
// several managers, managedFields sent back, dropped, reset or changed,
// writes to /status) through TrackManagedFieldsFrom, which remembers what
// updates recorded by their shape, and checks each against upstream's field
// manager run afresh on the same objects: same entries, entries in
// upstream's order, times kept or set now as upstream's.
func TestUpdatesRecordWhatAFreshFieldManagerRecords(t *testing.T) {
	reg, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	cmRes, _ := reg.Lookup("", "v1", "configmaps")
	deployRes, _ := reg.Lookup("apps", "v1", "deployments")
	rng := rand.New(rand.NewSource(7))
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }

	for _, tc := range []struct {
		name     string
		res      *Resource
		start    runtime.Object
		managers []string
		mutate   func(obj runtime.Object) (runtime.Object, string) // the new object and the subresource
		minHits  int                                               // updates the memo answers at least
	}{
		{
			name: "configmap", res: cmRes, managers: []string{"m1", "m2", "m3"}, minHits: 1,
			start: &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", UID: "uid-1", ResourceVersion: "5"}, Data: map[string]string{"a": "1"}},
			mutate: func(obj runtime.Object) (runtime.Object, string) {
				cm := obj.DeepCopyObject().(*corev1.ConfigMap)
				if cm.Data == nil {
					cm.Data = map[string]string{}
				}
				switch rng.Intn(6) {
				case 0, 1, 2:
					cm.Data[pick("a", "b", "c")] = strconv.Itoa(rng.Intn(3))
				case 3:
					delete(cm.Data, pick("a", "b", "c"))
				case 4:
					if rng.Intn(2) == 0 {
						cm.Labels = map[string]string{pick("x", "y"): pick("1", "2")}
					} else {
						cm.Labels = nil
					}
				case 5:
					cm.Annotations = map[string]string{"n": strconv.Itoa(rng.Intn(100))}
				}
				return cm, ""
			},
		},
		{
			name: "deployment and its status", res: deployRes, managers: []string{"kubectl", "controller"}, minHits: 1,
			start: &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
				ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", UID: "uid-2", ResourceVersion: "9"},
				Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}},
			mutate: func(obj runtime.Object) (runtime.Object, string) {
				d := obj.DeepCopyObject().(*appsv1.Deployment)
				switch rng.Intn(6) {
				case 0:
					n := int32(rng.Intn(3))
					d.Spec.Replicas = &n
					return d, ""
				case 1:
					d.Spec.Template.Spec.Containers[0].Image = pick("i", "j")
					return d, ""
				case 2:
					if len(d.Spec.Template.Spec.Containers) == 1 {
						d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "side", Image: "s"})
					} else {
						d.Spec.Template.Spec.Containers = d.Spec.Template.Spec.Containers[:1]
					}
					return d, ""
				case 3, 4:
					d.Status.Replicas = int32(rng.Intn(3))
					d.Status.ReadyReplicas = int32(rng.Intn(3))
					d.Status.ObservedGeneration = int64(rng.Intn(3))
					return d, "status"
				default:
					d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionStatus(pick("True", "False")), Reason: "r"}}
					return d, "status"
				}
			},
		},
		{
			name: "deployment status counts", res: deployRes, managers: []string{"controller", "other"}, minHits: 100,
			start: &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
				ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", UID: "uid-5", ResourceVersion: "9"},
				Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}},
			mutate: func(obj runtime.Object) (runtime.Object, string) {
				d := obj.DeepCopyObject().(*appsv1.Deployment)
				d.Status.Replicas = int32(rng.Intn(2))
				d.Status.ReadyReplicas = int32(rng.Intn(2))
				return d, "status"
			},
		},
		{
			// Few shapes: the same updates come again and again, changing
			// a value or not.
			name: "configmap with two keys and values", res: cmRes, managers: []string{"m1", "m2"}, minHits: 100,
			start: &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", UID: "uid-4", ResourceVersion: "5"}, Data: map[string]string{"a": "1"}},
			mutate: func(obj runtime.Object) (runtime.Object, string) {
				cm := obj.DeepCopyObject().(*corev1.ConfigMap)
				cm.Data[pick("a", "b")] = pick("1", "2")
				return cm, ""
			},
		},
		{
			name: "configmap of many managers", res: cmRes, managers: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}, minHits: 1,
			start: &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", UID: "uid-3"}, Data: map[string]string{"0": "0"}},
			mutate: func(obj runtime.Object) (runtime.Object, string) {
				cm := obj.DeepCopyObject().(*corev1.ConfigMap)
				if cm.Data == nil {
					cm.Data = map[string]string{}
				}
				cm.Data[strconv.Itoa(rng.Intn(14))] = strconv.Itoa(rng.Intn(2))
				return cm, ""
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.managed.updated = updatedFieldsMemo{}
			fresh := map[string]*managedfields.FieldManager{}
			for _, sub := range []string{"", "status"} {
				conv := &objectConvertor{res: tc.res}
				tconv, err := tc.res.managed.typeConverter()
				if err != nil {
					t.Fatal(err)
				}
				fm, err := managedfields.NewDefaultFieldManager(tconv, conv, conv, conv, tc.res.GVK, tc.res.GVK.GroupVersion(), sub,
					fieldpath.NewExcludeFilterSetMap(tc.res.resetFields(sub)))
				if err != nil {
					t.Fatal(err)
				}
				fresh[sub] = fm
			}
			// Created by a manager first: an object without managedFields
			// gets none on update.
			empty := tc.res.NewObject()
			empty.GetObjectKind().SetGroupVersionKind(tc.res.GVK)
			live := fresh[""].UpdateNoErrors(empty, tc.start.DeepCopyObject(), "creator")
			if len(mustAccessor(t, live).GetManagedFields()) == 0 {
				t.Fatal("the created object has no managedFields")
			}
			const steps = 400
			for step := range steps {
				next, sub := tc.mutate(live)
				if sub == "status" && !tc.res.HasSub("status") {
					sub = ""
				}
				manager := tc.managers[rng.Intn(len(tc.managers))]
				nextAcc := mustAccessor(t, next)
				switch rng.Intn(20) { // what the client sends as managedFields
				case 0, 1, 2, 3, 4:
					nextAcc.SetManagedFields(nil)
				case 5:
					nextAcc.SetManagedFields([]metav1.ManagedFieldsEntry{{}}) // reset
				case 6:
					if mf := nextAcc.GetManagedFields(); len(mf) > 1 {
						nextAcc.SetManagedFields(mf[1:])
					}
				case 7:
					// Entries that do not decode: the field manager starts
					// from the live object's.
					nextAcc.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "x", Operation: "Bogus", APIVersion: "v1", FieldsType: "FieldsV1",
						FieldsV1: &metav1.FieldsV1{Raw: []byte(`{}`)}}})
				case 8, 9, 10:
					// The same entries, their times in another location (as
					// a protobuf client's).
					mf := nextAcc.GetManagedFields()
					for i := range mf {
						if mf[i].Time != nil {
							mf[i].Time = &metav1.Time{Time: mf[i].Time.Local()}
						}
					}
				}
				stored, err := Encode(live)
				if err != nil {
					t.Fatal(err)
				}
				before := time.Now().UTC()
				c := &Request{Res: tc.res, Info: &apirequest.RequestInfo{Subresource: sub}}
				got := &Object{Obj: next.DeepCopyObject()}
				got.Meta = mustAccessor(t, got.Obj)
				c.TrackManagedFieldsFrom(&Object{Obj: live, Meta: mustAccessor(t, live), Stored: stored}, got, manager)
				want := fresh[sub].UpdateNoErrors(live.DeepCopyObject(), next.DeepCopyObject(), manager)
				compareRecorded(t, fmt.Sprintf("step %d (%s via %q)", step, manager, sub), got.Meta.GetManagedFields(), mustAccessor(t, want).GetManagedFields(), before)
				if t.Failed() {
					return
				}
				live = got.Obj
				mustAccessor(t, live).SetResourceVersion(strconv.Itoa(10 + step))
				if len(mustAccessor(t, live).GetManagedFields()) == 0 {
					// Reset: nothing is tracked any more. Start again
					// from a create.
					acc := mustAccessor(t, live)
					acc.SetUID("")
					live = fresh[""].UpdateNoErrors(empty.DeepCopyObject(), live, "creator")
					mustAccessor(t, live).SetUID("uid-again")
				}
			}
			if hits := tc.res.managed.updated.hits; hits < tc.minHits {
				t.Errorf("%d of %d updates were remembered: the test does not exercise the memo", hits, steps)
			}
		})
	}
}

// compareRecorded checks entries recorded through the memo against
// upstream's: the same entries apart from times (sorted by manager, since
// the order follows times to the second), in upstream's order, the time of
// each either upstream's (kept from the input) or a fresh one.
func compareRecorded(t *testing.T, what string, got, want []metav1.ManagedFieldsEntry, freshAfter time.Time) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Errorf("%s: managedFields %v, upstream %v", what, got, want)
		return
	}
	strip := func(es []metav1.ManagedFieldsEntry) string {
		c := make([]metav1.ManagedFieldsEntry, len(es))
		for i := range es {
			c[i] = es[i]
			c[i].Time = nil
		}
		sort.Slice(c, func(i, j int) bool { return entryID(c[i]) < entryID(c[j]) })
		b, _ := json.Marshal(c)
		return string(b)
	}
	if g, w := strip(got), strip(want); g != w {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
		return
	}
	byID := map[string]*metav1.Time{}
	for _, e := range want {
		byID[entryID(e)] = e.Time
	}
	for _, e := range got {
		w := byID[entryID(e)]
		switch {
		case (e.Time == nil) != (w == nil):
			t.Errorf("%s: %s's time %v, upstream %v", what, e.Manager, e.Time, w)
		case e.Time != nil && !e.Time.Equal(w) && (e.Time.Before(&metav1.Time{Time: freshAfter}) || w.Before(&metav1.Time{Time: freshAfter})):
			t.Errorf("%s: %s's time %v, upstream %v (a fresh time is after %v)", what, e.Manager, e.Time, w, freshAfter)
		}
	}
	for i := 1; i < len(got); i++ {
		p, q := got[i-1], got[i]
		if p.Operation > q.Operation || p.Operation == q.Operation && p.Time.Unix() > q.Time.Unix() {
			t.Errorf("%s: entries out of upstream's order: %v before %v", what, p, q)
		}
	}
}

// entryID names a managedFields entry's manager (as upstream keys them).
func entryID(e metav1.ManagedFieldsEntry) string {
	return e.Manager + "|" + string(e.Operation) + "|" + e.APIVersion + "|" + e.Subresource
}

// TestUpdateSendingUndecodableManagedFieldsIsNotRemembered checks two
// updates that send the same new object with managedFields that do not
// decode, on live objects differing only in their managedFields: the field
// manager starts from the live object's, so each records its own.
func TestUpdateSendingUndecodableManagedFieldsIsNotRemembered(t *testing.T) {
	reg, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := reg.Lookup("", "v1", "configmaps")
	fm, err := r.FieldManager("")
	if err != nil {
		t.Fatal(err)
	}
	bogus := []metav1.ManagedFieldsEntry{{Manager: "x", Operation: "Bogus", APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{}`)}}}
	for _, creator := range []string{"first", "second"} {
		base := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"a": "1"}}
		live := fm.UpdateNoErrors(&corev1.ConfigMap{TypeMeta: base.TypeMeta}, base, creator).(*corev1.ConfigMap)
		live.UID, live.ResourceVersion = "u", "3"
		stored, err := Encode(live)
		if err != nil {
			t.Fatal(err)
		}
		next := live.DeepCopy()
		next.Data["b"] = "2"
		next.ManagedFields = bogus
		c := &Request{Res: r, Info: &apirequest.RequestInfo{}}
		o := &Object{Obj: next, Meta: next}
		c.TrackManagedFieldsFrom(&Object{Obj: live, Meta: live, Stored: stored}, o, "writer")
		var managers []string
		for _, e := range o.Meta.GetManagedFields() {
			managers = append(managers, e.Manager)
		}
		sort.Strings(managers)
		if want := []string{creator, "writer"}; fmt.Sprint(managers) != fmt.Sprint(want) {
			t.Errorf("live object created by %s: managers %v, want %v", creator, managers, want)
		}
	}
}
