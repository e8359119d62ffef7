package controllers

import (
	"context"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/store"
)

const testCA = "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n"

func rootCAConfigMap(ns string, data map[string]string, annotations map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: RootCAConfigMapName, Annotations: annotations, Labels: map[string]string{"kept": "yes"}}, Data: data}
}

func TestRootCACertPublisherPublishesAndRestores(t *testing.T) {
	published := map[string]string{"ca.crt": testCA}
	described := map[string]string{descriptionAnnotation: rootCADescription}
	tests := []struct {
		name string
		// stored is the ConfigMap the registry holds for an update.
		stored  *corev1.ConfigMap
		batches func(t *testing.T) [][]store.Event
		want    []string
	}{{
		name: "a namespace without it gets it",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{namespaceEvent(t, store.Added, activeNamespace("a"))}}
		},
		want: []string{"create a/kube-root-ca.crt"},
	}, {
		name: "a namespace that has it as published is left alone",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{
				namespaceEvent(t, store.Added, activeNamespace("a")),
				objectEvent(t, store.Added, configMapsBucket, rootCAConfigMap("a", published, described)),
			}}
		},
	}, {
		name: "a terminating namespace gets none",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{namespaceEvent(t, store.Added, terminatingNamespace("a"))}}
		},
	}, {
		name: "a deleted one is created again",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{
				{namespaceEvent(t, store.Added, activeNamespace("a")), objectEvent(t, store.Added, configMapsBucket, rootCAConfigMap("a", published, described))},
				{objectEvent(t, store.Deleted, configMapsBucket, rootCAConfigMap("a", published, described))},
			}
		},
		want: []string{"create a/kube-root-ca.crt"},
	}, {
		name:   "changed data is restored",
		stored: rootCAConfigMap("a", map[string]string{"ca.crt": "other", "extra": "x"}, described),
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{
				{namespaceEvent(t, store.Added, activeNamespace("a")), objectEvent(t, store.Added, configMapsBucket, rootCAConfigMap("a", published, described))},
				{objectEvent(t, store.Modified, configMapsBucket, rootCAConfigMap("a", map[string]string{"ca.crt": "other", "extra": "x"}, described))},
			}
		},
		want: []string{"update a/kube-root-ca.crt"},
	}, {
		name:   "a removed description is restored",
		stored: rootCAConfigMap("a", published, nil),
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{namespaceEvent(t, store.Added, activeNamespace("a")), objectEvent(t, store.Added, configMapsBucket, rootCAConfigMap("a", published, nil))}}
		},
		want: []string{"update a/kube-root-ca.crt"},
	}, {
		name: "other ConfigMaps do not count",
		batches: func(t *testing.T) [][]store.Event {
			other := rootCAConfigMap("a", nil, nil)
			other.Name = "other"
			return [][]store.Event{{
				namespaceEvent(t, store.Added, activeNamespace("a")),
				objectEvent(t, store.Added, configMapsBucket, rootCAConfigMap("a", published, described)),
				objectEvent(t, store.Added, configMapsBucket, other),
			}}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &writeRegistry{objects: map[string]runtime.Object{}}
			if tt.stored != nil {
				reg.objects["a/"+RootCAConfigMapName] = tt.stored
			}
			c := NewRootCACertPublisher(reg, []byte(testCA), nil)
			for _, b := range tt.batches(t) {
				if err := c.Sync(context.Background(), b); err != nil {
					t.Fatalf("Sync: %v", err)
				}
			}
			if !slices.Equal(reg.writes, tt.want) {
				t.Errorf("writes %q, want %q", reg.writes, tt.want)
			}
			for _, u := range reg.users {
				if u != "system:serviceaccount:kube-system:root-ca-cert-publisher" {
					t.Errorf("wrote as %q", u)
				}
			}
			if tt.stored != nil {
				got := reg.objects["a/"+RootCAConfigMapName].(*corev1.ConfigMap)
				if !maps.Equal(got.Data, published) || got.Annotations[descriptionAnnotation] != rootCADescription || got.Labels["kept"] != "yes" {
					t.Errorf("updated to data %v, annotations %v, labels %v", got.Data, got.Annotations, got.Labels)
				}
			}
		})
	}
}
