package server

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Printers of built-in resources, cell for cell what kube-apiserver's
// printers answer. kube-apiserver prints the objects it stores, after its
// defaulting; fakeplane does not default every field it prints, so the
// printers read a missing field as the default upstream would have stored.

func init() {
	for k, p := range builtinPrinters {
		printers[k] = p
	}
}

var builtinPrinters = map[string]printer{
	"apps/statefulsets": {
		columns: statefulSetColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			ss := obj.(*appsv1.StatefulSet)
			want := int32(1)
			if ss.Spec.Replicas != nil {
				want = *ss.Spec.Replicas
			}
			names, images := containerNamesImages(ss.Spec.Template.Spec.Containers)
			return []any{ss.Name, fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, want), s.age(ss.CreationTimestamp), names, images}
		},
	},
	"apps/daemonsets": {
		columns: daemonSetColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			ds := obj.(*appsv1.DaemonSet)
			st := ds.Status
			names, images := containerNamesImages(ds.Spec.Template.Spec.Containers)
			return []any{ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
				int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), selectorString(ds.Spec.Template.Spec.NodeSelector),
				s.age(ds.CreationTimestamp), names, images, labelSelectorString(ds.Spec.Selector)}
		},
	},
	"batch/jobs": {
		columns: jobColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			job := obj.(*batchv1.Job)
			names, images := containerNamesImages(job.Spec.Template.Spec.Containers)
			return []any{job.Name, jobStatus(job), jobCompletions(job), s.jobDuration(job), s.age(job.CreationTimestamp), names, images, jobSelector(job)}
		},
	},
	"batch/cronjobs": {
		columns: cronJobColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			cj := obj.(*batchv1.CronJob)
			tz := "<none>"
			if cj.Spec.TimeZone != nil {
				tz = *cj.Spec.TimeZone
			}
			// spec.suspend defaults to false.
			suspend := "False"
			if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
				suspend = "True"
			}
			last := "<none>"
			if cj.Status.LastScheduleTime != nil {
				last = s.age(*cj.Status.LastScheduleTime)
			}
			tmpl := cj.Spec.JobTemplate.Spec
			names, images := containerNamesImages(tmpl.Template.Spec.Containers)
			return []any{cj.Name, cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last, s.age(cj.CreationTimestamp), names, images, labelSelectorString(tmpl.Selector)}
		},
	},
}

// jobCompletions is "succeeded/completions", with parallelism and
// completions defaulted as upstream does (both 1 when neither is set).
func jobCompletions(job *batchv1.Job) string {
	if job.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	}
	if job.Spec.Parallelism != nil && *job.Spec.Parallelism > 1 {
		return fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, *job.Spec.Parallelism)
	}
	return fmt.Sprintf("%d/1", job.Status.Succeeded)
}

// jobDuration is how long the job ran: until completion, or until now.
func (s *Server) jobDuration(job *batchv1.Job) string {
	switch {
	case job.Status.StartTime == nil:
		return ""
	case job.Status.CompletionTime == nil:
		return duration.HumanDuration(s.now().Sub(job.Status.StartTime.Time))
	}
	return duration.HumanDuration(job.Status.CompletionTime.Sub(job.Status.StartTime.Time))
}

// jobStatus names the first of the job's states that holds, in upstream's
// order of precedence.
func jobStatus(job *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range job.Status.Conditions {
			if c.Type == t {
				return c.Status == "True"
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// jobSelector prints a job's selector. kube-apiserver generates one
// (batch.kubernetes.io/controller-uid=<uid>) for jobs created without
// manualSelector; fakeplane stores none, so it is printed as generated.
func jobSelector(job *batchv1.Job) string {
	if job.Spec.Selector == nil && (job.Spec.ManualSelector == nil || !*job.Spec.ManualSelector) {
		return batchv1.ControllerUidLabel + "=" + string(job.UID)
	}
	return labelSelectorString(job.Spec.Selector)
}

var statefulSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Ready", "string", "", "Number of the pod with ready state", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
}

var daemonSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Desired", "integer", "", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/", 0),
	col("Current", "integer", "", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/", 0),
	col("Ready", "integer", "", "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.", 0),
	col("Up-to-date", "integer", "", "The total number of nodes that are running updated daemon pod", 0),
	col("Available", "integer", "", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)", 0),
	col("Node Selector", "string", "", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var jobColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Status", "string", "", "Status of the job.", 0),
	col("Completions", "string", "", "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.", 0),
	col("Duration", "string", "", "Time required to complete the job.", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var cronJobColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Schedule", "string", "", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0),
	col("Timezone", "string", "", "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones", 0),
	col("Suspend", "boolean", "", "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.", 0),
	col("Active", "integer", "", "A list of pointers to currently running jobs.", 0),
	col("Last Schedule", "string", "", "Information when was the last time the job was successfully scheduled.", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}
