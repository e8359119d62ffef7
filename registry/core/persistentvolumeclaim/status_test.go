package persistentvolumeclaim

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

const qualifiedName = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

const supportedResizeStatuses = `"ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"`

func TestStatusUpdateValidation(t *testing.T) {
	ctx := context.Background()
	stored := func() *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		}}
		Strategy.Default(c)
		return c
	}
	list := func(name, q string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceName(name): resource.MustParse(q)}
	}
	health := func(conds ...corev1.VolumeHealthCondition) *corev1.VolumeHealthStatus {
		return &corev1.VolumeHealthStatus{HealthConditions: conds}
	}
	for _, tc := range []struct {
		name     string
		old      func() *corev1.PersistentVolumeClaim
		change   func(c *corev1.PersistentVolumeClaim)
		wantErrs []string
	}{
		{name: "a bound claim", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: list("storage", "1Gi"),
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, AllocatedResources: list("storage", "1Gi"),
				AllocatedResourceStatuses: map[corev1.ResourceName]corev1.ClaimResourceStatus{"storage": corev1.PersistentVolumeClaimNodeResizePending}}
		}},
		{name: "phase and access modes are not checked, capacity is", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status = corev1.PersistentVolumeClaimStatus{Phase: "Bogus", Capacity: list("storage", "-1"), AccessModes: []corev1.PersistentVolumeAccessMode{"Nope"}}
		}, wantErrs: []string{"status.capacity[storage]: Invalid value: -1: must be a valid resource quantity"}},
		{name: "a capacity is rounded away from zero", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.Capacity = list("storage", "-1500m")
		}, wantErrs: []string{"status.capacity[storage]: Invalid value: -2: must be a valid resource quantity"}},
		{name: "capacity's names are not checked", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.Capacity = list("bad name", "1")
		}},
		{name: "a resize status is known, named by its key", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{"storage": "Bogus"}
		}, wantErrs: []string{`status.allocatedResourceStatuses: Unsupported value: "storage": supported values: ` + supportedResizeStatuses}},
		{name: "a resize status is for storage", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{"cpu": "Bogus"}
		}, wantErrs: []string{`status.allocatedResourceStatuses: Unsupported value: "cpu": supported values: "storage"`,
			`status.allocatedResourceStatuses: Unsupported value: "cpu": supported values: ` + supportedResizeStatuses}},
		{name: "a resize status's key is a qualified name", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{"bad name": corev1.PersistentVolumeClaimControllerResizeInProgress}
		}, wantErrs: []string{`status.allocatedResourceStatuses: Invalid value: "bad name": ` + qualifiedName}},
		{name: "an allocated resource is a valid quantity", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.AllocatedResources = list("storage", "-500m")
		}, wantErrs: []string{"status.allocatedResources[storage]: Invalid value: -1: must be a valid resource quantity"}},
		{name: "an allocated native resource is storage", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.AllocatedResources = list("kubernetes.io/storage", "-1")
		}, wantErrs: []string{`status.allocatedResources: Unsupported value: "kubernetes.io/storage": supported values: "storage"`}},
		{name: "an allocated resource's name is qualified", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.AllocatedResources = list("bad name", "-1")
		}, wantErrs: []string{`status.allocatedResources: Invalid value: "bad name": ` + qualifiedName}},
		{name: "an allocated extended resource's quantity is checked", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.AllocatedResources = list("example.com/foo", "-1")
		}, wantErrs: []string{"status.allocatedResources[example.com/foo]: Invalid value: -1: must be a valid resource quantity"}},
		{name: "maps in the order of their keys", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.Capacity = list("storage", "-1")
			c.Status.AllocatedResources = corev1.ResourceList{"storage": resource.MustParse("-1"), "cpu": resource.MustParse("1")}
		}, wantErrs: []string{"status.capacity[storage]: Invalid value: -1: must be a valid resource quantity",
			`status.allocatedResources: Unsupported value: "cpu": supported values: "storage"`,
			"status.allocatedResources[storage]: Invalid value: -1: must be a valid resource quantity"}},
		{name: "a claim has access modes and a resource version", change: func(c *corev1.PersistentVolumeClaim) {
			c.ResourceVersion, c.Spec.AccessModes = "", nil
		}, wantErrs: []string{"resourceVersion: Required value", "Spec.accessModes: Required value"}},
		{name: "a health condition is checked by hand and declaratively", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.HealthStatus = health(corev1.VolumeHealthCondition{Status: "Bogus", Reason: "bad reason!"}, corev1.VolumeHealthCondition{})
		}, wantErrs: []string{
			`status.healthStatus.healthConditions[0].reason: Invalid value: "bad reason!": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')`,
			`status.healthStatus.healthConditions[0].status: Unsupported value: "Bogus": supported values: "DataLoss", "Degraded", "Inaccessible"`,
			"status.healthStatus.healthConditions[1].status: Required value",
			"status.healthStatus.healthConditions[1].reason: Required value",
		}},
		{name: "health conditions are unique and short", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.HealthStatus = health(corev1.VolumeHealthCondition{Status: corev1.VolumeHealthDegraded, Reason: strings.Repeat("R", 257), Message: strings.Repeat("m", 1025)},
				corev1.VolumeHealthCondition{Status: corev1.VolumeHealthDegraded, Reason: strings.Repeat("R", 257)})
		}, wantErrs: []string{
			`status.healthStatus.healthConditions[1]: Duplicate value: {"status":"Degraded","reason":"` + strings.Repeat("R", 257) + `"}`,
			"status.healthStatus.healthConditions[0].reason: Too long: may not be more than 256 bytes",
			"status.healthStatus.healthConditions[0].message: Too long: may not be more than 1024 bytes",
			"status.healthStatus.healthConditions[1].reason: Too long: may not be more than 256 bytes",
		}},
		{name: "at most 16 health conditions", change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.HealthStatus = health(make([]corev1.VolumeHealthCondition, 17)...)
		}, wantErrs: []string{"status.healthStatus.healthConditions: Too many: 17: must have at most 16 items"}},
		{name: "a stored health condition is not checked declaratively again", old: func() *corev1.PersistentVolumeClaim {
			c := stored()
			c.Status.HealthStatus = health(corev1.VolumeHealthCondition{Status: "Bogus", Reason: "R"})
			return c
		}, change: func(c *corev1.PersistentVolumeClaim) {
			c.Status.HealthStatus = health(corev1.VolumeHealthCondition{Status: "Bogus", Reason: "R"}, corev1.VolumeHealthCondition{Status: "Worse", Reason: "R"})
		}, wantErrs: []string{`status.healthStatus.healthConditions[1].status: Unsupported value: "Worse": supported values: "DataLoss", "Degraded", "Inaccessible"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := stored()
			if tc.old != nil {
				old = tc.old()
			}
			c := old.DeepCopy()
			tc.change(c)
			validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(ctx, c, old), tc.wantErrs)
		})
	}
}

func TestClaimWithoutPhaseIsPending(t *testing.T) {
	c := &corev1.PersistentVolumeClaim{}
	Strategy.Default(c)
	if c.Status.Phase != corev1.ClaimPending {
		t.Errorf("phase %q, want Pending", c.Status.Phase)
	}
	c.Status.Phase = corev1.ClaimBound
	Strategy.Default(c)
	if c.Status.Phase != corev1.ClaimBound {
		t.Errorf("phase %q, want Bound kept", c.Status.Phase)
	}
}

func TestPrepareForStatusUpdateDropsHealthStatus(t *testing.T) {
	hs := &corev1.VolumeHealthStatus{HealthConditions: []corev1.VolumeHealthCondition{{Status: corev1.VolumeHealthDegraded, Reason: "R"}}}
	c := &corev1.PersistentVolumeClaim{Status: corev1.PersistentVolumeClaimStatus{HealthStatus: hs}}
	Strategy.PrepareForStatusUpdate(context.Background(), c, &corev1.PersistentVolumeClaim{})
	if c.Status.HealthStatus != nil {
		t.Errorf("healthStatus %+v kept, want it dropped (CSIVolumeHealth is off)", c.Status.HealthStatus)
	}
	c.Status.HealthStatus = hs
	Strategy.PrepareForStatusUpdate(context.Background(), c, &corev1.PersistentVolumeClaim{Status: corev1.PersistentVolumeClaimStatus{HealthStatus: hs}})
	if c.Status.HealthStatus == nil {
		t.Error("healthStatus dropped, want it kept when the stored claim has one")
	}
}
