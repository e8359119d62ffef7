#!/usr/bin/env python3
"""Records a real kube-apiserver's Table answers for TestBuiltinTables.

    KUBECONFIG=~/.cache/refplane/kubeconfig hack/capture-tables.py testdata/tables/*.yaml
    KUBECONFIG=~/.cache/refplane/kubeconfig hack/capture-tables.py --columns

--columns writes registry/printers/table-columns-v1.37.json: the column
definitions (names, types, formats, priorities, descriptions) of every
resource listed in hack/testdata/table-columns-v1.37.txt, which the server
embeds and answers (TestTableColumnsMatchV137 checks it does).

For each manifest testdata/tables/NAME.yaml it creates the objects in the
namespace tables-ref (cluster-scoped ones under their own names, so name them
tref-...), sets each document's status through the status subresource, deletes
documents marked `_delete: true` (give them a finalizer to keep them
Terminating), writes a document's `_approval` conditions through the
approval subresource (CertificateSigningRequests), fills in the uid of
ownerReferences naming an object created earlier in the manifest, then writes testdata/tables/NAME.json: per kind, the Table
columns and the cells of a list (label tref=1) and of a get of each object,
and the list rows' conditions when there are any.
The objects are deleted again at the end (finalizers removed). A cluster
without controllers (bare kube-apiserver) keeps the statuses as written.

Cells are normalized as the test normalizes fakeplane's: ages of a few
seconds or minutes in Age columns (or in cells past the last column)
become <age>, UIDs become <uid>, Created At dates of the last minute become
<created>. "now" is
the server's Date, the clock the test gives fakeplane, so that durations from
status timestamps (job durations, last schedule, event times) compare exactly.
"""
import base64
import copy
import datetime
import email.utils
import json
import os
import re
import ssl
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

NS = "tables-ref"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
AGE_COLUMNS = {"Age", "Last Seen", "First Seen"}
SHORT_AGE = re.compile(r"^(\d+s|\d+m\d*s?)$")
UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Client:
    def __init__(self, kubeconfig):
        kc = yaml.safe_load(open(kubeconfig))
        ctx = next(c for c in kc["contexts"] if c["name"] == kc["current-context"])["context"]
        cl = next(c for c in kc["clusters"] if c["name"] == ctx["cluster"])["cluster"]
        us = next(u for u in kc["users"] if u["name"] == ctx["user"])["user"]
        self.server = cl["server"]
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE
        self.token = us.get("token")
        if "client-certificate-data" in us:
            d = tempfile.mkdtemp()
            c, k = os.path.join(d, "c"), os.path.join(d, "k")
            open(c, "wb").write(base64.b64decode(us["client-certificate-data"]))
            open(k, "wb").write(base64.b64decode(us["client-key-data"]))
            self.ctx.load_cert_chain(c, k)
        self.discovery = {}

    def req(self, method, path, body=None, ctype="application/json", accept="application/json"):
        data = None if body is None else json.dumps(body).encode()
        r = urllib.request.Request(self.server + path, data=data, method=method)
        r.add_header("Accept", accept)
        if data is not None:
            r.add_header("Content-Type", ctype)
        if self.token:
            r.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(r, context=self.ctx) as resp:
                return resp.status, json.loads(resp.read() or b"null"), resp.headers.get("Date")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null"), e.headers.get("Date")

    def resource(self, api_version, kind):
        """(path prefix, plural, namespaced) from discovery."""
        prefix = "/api/" + api_version if "/" not in api_version else "/apis/" + api_version
        if prefix not in self.discovery:
            _, body, _ = self.req("GET", prefix)
            self.discovery[prefix] = body["resources"]
        for r in self.discovery[prefix]:
            if r["kind"] == kind and "/" not in r["name"]:
                return prefix, r["name"], r["namespaced"]
        raise KeyError(kind)

    def collection(self, doc):
        prefix, plural, namespaced = self.resource(doc["apiVersion"], doc["kind"])
        return f"{prefix}/namespaces/{NS}/{plural}" if namespaced else f"{prefix}/{plural}"


def docs(path):
    return [d for d in yaml.safe_load_all(open(path)) if d]


