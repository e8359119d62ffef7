#!/usr/bin/env python3
"""Sends the same requests to refplane (a real kube-apiserver) and to a fakeplane, and prints where the answers differ.

    ../shared/tools/refplane/start.sh                      # the reference; then create its default ServiceAccount:
    kubectl --kubeconfig ~/.cache/refplane/kubeconfig create sa default
    fakeplane --data-dir /tmp/fpd --kubeconfig /tmp/fp.kubeconfig &
    hack/refdiff/refdiff.py --fakeplane /tmp/fp.kubeconfig create [PATH-FILTER]

Sweeps (each prints DIFF lines with both answers, then a count):
    create    every valid object of OBJECTS, then each of its fields changed to invalid values, as dry-run creates
    update    the same changes as dry-run updates (PUT) of objects created first (named NAME+SUFFIX, --suffix)
    pairs     dry-run creates with two or three fields changed at once (the order of errors), --seed
    lists     list queries (field and label selectors, limits, resourceVersions) on every listed resource
    warnings  the Warning headers of the creates, also with fieldValidation=Warn
    patches   the update sweep's changes as dry-run patches: a JSON patch of the field, and a strategic merge (custom
              resources: merge) patch of its top-level field; answers compared whole, status and metadata set aside
    apply     server-side applies (dry runs) of each object and of its changes: creating it, and over the object created
              first by another manager, without and with force; whole answers compared, managedFields included
    watches   watches of ConfigMaps (selectors, resourceVersions, initial events, Tables) while both servers see the
              same writes: the events compared
    metadata  changes of metadata (labels, finalizers, owners, UID, timestamps, ...) as dry-run merge patches of each
              object and of its /status
    deletes   deletes of each object with each option (grace periods, propagation, preconditions, bodies)
    routes    every method on every subresource (and an unknown one) of an object of each kind, as dry runs
    requests  odd requests: unknown paths, methods, content types, query parameters, bodies and patches
    bodies    the whole answers of the dry-run creates that succeed (defaults, normalisation), not only their codes

An answer is its code and, for a Status, its reason, message and causes, with UIDs, times and generated names masked.
Both servers keep what earlier sweeps created (but update, patches, apply, routes, metadata and deletes delete the admission
configurations, quotas and limits they created when they end): an object left in one of them (a webhook
configuration, a LimitRange) changes later answers, as do fakeplane's controllers, which refplane does not run. Read each DIFF before believing it.
"""
import argparse, base64, copy, difflib, json, os, random, re, ssl, subprocess, sys, threading, time, urllib.error, urllib.request


def kubeconfig(path):
    """The server, token and client certificate files of a kubeconfig's current context."""
    view = lambda jp: subprocess.run(["kubectl", "--kubeconfig", path, "config", "view", "--raw", "--minify", "-o", "jsonpath=" + jp],
                                     capture_output=True, text=True, check=True).stdout
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    headers = {}
    token = view("{.users[0].user.token}")
    token_file = view("{.users[0].user.tokenFile}")
    if token_file:
        token = open(os.path.expanduser(token_file)).read().strip()
    if token:
        headers["Authorization"] = "Bearer " + token
    cert, key = view("{.users[0].user.client-certificate-data}"), view("{.users[0].user.client-key-data}")
    if cert:
        d = os.path.join("/tmp", "refdiff-" + str(abs(hash(path))))
        os.makedirs(d, exist_ok=True)
        for name, data in (("crt", cert), ("key", key)):
            with open(os.path.join(d, name), "wb") as f:
                f.write(base64.b64decode(data))
        ctx.load_cert_chain(os.path.join(d, "crt"), os.path.join(d, "key"))
    return view("{.clusters[0].cluster.server}"), headers, ctx


SERVERS = {}


def req(target, method, path, body=None, ctype="application/json"):
    """One request: (code, decoded body, headers)."""
    server, headers, ctx = SERVERS[target]
    h = dict(headers, Accept="application/json")
    if "Accept-Override" in h:
        h["Accept"] = h.pop("Accept-Override")
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h["Content-Type"] = ctype
    r = urllib.request.Request(server + path, data=data, method=method, headers=h)
    try:
        resp = urllib.request.urlopen(r, context=ctx, timeout=30)
        code, raw, hdrs = resp.status, resp.read(), dict(resp.headers)
    except urllib.error.HTTPError as e:
        code, raw, hdrs = e.code, e.read(), dict(e.headers)
    try:
        js = json.loads(raw)
    except ValueError:
        js = raw.decode(errors="replace")
    return code, js, hdrs


MASKS = [(re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "UID"),
         (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), "TIME"),
         (re.compile(r"kube-api-access-[a-z0-9]{5}"), "KAA"),
         (re.compile(r"(resourceVersion|ResourceVersion)[^,]{0,20}?[0-9]+"), "RV"),
         (re.compile(r"current: [0-9]+"), "current: RV"),
         (re.compile(r"nodePort:[0-9]+"), "nodePort:PORT"),
         # A patch's decoding error quotes the whole patched object, with what controllers wrote in it.
         (re.compile(r'Invalid value: "\{\\"apiVersion.*\}": '), 'Invalid value: "OBJECT": ')]


def mask(s):
    for rx, repl in MASKS:
        s = rx.sub(repl, s)
    return s


def norm(r):
    """An answer as compared: the code, and a Status's reason, message and causes."""
    code, js, _ = r
    if isinstance(js, dict) and js.get("kind") == "Status":
        causes = [(c.get("field"), c.get("reason"), mask(c.get("message") or "")) for c in js.get("details", {}).get("causes", [])]
        return (code, js.get("reason"), mask(js.get("message") or ""), json.dumps(causes))
    return (code,)


VOLATILE = {"uid", "creationTimestamp", "resourceVersion", "time", "clusterIP", "clusterIPs", "nodePort", "healthCheckNodePort"}


def scrub(o):
    """o without the values two servers assign differently: UIDs, times, versions, allocated IPs and ports."""
    if isinstance(o, dict):
        return {k: ("X" if k in VOLATILE else scrub(v)) for k, v in o.items()}
    if isinstance(o, list):
        return [scrub(v) for v in o]
    return o


def body_norm(r):
    """An answer as compared by the bodies sweep: a Status as by norm, any other answer whole, scrubbed."""
    if isinstance(r[1], dict) and r[1].get("kind") == "Status":
        return norm(r)
    return (r[0], mask(json.dumps(scrub(r[1]), sort_keys=True)))


def resources(t):
    """Every resource a server's discovery lists: (group, version, resource) -> its APIResource."""
    out = {}
    for r in req(t, "GET", "/api/v1")[1]["resources"]:
        out[("", "v1", r["name"])] = r
    for g in req(t, "GET", "/apis")[1]["groups"]:
        for v in g["versions"]:
            code, js, _ = req(t, "GET", "/apis/" + v["groupVersion"])
            if code != 200:  # an aggregated API whose backend is away
                continue
            for r in js["resources"]:
                out[(g["name"], v["version"], r["name"])] = r
    return out


