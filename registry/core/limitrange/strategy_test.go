package limitrange

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestLimitRangeDefaults(t *testing.T) {
	for _, tc := range []struct {
		name                string
		item                corev1.LimitRangeItem
		wantDefault, wantRq string
	}{
		{name: "max is the default and the request", item: corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{"cpu": resource.MustParse("2")}}, wantDefault: "2", wantRq: "2"},
		{name: "min is the request", item: corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Min: corev1.ResourceList{"cpu": resource.MustParse("1")}}, wantRq: "1"},
		{name: "pod items are left alone", item: corev1.LimitRangeItem{Type: corev1.LimitTypePod, Max: corev1.ResourceList{"cpu": resource.MustParse("2")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{tc.item}}}
			Strategy.Default(lr)
			it := lr.Spec.Limits[0]
			str := func(l corev1.ResourceList) string {
				if q, ok := l["cpu"]; ok {
					return q.String()
				}
				return ""
			}
			if str(it.Default) != tc.wantDefault || str(it.DefaultRequest) != tc.wantRq {
				t.Errorf("default %q, request %q; want %q, %q", str(it.Default), str(it.DefaultRequest), tc.wantDefault, tc.wantRq)
			}
		})
	}
}
