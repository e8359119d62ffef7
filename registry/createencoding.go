package registry

import (
	"bytes"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// createdEncoding is what a document's memo (decodedCreate) keeps of the
// first object created from it, to encode the objects later starts create
// from the same document without encoding them again: those differ from it
// only in their uid and the times their create set to now (createdTimes),
// which have a fixed length in JSON and are written over the first one's
// bytes.
type createdEncoding struct {
	// gvk and proto are the object's kind and protobuf as it was stored,
	// with placeholders (placeholderUID, placeholderTime) in place of its
	// uid and times: an object whose kind and protobuf are those is that
	// object. Its protobuf has every field its JSON has but apiVersion and
	// kind; it does not tell a nil list from an empty one, which the
	// objects created from one document, copies of one decoded object
	// (createMemo) through the same steps, do not differ in.
	gvk   schema.GroupVersionKind
	proto []byte
	// data is that object's JSON.
	data []byte
	// uidAt is where in data the uid's JSON string starts, and timeAt
	// where each time's does (quotes included), in createdTimes' order;
	// -1 for a time that is not set.
	uidAt  int
	timeAt []int
}

// placeholderUID is the placeholder of a uid in a memo's object: of the
// length of every uid (a UUID), and expected in no document. A document
// holding it anyway is not memoized (see newCreatedEncoding).
const placeholderUID = types.UID("fakeplane-memoized-uid-0000000000000")

// placeholderTime is the placeholder of the i-th time of createdTimes: of
// the length every time has in JSON (RFC 3339 in seconds, with a four-digit
// year), and distinct for each i.
func placeholderTime(i int) metav1.Time {
	return metav1.NewTime(time.Date(1001, 2, 3, 4, 5, 6, 0, time.UTC).Add(time.Duration(i) * time.Second))
}

// timeSlot is one of the times a create sets: a managedFields entry's
// (whose Time points to a time that other entries may share), or a time
// held by value.
type timeSlot struct {
	entry *metav1.ManagedFieldsEntry
	value *metav1.Time
}

// get returns the slot's time, or nil when it is not set.
func (s timeSlot) get() *metav1.Time {
	if s.entry != nil {
		return s.entry.Time
	}
	if s.value.IsZero() {
		return nil
	}
	t := *s.value
	return &t
}

// set sets the slot's time (nil: not set).
func (s timeSlot) set(t *metav1.Time) {
	if s.entry != nil {
		s.entry.Time = t
		return
	}
	if t == nil {
		*s.value = metav1.Time{}
		return
	}
	*s.value = *t
}

// createdTimes returns the times of o that its create sets to now: its
// creationTimestamp, its managedFields entries', and those of the
// conditions a create sets (a local APIService's, a preset status's).
func createdTimes(o *Object) []timeSlot {
	fields := o.Meta.GetManagedFields()
	slots := make([]timeSlot, 0, 1+len(fields))
	acc, ok := o.Obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil
	}
	m, ok := acc.GetObjectMeta().(*metav1.ObjectMeta)
	if !ok {
		return nil
	}
	slots = append(slots, timeSlot{value: &m.CreationTimestamp})
	for i := range fields {
		slots = append(slots, timeSlot{entry: &fields[i]})
	}
	switch obj := o.Obj.(type) {
	case *apiregistrationv1.APIService:
		for i := range obj.Status.Conditions {
			slots = append(slots, timeSlot{value: &obj.Status.Conditions[i].LastTransitionTime})
		}
	case *flowcontrolv1.FlowSchema: // a preset status (Precomputed)
		for i := range obj.Status.Conditions {
			slots = append(slots, timeSlot{value: &obj.Status.Conditions[i].LastTransitionTime})
		}
	case *networkingv1.ServiceCIDR:
		for i := range obj.Status.Conditions {
			slots = append(slots, timeSlot{value: &obj.Status.Conditions[i].LastTransitionTime})
		}
	}
	return slots
}

// createdValues are an object's uid and times (createdTimes), which its
// memo's encoding holds placeholders for.
type createdValues struct {
	uid   types.UID
	slots []timeSlot
	times []*metav1.Time
}

// swapPlaceholders puts the placeholders in o's uid and in its times that
// are set (createdTimes) and returns the values they replaced, which
// restore puts back. It reports false, changing nothing, when one of the
// values has not the length of its placeholder in JSON.
func swapPlaceholders(o *Object) (createdValues, bool) {
	v := createdValues{uid: o.Meta.GetUID(), slots: createdTimes(o)}
	if len(v.uid) != len(placeholderUID) || v.slots == nil {
		return v, false
	}
	v.times = make([]*metav1.Time, len(v.slots))
	for i, s := range v.slots {
		v.times[i] = s.get()
		if t := v.times[i]; t != nil && !rfc3339Seconds(*t) {
			return v, false
		}
	}
	o.Meta.SetUID(placeholderUID)
	for i, s := range v.slots {
		if v.times[i] != nil {
			t := placeholderTime(i)
			s.set(&t)
		}
	}
	return v, true
}