# OBJECTS are valid objects, one or more of each kind, as (collection path, body).
C = {"name":"c","image":"nginx"}
PT = {"metadata":{"labels":{"app":"x"}},"spec":{"containers":[C]}}
SEL = {"matchLabels":{"app":"x"}}
OBJECTS = [
 ("/api/v1/namespaces/default/pods", {"apiVersion":"v1","kind":"Pod","metadata":{"name":"d1"},"spec":{"containers":[C],"initContainers":[dict(C,name="i",restartPolicy="Always")],"ephemeralContainers":[]}}),
 ("/api/v1/namespaces/default/pods", {"apiVersion":"v1","kind":"Pod","metadata":{"name":"d2"},"spec":{"containers":[dict(C, ports=[{"containerPort":80}], resources={"limits":{"cpu":"1"}}, livenessProbe={"httpGet":{"port":80}}, readinessProbe={"exec":{"command":["a"]}}, startupProbe={"tcpSocket":{"port":1}}, lifecycle={"preStop":{"httpGet":{"port":1}}}, env=[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}])], "volumes":[{"name":"v","configMap":{"name":"x"}},{"name":"s","secret":{"secretName":"x"}},{"name":"p","projected":{"sources":[{"serviceAccountToken":{"path":"t"}},{"downwardAPI":{"items":[{"path":"x","fieldRef":{"fieldPath":"metadata.name"}}]}}]}},{"name":"e","emptyDir":{}},{"name":"h","hostPath":{"path":"/x"}}],"securityContext":{},"affinity":{},"tolerations":[{"key":"a","operator":"Exists"}],"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"k","whenUnsatisfiable":"DoNotSchedule","labelSelector":SEL}]}}),
 ("/apis/apps/v1/namespaces/default/deployments", {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":SEL,"template":PT}}),
 ("/apis/apps/v1/namespaces/default/replicasets", {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"d"},"spec":{"selector":SEL,"template":PT}}),
 ("/apis/apps/v1/namespaces/default/statefulsets", {"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"d"},"spec":{"selector":SEL,"template":PT,"serviceName":"s","volumeClaimTemplates":[{"metadata":{"name":"v"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}),
 ("/apis/apps/v1/namespaces/default/daemonsets", {"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d"},"spec":{"selector":SEL,"template":PT}}),
 ("/apis/batch/v1/namespaces/default/jobs", {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"d"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[C]}}}}),
 ("/apis/batch/v1/namespaces/default/jobs", {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"d2"},"spec":{"completionMode":"Indexed","completions":3,"podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":{"operator":"In","values":[1]}}]},"template":{"spec":{"restartPolicy":"Never","containers":[C]}}}}),
 ("/apis/batch/v1/namespaces/default/cronjobs", {"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"d"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[C]}}}}}}),
 ("/api/v1/namespaces/default/services", {"apiVersion":"v1","kind":"Service","metadata":{"name":"d"},"spec":{"ports":[{"port":80}],"selector":{"app":"x"}}}),
 ("/api/v1/namespaces/default/services", {"apiVersion":"v1","kind":"Service","metadata":{"name":"d2"},"spec":{"type":"LoadBalancer","ports":[{"port":80,"name":"a"},{"port":81,"protocol":"UDP","name":"b"}]}}),
 ("/api/v1/namespaces/default/services", {"apiVersion":"v1","kind":"Service","metadata":{"name":"d3"},"spec":{"type":"ExternalName","externalName":"example.com"}}),
 ("/api/v1/namespaces/default/services", {"apiVersion":"v1","kind":"Service","metadata":{"name":"d4"},"spec":{"clusterIP":"None","ports":[{"port":80}]}}),
 ("/api/v1/namespaces/default/persistentvolumeclaims", {"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"d"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}),
 ("/api/v1/persistentvolumes", {"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"d"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/x"}}}),
 ("/api/v1/namespaces/default/secrets", {"apiVersion":"v1","kind":"Secret","metadata":{"name":"d"},"stringData":{"a":"b"}}),
 ("/api/v1/namespaces/default/replicationcontrollers", {"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"d"},"spec":{"template":PT}}),
 ("/api/v1/namespaces/default/resourcequotas", {"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"d"},"spec":{"hard":{"pods":"1"}}}),
 ("/api/v1/namespaces/default/limitranges", {"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"d"},"spec":{"limits":[{"type":"Container","max":{"cpu":"1"}}]}}),
 ("/api/v1/namespaces/default/endpoints", {"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"d"},"subsets":[{"addresses":[{"ip":"10.1.1.1"}],"ports":[{"port":80}]}]}),
 ("/api/v1/nodes", {"apiVersion":"v1","kind":"Node","metadata":{"name":"d"}}),
 ("/api/v1/namespaces", {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"d"}}),
 ("/api/v1/namespaces/default/serviceaccounts", {"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"d"}}),
 ("/api/v1/namespaces/default/podtemplates", {"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"d"},"template":PT}),
 ("/api/v1/namespaces/default/events", {"apiVersion":"v1","kind":"Event","metadata":{"name":"d"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"}}),
 ("/apis/events.k8s.io/v1/namespaces/default/events", {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"d"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"c","reportingInstance":"i","action":"a","reason":"r","type":"Normal"}),
 ("/apis/networking.k8s.io/v1/namespaces/default/ingresses", {"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"d"},"spec":{"rules":[{"host":"a.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"s","port":{"number":80}}}}]}}]}}),
 ("/apis/networking.k8s.io/v1/namespaces/default/networkpolicies", {"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"d"},"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80}]}]}}),
 ("/apis/networking.k8s.io/v1/ingressclasses", {"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"d"},"spec":{"controller":"a.com/b"}}),
 ("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"d"},"spec":{"maxReplicas":3,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}}}),
 ("/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", {"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"d1"},"spec":{"maxReplicas":3,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}}}),
 ("/apis/policy/v1/namespaces/default/poddisruptionbudgets", {"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"d"},"spec":{"minAvailable":1,"selector":SEL}}),
 ("/apis/storage.k8s.io/v1/storageclasses", {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"d"},"provisioner":"a.com/b"}),
 ("/apis/storage.k8s.io/v1/csidrivers", {"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"d.com"},"spec":{}}),
 ("/apis/storage.k8s.io/v1/volumeattachments", {"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"d"},"spec":{"attacher":"a.com","nodeName":"n","source":{"persistentVolumeName":"p"}}}),
 ("/apis/storage.k8s.io/v1/volumeattributesclasses", {"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttributesClass","metadata":{"name":"d"},"driverName":"a.com","parameters":{"a":"b"}}),
 ("/apis/storage.k8s.io/v1/csinodes", {"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"d"},"spec":{"drivers":[]}}),
 ("/apis/scheduling.k8s.io/v1/priorityclasses", {"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"d"},"value":10}),
 ("/apis/node.k8s.io/v1/runtimeclasses", {"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"d"},"handler":"h"}),
 ("/apis/coordination.k8s.io/v1/namespaces/default/leases", {"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"d"},"spec":{}}),
 ("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"d"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}),
 ("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"d"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"d"},"subjects":[{"kind":"ServiceAccount","name":"x","namespace":"default"},{"kind":"User","name":"u"}]}),
 ("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"d"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://a.com"},"sideEffects":"None","admissionReviewVersions":["v1"],"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}]}]}),
 ("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"d"},"webhooks":[{"name":"a.b.c","clientConfig":{"service":{"name":"s","namespace":"default"}},"sideEffects":"None","admissionReviewVersions":["v1"]}]}),
 ("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"d"},"spec":{"validations":[{"expression":"true"}],"matchConstraints":{"resourceRules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}]}}}),
 ("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"d"},"spec":{"policyName":"d","validationActions":["Deny"]}}),
 ("/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies", {"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"d"},"spec":{"reinvocationPolicy":"Never","mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{}"}}],"matchConstraints":{"resourceRules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}]}}}),
 ("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", {"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"d"},"addressType":"IPv4","endpoints":[{"addresses":["10.1.1.1"]}],"ports":[{"port":80}]}),
 ("/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", {"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"d"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":5,"lendablePercent":10,"limitResponse":{"type":"Queue","queuing":{"queues":8,"handSize":4,"queueLengthLimit":50}}}}}),
 ("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", {"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"d"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"rules":[{"subjects":[{"kind":"User","user":{"name":"x"}}],"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"namespaces":["*"]}]}]}}),
 
 ("/apis/resource.k8s.io/v1/deviceclasses", {"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"d"},"spec":{}}),
 ("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"d"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"d"}}]}}}),
 ("/apis/resource.k8s.io/v1/resourceslices", {"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"d"},"spec":{"driver":"a.com","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n","devices":[{"name":"d"}]}}),
 ("/apis/networking.k8s.io/v1/servicecidrs", {"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"d"},"spec":{"cidrs":["10.9.0.0/24"]}}),
 ("/apis/storagemigration.k8s.io/v1/storageversionmigrations", {"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"d"},"spec":{"resource":{"group":"apps","resource":"deployments"}}}),
 ("/apis/apps/v1/namespaces/default/controllerrevisions", {"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"d"},"revision":1,"data":{"a":"b"}}),
 ("/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates", {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"d"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"d","count":2,"allocationMode":"ExactCount","selectors":[{"cel":{"expression":"true"}}]}}],"constraints":[{"requests":["r"],"matchAttribute":"a.com/x"}]}}}}),
 ("/apis/resource.k8s.io/v1/devicetaintrules", {"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"d"},"spec":{"deviceSelector":{"driver":"a.com","pool":"p","device":"d"},"taint":{"key":"k","value":"v","effect":"NoSchedule"}}}),
 ("/apis/networking.k8s.io/v1/ipaddresses", {"apiVersion":"networking.k8s.io/v1","kind":"IPAddress","metadata":{"name":"10.0.0.55"},"spec":{"parentRef":{"group":"","resource":"services","namespace":"default","name":"x"}}}),
 ("/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities", {"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"d"},"storageClassName":"s","capacity":"1Gi","nodeTopology":{"matchLabels":{"a":"b"}}}),
 ("/api/v1/namespaces/default/services", {"apiVersion":"v1","kind":"Service","metadata":{"name":"d5"},"spec":{"type":"NodePort","externalTrafficPolicy":"Local","sessionAffinity":"ClientIP","ports":[{"port":80,"targetPort":"http","appProtocol":"a.com/b"}],"selector":{"a":"b"},"trafficDistribution":"PreferClose"}}),
 ("/apis/apps/v1/namespaces/default/deployments", {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d6"},"spec":{"replicas":3,"minReadySeconds":5,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":"50%"}},"selector":{"matchExpressions":[{"key":"app","operator":"In","values":["x"]}]},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i","securityContext":{"runAsNonRoot":True,"capabilities":{"add":["NET_ADMIN"]},"seccompProfile":{"type":"RuntimeDefault"}}}],"dnsConfig":{"nameservers":["1.1.1.1"],"options":[{"name":"ndots","value":"2"}]},"hostAliases":[{"ip":"1.2.3.4","hostnames":["a"]}],"priorityClassName":"system-cluster-critical","schedulingGates":[{"name":"g"}]}}}}),
 ("/apis/apps/v1/namespaces/default/statefulsets", {"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"d7"},"spec":{"selector":{"matchLabels":{"app":"x"}},"serviceName":"s","ordinals":{"start":2},"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Retain"},"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":1,"maxUnavailable":2}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}),
]


DEL = object()


def leaves(o, path=()):
    """Every field path of o below its metadata, with its value."""
    if isinstance(o, dict):
        yield path, o
        for k, v in o.items():
            if path == () and k in ("apiVersion", "kind", "metadata"):
                continue
            yield from leaves(v, path + (k,))
    elif isinstance(o, list):
        yield path, o
        for i, v in enumerate(o):
            yield from leaves(v, path + (i,))
    else:
        yield path, o


def setp(o, path, val):
    for p in path[:-1]:
        o = o[p]
    if val is DEL:
        o.pop(path[-1]) if isinstance(o, list) else o.pop(path[-1], None)
    else:
        o[path[-1]] = val


def bad_values(v):
    if isinstance(v, bool):
        return [not v, "x"]
    if isinstance(v, (int, float)):
        return [-1, 0, 2147483648, "x"]
    if isinstance(v, str):
        return ["", "BAD VALUE!", "-x-", "a" * 300, 5]
    if isinstance(v, list):
        return [[], [None], "x"]
    if isinstance(v, dict):
        return [{}, "x", DEL]
    return []


def report(label, a, f):
    """Prints a difference: two whole answers (body_norm) as a diff of their JSON, any other two as they are."""
    print("DIFF", label)
    if len(a) == 2 and len(f) == 2 and a[0] == f[0]:
        for line in difflib.unified_diff(json.dumps(json.loads(a[1]), indent=1, sort_keys=True).splitlines(),
                                         json.dumps(json.loads(f[1]), indent=1, sort_keys=True).splitlines(),
                                         "ref", "fp", n=2, lineterm=""):
            print("   ", line)
        return
    print("  ref:", str(a)[:900])
    print("  fp: ", str(f)[:900])


def selected(args):
    objects = OBJECTS + [WIDGET] if args.custom else OBJECTS
    return [(p, b) for p, b in objects if not args.filter or args.filter in p]


def ensure_crd():
    """Creates CRD in both servers, and waits until they serve it."""
    for t in ("ref", "fp"):
        req(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD)
    for _ in range(50):
        if all(req(t, "GET", WIDGETS)[0] == 200 for t in ("ref", "fp")):
            return
        time.sleep(0.2)
    sys.exit("the CRD is not served")


def mutations(body):
    """body as it is, then with each field changed to each of its bad values: (field path, value, body)."""
    yield (), None, copy.deepcopy(body)
    for lp, lv in leaves(body):
        if not lp:
            continue
        for mv in bad_values(lv):
            b = copy.deepcopy(body)
            setp(b, lp, mv)
            yield lp, mv, b


def sweep_create(args):
    nd = n = 0
    for path, body in selected(args):
        for lp, mv, b in mutations(body):
            a, f = norm(req("ref", "POST", path + "?dryRun=All", b)), norm(req("fp", "POST", path + "?dryRun=All", b))
            n += 1
            if a != f:
                nd += 1
                report("%s %s = %s" % (path, ".".join(map(str, lp)), "delete" if mv is DEL else json.dumps(mv)[:40]), a, f)
    print("diffs", nd, "of", n)


def created(args):
    """The selected objects, each created first in both servers as a copy named NAME+SUFFIX: (path, body, name)."""
    for path, body in selected(args):
        name = body["metadata"]["name"] + args.suffix
        b0 = copy.deepcopy(body)
        b0["metadata"]["name"] = name
        for t in ("ref", "fp"):
            code = req(t, "POST", path, b0)[0]
            if code != 201:
                print("create", t, code, path + "/" + name)
        yield path, body, name


# INTERFERING are the collections whose objects change the answers to later requests (admission, quotas, limits):
# the sweeps that create objects delete theirs of these when they end.
INTERFERING = ("admissionregistration.k8s.io", "/limitranges", "/resourcequotas")


def remove_interfering(args):
    for path, body in selected(args):
        if any(x in path for x in INTERFERING):
            for t in ("ref", "fp"):
                req(t, "DELETE", path + "/" + body["metadata"]["name"] + args.suffix)


def sweep_update(args):
    nd = n = 0
    for path, body, name in created(args):
        for lp, lv in [x for x in leaves(body) if x[0]]:
            for mv in bad_values(lv):
                res = []
                for t in ("ref", "fp"):
                    for _ in range(3):  # a controller's write meanwhile is a 409: try again
                        b = copy.deepcopy(req(t, "GET", path + "/" + name)[1])
                        try:
                            setp(b, lp, mv)
                        except (KeyError, IndexError, TypeError):
                            r = ("no such field",)
                            break
                        r = norm(req(t, "PUT", path + "/" + name + "?dryRun=All", b))
                        if r[0] != 409:
                            break
                    res.append(r)
                n += 1
                if res[0] != res[1]:
                    nd += 1
                    report("%s/%s %s = %s" % (path, name, ".".join(map(str, lp)), "delete" if mv is DEL else json.dumps(mv)[:40]), *res)
    remove_interfering(args)
    print("diffs", nd, "of", n)


def jsonpointer(path):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def patched_norm(r):
    """A patch's answer as compared: a Status as by norm, an object without its metadata and status."""
    code, js, hdrs = r
    if isinstance(js, dict) and js.get("kind") != "Status":
        js = {k: v for k, v in js.items() if k not in ("metadata", "status")}
    return body_norm((code, js, hdrs))


def sweep_patches(args):
    nd = n = 0
    for path, body, name in created(args):
        smp = "application/strategic-merge-patch+json" if "/apis/" not in path or "." in path.split("/")[2] or path.split("/")[2] in ("apps", "batch", "policy", "autoscaling") else "application/merge-patch+json"
        for lp, lv in [x for x in leaves(body) if x[0]]:
            for mv in bad_values(lv):
                if mv is DEL:
                    jp = [{"op": "remove", "path": jsonpointer(lp)}]
                else:
                    jp = [{"op": "replace", "path": jsonpointer(lp), "value": mv}]
                top = copy.deepcopy(body)
                try:
                    setp(top, lp, mv)
                except (KeyError, IndexError, TypeError):
                    continue
                whole = {lp[0]: top.get(lp[0])}
                for ctype, patch in (("application/json-patch+json", jp), (smp, whole)):
                    a = patched_norm(req("ref", "PATCH", path + "/" + name + "?dryRun=All", patch, ctype))
                    f = patched_norm(req("fp", "PATCH", path + "/" + name + "?dryRun=All", patch, ctype))
                    n += 1
                    if a != f:
                        nd += 1
                        report("%s/%s %s %s = %s" % (path, name, ctype.split("/")[1].split("+")[0], ".".join(map(str, lp)), "delete" if mv is DEL else json.dumps(mv)[:40]), a, f)
    remove_interfering(args)
    print("diffs", nd, "of", n)


def applied_norm(r):
    """An apply's answer as compared: a Status as by norm, an object whole but its status and its metadata but the
    sweep's managed fields."""
    code, js, hdrs = r
    if isinstance(js, dict) and js.get("kind") != "Status":
        js = {k: v for k, v in js.items() if k != "status"}
        fields = js.get("metadata", {}).get("managedFields") or []
        # The sweep's own managers: fakeplane's controllers record theirs too.
        js["metadata"] = {"managedFields": [f for f in fields if f.get("manager") in ("m", "Python-urllib")]}
    return body_norm((code, js, hdrs))


def sweep_apply(args):
    nd = n = 0
    for path, body, name in created(args):
        for lp, mv, b in mutations(body):
            for target, query in ((body["metadata"]["name"] + args.suffix + "-new", "&force=true"), (name, ""), (name, "&force=true")):
                b = copy.deepcopy(b)
                b["metadata"]["name"] = target
                p = "%s/%s?dryRun=All&fieldManager=m%s" % (path, target, query)
                a = applied_norm(req("ref", "PATCH", p, b, "application/apply-patch+yaml"))
                f = applied_norm(req("fp", "PATCH", p, b, "application/apply-patch+yaml"))
                n += 1
                if a != f:
                    nd += 1
                    report("%s/%s%s %s = %s" % (path, target, query, ".".join(map(str, lp)), "delete" if mv is DEL else json.dumps(mv)[:40]), a, f)
    remove_interfering(args)
    print("diffs", nd, "of", n)


def stream(t, path, accept, out):
    """Reads a watch on path until it ends, appending its status and each event to out."""
    server, headers, ctx = SERVERS[t]
    h = dict(headers, Accept=accept or "application/json")
    req = urllib.request.Request(server + path, headers=h)
    try:
        resp = urllib.request.urlopen(req, context=ctx, timeout=20)
        out.append(("HTTP", resp.status, resp.headers.get("Content-Type", "").split(";")[0]))
        for line in resp:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    except urllib.error.HTTPError as e:
        out.append(("HTTP", e.code, e.read().decode()[:300]))

def norm_event(e):
    """A watch event as compared: its type and object kind, then its name, labels and data (a Table its rows)."""
    if isinstance(e, tuple):
        return e
    o = e.get("object", {})
    kind = o.get("kind")
    md = o.get("metadata", {})
    if kind == "Table":
        rows = [(rw.get("cells"), rw.get("object", {}).get("metadata", {}).get("name")) for rw in o.get("rows", [])]
        return (e.get("type"), kind, json.dumps(rows))
    if e.get("type") == "BOOKMARK":
        return (e.get("type"), kind, json.dumps(md.get("annotations")))
    if kind == "Status":
        return (e.get("type"), kind, o.get("reason"), o.get("code"))
    return (e.get("type"), kind, md.get("name"), json.dumps(md.get("labels")), json.dumps(o.get("data")), md.get("namespace"))

WATCH_RUNS = [0]


def watch_case(query, accept=None, cluster=False):
    """Watches ConfigMaps in a new namespace (or all, cluster) with query (RV: the list's resourceVersion, LAB: a
    label unique to the case) while the same writes happen on both servers, and compares the events; True if alike."""
    WATCH_RUNS[0] += 1
    ns = "wd-%d-%d" % (int(time.time()) % 100000, WATCH_RUNS[0])
    lab = "run" + str(WATCH_RUNS[0]) + str(int(time.time()) % 100000)
    res = {}
    base = {}
    for t in ("ref", "fp"):
        req(t, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        for name, app in (("a", "x"), ("b", "y")):
            req(t, "POST", "/api/v1/namespaces/%s/configmaps" % ns, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"app": app, "run": lab}}, "data": {"v": "1"}})
        code, js, _ = req(t, "GET", "/api/v1/namespaces/%s/configmaps" % ns)
        base[t] = js["metadata"]["resourceVersion"]
    outs = {"ref": [], "fp": []}
    threads = []
    for t in ("ref", "fp"):
        q = query.replace("RV", base[t]).replace("LAB", lab)
        path = ("/api/v1/configmaps?" if cluster else "/api/v1/namespaces/%s/configmaps?" % ns) + q + "&timeoutSeconds=3"
        th = threading.Thread(target=stream, args=(t, path, accept, outs[t]))
        th.start(); threads.append(th)
    time.sleep(0.7)
    for t in ("ref", "fp"):
        P = "/api/v1/namespaces/%s/configmaps/" % ns
        req(t, "PATCH", P + "a", {"data": {"v": "2"}}, MP)
        req(t, "PATCH", P + "a", {"metadata": {"labels": {"app": "y"}}}, MP)
        req(t, "PATCH", P + "b", {"metadata": {"labels": {"app": "x"}}}, MP)
        req(t, "DELETE", P + "a")
        req(t, "POST", P[:-1], {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"app": "x", "run": lab}}, "data": {"v": "3"}})
    for th in threads:
        th.join()
    for t in ("ref", "fp"):
        evs = [norm_event(e) for e in outs[t] if "kube-root-ca.crt" not in json.dumps(e)]
        # Bookmarks come when they are due, but the one that ends the initial events.
        evs = [e for e in evs if not (e[0] == "BOOKMARK" and "initial-events-end" not in e[2])]
        evs = [tuple(x if not (isinstance(x, str) and x == ns) else "NS" for x in e) for e in evs]
        res[t] = evs
        req(t, "DELETE", "/api/v1/namespaces/" + ns)
    same = res["ref"] == res["fp"]
    if not same:
        print("DIFF", query, accept or "", "cluster" if cluster else "")
        for t in ("ref", "fp"):
            print("  ", t)
            for e in res[t]:
                print("     ", str(e)[:300])
    return same

WATCH_QUERIES = [
 "watch=1&resourceVersion=RV",
 "watch=1&resourceVersion=RV&labelSelector=app%3Dx",
 "watch=1&resourceVersion=RV&fieldSelector=metadata.name%3Da",
 "watch=1",
 "watch=1&resourceVersion=0",
 "watch=1&resourceVersion=0&labelSelector=app%3Dx",
 "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
 "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=app%3Dx",
 "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=RV&allowWatchBookmarks=true",
 "watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=RV&allowWatchBookmarks=true",
 "watch=1&sendInitialEvents=true&allowWatchBookmarks=true",
 "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
 "watch=1&resourceVersion=RV&labelSelector=app%3Dx,app!%3Dz",
 "watch=1&resourceVersion=RV&fieldSelector=metadata.name!%3Db",
]


def sweep_watches(args):
    cases = [(q, None, False) for q in WATCH_QUERIES] + [
        ("watch=1&resourceVersion=RV&labelSelector=run%3DLAB", None, True),
        ("watch=1&labelSelector=run%3DLAB", None, True),
        ("watch=1&resourceVersion=RV", "application/json;as=Table;v=v1;g=meta.k8s.io", False),
        ("watch=1&resourceVersion=0", "application/json;as=Table;v=v1;g=meta.k8s.io", False),
        ("watch=1&resourceVersion=RV&labelSelector=app%3Dx", "application/json;as=Table;v=v1;g=meta.k8s.io", False),
        ("watch=1&resourceVersion=RV", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", False),
    ]
    nd = sum(not watch_case(*c) for c in cases)
    print("diffs", nd, "of", len(cases))


def subresources():
    """The subresources refplane's discovery lists for each resource: (group, version, resource) -> names."""
    subs = {}
    for (g, v, name) in resources("ref"):
        if "/" in name:
            base, sub = name.split("/", 1)
            subs.setdefault((g, v, base), []).append(sub)
    return subs


def gvr(path):
    """The (group, version, resource) of a collection path."""
    parts = path.split("/")
    g, v = ("", "v1") if parts[1] == "api" else (parts[2], parts[3])
    return g, v, parts[-1]


def sweep_routes(args):
    subs = subresources()
    nd = n = 0
    for path, body, name in created(args):
        for sub in sorted(set(subs.get(gvr(path), []) + ["status", "scale", "bogus"]) - {"exec", "attach", "portforward", "proxy", "log"}):
            for m in ["GET", "POST", "PUT", "PATCH", "DELETE"]:
                b = {} if m in ("POST", "PUT", "PATCH") else None
                p = path + "/" + name + "/" + sub + ("?dryRun=All" if m != "GET" else "")
                ct = MP if m == "PATCH" else "application/json"
                a, f = answer(req("ref", m, p, b, ct)), answer(req("fp", m, p, b, ct))
                n += 1
                if a != f:
                    nd += 1
                    report("%s %s" % (m, p), a, f)
    remove_interfering(args)
    print("diffs", nd, "of", n)


# METADATA_CHANGES are the metadata the metadata sweep patches onto each object, one at a time.
METADATA_CHANGES = [
 {"labels": {"a b": "c"}}, {"labels": {"a": "b c"}}, {"labels": {"k" * 64: "v"}}, {"labels": {"example.com/" + "k" * 64: "v"}},
 {"annotations": {"a b": "c"}}, {"annotations": {"x": "y" * 262145}},
 {"finalizers": ["a b"]}, {"finalizers": ["example.com/a", "example.com/a"]}, {"finalizers": ["kubernetes"]}, {"finalizers": ["orphan"]},
 {"finalizers": ["foregroundDeletion"]}, {"finalizers": ["orphan", "foregroundDeletion"]}, {"finalizers": ["x"]},
 {"ownerReferences": [{}]}, {"ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "n", "uid": "u"}]},
 {"ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "n", "uid": "u", "controller": True}, {"apiVersion": "v1", "kind": "Y", "name": "m", "uid": "w", "controller": True}]},
 {"ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "n", "uid": "u"}, {"apiVersion": "v1", "kind": "X", "name": "n", "uid": "u"}]},
 {"ownerReferences": [{"apiVersion": "", "kind": "", "name": "", "uid": "u"}]},
 {"generation": -1}, {"generation": 5}, {"resourceVersion": "abc"}, {"resourceVersion": "1"},
 {"creationTimestamp": "2020-01-01T00:00:00Z"}, {"deletionTimestamp": "2020-01-01T00:00:00Z"}, {"deletionGracePeriodSeconds": 10},
 {"managedFields": [{"manager": "x"}]}, {"managedFields": [{"manager": "x", "operation": "Bad"}]}, {"managedFields": [{"manager": "x", "operation": "Apply", "fieldsType": "X", "fieldsV1": {}}]},
 {"name": "other"}, {"namespace": "other"}, {"uid": "x"}, {"selfLink": "/x"}, {"labels": None}, {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "x"}},
]


def sweep_metadata(args):
    subs = subresources()
    nd = n = 0
    for path, body, name in created(args):
        for sub in ["", "/status"] if "status" in subs.get(gvr(path), []) else [""]:
            for m in METADATA_CHANGES:
                p = path + "/" + name + sub + "?dryRun=All"
                a, f = norm(req("ref", "PATCH", p, {"metadata": m}, MP)), norm(req("fp", "PATCH", p, {"metadata": m}, MP))
                n += 1
                if a != f:
                    nd += 1
                    report("%s/%s%s %s" % (path, name, sub, json.dumps(m)[:80]), a, f)
    remove_interfering(args)
    print("diffs", nd, "of", n)


def deleted_norm(r):
    """A delete's answer as compared: a Status as by norm, an object as its kind, deletion mark, grace and finalizers."""
    code, js, h = r
    if isinstance(js, dict) and js.get("kind") != "Status":
        md = js.get("metadata", {})
        js = {"kind": js.get("kind"), "dts": "deletionTimestamp" in md, "grace": md.get("deletionGracePeriodSeconds"), "fin": md.get("finalizers")}
    return body_norm((code, js, h))


# DELETE_OPTIONS are the query parameters and bodies the deletes sweep sends, each with ?dryRun=All. A body's options
# replace the query's (dryRun included), as upstream reads them: the last one deletes for real, so it comes last.
DELETE_OPTIONS = [("", None), ("&gracePeriodSeconds=0", None), ("&gracePeriodSeconds=30", None), ("&gracePeriodSeconds=-1", None),
        ("&propagationPolicy=Orphan", None), ("&propagationPolicy=Foreground", None), ("&propagationPolicy=Background", None),
        ("&orphanDependents=false", None), ("&orphanDependents=true&propagationPolicy=Orphan", None),
        ("", {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}}),
        ("", {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"resourceVersion": "1"}}),
        ("", {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"]}),
        ("", {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Bad"}),
        ("&ignoreStoreReadErrorWithClusterBreakingPotential=true", None),
        ("", {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 5, "propagationPolicy": "Foreground", "dryRun": ["All"]}),
        ("", {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 5, "propagationPolicy": "Foreground"})]


def sweep_deletes(args):
    nd = n = 0
    for path, body, name in created(args):
        for q, b in DELETE_OPTIONS:
            p = path + "/" + name + "?dryRun=All" + q
            a, f = deleted_norm(req("ref", "DELETE", p, b)), deleted_norm(req("fp", "DELETE", p, b))
            n += 1
            if a != f:
                nd += 1
                report("DELETE %s %s" % (p, json.dumps(b)[:80] if b else ""), a, f)
    remove_interfering(args)
    print("diffs", nd, "of", n)


def sweep_pairs(args):
    rnd = random.Random(args.seed)
    nd = n = 0
    for path, body in selected(args):
        fields = [(lp, lv) for lp, lv in leaves(body) if lp and not isinstance(lv, (dict, list))]
        if len(fields) < 2:
            continue
        for _ in range(25):
            b, desc = copy.deepcopy(body), []
            for lp, lv in rnd.sample(fields, min(3, len(fields))):
                mv = rnd.choice([x for x in bad_values(lv) if type(x) is type(lv)] or bad_values(lv))
                setp(b, lp, mv[:100] if isinstance(mv, str) else mv)
                desc.append("%s=%s" % (".".join(map(str, lp)), json.dumps(mv)[:20]))
            a, f = norm(req("ref", "POST", path + "?dryRun=All", b)), norm(req("fp", "POST", path + "?dryRun=All", b))
            n += 1
            if a != f:
                nd += 1
                report(path + " " + " ".join(desc), a, f)
    print("diffs", nd, "of", n)


LIST_QUERIES = [("fieldSelector", s) for s in ["metadata.name=x", "metadata.namespace=x", "spec.nodeName=x", "status.phase=x",
                                              "spec.foo=x", "type=x", "involvedObject.kind=x", "spec.schedulerName=x",
                                              "spec.signerName=x", "metadata.name!=x", "metadata.name in (a)", "bad"]] + [
    ("labelSelector", "a in ("), ("labelSelector", "a=b,c!=d"), ("limit", "-1"), ("limit", "x"),
    ("resourceVersion", "x"), ("resourceVersionMatch", "Exact"), ("resourceVersionMatch", "NotOlderThan"), ("continue", "bad")]


def sweep_lists(args):
    import urllib.parse
    nd = n = 0
    for (g, v, name), r in sorted(resources("ref").items()):
        if "/" in name or "list" not in r.get("verbs", []):
            continue
        base = ("/api/v1" if g == "" else "/apis/%s/%s" % (g, v)) + "/" + name
        for q in LIST_QUERIES:
            p = base + "?" + urllib.parse.urlencode([q])
            a, f = norm(req("ref", "GET", p)), norm(req("fp", "GET", p))
            n += 1
            if a != f:
                nd += 1
                report(p, a, f)
    print("diffs", nd, "of", n)


def sweep_warnings(args):
    def warnings(r):
        return (r[0], mask("|".join(v for k, v in r[2].items() if k.lower() == "warning")))
    nd = n = 0
    for path, body in selected(args):
        for lp, _, b in mutations(body):
            for q in ("?dryRun=All", "?dryRun=All&fieldValidation=Warn"):
                a, f = warnings(req("ref", "POST", path + q, b)), warnings(req("fp", "POST", path + q, b))
                n += 1
                if a != f:
                    nd += 1
                    report("%s%s %s" % (path, q, ".".join(map(str, lp))), a, f)
    print("diffs", nd, "of", n)


def sweep_bodies(args):
    nd = n = 0
    for path, body in selected(args):
        for lp, mv, b in mutations(body):
            a, f = req("ref", "POST", path + "?dryRun=All", b), req("fp", "POST", path + "?dryRun=All", b)
            if a[0] >= 300 and f[0] >= 300:
                continue
            n += 1
            a, f = body_norm(a), body_norm(f)
            if a != f:
                nd += 1
                report("%s %s = %s" % (path, ".".join(map(str, lp)), "delete" if mv is DEL else json.dumps(mv)[:40]), a, f)
    print("diffs", nd, "of", n)


CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "rq"}, "data": {"a": "b"}}
NS = "/api/v1/namespaces/default"
JP, MP, SP, AP = ("application/json-patch+json", "application/merge-patch+json",
                  "application/strategic-merge-patch+json", "application/apply-patch+yaml")
# REQUESTS are (method, path, body, content type, accept); the configmap rq (CM) and the deployment d exist first.
REQUESTS = [
    ("GET", NS + "/configmaps/nope", None, None, None),
    ("GET", "/api/v1/configmaps/rq", None, None, None),
    ("GET", NS + "/nodes/x", None, None, None),
    ("GET", "/api/v1/namespaces/nope/configmaps/rq", None, None, None),
    ("GET", "/apis/apps/v1/foos", None, None, None),
    ("GET", "/apis/nogroup/v1", None, None, None),
    ("GET", "/apis/apps/v9", None, None, None),
    ("GET", "/api/v2", None, None, None),
    ("GET", NS + "/configmaps/rq/status", None, None, None),
    ("GET", NS + "/pods/x/bogus", None, None, None),
    ("GET", NS + "/configmaps/%2e%2e", None, None, None),
    ("GET", "/api/v1/namespaces//configmaps", None, None, None),
    ("GET", NS + "/configmaps/rq/", None, None, None),
    ("GET", NS + "/configmaps?timeoutSeconds=x", None, None, None),
    ("GET", NS + "/configmaps?watch=x&timeoutSeconds=1", None, None, None),
    ("GET", NS + "/configmaps?watch=true&resourceVersion=x", None, None, None),
    ("GET", NS + "/configmaps?labelSelector=a%3D%3D%3Db", None, None, None),
    ("GET", NS + "/configmaps?limit=2&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0", None, None, None),
    ("GET", NS + "/configmaps/rq?resourceVersion=x", None, None, None),
    ("GET", NS + "/configmaps/rq?resourceVersion=999999999", None, None, None),
    ("GET", NS + "/configmaps/rq?resourceVersionMatch=Exact", None, None, None),
    ("GET", NS + "/configmaps?resourceVersion=999999999", None, None, None),
    ("GET", NS + "/configmaps?resourceVersion=999999999&resourceVersionMatch=Exact", None, None, None),
    ("GET", NS + "/configmaps?resourceVersion=0&limit=1&continue=x", None, None, None),
    ("GET", NS + "/configmaps?sendInitialEvents=true", None, None, None),
    ("GET", NS + "/configmaps?watch=1&sendInitialEvents=true&timeoutSeconds=1", None, None, None),
    ("GET", NS + "/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact", None, None, None),
    ("GET", NS + "/configmaps/rq", None, None, "application/xml"),
    ("GET", NS + "/configmaps/rq", None, None, "application/json;as=Table;v=v2;g=meta.k8s.io"),
    ("GET", NS + "/configmaps/rq", None, None, "application/json;as=Foo;v=v1;g=meta.k8s.io"),
    ("GET", NS + "/configmaps/rq", None, None, "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"),
    ("GET", NS + "/configmaps", None, None, "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"),
    ("GET", NS + "/configmaps/rq", None, None, "text/html"),
    ("GET", NS + "/configmaps/rq", None, None, "*/*"),
    ("GET", NS + "/configmaps/rq", None, None, "application/yaml"),
    ("GET", NS + "/configmaps/rq", None, None, "application/json;stream=watch"),
    ("HEAD", NS + "/configmaps/rq", None, None, None),
    ("OPTIONS", NS + "/configmaps/rq", None, None, None),
    ("TRACE", NS + "/configmaps/rq", None, None, None),
    ("POST", NS + "/configmaps/rq", dict(CM), "application/json", None),
    ("PUT", NS + "/configmaps", dict(CM), "application/json", None),
    ("PATCH", NS + "/configmaps", {}, MP, None),
    ("DELETE", "/api/v1/namespaces", None, None, None),
    ("POST", NS + "/configmaps", dict(CM), "text/plain", None),
    ("POST", NS + "/configmaps", b"{bad", "application/json", None),
    ("POST", NS + "/configmaps", b"", "application/json", None),
    ("POST", NS + "/configmaps", b"[]", "application/json", None),
    ("POST", NS + "/configmaps", b"a: [", "application/yaml", None),
    ("POST", NS + "/configmaps", dict(CM, kind="Secret"), "application/json", None),
    ("POST", NS + "/configmaps", dict(CM, kind=""), "application/json", None),
    ("POST", NS + "/configmaps", dict(CM, apiVersion="v2"), "application/json", None),
    ("POST", NS + "/configmaps", dict(CM, apiVersion="apps/v1"), "application/json", None),
    ("POST", NS + "/configmaps", dict(CM, metadata={"name": "rq2", "namespace": "kube-system"}), "application/json", None),
    ("POST", "/api/v1/namespaces/nope/configmaps", dict(CM, metadata={"name": "rq2"}), "application/json", None),
    ("POST", NS + "/configmaps", dict(CM, data={"a": 1}), "application/json", None),
    ("POST", NS + "/configmaps", dict(CM, metadata={"name": "rq2", "bogus": 1}, bogus=2), "application/json", None),
    ("POST", NS + "/configmaps?fieldValidation=Strict", dict(CM, metadata={"name": "rq2", "bogus": 1}, bogus=2), "application/json", None),
    ("POST", NS + "/configmaps?fieldValidation=Bad", dict(CM, metadata={"name": "rq2"}), "application/json", None),
    ("POST", NS + "/configmaps?dryRun=Foo", dict(CM, metadata={"name": "rq2"}), "application/json", None),
    ("POST", NS + "/configmaps?dryRun=All&dryRun=All", dict(CM, metadata={"name": "rq2"}), "application/json", None),
    ("POST", NS + "/configmaps?fieldManager=" + "a" * 200, dict(CM, metadata={"name": "rq2"}), "application/json", None),
    ("POST", NS + "/configmaps?fieldManager=a%0Ab", dict(CM, metadata={"name": "rq2"}), "application/json", None),
    ("POST", NS + "/configmaps", dict(CM), "application/json", None),
    ("POST", NS + "/configmaps?dryRun=All", dict(CM, metadata={"generateName": "x-"}), "application/json", None),
    ("POST", NS + "/configmaps?dryRun=All", dict(CM, metadata={}), "application/json", None),
    ("POST", NS + "/configmaps?dryRun=All", b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"rq2","name":"rq3"}}', "application/json", None),
    ("POST", NS + "/configmaps?dryRun=All&fieldValidation=Strict", b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"rq2","name":"rq3"}}', "application/json", None),
    ("POST", NS + "/configmaps?dryRun=All&fieldValidation=Strict", b'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rq2}\nx: 1\n', "application/yaml", None),
    ("PUT", NS + "/configmaps/rq", dict(CM), "application/json", None),
    ("PUT", NS + "/configmaps/rq", dict(CM, metadata={"name": "rq", "resourceVersion": "1"}), "application/json", None),
    ("PUT", NS + "/configmaps/rq", dict(CM, metadata={"name": "other", "resourceVersion": "1"}), "application/json", None),
    ("PUT", NS + "/configmaps/nope", dict(CM, metadata={"name": "nope"}), "application/json", None),
    ("PUT", NS + "/configmaps/rq", dict(CM, metadata={"name": "rq", "namespace": "kube-system"}), "application/json", None),
    ("PUT", NS + "/configmaps/rq?dryRun=All", dict(CM, metadata={"name": "rq", "resourceVersion": "x"}), "application/json", None),
    ("PATCH", NS + "/configmaps/rq", {"data": {"c": "d"}}, "application/json", None),
    ("PATCH", NS + "/configmaps/rq", b"{bad", MP, None),
    ("PATCH", NS + "/configmaps/rq", b"[]", MP, None),
    ("PATCH", NS + "/configmaps/rq", b"null", MP, None),
    ("PATCH", NS + "/configmaps/rq", b"{bad", JP, None),
    ("PATCH", NS + "/configmaps/rq", b"{}", JP, None),
    ("PATCH", NS + "/configmaps/rq", [{"op": "bogus", "path": "/data/a"}], JP, None),
    ("PATCH", NS + "/configmaps/rq", [{"op": "remove", "path": "/data/zz"}], JP, None),
    ("PATCH", NS + "/configmaps/rq", [{"op": "replace", "path": "/nope/x", "value": 1}], JP, None),
    ("PATCH", NS + "/configmaps/rq", [{"op": "test", "path": "/data/a", "value": "zz"}], JP, None),
    ("PATCH", NS + "/configmaps/rq", [{"op": "add", "path": "/data/a"}], JP, None),
    ("PATCH", NS + "/configmaps/rq", [{"op": "add", "path": "data/a", "value": "x"}], JP, None),
    ("PATCH", NS + "/configmaps/rq", [{"op": "move", "from": "/data/zz", "path": "/data/b"}], JP, None),
    ("PATCH", NS + "/configmaps/rq", [{"op": "add", "path": "/metadata/name", "value": "other"}], JP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", [{"op": "add", "path": "/data/x", "value": 1}], JP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"kind": "Secret"}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"apiVersion": "v2"}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"metadata": {"uid": "x"}}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"metadata": {"resourceVersion": "1"}}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"metadata": {"resourceVersion": "x"}}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"metadata": {"namespace": "kube-system"}}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"bogus": 1}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldValidation=Strict", {"bogus": 1}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldValidation=Strict", {"bogus": 1}, SP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldValidation=Strict", [{"op": "add", "path": "/bogus", "value": 1}], JP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"$patch": "bogus"}, SP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"data": {"$patch": "replace", "z": "y"}}, SP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"$retainKeys": ["data"]}, SP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", b"{bad", SP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&force=true", {"data": {"c": "d"}}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rq}\n", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m", b"apiVersion: v1\nkind: ConfigMap\n", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m", b"apiVersion: v1\nkind: Secret\nmetadata: {name: rq}\n", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m", b"kind: ConfigMap\nmetadata: {name: rq}\n", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m", b"a: [", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rq}\nbogus: 1\n", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m&fieldValidation=Ignore", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rq}\nbogus: 1\n", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rq}\ndata: {a: c}\n", AP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All&fieldManager=m&force=x", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rq}\n", AP, None),
    ("PATCH", NS + "/configmaps/nope?dryRun=All&fieldManager=m", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nope}\n", AP, None),
    ("PATCH", NS + "/configmaps/nope?dryRun=All", {"data": {"c": "d"}}, MP, None),
    ("PATCH", NS + "/configmaps/rq?dryRun=All", {"data": {"c": "d"}}, "application/apply-patch+cbor", None),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d?dryRun=All", {"spec": {"template": {"spec": {"containers": [{"name": "c", "$patch": "delete"}]}}}}, SP, None),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d?dryRun=All", {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "zz"}]}}}}, SP, None),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d?dryRun=All", {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}, SP, None),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d?dryRun=All", {"spec": {"replicas": "x"}}, SP, None),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d?dryRun=All", {"spec": {"replicas": "x"}}, MP, None),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d?dryRun=All", [{"op": "replace", "path": "/spec/replicas", "value": "x"}], JP, None),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/scale?dryRun=All", {"spec": {"replicas": -1}}, MP, None),
    ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/status?dryRun=All", {"status": {"replicas": -1}}, MP, None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All&propagationPolicy=Bad", None, None, None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All&gracePeriodSeconds=x", None, None, None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All&gracePeriodSeconds=-1", None, None, None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All&orphanDependents=true&propagationPolicy=Foreground", None, None, None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All", b"{bad", "application/json", None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All", {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "x"}}, "application/json", None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All", {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"resourceVersion": "1"}}, "application/json", None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All", {"kind": "Pod", "apiVersion": "v1"}, "application/json", None),
    ("DELETE", NS + "/configmaps/rq?dryRun=All", {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["Foo"]}, "application/json", None),
    ("DELETE", NS + "/configmaps/nope", None, None, None),
    ("DELETE", NS + "/configmaps?dryRun=All&labelSelector=a%20in%20(", None, None, None),
    ("DELETE", NS + "/configmaps?dryRun=All&fieldSelector=spec.x%3Dy", None, None, None),
    ("DELETE", "/api/v1/nodes?dryRun=All&labelSelector=nomatch%3D1", None, None, None),
    ("POST", NS + "/pods/nope/eviction", {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "nope"}}, "application/json", None),
    ("POST", NS + "/serviceaccounts/nope/token", {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}, "application/json", None),
    ("POST", NS + "/serviceaccounts/default/token", {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 1}}, "application/json", None),
    ("GET", NS + "/pods/nope/log", None, None, None),
    ("GET", NS + "/pods/nope/exec", None, None, None),
    ("POST", NS + "/pods/nope/exec?command=ls", None, None, None),
    ("GET", NS + "/services/nope/proxy/", None, None, None),
    ("GET", "/api/v1/nodes/nope/proxy/", None, None, None),
    ("GET", "/version", None, None, None),
    ("GET", "/healthz/nope", None, None, None),
    ("GET", "/readyz?verbose=x", None, None, None),
    ("GET", "/livez/ping", None, None, None),
    ("GET", "/nope", None, None, None),
    ("POST", "/version", {}, "application/json", None),
    ("GET", "/openapi/v3/apis/nogroup/v1", None, None, None),
    ("GET", "/openapi/v2?x=1", None, None, "application/xml"),
    ("GET", "/apis/apiregistration.k8s.io/v1/apiservices/nope", None, None, None),
    ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": {}}, "application/json", None),
    ("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {}}, "application/json", None),
    ("GET", "/apis/authentication.k8s.io/v1/tokenreviews", None, None, None),
    ("DELETE", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x", None, None, None),
]


CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.refdiff.example.com"},
       "spec": {"group": "refdiff.example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                "versions": [{"name": "v1", "served": True, "storage": True,
                              "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
                              "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                  "data": {"type": "object", "additionalProperties": {"type": "string"}},
                                  "spec": {"type": "object", "required": ["size"],
                                           "x-kubernetes-validations": [{"rule": "self.replicas <= 10", "message": "at most 10 replicas"}],
                                           "properties": {
                                      "replicas": {"type": "integer", "minimum": 0, "default": 1},
                                      "size": {"type": "string", "enum": ["S", "M", "L"]},
                                      "name": {"type": "string", "maxLength": 10, "pattern": "^[a-z]+$"},
                                      "when": {"type": "string", "format": "date-time", "nullable": True},
                                      "port": {"x-kubernetes-int-or-string": True},
                                      "ratio": {"type": "number", "maximum": 1, "exclusiveMaximum": True},
                                      "tags": {"type": "array", "maxItems": 3, "items": {"type": "string", "minLength": 1}, "x-kubernetes-list-type": "set"},
                                      "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                                                "items": {"type": "object", "required": ["name"], "properties": {
                                                    "name": {"type": "string"}, "port": {"type": "integer", "minimum": 1, "maximum": 65535}}}},
                                      "labels": {"type": "object", "maxProperties": 2, "additionalProperties": {"type": "string"}},
                                      "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                                      "embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
                                      "immutable": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "is immutable"}]}}},
                                  "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}}}]}}
WIDGET = ("/apis/refdiff.example.com/v1/namespaces/default/widgets",
          {"apiVersion": "refdiff.example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
           "spec": {"replicas": 2, "size": "M", "name": "abc", "when": "2026-01-01T00:00:00Z", "port": 80, "ratio": 0.5,
                    "tags": ["a", "b"], "ports": [{"name": "http", "port": 80}], "labels": {"a": "b"}, "template": {"x": 1},
                    "embedded": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "e"}}, "immutable": "x"}})