def norm(cells, columns, now):
    out = []
    for i, v in enumerate(cells):
        if isinstance(v, str) and i < len(columns) and columns[i]["type"] == "date":
            # Created At of an object created during the capture.
            t = datetime.datetime.strptime(v, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
            if datetime.timedelta(0) <= now - t <= datetime.timedelta(minutes=1):
                v = "<created>"
        if isinstance(v, str):
            # IPAddress rows have an age cell past their columns.
            if (i >= len(columns) or columns[i]["name"] in AGE_COLUMNS) and SHORT_AGE.match(v):
                v = "<age>"
            v = UID.sub("<uid>", v)
        out.append(v)
    return out


def cleanup(c, manifest):
    for d in docs(manifest):
        p = c.collection(d) + "/" + d["metadata"]["name"]
        c.req("PATCH", p, {"metadata": {"finalizers": None}}, "application/merge-patch+json")
        c.req("DELETE", p + "?propagationPolicy=Background&gracePeriodSeconds=0")
        c.req("PATCH", p, {"metadata": {"finalizers": None}}, "application/merge-patch+json")
        if d["kind"] == "Namespace":
            # No namespace controller finishes the deletion on a bare server.
            code, ns, _ = c.req("GET", p)
            if code == 200:
                ns["spec"]["finalizers"] = []
                c.req("PUT", p + "/finalize", ns)


def capture(c, manifest):
    c.req("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    cleanup(c, manifest)
    time.sleep(1)
    uids = {}
    for d in docs(manifest):
        d = copy.deepcopy(d)
        status = d.pop("status", None)
        delete = d.pop("_delete", False)
        approval = d.pop("_approval", None)
        d.setdefault("metadata", {}).setdefault("labels", {})["tref"] = "1"
        for ref in d["metadata"].get("ownerReferences", []):
            ref.setdefault("uid", uids.get((ref["kind"], ref["name"]), ""))
        coll = c.collection(d)
        name = d["metadata"]["name"]
        code, body, _ = c.req("POST", coll, d)
        if code >= 300:
            sys.exit(f"{manifest}: create {d['kind']} {name}: {code} {body.get('message')}")
        uids[(d["kind"], name)] = body["metadata"]["uid"]
        if approval is not None:
            code, body, _ = c.req("PATCH", f"{coll}/{name}/approval", {"status": {"conditions": approval}}, "application/merge-patch+json")
            if code >= 300:
                sys.exit(f"{manifest}: approval of {d['kind']} {name}: {code} {body.get('message')}")
        if status is not None:
            code, body, _ = c.req("PATCH", f"{coll}/{name}/status", {"status": status}, "application/merge-patch+json")
            if code >= 300:
                sys.exit(f"{manifest}: status of {d['kind']} {name}: {code} {body.get('message')}")
        if delete:
            c.req("DELETE", f"{coll}/{name}?propagationPolicy=Background")
    result = {"tables": {}}
    for d in docs(manifest):
        key = d["apiVersion"] + " " + d["kind"]
        if key in result["tables"]:
            continue
        coll = c.collection(d)
        _, t, date = c.req("GET", coll + "?labelSelector=tref%3D1", accept=TABLE)
        if "now" not in result:
            now = email.utils.parsedate_to_datetime(date)
            result["now"] = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        cols = t["columnDefinitions"]
        entry = {"columns": cols, "rows": [norm(r["cells"], cols, now) for r in t["rows"]], "get": {}}
        if any(r.get("conditions") for r in t["rows"]):
            entry["conditions"] = [r.get("conditions") for r in t["rows"]]
        for dd in docs(manifest):
            if dd["apiVersion"] + " " + dd["kind"] == key:
                _, st, _ = c.req("GET", coll + "/" + dd["metadata"]["name"], accept=TABLE)
                entry["get"][dd["metadata"]["name"]] = norm(st["rows"][0]["cells"], cols, now)
        result["tables"][key] = entry
    cleanup(c, manifest)
    out = os.path.splitext(manifest)[0] + ".json"
    with open(out, "w") as f:
        f.write(dump(result))
    print("wrote", out)


def dump(result):
    """JSON with one line per column definition and per row."""
    j = lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False)
    kinds = []
    for key in sorted(result["tables"]):
        e = result["tables"][key]
        cols = ",\n   ".join(j(c) for c in e["columns"])
        rows = ",\n   ".join(j(r) for r in e["rows"])
        gets = ",\n   ".join(f"{j(n)}: {j(r)}" for n, r in sorted(e["get"].items()))
        conds = ""
        if "conditions" in e:
            conds = ',\n   "conditions": [\n   ' + ",\n   ".join(j(c) for c in e["conditions"]) + "\n   ]"
        kinds.append(f'  {j(key)}: {{\n   "columns": [\n   {cols}\n   ],\n   "rows": [\n   {rows}\n   ]{conds},\n   "get": {{\n   {gets}\n   }}\n  }}')
    body = ",\n".join(kinds)
    return f'{{\n "now": {j(result["now"])},\n "tables": {{\n{body}\n }}\n}}\n'


def capture_columns(c):
    here = os.path.join(os.path.dirname(__file__), "testdata")
    out = {}
    for line in open(os.path.join(here, "table-columns-v1.37.txt")):
        path = line.split("|")[0]
        _, t, _ = c.req("GET", path + "?labelSelector=tref-no-such-label", accept=TABLE)
        out[path] = t["columnDefinitions"]
    j = lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False)
    body = ",\n".join(f" {j(p)}: [\n  " + ",\n  ".join(j(col) for col in cols) + "\n ]" for p, cols in sorted(out.items()))
    out_path = os.path.join(os.path.dirname(__file__), "..", "registry", "printers", "table-columns-v1.37.json")
    with open(out_path, "w") as f:
        f.write("{\n" + body + "\n}\n")
    print("wrote", os.path.normpath(out_path))


if __name__ == "__main__":
    client = Client(os.environ.get("KUBECONFIG", os.path.expanduser("~/.kube/config")))
    if sys.argv[1:] == ["--columns"]:
        capture_columns(client)
    for m in sys.argv[1:]:
        if m != "--columns":
            capture(client, m)
