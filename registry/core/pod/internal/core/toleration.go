package core

// Toleration is the internal Toleration as encoding/json sees it: the
// fields carry no json tags, so the keys of the legacy tolerations
// annotation match them by name, whatever their case.
type Toleration struct {
	// Key is the taint key tolerated, empty for all.
	Key string
	// Operator is Exists or Equal (the default).
	Operator TolerationOperator
	// Value is the taint value matched with Equal.
	Value string
	// Effect is the taint effect tolerated, empty for all.
	Effect TaintEffect
	// TolerationSeconds bounds how long a NoExecute taint is tolerated.
	TolerationSeconds *int64
}

// TolerationOperator is the internal type of a toleration's operator.
type TolerationOperator string

// TaintEffect is the internal type of a taint's effect.
type TaintEffect string
