package main

import (
	"context"
	"fmt"
	"os"

	"github.com/fakeplane/fakeplane/internal/nullserver"
)

// benchFloor measures the operations of benchOps against a null server
// (internal/nullserver) answering with what t, an in-process fakeplane,
// answers: the object get reads, the list of 100 and an empty list. Creates
// and updates are answered with the object sent, and every create is sent
// to the open watches before it is answered, as fakeplane does.
func (t *target) benchFloor(ctx context.Context, cfg config, rep *report) error {
	fmt.Fprintf(os.Stderr, "floor: recording fakeplane's answers\n")
	answers, err := t.answers(ctx)
	if err != nil {
		return err
	}
	s := nullserver.Start(answers)
	defer s.Close()
	c, err := newClient(cfg, s.RESTConfig())
	if err != nil {
		return err
	}
	floor := &target{name: "floor", c: c, ns: t.ns, version: t.version}
	return floor.benchOps(ctx, cfg, rep)
}

// answers reads, in protobuf, the answers a null server needs to stand in
// for t in benchOps.
func (t *target) answers(ctx context.Context) (nullserver.Answers, error) {
	rc := t.c.CoreV1().RESTClient()
	raw := func(what string) ([]byte, error) {
		req := rc.Get().Namespace(t.ns).Resource("configmaps").SetHeader("Accept", nullserver.ProtobufType)
		switch what {
		case "get":
			req = req.Name("get")
		default:
			req = req.Param("labelSelector", setLabel+"="+what)
		}
		body, err := req.DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return body, nil
	}
	var a nullserver.Answers
	var err error
	if a.Object, err = raw("get"); err != nil {
		return a, err
	}
	list, err := raw("list")
	if err != nil {
		return a, err
	}
	a.Lists = map[string][]byte{setLabel + "=list": list}
	a.EmptyList, err = raw("none")
	return a, err
}
