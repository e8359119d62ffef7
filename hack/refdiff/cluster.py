#!/usr/bin/env python3
"""Runs the same workloads on refplane's cluster and on a fakeplane's, and prints where the objects they leave differ.

    START_KCM=1 START_SCHEDULER=1 ../shared/tools/refplane/start.sh       # kube-controller-manager and kube-scheduler
    ../shared/tools/refplane/kwok.sh start ~/.cache/refplane/kubeconfig    # kwok's fake kubelets
    printf 'apiVersion: kubescheduler.config.k8s.io/v1\\nkind: KubeSchedulerConfiguration\\n' > /tmp/sched.yaml
    fakeplane --data-dir /tmp/fpd --kubeconfig /tmp/fp.kubeconfig --scheduler-config /tmp/sched.yaml &
    hack/refdiff/cluster.py --fakeplane /tmp/fp.kubeconfig [SCENARIO ...]

Both servers get the same two Nodes, annotated for kwok (which refplane's kwok and fakeplane's simulated kubelets
run). Each scenario then creates its objects in a namespace of its own on both, applies its later steps once both
have settled (nothing in the namespace changed for a few seconds), and compares what the namespace holds: the
workloads, their pods, ReplicaSets, revisions, Endpoints, EndpointSlices and events. Names made from a generateName,
IPs, UIDs, times and resourceVersions are masked; objects are compared as sets. Read each DIFF before believing it:
timing differs (an event's count, a condition's message caught between two steps).
"""
import argparse, copy, difflib, json, os, re, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refdiff as rd
from refdiff import req

NODE = lambda name: {"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": name, "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
                                  "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": name,
                                             "type": "kwok", "topology.kubernetes.io/zone": "z" + name[-1]}},
                     "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                                "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
NODES = ["kw-0", "kw-1"]

C = {"name": "c", "image": "nginx"}


def tmpl(app, **spec):
    return {"metadata": {"labels": {"app": app}}, "spec": dict({"containers": [C]}, **spec)}


