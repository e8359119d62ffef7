package strategy

import (
	"context"
	"testing"
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
