package strategy

// FieldLabeler is implemented by a strategy whose resource accepts field
// selector labels other than metadata.name and metadata.namespace, or not
// both of them: upstream's field label conversion function
// (Scheme.AddFieldLabelConversionFunc in pkg/apis/<group>/<version>), which
// every served version of the resource shares here. A resource whose
// strategy does not implement it accepts what ConvertMetaFieldLabel accepts.
type FieldLabeler interface {
	// ConvertFieldLabel accepts a field selector label and returns the
	// label it is matched against on the stored object (usually the label
	// itself), or reports that the label is not supported.
	ConvertFieldLabel(label string) (string, bool)
}

// FieldLabelRefuser is implemented by a FieldLabeler whose conversion
// function words its refusal of a label its own way (ResourceSlice's names
// its kind); others say "field label not supported: <label>".
type FieldLabelRefuser interface {
	// FieldLabelError is the refusal of an unsupported label.
	FieldLabelError(label string) error
}

// ConvertMetaFieldLabel is the field label conversion of a resource
// without one of its own (runtime.DefaultMetaV1FieldSelectorConversion):
// metadata.name and metadata.namespace only, whatever the resource's scope.
func ConvertMetaFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace":
		return label, true
	}
	return "", false
}