WIDGETS = "/apis/refdiff.example.com/v1/namespaces/default/widgets"


def as_widget(method, path, body, ctype, accept):
    """A request of REQUESTS on the configmap rq made on the widget rq (CRD) instead."""
    if NS + "/configmaps" not in path:
        return None
    path = path.replace(NS + "/configmaps", WIDGETS)
    if isinstance(body, dict):
        body = copy.deepcopy(body)
        if body.get("apiVersion") == "v1":
            body["apiVersion"] = "refdiff.example.com/v1"
        if body.get("kind") == "ConfigMap":
            body["kind"] = "Widget"
    elif isinstance(body, bytes):
        body = body.replace(b"apiVersion: v1\n", b"apiVersion: refdiff.example.com/v1\n").replace(b"kind: ConfigMap", b"kind: Widget")
        body = body.replace(b'"apiVersion":"v1","kind":"ConfigMap"', b'"apiVersion":"refdiff.example.com/v1","kind":"Widget"')
    return method, path, body, ctype, accept


def answer(r):
    """An answer as the requests sweep compares it: norm, with the Content-Type's media type."""
    code, js, hdrs = r
    ctype = {k.lower(): v for k, v in hdrs.items()}.get("content-type", "").split(";")[0]
    return norm(r) + (ctype,)