// restore puts back in o the values swapPlaceholders took out.
func (v createdValues) restore(o *Object) {
	o.Meta.SetUID(v.uid)
	for i, s := range v.slots {
		s.set(v.times[i])
	}
}

// rfc3339Seconds reports whether t's JSON has the length of the
// placeholders': a year from 1000 to 9999.
func rfc3339Seconds(t metav1.Time) bool {
	y := t.UTC().Year()
	return y >= 1000 && y <= 9999
}

// newCreatedEncoding makes the memo's encoding from o, which holds the
// placeholders for v (swapPlaceholders), and its protobuf and JSON. It
// returns nil when a placeholder is not in the JSON exactly once.
func newCreatedEncoding(o *Object, v createdValues, proto, data []byte) *createdEncoding {
	e := &createdEncoding{gvk: o.Obj.GetObjectKind().GroupVersionKind(), proto: proto, data: data, timeAt: make([]int, len(v.times))}
	var ok bool
	if e.uidAt, ok = onlyIndex(data, []byte(`"`+placeholderUID+`"`)); !ok {
		return nil
	}
	for i, t := range v.times {
		e.timeAt[i] = -1
		if t == nil {
			continue
		}
		if e.timeAt[i], ok = onlyIndex(data, timeJSON(placeholderTime(i))); !ok {
			return nil
		}
	}
	return e
}

// onlyIndex returns where sep is in data if it is there exactly once.
func onlyIndex(data, sep []byte) (int, bool) {
	i := bytes.Index(data, sep)
	if i < 0 || bytes.Contains(data[i+1:], sep) {
		return -1, false
	}
	return i, true
}

// timeJSON is t's JSON, quotes included.
func timeJSON(t metav1.Time) []byte {
	b, _ := t.MarshalJSON()
	return b
}

// encode returns the JSON of an object that, holding the placeholders, is
// e's object; v are its own values.
func (e *createdEncoding) encode(v createdValues) []byte {
	out := bytes.Clone(e.data)
	copy(out[e.uidAt+1:], v.uid)
	var last *metav1.Time
	var lastJSON []byte
	for i, at := range e.timeAt {
		if at < 0 {
			continue
		}
		if t := v.times[i]; last == nil || !t.Equal(last) {
			last, lastJSON = t, timeJSON(*t) // most often: one time for all
		}
		copy(out[at:], lastJSON)
	}
	return out
}

// encodeCreate returns the JSON of o, the object of the server's own create
// c from a document, through the document's memo: it encodes only the
// first object created from a document (in the process) and, for the
// others, writes their uid and times over that one's JSON, once it found
// them equal to it but for those (comparing their protobuf, which is
// several times faster to encode than JSON is). Any other object is
// encoded.
func encodeCreate(c *Request, o *Object) ([]byte, error) {
	pm, isProto := o.Obj.(protoMarshaler)
	if c.createMemo == nil || !isProto {
		return Encode(o.Obj)
	}
	v, ok := swapPlaceholders(o)
	if !ok {
		return Encode(o.Obj)
	}
	e, err := c.createMemo.encodingOf(o, v, pm)
	v.restore(o)
	switch {
	case err != nil:
		return nil, err
	case e == nil:
		return Encode(o.Obj)
	}
	return e.encode(v), nil
}

// encodingOf returns the memo's encoding when o, which holds the
// placeholders for v, is its object, making it from o when the memo has
// none yet; nil when o is another object, or its JSON cannot be memoized.
func (m *decodedCreate) encodingOf(o *Object, v createdValues, pm protoMarshaler) (*createdEncoding, error) {
	proto, err := pm.Marshal()
	if err != nil {
		return nil, nil // encoded as JSON, which says what is wrong
	}
	if e := m.encoding.Load(); e != nil {
		if e.gvk != o.Obj.GetObjectKind().GroupVersionKind() || !bytes.Equal(proto, e.proto) {
			return nil, nil
		}
		return e, nil
	}
	data, err := Encode(o.Obj)
	if err != nil {
		return nil, err
	}
	e := newCreatedEncoding(o, v, proto, data)
	if e != nil {
		m.encoding.CompareAndSwap(nil, e)
	}
	return e, nil
}
