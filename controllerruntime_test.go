package fakeplane_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fakeplane/fakeplane"
)

func TestMetadataClientGetListWatch(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cs := clientset(t, cp)
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"big": strings.Repeat("x", 1000)},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mc := metadata.NewForConfigOrDie(cp.RESTConfig())
	cms := mc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")

	got, err := cms.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "a" || got.Labels["app"] != "x" || got.UID == "" {
		t.Errorf("get: %+v", got)
	}
	// In JSON, with upstream's 406s when the "as" does not fit the answer.
	for _, tc := range []struct{ path, as, want string }{
		{"/api/v1/namespaces/default/configmaps/a", "PartialObjectMetadata", `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a"`},
		{"/api/v1/namespaces/default/configmaps", "PartialObjectMetadataList", `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":`},
		{"/api/v1/namespaces/default/configmaps", "PartialObjectMetadata", `you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)`},
		{"/api/v1/namespaces/default/configmaps/a", "PartialObjectMetadataList", `you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)`},
	} {
		body, _ := cs.CoreV1().RESTClient().Get().AbsPath(tc.path).SetHeader("Accept", "application/json;as="+tc.as+";g=meta.k8s.io;v=v1").DoRaw(ctx)
		if !strings.Contains(string(body), tc.want) || strings.Contains(string(body), "xxxxxxxx") {
			t.Errorf("%s as %s: %s", tc.path, tc.as, body)
		}
	}
	l, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Name != "a" || l.ResourceVersion == "" {
		t.Errorf("list: %+v", l)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		p, ok := ev.Object.(*metav1.PartialObjectMetadata)
		if ev.Type != watch.Added || !ok || p.Name != "b" {
			t.Errorf("watch event: %s %#v", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no watch event")
	}

	// A metadata informer (what controller-runtime's metadata cache runs)
	// syncs and follows, including through bookmarks.
	factory := metadatainformer.NewSharedInformerFactory(mc, 0)
	inf := factory.ForResource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Informer()
	stop := make(chan struct{})
	defer close(stop)
	go inf.Run(stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("metadata informer did not sync")
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}},
	}}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, ok, _ := inf.GetStore().GetByKey("default/web")
		return ok
	})
}

func TestControllerRuntimeClientCacheAndApply(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := cp.RESTConfig()
	sch := runtime.NewScheme()
	if err := scheme.AddToScheme(sch); err != nil {
		t.Fatal(err)
	}
	ca, err := crcache.New(cfg, crcache.Options{Scheme: sch})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = ca.Start(ctx) }()
	c, err := client.New(cfg, client.Options{Scheme: sch, Cache: &client.CacheOptions{Reader: ca}})
	if err != nil {
		t.Fatal(err)
	}

	// Server-side apply through controller-runtime.
	if err := c.Apply(ctx, corev1ac.ConfigMap("settings", "default").WithData(map[string]string{"mode": "fast"}), client.FieldOwner("operator")); err != nil {
		t.Fatal(err)
	}
	// Reads go through the cache (an informer on the typed client) ...
	var cm corev1.ConfigMap
	waitFor(t, func() bool {
		return c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "settings"}, &cm) == nil && cm.Data["mode"] == "fast"
	})
	if got := strings.Join(managers(&cm), ","); got != "operator/Apply" {
		t.Errorf("managers: %s", got)
	}
	// ... and follow updates.
	cm.Data["mode"] = "slow"
	if err := c.Update(ctx, &cm); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		var again corev1.ConfigMap
		return c.Get(ctx, client.ObjectKeyFromObject(&cm), &again) == nil && again.Data["mode"] == "slow"
	})
	// A stale update conflicts.
	stale := cm.DeepCopy()
	stale.ResourceVersion = "1"
	if err := c.Update(ctx, stale); err == nil || !strings.Contains(err.Error(), "the object has been modified") {
		t.Errorf("stale update: %v", err)
	}

	// Metadata-only objects through the cache (controller-runtime's metadata informers).
	var metas metav1.PartialObjectMetadataList
	metas.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMapList"})
	waitFor(t, func() bool {
		if err := c.List(ctx, &metas, client.InNamespace("default")); err != nil {
			return false
		}
		for _, m := range metas.Items {
			if m.Name == "settings" {
				return true
			}
		}
		return false
	})
	var one metav1.PartialObjectMetadata
	one.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "settings"}, &one); err != nil || one.UID != cm.UID {
		t.Errorf("metadata get: %v %+v", err, one.ObjectMeta)
	}
	// Deletion reaches the cache.
	if err := c.Delete(ctx, &cm); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		var gone corev1.ConfigMap
		err := c.Get(ctx, client.ObjectKeyFromObject(&cm), &gone)
		return client.IgnoreNotFound(err) == nil && err != nil
	})
}
