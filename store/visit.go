package store

// Visitor is implemented by a backend that can hand the items of a list to
// a callback without copying their values: see (*Store).Visit and Visit.
type Visitor interface {
	// Visit is List calling visit with each item, in order, instead of
	// collecting them; see (*Store).Visit.
	Visit(resource string, opts ListOptions, visit func(Object) error) (*ListResult, error)
}

// Visit is List that calls visit with each item, in key order, instead of
// returning them: the ListResult has no Items, its other fields are List's.
//
// The items' Values alias the store's memory and are valid only during the
// call: visit must not keep or change them (it copies what it needs). visit
// runs inside the list's read transaction, so it should be quick. An error
// from visit ends the list and is returned as it is.
func (s *Store) Visit(resource string, opts ListOptions, visit func(Object) error) (*ListResult, error) {
	return s.list(resource, opts, visit)
}

// Visit lists a resource of st through st's Visit when it has one (see
// Visitor), otherwise through List, calling visit with each item in key
// order. The result has no Items. visit must not keep an item's Value past
// the call: with a Visitor it aliases the backend's memory.
func Visit(st Interface, resource string, opts ListOptions, visit func(Object) error) (*ListResult, error) {
	if v, ok := st.(Visitor); ok {
		return v.Visit(resource, opts, visit)
	}
	res, err := st.List(resource, opts)
	if err != nil {
		return nil, err
	}
	items := res.Items
	res.Items = nil
	for _, it := range items {
		if err := visit(it); err != nil {
			return nil, err
		}
	}
	return res, nil
}
