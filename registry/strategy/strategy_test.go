package strategy

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestBaseReportsItsFlags(t *testing.T) {
	var zero Base
	if zero.TracksGeneration() || zero.ReturnsDeletedObject() || zero.AllowCreateOnUpdate(context.Background()) || zero.AllowUnconditionalUpdate(context.Background()) {
		t.Error("the zero Base reports a flag")
	}
	b := Base{Generation: true, ReturnDeleted: true}
	var g GenerationTracker = b
	var d DeleteReturner = b
	if !g.TracksGeneration() || !d.ReturnsDeletedObject() {
		t.Error("Base does not report Generation and ReturnDeleted")
	}
}

func TestPrepareForCreateResetsStatus(t *testing.T) {
	svc := &corev1.Service{Status: corev1.ServiceStatus{Conditions: []metav1.Condition{{Type: "Sent"}}}}
	Base{}.PrepareForCreate(context.Background(), svc)
	if len(svc.Status.Conditions) != 1 {
		t.Error("the status was cleared without ResetStatusOnCreate")
	}
	Base{ResetStatusOnCreate: true}.PrepareForCreate(context.Background(), svc)
	if svc.Status.Conditions != nil {
		t.Errorf("status %+v, want none", svc.Status)
	}
	// An object without a Status is left alone.
	cm := &corev1.ConfigMap{Data: map[string]string{"a": "b"}}
	ResetStatus(cm)
	if cm.Data["a"] != "b" {
		t.Error("a ConfigMap changed")
	}
}
