package scheduler_test

import (
	"fmt"

	"github.com/fakeplane/fakeplane/scheduler"
)

// A configuration as kube-scheduler reads it with --config: defaults are
// kube-scheduler's.
func ExampleLoadConfig() {
	cfg, err := scheduler.LoadConfig([]byte(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: my-scheduler
  plugins:
    multiPoint:
      disabled:
      - name: PodTopologySpread
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range cfg.Profiles {
		fmt.Println(*p.SchedulerName)
	}
	le := cfg.LeaderElection
	fmt.Printf("leader election: %v, Lease %s/%s\n", *le.LeaderElect, le.ResourceNamespace, le.ResourceName)
	// Output:
	// default-scheduler
	// my-scheduler
	// leader election: true, Lease kube-system/kube-scheduler
}
