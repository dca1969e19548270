#!/bin/sh
# contrib/k8s offline: render-card makes agent-alpha.yaml from the
# example card (the committed copy is in sync); every object parses and
# the pod meets the "restricted" Pod Security Standard field by field;
# llwrap accepts the rendered profile; bad cards are refused with the
# file:line or the value; the objects match contrib/k8s/tests/schema.json
# (python3-jsonschema), and broken ones do not.  kubectl's client dry
# run needs an API server (kubectl 1.32's apply --dry-run=client fetches
# the OpenAPI document and the API groups from it, and fails without
# one; --validate=false still needs the groups), so no kubectl here:
# the schema, written from the API reference, stands in for it.
. "$LLW_SRCDIR/tests/lib/libtest.sh"

K=$LLW_SRCDIR/contrib/k8s
command -v bash >/dev/null 2>&1 || skip_rest "render-card needs bash"

run bash "$K/render-card" alpha "$K/card.example.ini"
expect_rc "render-card renders the example card" 0
printf '%s\n' "$out" >"$T/alpha.yaml"
if cmp -s "$T/alpha.yaml" "$K/agent-alpha.yaml"; then
	ok "contrib/k8s/agent-alpha.yaml is render-card's output for the example card"
else
	not_ok "contrib/k8s/agent-alpha.yaml is render-card's output for the example card"
	diag "$(diff "$K/agent-alpha.yaml" "$T/alpha.yaml" | head -20)"
fi

if ! python3 -c 'import yaml' 2>/dev/null; then
	skip "python3 has no yaml module (PyYAML): the objects are not checked"
else
	run python3 - "$T/alpha.yaml" "$K/namespace.yaml" "$T/profile.ini" <<'PY'
import sys, yaml
docs = [d for f in sys.argv[1:3] for d in yaml.safe_load_all(open(f)) if d]
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
kinds = [d["kind"] for d in docs]
need(kinds == ["ConfigMap", "NetworkPolicy", "PersistentVolumeClaim",
               "Deployment", "Namespace", "ServiceAccount", "NetworkPolicy"],
     "objects: %s" % kinds)
api = {"ConfigMap": "v1", "NetworkPolicy": "networking.k8s.io/v1",
       "PersistentVolumeClaim": "v1", "Deployment": "apps/v1",
       "Namespace": "v1", "ServiceAccount": "v1"}
for d in docs:
    need(d.get("apiVersion") == api[d["kind"]], "%s apiVersion" % d["kind"])
ns = [d for d in docs if d["kind"] == "Namespace"][0]
need(ns["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "restricted",
     "the namespace enforces restricted")
dep = [d for d in docs if d["kind"] == "Deployment"][0]
pod = dep["spec"]["template"]["spec"]
need(dep["spec"]["selector"]["matchLabels"].items() <= dep["spec"]["template"]["metadata"]["labels"].items(),
     "the selector matches the pod's labels")
# The restricted Pod Security Standard (and baseline, which it includes).
for k in ("hostNetwork", "hostPID", "hostIPC"):
    need(not pod.get(k), k)
psc = pod.get("securityContext", {})
need(psc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "pod seccompProfile RuntimeDefault")
need(psc.get("runAsNonRoot") is True, "pod runAsNonRoot")
need(psc.get("runAsUser", 1) != 0, "pod runAsUser not 0")
need(pod.get("automountServiceAccountToken") is False, "no service account token")
allowed = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
           "persistentVolumeClaim", "projected", "secret"}
vols = {v["name"]: v for v in pod["volumes"]}
for v in pod["volumes"]:
    need(set(v) - {"name"} <= allowed, "volume %s of an allowed type" % v["name"])
for c in pod.get("containers", []) + pod.get("initContainers", []):
    sc = c.get("securityContext", {})
    need(sc.get("allowPrivilegeEscalation") is False, "%s allowPrivilegeEscalation false" % c["name"])
    need(sc.get("capabilities", {}).get("drop") == ["ALL"], "%s drops ALL" % c["name"])
    need(not sc.get("capabilities", {}).get("add"), "%s adds no capability" % c["name"])
    need(not sc.get("privileged"), "%s not privileged" % c["name"])
    need(sc.get("readOnlyRootFilesystem") is True, "%s read-only root" % c["name"])
    need(sc.get("seccompProfile", {}).get("type", "RuntimeDefault") == "RuntimeDefault", "%s seccomp" % c["name"])
    need(sc.get("runAsUser", 1) != 0, "%s not root" % c["name"])
    need(c["command"][0] == "llwrap" and "--" in c["command"], "%s runs under llwrap" % c["name"])
    need(c["command"][c["command"].index("--") + 1:][:2] == ["opencode", "serve"], "%s: opencode serve" % c["name"])
    for m in c["volumeMounts"]:
        need(m["name"] in vols, "mount %s has a volume" % m["name"])
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    home = [e["value"] for e in c["env"] if e["name"] == "HOME"][0]
    for p in (home, "/tmp", "/workspace"):
        need(p in mounts and not mounts[p].get("readOnly"), "%s writable (a volume)" % p)
    need(vols[mounts[home]["name"]].get("persistentVolumeClaim"), "HOME on the PVC")
    need(mounts["/etc/llwrap/agent"].get("readOnly") is True, "the profile read-only")