def sweep_requests(args):
    nd = n = 0
    for t in ("ref", "fp"):
        req(t, "DELETE", NS + "/configmaps/rq")
        req(t, "POST", NS + "/configmaps", CM)
        req(t, "POST", "/apis/apps/v1/namespaces/default/deployments", OBJECTS[2][1])
    requests = REQUESTS
    if args.custom:
        for t in ("ref", "fp"):
            req(t, "DELETE", WIDGETS + "/rq")
            code = req(t, "POST", WIDGETS, dict(CM, apiVersion="refdiff.example.com/v1", kind="Widget"))[0]
            if code != 201:
                print("create", t, code, WIDGETS + "/rq")
        requests = [w for w in (as_widget(*x) for x in REQUESTS) if w]
    for method, path, body, ctype, accept in requests:
        if args.filter and args.filter not in path:
            continue
        res = []
        for t in ("ref", "fp"):
            server, headers, ctx = SERVERS[t]
            saved = dict(headers)
            if accept:
                headers["Accept-Override"] = accept
            r = req(t, method, path, body, ctype or "application/json")
            SERVERS[t][1].clear()
            SERVERS[t][1].update(saved)
            res.append(answer(r))
        n += 1
        if res[0] != res[1]:
            nd += 1
            report("%s %s %s %s" % (method, path[:120], ctype or "", accept or ""), *res)
    print("diffs", nd, "of", n)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reference", default=os.path.expanduser("~/.cache/refplane/kubeconfig"), help="refplane's kubeconfig")
    ap.add_argument("--fakeplane", required=True, help="the fakeplane's kubeconfig")
    ap.add_argument("--suffix", default="-u", help="update, patches, apply, routes, metadata, deletes: appended to the names of the objects they create")
    ap.add_argument("--seed", type=int, default=1, help="pairs: the random seed")
    ap.add_argument("--custom", action="store_true",
                    help="create the CRD widgets (if missing) and sweep a Widget too; requests: on widgets, not configmaps")
    ap.add_argument("sweep", choices=["create", "update", "pairs", "lists", "warnings", "bodies", "requests", "patches", "apply", "watches", "routes", "metadata", "deletes"])
    ap.add_argument("filter", nargs="?", default="", help="only the collection paths that contain this")
    args = ap.parse_args()
    SERVERS["ref"], SERVERS["fp"] = kubeconfig(args.reference), kubeconfig(args.fakeplane)
    if args.custom:
        ensure_crd()
    {"create": sweep_create, "update": sweep_update, "pairs": sweep_pairs, "lists": sweep_lists, "warnings": sweep_warnings, "bodies": sweep_bodies, "requests": sweep_requests, "patches": sweep_patches, "apply": sweep_apply, "watches": sweep_watches, "routes": sweep_routes, "metadata": sweep_metadata, "deletes": sweep_deletes}[args.sweep](args)


if __name__ == "__main__":
    main()