def deploy(name, replicas, dspec=None, **spec):
    """A Deployment of replicas pods labelled app=name; dspec adds to its spec, spec to its pods'."""
    return ("/apis/apps/v1/namespaces/NS/deployments",
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
             "spec": dict({"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "template": tmpl(name, **spec)}, **(dspec or {}))})


def pod(name, labels=None, **spec):
    return ("/api/v1/namespaces/NS/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}},
                                           "spec": dict({"containers": [C]}, **spec)})


def priority_class(name, value):
    return ("/apis/scheduling.k8s.io/v1/priorityclasses", {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                                           "metadata": {"name": name}, "value": value})


def evict(name):
    return ("POST", "/api/v1/namespaces/NS/pods/%s/eviction" % name,
            {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}})


def merge(path, body):
    return ("PATCH", path, body)


def owned_pod(name, owner_path, kind, uid=None):
    """A pod owned by the object at owner_path (its UID as the server has it, or uid), as a callable step item."""
    def item(t, ns):
        owner = req(t, "GET", owner_path.replace("NS", ns))[1]
        ref = {"apiVersion": "v1", "kind": kind, "name": owner_path.rsplit("/", 1)[1], "uid": uid or owner["metadata"]["uid"]}
        p = pod(name)
        p[1]["metadata"]["ownerReferences"] = [ref]
        return p
    return item


# SCENARIOS: name -> steps; a step is a list of (collection path, body) to create, of ("PATCH"|"DELETE"|"POST", path, body),
# or of ("SLEEP", seconds, None).
SCENARIOS = {
    "deployment": [
        [deploy("web", 3)],
        [merge("/apis/apps/v1/namespaces/NS/deployments/web", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}})],
        [merge("/apis/apps/v1/namespaces/NS/deployments/web", {"spec": {"replicas": 1}})],
    ],
    "rollback": [
        [deploy("web", 2)],
        [merge("/apis/apps/v1/namespaces/NS/deployments/web", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}})],
        [merge("/apis/apps/v1/namespaces/NS/deployments/web", {"spec": {"template": {"spec": {"containers": [C]}}}})],
    ],
    "paused": [
        [deploy("web", 2)],
        [merge("/apis/apps/v1/namespaces/NS/deployments/web", {"spec": {"paused": True, "template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}})],
    ],
    "replicaset": [
        [("/apis/apps/v1/namespaces/NS/replicasets",
          {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
           "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "rs"}}, "template": tmpl("rs")}})],
        [merge("/apis/apps/v1/namespaces/NS/replicasets/rs", {"spec": {"replicas": 1}})],
    ],
    "replicationcontroller": [
        [("/api/v1/namespaces/NS/replicationcontrollers",
          {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
           "spec": {"replicas": 2, "selector": {"app": "rc"}, "template": tmpl("rc")}})],
    ],
    "statefulset": [
        [("/api/v1/namespaces/NS/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"},
                                             "spec": {"clusterIP": "None", "selector": {"app": "db"}, "ports": [{"port": 80}]}}),
         ("/apis/apps/v1/namespaces/NS/statefulsets",
          {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
           "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}}, "template": tmpl("db")}})],
        [merge("/apis/apps/v1/namespaces/NS/statefulsets/db", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}})],
        [merge("/apis/apps/v1/namespaces/NS/statefulsets/db", {"spec": {"replicas": 1}})],
    ],
    "statefulset-retention": [
        [("/apis/apps/v1/namespaces/NS/statefulsets",
          {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "st"},
           "spec": {"replicas": 3, "serviceName": "st", "podManagementPolicy": "Parallel", "selector": {"matchLabels": {"app": "st"}},
                    "template": tmpl("st"),
                    "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                                                    "resources": {"requests": {"storage": "1Gi"}}}}],
                    "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete", "whenScaled": "Delete"}}})],
        [merge("/apis/apps/v1/namespaces/NS/statefulsets/st", {"spec": {"replicas": 1}})],
        [merge("/apis/apps/v1/namespaces/NS/statefulsets/st", {"spec": {"replicas": 2, "persistentVolumeClaimRetentionPolicy":
                                                                        {"whenDeleted": "Retain", "whenScaled": "Retain"}}})],
    ],
    "orphaned-sets": [
        [("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"},
           "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": tmpl("ds")}}),
         ("/apis/apps/v1/namespaces/NS/statefulsets",
          {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "ss"},
           "spec": {"replicas": 2, "serviceName": "ss", "selector": {"matchLabels": {"app": "ss"}}, "template": tmpl("ss")}})],
        [("DELETE", "/apis/apps/v1/namespaces/NS/daemonsets/ds", {"propagationPolicy": "Orphan"}),
         ("DELETE", "/apis/apps/v1/namespaces/NS/statefulsets/ss", {"propagationPolicy": "Orphan"})],
        [("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"},
           "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": tmpl("ds")}}),
         ("/apis/apps/v1/namespaces/NS/statefulsets",
          {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "ss"},
           "spec": {"replicas": 3, "serviceName": "ss", "selector": {"matchLabels": {"app": "ss"}}, "template": tmpl("ss")}})],
    ],
    "daemonset": [
        [("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"},
           "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": tmpl("ds")}})],
        [merge("/apis/apps/v1/namespaces/NS/daemonsets/ds", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}})],
    ],
    "daemonset-surge": [
        [("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "surge"},
           "spec": {"selector": {"matchLabels": {"app": "surge"}}, "template": tmpl("surge"),
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}}),
         ("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "half"},
           "spec": {"selector": {"matchLabels": {"app": "half"}}, "template": tmpl("half"), "minReadySeconds": 2,
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "50%", "maxUnavailable": 0}}}})],
        [merge("/apis/apps/v1/namespaces/NS/daemonsets/surge", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}}),
         merge("/apis/apps/v1/namespaces/NS/daemonsets/half", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}})],
    ],
    "job": [
        [("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"completions": 3, "parallelism": 2, "template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}}),
         ("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "ix"},
           "spec": {"completions": 2, "completionMode": "Indexed", "template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}}),
         ("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "sus"},
           "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}})],
        [merge("/apis/batch/v1/namespaces/NS/jobs/sus", {"spec": {"suspend": False}})],
    ],
    "service": [
        [deploy("web", 2, containers=[dict(C, ports=[{"containerPort": 80, "name": "http"}])]),
         ("/api/v1/namespaces/NS/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                                             "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]}}),
         ("/api/v1/namespaces/NS/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "none"},
                                             "spec": {"selector": {"app": "none"}, "ports": [{"port": 80}]}})],
        [merge("/apis/apps/v1/namespaces/NS/deployments/web", {"spec": {"replicas": 3}})],
    ],
    "unschedulable": [
        [("/api/v1/namespaces/NS/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big"},
                                         "spec": {"containers": [dict(C, resources={"requests": {"cpu": "100"}})]}}),
         ("/api/v1/namespaces/NS/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sel"},
                                         "spec": {"containers": [C], "nodeSelector": {"disk": "ssd"}}}),
         ("/api/v1/namespaces/NS/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gated"},
                                         "spec": {"containers": [C], "schedulingGates": [{"name": "g"}]}})],
    ],
    "pdb": [
        [("/apis/policy/v1/namespaces/NS/poddisruptionbudgets",
          {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}),
         ("/apis/policy/v1/namespaces/NS/poddisruptionbudgets",
          {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pct"},
           "spec": {"maxUnavailable": "50%", "selector": {"matchLabels": {"app": "web"}}}}),
         ("/apis/policy/v1/namespaces/NS/poddisruptionbudgets",
          {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "empty"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "none"}}}}),
         deploy("web", 2)],
    ],
    "hpa": [
        [deploy("web", 1),
         ("/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers",
          {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
           "spec": {"minReplicas": 2, "maxReplicas": 4, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}})],
    ],
    "quota": [
        [("/api/v1/namespaces/NS/resourcequotas", {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
                                                   "spec": {"hard": {"pods": "2", "requests.cpu": "1", "count/deployments.apps": "1"}}}),
         deploy("web", 3, containers=[dict(C, resources={"requests": {"cpu": "100m"}})])],
    ],
    "gc": [
        [deploy("web", 2), deploy("orphan", 1)],
        [("DELETE", "/apis/apps/v1/namespaces/NS/deployments/web", {"propagationPolicy": "Foreground"}),
         ("DELETE", "/apis/apps/v1/namespaces/NS/deployments/orphan", {"propagationPolicy": "Orphan"})],
    ],
    "deadline": [
        [deploy("stuck", 2, {"progressDeadlineSeconds": 3}, containers=[dict(C, resources={"requests": {"cpu": "100"}})])],
    ],
    "recreate": [
        [deploy("web", 2, {"strategy": {"type": "Recreate"}})],
        [merge("/apis/apps/v1/namespaces/NS/deployments/web", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}})],
    ],
    "eviction": [
        [pod("e1", {"app": "e"}), pod("e2", {"app": "e"}),
         ("/apis/policy/v1/namespaces/NS/poddisruptionbudgets",
          {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "e"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "e"}}}})],
        [evict("e1")],
        [evict("e2"), evict("missing")],
    ],
    "preemption": [
        [priority_class("refdiff-low", 10), priority_class("refdiff-high", 1000),
         pod("low-0", priorityClassName="refdiff-low", containers=[dict(C, resources={"requests": {"cpu": "3"}})]),
         pod("low-1", containers=[dict(C, resources={"requests": {"cpu": "3"}})])],
        [pod("high", priorityClassName="refdiff-high", containers=[dict(C, resources={"requests": {"cpu": "3"}})])],
    ],
    "claims": [
        [("/apis/apps/v1/namespaces/NS/statefulsets",
          {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "data"},
           "spec": {"replicas": 1, "serviceName": "data", "selector": {"matchLabels": {"app": "data"}}, "template": tmpl("data"),
                    "volumeClaimTemplates": [{"metadata": {"name": "v"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}),
         ("/api/v1/namespaces/NS/persistentvolumeclaims",
          {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "lone"},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
         pod("user", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "lone"}}]),
         pod("nobody", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "missing"}}])],
    ],
    "ttl": [
        [("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "gone"},
           "spec": {"ttlSecondsAfterFinished": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}})],
    ],
    "tokens": [
        [("/api/v1/namespaces/NS/serviceaccounts", {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}),
         ("/api/v1/namespaces/NS/secrets", {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
                                            "metadata": {"name": "robot-token", "annotations": {"kubernetes.io/service-account.name": "robot"}}})],
        [("DELETE", "/api/v1/namespaces/NS/serviceaccounts/robot", None)],
    ],
    "nsdelete": [
        [("/api/v1/namespaces/NS/configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                                               "metadata": {"name": "held", "finalizers": ["refdiff.example.com/hold"]}}),
         deploy("web", 1)],
        # kube-controller-manager's namespace controller waits 5s (namespaceDeletionGracePeriod); fakeplane's does not.
        [("DELETE", "/api/v1/namespaces/NS", None), ("SLEEP", 6, None)],
        [merge("/api/v1/namespaces/NS/configmaps/held", {"metadata": {"finalizers": None}})],
    ],
    "daemonset-selector": [
        [("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "z0"},
           "spec": {"selector": {"matchLabels": {"app": "z0"}}, "template": tmpl("z0", nodeSelector={"topology.kubernetes.io/zone": "z0"})}}),
         ("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "none"},
           "spec": {"selector": {"matchLabels": {"app": "none"}}, "template": tmpl("none", nodeSelector={"disk": "none"})}}),
         ("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ondelete"},
           "spec": {"selector": {"matchLabels": {"app": "ondelete"}}, "updateStrategy": {"type": "OnDelete"}, "template": tmpl("ondelete")}})],
        [merge("/apis/apps/v1/namespaces/NS/daemonsets/ondelete", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}})],
    ],
    "job-variants": [
        [("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "wide"},
           "spec": {"completions": 2, "parallelism": 5, "template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}}),
         ("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "workqueue"},
           "spec": {"parallelism": 2, "template": {"spec": {"restartPolicy": "OnFailure", "containers": [C]}}}}),
         ("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "zero"},
           "spec": {"parallelism": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}}),
         ("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "perindex"},
           "spec": {"completions": 2, "completionMode": "Indexed", "backoffLimitPerIndex": 1, "maxFailedIndexes": 1,
                    "template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}}),
         ("/apis/batch/v1/namespaces/NS/jobs",
          {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "stuck"},
           "spec": {"activeDeadlineSeconds": 2, "template": {"spec": {"restartPolicy": "Never", "nodeSelector": {"disk": "none"}, "containers": [C]}}}})],
    ],
    "service-types": [
        [deploy("web", 2, containers=[dict(C, ports=[{"containerPort": 80, "name": "http"}])]),
         ("/api/v1/namespaces/NS/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "np"},
                                             "spec": {"type": "NodePort", "selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http", "name": "http"}]}}),
         ("/api/v1/namespaces/NS/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"},
                                             "spec": {"type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 80}, {"port": 81, "name": "b", "protocol": "UDP"}]}}),
         ("/api/v1/namespaces/NS/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hl"},
                                             "spec": {"clusterIP": "None", "publishNotReadyAddresses": True, "selector": {"app": "web"}}}),
         ("/api/v1/namespaces/NS/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext"},
                                             "spec": {"type": "ExternalName", "externalName": "example.com"}}),
         ("/api/v1/namespaces/NS/services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "nosel"},
                                             "spec": {"ports": [{"port": 80}]}})],
    ],
    "deploy-variants": [
        [deploy("slow", 2, {"minReadySeconds": 2}),
         deploy("surge0", 3, {"strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}}),
         deploy("zero", 0)],
        [merge("/apis/apps/v1/namespaces/NS/deployments/surge0", {"spec": {"template": {"spec": {"containers": [dict(C, image="nginx:2")]}}}}),
         merge("/apis/apps/v1/namespaces/NS/deployments/slow", {"spec": {"replicas": 0}})],
    ],
    "cronjob": [
        [("/apis/batch/v1/namespaces/NS/cronjobs",
          {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
           "spec": {"schedule": "* * * * *", "successfulJobsHistoryLimit": 1,
                    "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}}}}),
         ("/apis/batch/v1/namespaces/NS/cronjobs",
          {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "paused"},
           "spec": {"schedule": "* * * * *", "suspend": True,
                    "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [C]}}}}}}),
         ("SLEEP", 65, None)],
    ],
    "podgc": [
        [("/api/v1/nodes", NODE("kw-9")), pod("p", nodeName="kw-9"), pod("held", nodeName="kw-9", terminationGracePeriodSeconds=600),
         ("/apis/apps/v1/namespaces/NS/daemonsets", {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                                                     "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": tmpl("agent")}})],
        [("DELETE", "/api/v1/nodes/kw-9", None), ("SLEEP", 70, None)],
    ],
    "adoption": [
        [pod("a1", {"app": "adopt"}), pod("a2", {"app": "adopt"})],
        [("/apis/apps/v1/namespaces/NS/replicasets",
          {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "adopt"},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "adopt"}}, "template": tmpl("adopt")}})],
        [merge("/api/v1/namespaces/NS/pods/a1", {"metadata": {"labels": {"app": "released"}}})],
    ],
    "owners": [
        [("/api/v1/namespaces/NS/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}})],
        [owned_pod("kept", "/api/v1/namespaces/NS/configmaps/owner", "ConfigMap"),
         owned_pod("dangling", "/api/v1/namespaces/NS/configmaps/owner", "ConfigMap", uid="0a1b2c3d-0000-4000-8000-000000000000"),
         owned_pod("wrongkind", "/api/v1/namespaces/NS/configmaps/owner", "Secret")],
        [("DELETE", "/api/v1/namespaces/NS/configmaps/owner", None)],
    ],
    "hpa-missing": [
        [("/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers",
          {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "nope"},
           "spec": {"minReplicas": 1, "maxReplicas": 3, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nope"}}}),
         ("/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers",
          {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "cpu"},
           "spec": {"minReplicas": 1, "maxReplicas": 3, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                    "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}}),
         deploy("web", 1, containers=[dict(C, resources={"requests": {"cpu": "100m"}})]),
         ("SLEEP", 16, None)],
    ],
    "kubectl-rollout": [
        [deploy("web", 2)],
        [("KUBECTL", ["set", "image", "deployment/web", "c=nginx:2"], False),
         ("KUBECTL", ["rollout", "status", "deployment/web", "--timeout=60s"], True)],
        [("KUBECTL", ["rollout", "history", "deployment/web"], False),
         ("KUBECTL", ["rollout", "undo", "deployment/web"], False),
         ("KUBECTL", ["rollout", "status", "deployment/web", "--timeout=60s"], True)],
        [("KUBECTL", ["rollout", "history", "deployment/web", "--revision=3"], False),
         ("KUBECTL", ["rollout", "pause", "deployment/web"], False),
         ("KUBECTL", ["rollout", "undo", "deployment/web"], False),
         ("KUBECTL", ["rollout", "resume", "deployment/web"], False)],
    ],
    "kubectl-imperative": [
        [("KUBECTL", ["create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=80"], False),
         ("KUBECTL", ["expose", "deployment", "web", "--port=8080", "--target-port=80"], False),
         ("KUBECTL", ["create", "job", "once", "--image=busybox"], False),
         ("KUBECTL", ["create", "cronjob", "cron", "--image=busybox", "--schedule=*/5 * * * *"], False),
         ("KUBECTL", ["run", "solo", "--image=nginx", "--labels=app=solo"], False),
         ("KUBECTL", ["create", "poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=1"], False),
         ("KUBECTL", ["create", "quota", "q", "--hard=pods=10"], False)],
        [("KUBECTL", ["scale", "deployment/web", "--replicas=3"], False),
         ("KUBECTL", ["autoscale", "deployment", "web", "--min=2", "--max=4", "--cpu=50%"], False),
         ("KUBECTL", ["wait", "--for=condition=complete", "job/once", "--timeout=60s"], False),
         ("KUBECTL", ["label", "pod", "solo", "tier=x"], False),
         ("KUBECTL", ["annotate", "deployment", "web", "note=x"], False),
         ("KUBECTL", ["get", "deployment,replicaset,job,service,pdb,hpa,quota", "-o", "wide"], False)],
        [("KUBECTL", ["delete", "pod", "solo"], False),
         ("KUBECTL", ["delete", "deployment", "web", "--cascade=orphan"], False),
         ("KUBECTL", ["get", "replicaset", "-o", "custom-columns=NAME:.metadata.name,OWNERS:.metadata.ownerReferences"], False)],
    ],
    "kubectl-rollout-sets": [
        [("/apis/apps/v1/namespaces/NS/daemonsets",
          {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"},
           "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": tmpl("ds"),
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}}),
         ("/apis/apps/v1/namespaces/NS/statefulsets",
          {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "ss"},
           "spec": {"replicas": 2, "serviceName": "ss", "selector": {"matchLabels": {"app": "ss"}}, "template": tmpl("ss")}})],
        [("KUBECTL", ["set", "image", "daemonset/ds", "c=nginx:2"], False),
         ("KUBECTL", ["set", "image", "statefulset/ss", "c=nginx:2"], False),
         ("KUBECTL", ["rollout", "status", "daemonset/ds", "--timeout=60s"], True),
         ("KUBECTL", ["rollout", "status", "statefulset/ss", "--timeout=60s"], True)],
        [("KUBECTL", ["rollout", "history", "daemonset/ds"], False),
         ("KUBECTL", ["rollout", "history", "statefulset/ss", "--revision=1"], False),
         ("KUBECTL", ["rollout", "undo", "daemonset/ds"], False),
         ("KUBECTL", ["rollout", "undo", "statefulset/ss"], False),
         ("KUBECTL", ["rollout", "status", "daemonset/ds", "--timeout=60s"], True),
         ("KUBECTL", ["rollout", "status", "statefulset/ss", "--timeout=60s"], True)],
        [("KUBECTL", ["rollout", "restart", "daemonset/ds"], False),
         ("KUBECTL", ["rollout", "status", "daemonset/ds", "--timeout=60s"], True),
         ("KUBECTL", ["rollout", "history", "daemonset/ds"], False)],
    ],
    "kubectl-describe": [
        [("KUBECTL", ["create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=80"], False),
         ("KUBECTL", ["expose", "deployment", "web", "--port=8080", "--target-port=80"], False),
         ("KUBECTL", ["create", "configmap", "cm", "--from-literal=a=b"], False),
         ("KUBECTL", ["create", "secret", "generic", "s", "--from-literal=k=v"], False),
         ("KUBECTL", ["create", "serviceaccount", "bot"], False),
         ("KUBECTL", ["create", "role", "r", "--verb=get,list", "--resource=pods,configmaps"], False),
         ("KUBECTL", ["create", "rolebinding", "rb", "--role=r", "--serviceaccount=NS:bot"], False),
         ("KUBECTL", ["create", "priorityclass", "NS-high", "--value=1000", "--description=high"], False),
         ("KUBECTL", ["create", "ingress", "ing", "--rule=example.com/=web:8080"], False)],
        [("KUBECTL", ["describe", "deployment", "web"], False),
         ("KUBECTL", ["describe", "service", "web"], False),
         ("KUBECTL", ["describe", "configmap", "cm"], False),
         ("KUBECTL", ["describe", "secret", "s"], False),
         ("KUBECTL", ["describe", "serviceaccount", "bot"], False),
         ("KUBECTL", ["describe", "role", "r"], False),
         ("KUBECTL", ["describe", "rolebinding", "rb"], False),
         ("KUBECTL", ["describe", "priorityclass", "NS-high"], False),
         ("KUBECTL", ["describe", "ingress", "ing"], False),
         ("KUBECTL", ["describe", "namespace", "NS"], False),
         ("KUBECTL", ["get", "all"], False),
         ("KUBECTL", ["get", "endpointslices", "-o", "wide"], False),
         ("KUBECTL", ["auth", "can-i", "list", "pods", "--as=system:serviceaccount:NS:bot"], False),
         ("KUBECTL", ["auth", "can-i", "delete", "pods", "--as=system:serviceaccount:NS:bot"], False),
         ("KUBECTL", ["auth", "can-i", "--list", "--as=system:serviceaccount:NS:bot"], False),
         ("KUBECTL", ["events", "--for", "deployment/web"], False),
         ("KUBECTL", ["get", "events", "--field-selector", "involvedObject.kind=Deployment"], False)],
        [("KUBECTL", ["set", "env", "deployment/web", "A=B"], False),
         ("KUBECTL", ["set", "resources", "deployment/web", "--limits=cpu=200m", "--requests=cpu=100m"], False),
         ("KUBECTL", ["set", "serviceaccount", "deployment/web", "bot"], False),
         ("KUBECTL", ["rollout", "status", "deployment/web", "--timeout=60s"], True),
         ("KUBECTL", ["describe", "deployment", "web"], False),
         ("KUBECTL", ["rollout", "history", "deployment/web"], False),
         ("KUBECTL", ["get", "replicasets", "-o", "wide"], False)],
    ],
    "kubectl-misc": [
        [("KUBECTL", ["run", "solo", "--image=nginx", "--labels=app=solo", "--env=X=1", "--requests=cpu=100m,memory=10Mi"], False),
         ("KUBECTL", ["create", "job", "once", "--image=busybox"], False),
         ("KUBECTL", ["create", "cronjob", "cron", "--image=busybox", "--schedule=*/5 * * * *"], False),
         ("KUBECTL", ["create", "configmap", "cm", "--from-literal=a=b"], False)],
        [("KUBECTL", ["wait", "--for=condition=Ready", "pod/solo", "--timeout=60s"], False),
         ("KUBECTL", ["describe", "pod", "solo"], False),
         ("KUBECTL", ["create", "job", "manual", "--from=cronjob/cron"], False),
         ("KUBECTL", ["wait", "--for=jsonpath={.status.succeeded}=1", "job/once", "--timeout=60s"], False),
         ("KUBECTL", ["describe", "job", "once"], False),
         ("KUBECTL", ["describe", "cronjob", "cron"], False),
         ("KUBECTL", ["label", "pod", "solo", "app=other"], False),
         ("KUBECTL", ["label", "pod", "solo", "app=other", "--overwrite"], False),
         ("KUBECTL", ["annotate", "configmap", "cm", "a=1"], False),
         ("KUBECTL", ["annotate", "configmap", "cm", "a-"], False),
         ("KUBECTL", ["patch", "configmap", "cm", "-p", '{"data":{"c":"d"}}'], False),
         ("KUBECTL", ["patch", "configmap", "cm", "--type=json", "-p", '[{"op":"remove","path":"/data/zz"}]'], False),
         ("KUBECTL", ["get", "configmap", "cm", "-o", "yaml"], False),
         ("KUBECTL", ["create", "token", "default", "--duration=10m", "-o", "jsonpath={.kind}"], False),
         ("KUBECTL", ["get", "pods", "--show-labels", "--sort-by=.metadata.name"], False),
         ("KUBECTL", ["get", "pods", "-o", "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,QOS:.status.qosClass"], False)],
        [("KUBECTL", ["delete", "pod", "solo", "--wait=true", "--timeout=60s"], False),
         ("KUBECTL", ["delete", "job", "once", "manual"], False),
         ("KUBECTL", ["get", "pods,jobs", "--ignore-not-found"], False)],
    ],
    "drain": [
        [deploy("web", 2), ("/apis/apps/v1/namespaces/NS/daemonsets",
                            {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                             "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": tmpl("agent")}}),
         ("/apis/policy/v1/namespaces/NS/poddisruptionbudgets",
          {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})],
        [("KUBECTL", ["cordon", "kw-1"], False), ("SLEEP", 2, None),
         ("KUBECTL", ["get", "node", "kw-1", "-o", "jsonpath={.spec.unschedulable} {.spec.taints}"], False),
         ("KUBECTL", ["drain", "kw-1", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=90s"], True)],
        [("KUBECTL", ["uncordon", "kw-1"], False), ("SLEEP", 2, None),
         ("KUBECTL", ["get", "node", "kw-1", "-o", "jsonpath={.spec.unschedulable} {.spec.taints}"], False)],
    ],
    "pods": [
        [("/api/v1/namespaces/NS/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                         "spec": {"containers": [C, dict(C, name="d")], "initContainers": [dict(C, name="i"), dict(C, name="s", restartPolicy="Always")]}}),
         ("/api/v1/namespaces/NS/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "n"},
                                         "spec": {"containers": [C], "nodeName": "kw-1"}}),
         ("/api/v1/namespaces/NS/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "aff"},
                                         "spec": {"containers": [C], "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                                             "nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z0"]}]}]}}}}})],
        [("DELETE", "/api/v1/namespaces/NS/pods/n", None)],
    ],
}

# What a namespace's snapshot lists.
LISTED = ["/apis/apps/v1/namespaces/NS/deployments", "/apis/apps/v1/namespaces/NS/replicasets", "/apis/apps/v1/namespaces/NS/statefulsets",
          "/apis/apps/v1/namespaces/NS/daemonsets", "/apis/apps/v1/namespaces/NS/controllerrevisions", "/apis/batch/v1/namespaces/NS/jobs",
          "/api/v1/namespaces/NS/pods", "/api/v1/namespaces/NS/replicationcontrollers", "/api/v1/namespaces/NS/services",
          "/api/v1/namespaces/NS/endpoints", "/apis/discovery.k8s.io/v1/namespaces/NS/endpointslices",
          "/apis/policy/v1/namespaces/NS/poddisruptionbudgets", "/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers",
          "/api/v1/namespaces/NS/resourcequotas", "/api/v1/namespaces/NS/persistentvolumeclaims", "/api/v1/namespaces/NS/serviceaccounts",
          "/api/v1/namespaces/NS/secrets", "/api/v1/namespaces/NS/configmaps", "/api/v1/namespaces/NS/events", "/api/v1/namespaces/NS"]

VOLATILE = rd.VOLATILE | {"podIP", "podIPs", "hostIP", "hostIPs", "containerID", "startTime", "startedAt", "finishedAt", "lastTransitionTime",
                          "lastProbeTime", "lastUpdateTime", "firstTimestamp", "lastTimestamp", "eventTime", "lastScheduleTime",
                          "completionTime", "deletionTimestamp", "generateName"}
IP = re.compile(r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b")
# A generated name's suffix (apimachinery's random alphabet), for names whose object is gone.
# A CronJob's Job is named by its scheduled minute.
SCHEDULED = re.compile(r"\b(tick-)\d{8}\b")
SUFFIX = re.compile(r"\b([a-z0-9.-]+-)[bcdfghjklmnpqrstvwxz2456789]{5}\b")
NODE_NAME = re.compile(r"\bkw-\d\b")


def generated(items):
    """Names made from a generateName, longest first, each with its mask."""
    names = {}
    for o in items:
        md = o.get("metadata", {})
        if md.get("generateName") and md.get("name", "").startswith(md["generateName"]):
            names[md["name"]] = md["generateName"] + "*"
    return sorted(names.items(), key=lambda kv: -len(kv[0]))


def mask_text(s):
    """s with refdiff's masks, IPs, and generated names' suffixes masked."""
    return SUFFIX.sub(r"\1*", IP.sub("IP", rd.mask(s)))


def masked(o, names):
    s = json.dumps(scrubbed(o), sort_keys=True)
    for n, m in names:
        s = s.replace(n, m)
    return json.loads(SCHEDULED.sub(r"\1MINUTE", mask_text(s)))


def scrubbed(o):
    if isinstance(o, dict):
        out = {}
        for k, v in o.items():
            if k in VOLATILE:
                out[k] = "X"
            elif k == "managedFields":
                out[k] = sorted(json.dumps({f: e.get(f) for f in ("manager", "operation", "subresource", "apiVersion", "fieldsV1")}, sort_keys=True) for e in v)
            elif k == "count" and isinstance(v, int):
                out[k] = "N"
            else:
                out[k] = scrubbed(v)
        return out
    if isinstance(o, list):
        return [scrubbed(v) for v in o]
    return o


def pod_view(o):
    """A pod as compared: what the control plane writes, not what the kubelet reports (kwok's status is not a
    kubelet's; fakeplane's is closer to one: a kubelet also sets PodScheduled True, with its observedGeneration, on
    the pods bound to it), nor the node a tie between two equal nodes chose."""
    o = copy.deepcopy(o)
    md, spec, st = o.get("metadata", {}), o.get("spec", {}), o.get("status", {})
    md.get("labels", {}).pop("topology.kubernetes.io/zone", None)
    md["managedFields"] = [copy.deepcopy(e) for e in md.get("managedFields", []) if e.get("manager") not in ("kwok", "kubelet")]
    for e in md["managedFields"]:
        # A kubelet rewrites PodScheduled's observedGeneration (taking it from the scheduler); kwok does not.
        e.get("fieldsV1", {}).get("f:status", {}).get("f:conditions", {}).get('k:{"type":"PodScheduled"}', {}).pop("f:observedGeneration", None)
    spec.pop("nodeName", None)
    o["status"] = {"phase": st.get("phase"), "qosClass": st.get("qosClass"), "nominatedNodeName": st.get("nominatedNodeName"),
                   "conditions": [{k: v for k, v in c.items() if k != "observedGeneration"} for c in st.get("conditions", [])
                                  if c["type"] == "DisruptionTarget" or c["type"] == "PodScheduled" and c["status"] != "True"]}
    return o


def endpoints_view(o):
    """Endpoints or an EndpointSlice as compared: without the nodes and zones of its pods (ties between equal
    nodes), its addresses in a canonical order (they are masked)."""
    o = copy.deepcopy(o)
    node_free = lambda e: {k: v for k, v in e.items() if k not in ("nodeName", "zone")}
    if "endpoints" in o:
        o["endpoints"] = sorted((node_free(e) for e in o["endpoints"] or []), key=lambda e: json.dumps(e, sort_keys=True))
    for ss in o.get("subsets") or []:
        for k in ("addresses", "notReadyAddresses"):
            if k in ss:
                ss[k] = sorted((node_free(a) for a in ss[k]), key=lambda e: json.dumps(e, sort_keys=True))
    return o


def snapshot(t, ns):
    """What the namespace holds on t: {collection: sorted masked objects}."""
    raw = {}
    for p in LISTED:
        code, js, _ = req(t, "GET", p.replace("NS", ns))
        if code != 200:
            raw[p] = ["%d" % code]
        else:
            raw[p] = js.get("items", []) if js.get("kind", "").endswith("List") else [js]  # the namespace itself
    names = generated([o for items in raw.values() for o in items if isinstance(o, dict)])
    out = {}
    for p, items in raw.items():
        objs = []
        for o in items:
            if not isinstance(o, dict):
                objs.append(o)
                continue
            if p.endswith("/pods"):
                o = pod_view(o)
            if p.endswith("/endpoints") or p.endswith("/endpointslices"):
                o = endpoints_view(o)
            if p.endswith("/secrets") or p.endswith("/configmaps"):
                o = dict(o, data={k: "V" for k in o.get("data") or {}})
            if p.endswith("/events"):
                o = {k: o.get(k) for k in ("type", "reason", "message", "involvedObject", "source", "reportingComponent", "action")}
                o["involvedObject"] = {k: o["involvedObject"].get(k) for k in ("kind", "name", "fieldPath")}
                o["message"] = NODE_NAME.sub("kw-N", o.get("message") or "")  # the node of a tie
            objs.append(masked(o, names))
        out[p] = sorted(objs, key=lambda o: json.dumps(o, sort_keys=True))
    return out


def settle(ns, quiet=4.0, limit=90.0):
    """Waits until neither server's namespace changed for quiet seconds (at most limit); both snapshots."""
    last, since, start = {}, {}, time.time()
    while True:
        now = time.time()
        snaps = {t: snapshot(t, ns) for t in ("ref", "fp")}
        for t in snaps:
            if snaps[t] != last.get(t):
                last[t], since[t] = snaps[t], now
        if all(now - since[t] >= quiet for t in snaps) or now - start > limit:
            return snaps
        time.sleep(0.5)


def run_step(ns, label, step):
    """Sends a step's requests to both servers; prints, and counts, the answers that differ."""
    diffs = 0
    for item in step:
        if not callable(item) and item[0] == "SLEEP":  # for what upstream does after a delay
            time.sleep(item[1])
            continue
        if not callable(item) and item[0] == "KUBECTL":
            diffs += run_kubectl(ns, label, [a.replace("NS", ns) for a in item[1]], item[2])
            continue
        answers = []
        for t in ("ref", "fp"):
            # A callable item makes its request from what the server holds (a UID).
            it = item(t, ns) if callable(item) else item
            if it[0] in ("PATCH", "DELETE", "POST"):
                method, path, body = it
            else:
                method, path, body = "POST", it[0], it[1]
            ctype = "application/merge-patch+json" if method == "PATCH" else "application/json"
            answers.append(rd.norm(req(t, method, path.replace("NS", ns), body, ctype)))
        a, f = answers
        a, f = (tuple(x.replace(ns, "NS") if isinstance(x, str) else x for x in r) for r in (a, f))
        if a != f:
            diffs += 1
            print("DIFF", label, method, path)
            print("  ref:", a)
            print("  fp: ", f)
    return diffs


KUBECONFIGS = {}
DURATION = re.compile(r"\b\d+(s|m|h|d)(\d+(s|m|h))?\b")
# refplane's kubectl, of the servers' version (the one on PATH is older).
KUBECTL = os.path.expanduser(os.environ.get("REFPLANE_HOME", "~/.cache/refplane") + "/bin/kubectl")


def run_kubectl(ns, label, args, last_line):
    """Runs kubectl args in the namespace against both servers; prints, and counts, an exit code or output that differs
    (masked as objects are; with last_line, only the output's last line: a wait prints as many lines as it waits)."""
    outs = []
    for t in ("ref", "fp"):
        r = subprocess.run([KUBECTL, "--kubeconfig", KUBECONFIGS[t], "-n", ns] + args, capture_output=True, text=True, timeout=120)
        out = r.stdout.strip().splitlines()[-1:] if last_line else r.stdout.strip().splitlines()
        err = [l for l in r.stderr.strip().splitlines() if not l.startswith("Warning:")]
        # Ages and durations are masked, and the columns' widths with them.
        masked = [" ".join(DURATION.sub("T", mask_text(l)).replace(ns, "NS").split())
                  for l in out + ["stderr: " + l for l in err]]
        outs.append((r.returncode, masked))
    if outs[0] != outs[1]:
        print("DIFF", label, "kubectl", " ".join(args))
        print("  ref:", outs[0])
        print("  fp: ", outs[1])
        return 1
    return 0


def compare(label, a, f):
    n = 0
    for p in LISTED:
        if a[p] == f[p]:
            continue
        n += 1
        print("DIFF", label, p.split("/")[-1])
        for line in difflib.unified_diff(json.dumps(a[p], indent=1, sort_keys=True).splitlines(),
                                         json.dumps(f[p], indent=1, sort_keys=True).splitlines(), "ref", "fp", n=3, lineterm=""):
            print("   ", line)
    return n


def ensure_nodes():
    for t in ("ref", "fp"):
        for n in NODES:
            if req(t, "GET", "/api/v1/nodes/" + n)[0] == 404:
                req(t, "POST", "/api/v1/nodes", NODE(n))
    for _ in range(100):
        ready = [all(any(c["type"] == "Ready" and c["status"] == "True" for c in req(t, "GET", "/api/v1/nodes/" + n)[1].get("status", {}).get("conditions", []))
                     for n in NODES) for t in ("ref", "fp")]
        if all(ready):
            return
        time.sleep(0.3)
    sys.exit("the nodes are not Ready: ref %s, fp %s" % tuple(ready))


def ensure_namespace(ns):
    for t in ("ref", "fp"):
        req(t, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    for _ in range(100):
        if all(req(t, "GET", "/api/v1/namespaces/%s/serviceaccounts/default" % ns)[0] == 200 for t in ("ref", "fp")):
            return
        time.sleep(0.2)
    sys.exit("no default ServiceAccount in " + ns)


def run_scenario(name, suffix, keep=False):
    ns = "cl-" + name + suffix
    ensure_namespace(ns)
    diffs = 0
    for i, step in enumerate(SCENARIOS[name]):
        diffs += run_step(ns, "%s step %d" % (name, i), step)
        snaps = settle(ns)
        diffs += compare("%s step %d" % (name, i), snaps["ref"], snaps["fp"])
    if not keep:
        # What a scenario leaves running (pods holding CPU on the two nodes) would change the next one's.
        # The next scenario starts once both have removed it (kube-controller-manager waits 5s before it begins),
        # or the pods it frees would requeue the next one's unschedulable pods on one side only.
        for t in ("ref", "fp"):
            req(t, "DELETE", "/api/v1/namespaces/" + ns)
        for _ in range(120):
            if all(req(t, "GET", "/api/v1/namespaces/" + ns)[0] == 404 for t in ("ref", "fp")):
                break
            time.sleep(0.5)
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reference", default=os.path.expanduser("~/.cache/refplane/kubeconfig"), help="refplane's kubeconfig")
    ap.add_argument("--fakeplane", required=True, help="the fakeplane's kubeconfig")
    ap.add_argument("--suffix", default="", help="appended to each scenario's namespace, so that a scenario can run again")
    ap.add_argument("--nodes", action="store_true", help="also compare the two Nodes")
    ap.add_argument("--keep", action="store_true", help="keep each scenario's namespace (deleted when it ends otherwise)")
    ap.add_argument("scenario", nargs="*", help="the scenarios to run (all of %s when none)" % ", ".join(SCENARIOS))
    args = ap.parse_args()
    rd.SERVERS["ref"], rd.SERVERS["fp"] = rd.kubeconfig(args.reference), rd.kubeconfig(args.fakeplane)
    KUBECONFIGS["ref"], KUBECONFIGS["fp"] = args.reference, args.fakeplane
    ensure_nodes()
    total = 0
    if args.nodes:
        for n in NODES:
            a, f = (masked(req(t, "GET", "/api/v1/nodes/" + n)[1], []) for t in ("ref", "fp"))
            if a != f:
                total += 1
                rd.report("node " + n, (200, json.dumps(a)), (200, json.dumps(f)))
    for name in args.scenario or SCENARIOS:
        total += run_scenario(name, args.suffix, args.keep)
    print("%d differences" % total)


if __name__ == "__main__":
    main()