pol = [d for d in docs if d["kind"] == "NetworkPolicy"][0]
need(set(pol["spec"]["policyTypes"]) == {"Ingress", "Egress"}, "the policy covers both ways")
need(pol["spec"]["podSelector"]["matchLabels"].items() <= dep["spec"]["template"]["metadata"]["labels"].items(),
     "the policy selects the agent")
cidrs = [t["ipBlock"]["cidr"] for r in pol["spec"]["egress"] for t in r["to"] if "ipBlock" in t]
need(cidrs == ["10.96.0.10/32", "10.100.1.0/24"], "egress to DNS and the card's CIDR only: %s" % cidrs)
cm = docs[0]
open(sys.argv[3], "w").write(cm["data"]["profile.ini"])
if bad:
    print("not restricted or inconsistent:", "; ".join(bad))
    sys.exit(1)
print("OBJECTS-OK")
PY
	if [ "$rc" -eq 0 ] && [ "$out" = OBJECTS-OK ]; then
		ok "the objects parse; the pod meets the restricted Pod Security Standard; policy, volumes and llwrap's command agree"
	else
		not_ok "the objects parse; the pod meets the restricted Pod Security Standard; policy, volumes and llwrap's command agree"
		diag "status $rc: $out"
	fi
	chmod 644 "$T/profile.ini"
fi

# The objects against contrib/k8s/tests/schema.json: every field known
# to the API (the kinds and fields used here, from the API reference),
# of its type, in its place; what kubectl apply --dry-run=client would
# check if it could run without an API server.  Then the validator is
# shown to fail: each mutation below must be refused at its path.
if ! python3 -c 'import jsonschema, yaml' 2>/dev/null; then
	skip "python3 has no jsonschema or yaml module (apt-get install python3-jsonschema python3-yaml): the schema check does not run"
else
	run python3 - "$K/tests/schema.json" "$T/alpha.yaml" "$K/namespace.yaml" <<'PY'
import copy, json, sys, yaml
from jsonschema import Draft7Validator
from jsonschema.exceptions import best_match

schema = json.load(open(sys.argv[1]))
Draft7Validator.check_schema(schema)

def errors(d):
    # The branch for the object's kind, so that an error names its
    # field rather than "not valid under any of the given schemas".
    for b in schema["oneOf"]:
        p = b["properties"]
        if (p["kind"]["const"], p["apiVersion"]["const"]) == \
                (d.get("kind"), d.get("apiVersion")):
            sub = dict(b, definitions=schema["definitions"])
            e = best_match(Draft7Validator(sub).iter_errors(d))
            return [] if e is None else [
                "/".join(map(str, e.absolute_path)) + ": " + e.message[:160]]
    return [": no schema for %s %s" % (d.get("apiVersion"), d.get("kind"))]

docs = [(f, d) for f in sys.argv[2:] for d in yaml.safe_load_all(open(f)) if d]
bad = 0
for f, d in docs:
    for e in errors(d):
        print("BAD %s %s %s" % (f.rsplit("/", 1)[-1], d.get("kind"), e))
        bad += 1
print("SCHEMA-OK" if not bad else "SCHEMA-BAD")

# Mutations of the rendered objects: KIND, a change, the path the
# refusal must name.
def kind(k):
    return next(copy.deepcopy(d) for f, d in docs if d["kind"] == k)
def pod(d):
    return d["spec"]["template"]["spec"]
def ctr(d):
    return pod(d)["containers"][0]
