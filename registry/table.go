package registry

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/registry/apps/daemonset"
	"github.com/fakeplane/fakeplane/registry/apps/deployment"
	"github.com/fakeplane/fakeplane/registry/apps/replicaset"
	"github.com/fakeplane/fakeplane/registry/apps/statefulset"
	"github.com/fakeplane/fakeplane/registry/batch/cronjob"
	"github.com/fakeplane/fakeplane/registry/batch/job"
	"github.com/fakeplane/fakeplane/registry/core/configmap"
	"github.com/fakeplane/fakeplane/registry/core/persistentvolumeclaim"
	"github.com/fakeplane/fakeplane/registry/core/pod"
	"github.com/fakeplane/fakeplane/registry/core/podtemplate"
	"github.com/fakeplane/fakeplane/registry/core/replicationcontroller"
	"github.com/fakeplane/fakeplane/registry/core/secret"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// strategies is the table of built-in strategies, built once and only read
// afterwards.
var strategies = sync.OnceValue(func() map[schema.GroupResource]strategy.Strategy {
	return map[schema.GroupResource]strategy.Strategy{
		{Group: "apps", Resource: "daemonsets"}:         daemonset.Strategy,
		{Group: "apps", Resource: "deployments"}:        deployment.Strategy,
		{Group: "apps", Resource: "replicasets"}:        replicaset.Strategy,
		{Group: "apps", Resource: "statefulsets"}:       statefulset.Strategy,
		{Group: "batch", Resource: "cronjobs"}:          cronjob.Strategy,
		{Group: "batch", Resource: "jobs"}:              job.Strategy,
		{Group: "", Resource: "configmaps"}:             configmap.Strategy,
		{Group: "", Resource: "persistentvolumeclaims"}: persistentvolumeclaim.Strategy,
		{Group: "", Resource: "pods"}:                   pod.Strategy,
		{Group: "", Resource: "podtemplates"}:           podtemplate.Strategy,
		{Group: "", Resource: "replicationcontrollers"}: replicationcontroller.Strategy,
		{Group: "", Resource: "secrets"}:                secret.Strategy,
	}
})

// For returns the strategy of a built-in resource.
func For(gr schema.GroupResource) (strategy.Strategy, bool) {
	s, ok := strategies()[gr]
	return s, ok
}
