package scheduler

import "k8s.io/apimachinery/pkg/runtime"

// runtimeObject wraps plugin args as a profile's pluginConfig holds them.
func runtimeObject(o runtime.Object) runtime.RawExtension { return runtime.RawExtension{Object: o} }