muts = []
d = kind("Deployment")
sc = ctr(d)["securityContext"]
sc["readOnlyRootFilesytem"] = sc.pop("readOnlyRootFilesystem")
muts.append(("a misspelt field", d, "spec/template/spec/containers/0/securityContext"))
d = kind("Deployment")
ctr(d)["ports"][0]["containerPort"] = "4096"
muts.append(("a port as a string", d, "spec/template/spec/containers/0/ports/0/containerPort"))
d = kind("Deployment")
pod(d)["volumes"][1]["hostPath"] = {"path": "/"}
muts.append(("a hostPath volume", d, "spec/template/spec/volumes/1"))
d = kind("Deployment")
pod(d)["securityContext"]["seccompProfile"]["type"] = "runtimeDefault"
muts.append(("a seccomp type in the wrong case", d, "spec/template/spec/securityContext/seccompProfile/type"))
d = kind("Deployment")
ctr(d)["securityContext"]["capabilities"] = {"drop": ["ALL"], "ad": ["NET_ADMIN"]}
muts.append(("a misspelt key under capabilities", d, "spec/template/spec/containers/0/securityContext/capabilities"))
d = kind("NetworkPolicy")
d["spec"]["egress"][1]["to"][0]["ipBlock"]["cidr"] = "10.100.1.0"
muts.append(("a CIDR without its prefix", d, "spec/egress/1/to/0/ipBlock/cidr"))
d = kind("NetworkPolicy")
d["spec"]["policyTypes"].append("Egres")
muts.append(("a policy type that does not exist", d, "spec/policyTypes/2"))
d = kind("PersistentVolumeClaim")
d["spec"]["accessModes"] = ["ReadWriteOnly"]
muts.append(("an access mode that does not exist", d, "spec/accessModes/0"))
d = kind("ConfigMap")
d["metadata"]["name"] = "Agent_Alpha"
muts.append(("a name that is no DNS subdomain", d, "metadata/name"))
for what, d, path in muts:
    e = errors(d)
    if e and e[0].split(": ", 1)[0] == path:
        print("REFUSED %s (%s)" % (what, e[0]))
    else:
        print("NOT-REFUSED %s: %s" % (what, e or "no error"))
PY
	printf '%s\n' "$out" | sed 's/^/# /'
	if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -qx SCHEMA-OK; then
		ok "the objects match contrib/k8s/tests/schema.json (every field known, typed and in place)"
	else
		not_ok "the objects match contrib/k8s/tests/schema.json (every field known, typed and in place)"
		diag "status $rc"
	fi
	n=$(printf '%s\n' "$out" | grep -c '^REFUSED ')
	if [ "$n" -eq 9 ] && ! printf '%s\n' "$out" | grep -q '^NOT-REFUSED'; then
		ok "the schema check refuses each of 9 broken objects at the field (a misspelt field, a string port, a hostPath, ...)"
	else
		not_ok "the schema check refuses each of 9 broken objects at the field ($n refused)"
	fi
fi

if [ -s "$T/profile.ini" ]; then
	mkdir -p "$PROJ/ws"
	chown "$TEST_UID:$TEST_GID" "$PROJ/ws"
	run as_user "$LLWRAP" --explain -p "$T/profile.ini" -C "$PROJ/ws" -- true
	expect_rc "llwrap accepts the rendered profile (--explain)" 0
	expect_output "... with the card's named host" "api\\.anthropic\\.com"
	expect_output "... and its CIDR" "10\\.100\\.1\\.0/24"
fi

# bad CARD_TEXT PATTERN DESC: render-card refuses the card, saying PATTERN.
bad() {
	printf '%s\n' "$1" >"$T/bad.ini"
	run bash "$K/render-card" beta "$T/bad.ini"
	if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -Eq -- "$2"; then
		ok "refused: $3"
	else
		not_ok "refused: $3"
		diag "status $rc: $out"
	fi
}
bad '[agent]
colour = blue' "bad\\.ini:2: unknown key 'colour'" "an unknown key, with file:line"
bad '[network]
allow-host = api.example.com;rm' "allow-host 'api\\.example\\.com;rm'" "a host name with a ';'"
bad '[network]
allow-cidr = 10.0.0.0/8
10.1.0.0/16' "bad\\.ini:3: expected" "a line that is no key"
bad '[limits]
memory = 50%' "memory '50%'" "a memory limit a pod cannot have"
bad '[agent]
directory = /workspace/../etc' "'\\.' or '\\.\\.'" "a directory with '..'"
bad '[agent]
ttl = 1 week' "takes one value" "a ttl of two words"
run bash "$K/render-card" Alpha "$K/card.example.ini"
expect_rc "an agent name that is no DNS label is refused" 1

done_testing
