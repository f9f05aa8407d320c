#!/usr/bin/env bash
# CI check of deploy/helm/marquee, fully offline:
#   1. helm lint --strict (values.schema.json included) with the default values and with ci-values.yaml
#   2. helm template | kubeconform -strict against local Kubernetes JSON schemas, for
#      - the default values (+ the required secrets),
#      - ci-values.yaml (every optional feature on: NetworkPolicy, memory HPA, fixed replicas, ...),
#      - an existingSecret install, and one with existingSecretKeys (the Secret's own key names);
#   2b. the day-one features: Ingress (edge only), extra volumes (the CA file), the Secret's keys
#      per service against docs/operations.md, resource requests against the measured ones there,
#      a PodDisruptionBudget for every multi-replica service;
#   3. security properties of the rendered manifests (production mode, NetworkPolicy on by default
#      with no open external rule, secrets only as files and only where used, Mongo URL only in
#      the Secret, the CI admin token as strong as the edge requires);
#   4. negative checks, so the check itself is proven able to fail:
#      - rendering without secrets.adminToken / secrets.existingSecret fails,
#      - a typo in the values fails helm lint,
#      - kubeconform rejects a manifest with an unknown container field and one with a wrong type.
# Exits non-zero on the first failure. Installs helm/kubeconform/schemas when missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
chart="$here/marquee"

eval "$(bash "$repo/deploy/local/install-k8s-tools.sh" --env)"
K8S_VERSION="${MARQUEE_K8S_VERSION}"
schema_location="$MARQUEE_K8S_SCHEMAS/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
pass() { printf '[check] ok   %s\n' "$*"; }
fail() { printf '[check] FAIL %s\n' "$*" >&2; failures=$((failures + 1)); }

secrets=(--set secrets.adminToken=check-admin-token-Xk9LmP4sR8tW3yZ7Hq2v --set secrets.partnerAdminToken=check-partner-admin-token-4sR8tW3y --set secrets.serviceAuthKey=Y2hlY2stc2VydmljZS1hdXRoLWtleS0zMi1ieXRlcyE= --set secrets.partnerClientSecret=check-partner-secret --set secrets.partnerCredentialsKey=Y2hlY2sta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0tLS0= --set secrets.cartOrderTokenKey=Y2FydC1rZXktMzItYnl0ZXMtbG9uZy0tLS0tLS0tLS0= --set secrets.secureEntryTokenKeys=k1:ZW50cnktdG9rZW4ta2V5LTMyLWJ5dGVzLWxvbmctLS0= --set secrets.secureEntrySecretKey=ZW50cnktc2VjcmV0LWtleS0zMi1ieXRlcy1sb25nLS0= --set secrets.stripeSecretKey=sk_live_checkstripekey --set secrets.stripeWebhookSecret=whsec_checkwebhooksecret --set secrets.orderContactKeys=k1:b3JkZXItY29udGFjdC1rZXktMzItYnl0ZXMtbG9uZy0=)
# The Prometheus Operator's kinds (ServiceMonitor, PrometheusRule) have no schema offline: their
# rules are checked with promtool below, their shape by expect_kinds and helm lint.
kubeconform_strict() { # file
  kubeconform -strict -summary -output text -kubernetes-version "$K8S_VERSION" \
    -schema-location "$schema_location" -skip ServiceMonitor,PrometheusRule "$1"
}
render() { # out-file helm-args...
  local out="$1"; shift
  helm template marquee "$chart" --namespace marquee --kube-version "$K8S_VERSION" "$@" >"$out"
}
expect_kinds() { # file kind...  (each kind must appear at least once)
  local f="$1" k; shift
  for k in "$@"; do
    grep -q "^kind: $k\$" "$f" || { fail "$(basename "$f"): no $k rendered"; return 1; }
  done
}

echo "[check] helm $(helm version --short), kubeconform $(go version -m "$(command -v kubeconform)" 2>/dev/null | awk '$1=="mod"{print $3}' || true), Kubernetes schemas v$K8S_VERSION"

# ---- 1. lint -------------------------------------------------------------------------------
if helm lint --strict "$chart" --kube-version "$K8S_VERSION" "${secrets[@]}"; then pass "helm lint --strict (default values)"; else fail "helm lint --strict (default values)"; fi
if helm lint --strict "$chart" --kube-version "$K8S_VERSION" -f "$chart/ci-values.yaml"; then pass "helm lint --strict (ci-values.yaml)"; else fail "helm lint --strict (ci-values.yaml)"; fi

# ---- 2. render + validate ------------------------------------------------------------------
validate() { # label helm-args...
  local label="$1"; shift
  local out="$work/$label.yaml"
  if ! render "$out" "$@"; then fail "helm template ($label)"; return; fi
  if kubeconform_strict "$out"; then pass "kubeconform -strict ($label)"; else fail "kubeconform -strict ($label)"; fi
}
validate default "${secrets[@]}"
expect_kinds "$work/default.yaml" ServiceAccount ConfigMap Secret Deployment Service HorizontalPodAutoscaler PodDisruptionBudget Job \
  && pass "default render has every expected kind"
[ "$(grep -c '^kind: Deployment$' "$work/default.yaml")" = 10 ] && pass "10 Deployments rendered" || fail "expected 10 Deployments"

validate ci -f "$chart/ci-values.yaml"
expect_kinds "$work/ci.yaml" NetworkPolicy Secret Deployment HorizontalPodAutoscaler PodDisruptionBudget Job \
  ServiceMonitor PrometheusRule Ingress && pass "ci render has every optional kind"
grep -q '^kind: ServiceMonitor$' "$work/default.yaml" && fail "ServiceMonitor rendered by default" \
  || pass "no ServiceMonitor or PrometheusRule unless asked"
# The Grafana dashboard: rendered only when asked, labelled for the sidecar, and every series its
# panels query is one the docs' metrics table lists (docs/operations.md), so a renamed metric
# cannot leave a panel empty unnoticed. The e2e tier evaluates every panel's query on a real
# Prometheus (test/e2e/metrics-scrape.e2e.test.ts).
if python3 - "$work/ci.yaml" "$work/default.yaml" "$here/../../docs/operations.md" <<'PY'
import json, re, sys, yaml
ci = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
default = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
named = lambda docs: [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-dashboard")]
bad = []
if named(default): bad.append("dashboard ConfigMap rendered by default")
maps = named(ci)
if len(maps) != 1: bad.append(f"expected one dashboard ConfigMap in the ci render, got {len(maps)}")
else:
    cm = maps[0]
    if cm["metadata"]["labels"].get("grafana_dashboard") != "1": bad.append("dashboard ConfigMap lacks grafana_dashboard: '1'")
    board = json.loads(cm["data"]["marquee.json"])
    exprs = [t["expr"] for p in board["panels"] for t in p.get("targets", [])]
    if len(exprs) < 10: bad.append(f"dashboard has only {len(exprs)} queries")
    documented = set()
    for token in re.findall(r"`([a-z][a-z0-9_]*(?:\{[^`]*\})?[a-z0-9_]*)`", open(sys.argv[3]).read()):
        # `nodejs_eventloop_delay_{p50,p99,max}_seconds` names three series; `x{label, ...}` one.
        m = re.fullmatch(r"([a-z0-9_]*)\{([a-z0-9_,]+)\}([a-z0-9_]*)", token)
        if m and m.group(3): documented |= {m.group(1) + part + m.group(3) for part in m.group(2).split(",")}
        else: documented.add(token.split("{")[0])
    documented |= {n for d in list(documented) for n in [d + "_bucket", d + "_count", d + "_sum"]}
    for expr in exprs:
        for name in re.findall(r"\b([a-z][a-z0-9_]*)\{", expr):
            if name not in documented: bad.append(f"dashboard queries {name}, not in docs/operations.md")
if bad:
    print("\n".join(sorted(set(bad))), file=sys.stderr); sys.exit(1)
PY
then pass "Grafana dashboard: only when asked, sidecar label, every queried series documented"
else fail "Grafana dashboard"; fi
# Every pod serves its metrics on a port of its own, and the NetworkPolicy lets only the
# scrapers (metrics.scrapeFrom) reach it.
[ "$(grep -c 'METRICS_PORT: "9464"' "$work/ci.yaml")" = 10 ] && pass "METRICS_PORT set for 10 services" \
  || fail "expected METRICS_PORT in 10 ConfigMaps"
[ "$(grep -c '^        - port: metrics$' "$work/ci.yaml")" = 10 ] && pass "10 NetworkPolicies admit the scrapers on the metrics port" \
  || fail "expected a metrics ingress rule in 10 NetworkPolicies"
# The alerting rules: promtool when installed (Debian's `prometheus` package), else skipped when
# run by hand.
if command -v promtool >/dev/null; then
  if promtool check rules "$chart/files/alerts.yaml"; then pass "promtool check rules"; else fail "promtool check rules"; fi
  if (cd "$chart/files" && promtool test rules alerts.test.yaml); then pass "promtool test rules"; else fail "promtool test rules"; fi
elif [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ] || [ "${MARQUEE_TEST_STRICT:-}" = 1 ]; then
  # Under CI and in `pnpm test` (scripts/test.mjs) a skipped check is a failure.
  fail "promtool check/test rules: promtool not installed (apt-get install prometheus)"
else
  printf '[check] skip promtool check/test rules (promtool not installed: apt-get install prometheus)\n'
fi

validate existing-secret --set secrets.existingSecret=marquee-prod-secrets
if grep -q '^kind: Secret$' "$work/existing-secret.yaml"; then fail "existingSecret still renders a Secret"; else pass "existingSecret: no Secret rendered"; fi

# existingSecret keys: the keys each service mounts from the Secret are exactly those
# docs/operations.md ("The Secret's keys") lists for it, and each is a name values.schema.json
# accepts in secrets.existingSecretKeys; with that map, the items name the Secret's keys and the
# files keep the chart's names.
validate existing-secret-keys --set secrets.existingSecret=marquee-prod-secrets \
  --set secrets.existingSecretKeys.ADMIN_TOKEN=admin-token --set secrets.existingSecretKeys.MONGO_URL=mongo-url
if python3 - "$work/existing-secret.yaml" "$work/existing-secret-keys.yaml" "$repo/docs/operations.md" "$chart/values.schema.json" "$here/README.md" <<'PY'
import json, re, sys, yaml
def mounted(path):
    out = {}
    for d in yaml.safe_load_all(open(path)):
        if not d or d["kind"] != "Deployment": continue
        name = d["metadata"]["labels"]["app.kubernetes.io/component"]
        for v in d["spec"]["template"]["spec"].get("volumes", []):
            if v["name"] == "secrets":
                if v["secret"]["secretName"] != "marquee-prod-secrets": sys.exit(f"{name}: mounts Secret {v['secret']['secretName']}")
                out[name] = {i["path"]: i["key"] for i in v["secret"]["items"]}
    return out
plain, renamed = mounted(sys.argv[1]), mounted(sys.argv[2])
doc = open(sys.argv[3]).read()
section = doc.split("## The Secret's keys", 1)[1].split("\n## ", 1)[0]
table = {}
for m in re.finditer(r"^\| `([A-Z][A-Z0-9_]*)` +\| ([a-z0-9, -]+?) +\|", section, re.M):
    table[m.group(1)] = {s.strip() for s in m.group(2).split(",")}
schema = json.load(open(sys.argv[4]))
names = set(schema["properties"]["secrets"]["properties"]["existingSecretKeys"]["propertyNames"]["enum"])
bad = []
if len(table) < 10: bad.append(f"docs/operations.md: only {len(table)} keys in the table of the Secret's keys")
readers = {}
for service, items in plain.items():
    for key in items: readers.setdefault(key, set()).add(service)
for key in sorted(set(readers) | set(table)):
    if readers.get(key, set()) != table.get(key, set()):
        bad.append(f"{key}: mounted by {sorted(readers.get(key, []))}, docs/operations.md says {sorted(table.get(key, []))}")
    if key not in names: bad.append(f"{key}: not a name secrets.existingSecretKeys accepts (values.schema.json)")
for key in names - set(table): bad.append(f"{key}: in the schema's key names, not in docs/operations.md")
for service, items in renamed.items():
    want = {k: {"ADMIN_TOKEN": "admin-token", "MONGO_URL": "mongo-url"}.get(k, k) for k in plain.get(service, {})}
    if items != want: bad.append(f"{service}: with existingSecretKeys mounts {items}, want {want}")
if "admin-token" not in renamed.get("edge-gateway", {}).values(): bad.append("edge-gateway: ADMIN_TOKEN not read from admin-token")
# deploy/helm/README.md's Services table: its last column lists the keys each service mounts.
services_section = open(sys.argv[5]).read().split("\n## Services", 1)[1].split("\n## ", 1)[0]
listed = {}
for line in services_section.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) > 2 and cells[0] in plain:
        listed[cells[0]] = {k.strip() for k in cells[-1].split(",") if k.strip() not in ("", "—")}
for service, items in plain.items():
    if listed.get(service) != set(items): bad.append(f"{service}: mounts {sorted(items)}, deploy/helm/README.md's Services table says {sorted(listed.get(service, []))}")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY
then pass "existingSecret: each service's keys are those docs/operations.md and the README list, the schema's names, renamed by existingSecretKeys"
else fail "existingSecret keys differ from docs/operations.md / values.schema.json"; fi
for bad_values in "secrets.existingSecretKeys.ADMIN_TOKN=admin-token" "secrets.adminToken=a-token-that-would-be-ignored" \
  "secrets.existingSecretKeys.ADMIN_TOKEN=bad/key"; do
  if helm lint --strict "$chart" --kube-version "$K8S_VERSION" --set secrets.existingSecret=marquee-prod-secrets --set "$bad_values" >"$work/lint.out" 2>&1; then
    fail "helm lint accepted existingSecret with $bad_values"
  else pass "helm lint refuses existingSecret with $bad_values"; fi
done
if helm lint --strict "$chart" --kube-version "$K8S_VERSION" "${secrets[@]}" --set secrets.existingSecretKeys.ADMIN_TOKEN=admin-token >"$work/lint.out" 2>&1; then
  fail "helm lint accepted existingSecretKeys without existingSecret"
else pass "helm lint refuses existingSecretKeys without existingSecret"; fi

# Ingress: none by default; when on (ci-values.yaml), every rule of every host goes to the edge's
# HTTP port and nowhere else, with the class, TLS and annotations of the values.
if python3 - "$work/default.yaml" "$work/ci.yaml" <<'PY'
import sys, yaml
load = lambda p: [d for d in yaml.safe_load_all(open(p)) if d]
default, ci = load(sys.argv[1]), load(sys.argv[2])
bad = []
if any(d["kind"] == "Ingress" for d in default): bad.append("an Ingress rendered by default")
ingresses = [d for d in ci if d["kind"] == "Ingress"]
if len(ingresses) != 1: sys.exit(f"ci render: {len(ingresses)} Ingresses, want 1")
ing = ingresses[0]
edge = next(d for d in ci if d["kind"] == "Service" and d["metadata"]["labels"].get("app.kubernetes.io/name") == "edge-gateway" and d["spec"].get("clusterIP") != "None")
spec = ing["spec"]
backends = [p["backend"] for r in spec["rules"] for p in r["http"]["paths"]]
if len(backends) < 3: bad.append(f"only {len(backends)} paths rendered")
for b in backends:
    if b != {"service": {"name": edge["metadata"]["name"], "port": {"name": "http"}}}: bad.append(f"a path goes to {b}, not the edge's http port")
if "http" not in {p["name"] for p in edge["spec"]["ports"]}: bad.append("the edge Service has no http port")
if spec.get("ingressClassName") != "nginx": bad.append(f"ingressClassName {spec.get('ingressClassName')!r}")
if spec.get("tls") != [{"secretName": "marquee-tls", "hosts": ["tickets.example.com", "api.example.com"]}]: bad.append(f"tls {spec.get('tls')}")
if [r.get("host") for r in spec["rules"]] != ["tickets.example.com", "api.example.com"]: bad.append("hosts differ from the values")
if ing["metadata"].get("annotations", {}).get("cert-manager.io/cluster-issuer") != "letsencrypt": bad.append("annotations not rendered")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY
then pass "Ingress: none by default; every host and path to the edge's http port, class, TLS, annotations"
else fail "Ingress"; fi
if helm lint --strict "$chart" --kube-version "$K8S_VERSION" "${secrets[@]}" --set ingress.enabled=true \
  --set-json 'ingress.hosts=[{"host":"x.example.com","paths":[{"path":"api"}]}]' >"$work/lint.out" 2>&1; then
  fail "helm lint accepted an Ingress path without a leading /"
else pass "helm lint refuses an Ingress path without a leading /"; fi

# Extra volumes: the global ones (ci-values.yaml: a CA ConfigMap) in every pod and container, a
# service's own only in its pod, NODE_EXTRA_CA_CERTS pointing into the mounted directory.
if python3 - "$work/ci.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
configs = {d["metadata"]["labels"]["app.kubernetes.io/name"]: d["data"] for d in docs if d["kind"] == "ConfigMap" and "app.kubernetes.io/name" in d["metadata"].get("labels", {})}
bad = []
deployments = [d for d in docs if d["kind"] == "Deployment"]
for d in deployments:
    name = d["metadata"]["labels"]["app.kubernetes.io/component"]
    pod = d["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["name"]: m for m in pod["containers"][0]["volumeMounts"]}
    if volumes.get("corp-ca", {}).get("configMap") != {"name": "corp-ca"}: bad.append(f"{name}: no corp-ca volume")
    if mounts.get("corp-ca") != {"name": "corp-ca", "mountPath": "/etc/marquee/ca", "readOnly": True}: bad.append(f"{name}: corp-ca not mounted read-only at /etc/marquee/ca")
    if not configs.get(name, {}).get("NODE_EXTRA_CA_CERTS", "").startswith("/etc/marquee/ca/"): bad.append(f"{name}: NODE_EXTRA_CA_CERTS not in the CA mount")
    if ("spool" in volumes) != (name == "cart") or ("spool" in mounts) != (name == "cart"): bad.append(f"{name}: cart's spool volume {'missing' if name == 'cart' else 'present'}")
    if not {"tmp", "secrets"} <= set(volumes): bad.append(f"{name}: the chart's own volumes lost")
if len(deployments) != 10: bad.append(f"{len(deployments)} Deployments")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY
then pass "extraVolumes/extraVolumeMounts: global in every pod (the CA file), a service's only in its own"
else fail "extraVolumes/extraVolumeMounts"; fi
for bad_values in 'global.extraVolumes=[{"name":"secrets","emptyDir":{}}]' 'services.cart.extraVolumeMounts=[{"name":"nowhere","mountPath":"/x"}]'; do
  if render "$work/neg.yaml" "${secrets[@]}" --set-json "$bad_values" 2>"$work/neg.err"; then
    fail "rendering with $bad_values succeeded"
  elif grep -qE "the name is taken|names no volume of the pod" "$work/neg.err"; then
    pass "rendering refuses $bad_values"
  else fail "rendering with $bad_values failed for another reason: $(cat "$work/neg.err")"; fi
done

# topic catalog: the job must create exactly the topics of packages/proto/src/topics.ts (the
# authoritative catalog) with the same compaction and retention, plus every <topic>.dlq twin
topics_ts="$repo/packages/proto/src/topics.ts"
if [ -f "$topics_ts" ]; then
  if python3 - "$topics_ts" "$work/default.yaml" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
consts = {"DAY_MS": 86400000, "HOUR_MS": 3600000, "MINUTE_MS": 60000}
for m in re.finditer(r"const (\w+_MS) = ([\d\s*]+);", src):
    consts[m.group(1)] = eval(m.group(2))
want = {}
# each topic definition: name: '...', ... compacted?: ..., retentionMs: <expr>
for m in re.finditer(r"name: '([a-z0-9.-]+)',(.*?)retentionMs: ([^,\n]+),", src, re.S):
    name, body, expr = m.group(1), m.group(2), m.group(3).strip()
    ms = eval(expr, {}, dict(consts))
    want[name] = ("compact" if re.search(r"compacted: true", body) else "delete", int(ms))
    want[name + ".dlq"] = None
got = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s+ensure (\S+) (\d+) (.*)$", line)
    if m:
        cfg = dict(kv.split("=", 1) for kv in m.group(3).split())
        got[m.group(1)] = (cfg.get("cleanup.policy"), int(cfg.get("retention.ms", "0")))
bad = []
for n in sorted(set(want) | set(got)):
    if n not in got: bad.append(f"missing topic {n}")
    elif n not in want: bad.append(f"topic {n} is not in topics.ts")
    elif want[n] is not None and want[n] != got[n]: bad.append(f"{n}: topics.ts {want[n]} != chart {got[n]}")
if len(want) < 2 or bad:
    print("\n".join(bad) or "no topics parsed from topics.ts", file=sys.stderr); sys.exit(1)
print(f"{len(want)} topics")
PY
  then pass "topic job matches packages/proto/src/topics.ts (names, compaction, retention, .dlq twins)"
  else fail "topic job differs from packages/proto/src/topics.ts"; fi
else
  echo "[check] skip topic catalog comparison: $topics_ts not found"
fi
grep -qE '^ +ensure event-changed [0-9]+ cleanup\.policy=compact ' "$work/default.yaml" \
  && pass "event-changed is compacted" || fail "event-changed is not compacted"

# read replicas: catalog-indexer and deals scale under an HPA of at least 2 (each replica holds the
# whole read model), with no fixed replica count and a PodDisruptionBudget
if python3 - "$work/default.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
of = lambda kind: [d for d in docs if d["kind"] == kind]
deployments = {d["metadata"]["labels"]["app.kubernetes.io/component"]: d for d in of("Deployment")}
hpas = {d["spec"]["scaleTargetRef"]["name"]: d["spec"] for d in of("HorizontalPodAutoscaler")}
pdbs = {d["metadata"]["name"] for d in of("PodDisruptionBudget")}
bad = []
for name in ("catalog-indexer", "deals"):
    dep = deployments.get(name)
    if dep is None:
        bad.append(f"{name}: no Deployment"); continue
    full = dep["metadata"]["name"]
    hpa = hpas.get(full)
    if hpa is None:
        bad.append(f"{name}: no HorizontalPodAutoscaler"); continue
    low, high = hpa.get("minReplicas", 1), hpa["maxReplicas"]
    if low < 2 or high <= low: bad.append(f"{name}: HPA {low}..{high}, want at least 2 and room to grow")
    if "replicas" in dep["spec"]: bad.append(f"{name}: Deployment pins replicas beside its HPA")
    if full not in pdbs: bad.append(f"{name}: no PodDisruptionBudget")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY
then pass "catalog-indexer and deals render with an HPA (min >= 2) and a PDB"
else fail "catalog-indexer / deals replicas"; fi

# PodDisruptionBudgets: every service that can run more than one replica (its HPA's maxReplicas,
# else its replicas) has one that selects exactly its pods and still lets a drain evict one pod
# when the service runs its fewest replicas; no PDB selects nothing.
pdb_check() { # file
  python3 - "$1" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
of = lambda kind: [d for d in docs if d["kind"] == kind]
hpas = {d["spec"]["scaleTargetRef"]["name"]: d["spec"] for d in of("HorizontalPodAutoscaler")}
pdbs = of("PodDisruptionBudget")
bad, used = [], set()
for dep in of("Deployment"):
    full, labels = dep["metadata"]["name"], dep["spec"]["template"]["metadata"]["labels"]
    hpa = hpas.get(full)
    low = hpa.get("minReplicas", 1) if hpa else dep["spec"].get("replicas", 1)
    high = hpa["maxReplicas"] if hpa else low
    mine = [p for p in pdbs if p["spec"]["selector"]["matchLabels"].items() <= labels.items()]
    used |= {p["metadata"]["name"] for p in mine}
    if high > 1 and len(mine) != 1:
        bad.append(f"{full}: up to {high} replicas, {len(mine)} PodDisruptionBudgets"); continue
    for p in mine:
        spec = p["spec"]
        if p["spec"]["selector"]["matchLabels"] != dep["spec"]["selector"]["matchLabels"]:
            bad.append(f"{full}: PDB {p['metadata']['name']} selects {spec['selector']['matchLabels']}, not the Deployment's pods")
        if "maxUnavailable" in spec:
            v = spec["maxUnavailable"]
            if v in (0, "0", "0%"): bad.append(f"{full}: PDB maxUnavailable {v} blocks every drain")
        elif isinstance(spec.get("minAvailable"), int) and spec["minAvailable"] >= low:
            bad.append(f"{full}: PDB minAvailable {spec['minAvailable']} with {low} replicas blocks every drain")
        elif spec.get("minAvailable") == "100%":
            bad.append(f"{full}: PDB minAvailable 100% blocks every drain")
for p in pdbs:
    if p["metadata"]["name"] not in used: bad.append(f"PDB {p['metadata']['name']} selects no Deployment's pods")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
print(f"{len(pdbs)} PDBs")
PY
}
for label in default ci; do
  if pdb_check "$work/$label.yaml" >"$work/pdb.out" 2>&1; then pass "PodDisruptionBudgets ($label): every multi-replica service has one that allows a drain ($(cat "$work/pdb.out"))"
  else fail "PodDisruptionBudgets ($label): $(cat "$work/pdb.out")"; fi
done
for bad_values in services.deals.pdb.enabled=false services.reconciler.pdb.enabled=false services.cart.pdb.minAvailable=2 services.edge-gateway.pdb.maxUnavailable=0%; do
  render "$work/pdb-neg.yaml" "${secrets[@]}" --set "$bad_values"
  if pdb_check "$work/pdb-neg.yaml" >/dev/null 2>&1; then fail "the PDB check accepted $bad_values"
  else pass "the PDB check rejects $bad_values"; fi
done

# Resource requests: every container of the default render has a CPU and memory request and a
# memory limit above it, equal to docs/operations.md's "Resource requests" table (the measured
# numbers they come from), so values and docs cannot drift apart.
if python3 - "$work/default.yaml" "$repo/docs/operations.md" <<'PY'
import re, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
section = open(sys.argv[2]).read().split("## Resource requests", 1)[1].split("\n## ", 1)[0]
table = {}
for line in section.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 8 and re.fullmatch(r"[a-z0-9][a-z0-9-]*", cells[0]) and cells[0] != "service":
        table[cells[0]] = {"cpu": cells[5], "memory": cells[6], "limit": cells[7]}
mi = lambda q: int(q[:-2]) * (1024 if q.endswith("Gi") else 1)
bad = []
deployments = [d for d in docs if d["kind"] == "Deployment"]
for dep in deployments:
    name = dep["metadata"]["labels"]["app.kubernetes.io/component"]
    r = dep["spec"]["template"]["spec"]["containers"][0].get("resources", {})
    req, lim = r.get("requests", {}), r.get("limits", {})
    if not {"cpu", "memory"} <= set(req) or "memory" not in lim: bad.append(f"{name}: requests {req}, limits {lim}"); continue
    if mi(lim["memory"]) <= mi(req["memory"]): bad.append(f"{name}: memory limit {lim['memory']} not above the request {req['memory']}")
    if "cpu" in lim: bad.append(f"{name}: a CPU limit (throttles the event loop)")
    want = table.get(name)
    got = {"cpu": str(req["cpu"]), "memory": str(req["memory"]), "limit": str(lim["memory"])}
    if want != got: bad.append(f"{name}: values {got}, docs/operations.md {want}")
if len(table) != len(deployments): bad.append(f"docs/operations.md lists {len(table)} services, {len(deployments)} rendered")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY
then pass "resource requests and limits of every service are the measured ones of docs/operations.md"
else fail "resource requests differ from docs/operations.md"; fi

# V8 options: every service's ConfigMap carries the NODE_OPTIONS its package.json declares
# (files/node-options.yaml, generated by scripts/generate-node-options.ts), and no other service has any
if python3 - "$work/default.yaml" "$chart/files/node-options.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
want = yaml.safe_load(open(sys.argv[2])) or {}
configs = {d["metadata"]["labels"]["app.kubernetes.io/name"]: d["data"] for d in docs if d["kind"] == "ConfigMap" and "app.kubernetes.io/name" in d["metadata"].get("labels", {})}
bad = [f"{name}: NODE_OPTIONS {cfg.get('NODE_OPTIONS')!r}, package.json says {want.get(name)!r}"
       for name, cfg in configs.items() if cfg.get("NODE_OPTIONS") != want.get(name)]
if not want.get("catalog-indexer"): bad.append("no node options for catalog-indexer in files/node-options.yaml")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY
then pass "NODE_OPTIONS of each service is its package.json marquee.v8.nodeOptions"
else fail "NODE_OPTIONS differ from the services' package.json"; fi

# Calls: every service's ConfigMap has the addresses of the services its ServiceDefinition calls
# (files/calls.yaml, generated by scripts/generate-service-calls.ts), and each of those admits it in
# its NetworkPolicy; the values add partner-reference to 3p-connector (its registered partner)
if python3 - "$work/default.yaml" "$chart/files/calls.yaml" <<'PY'
import re, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
declared = yaml.safe_load(open(sys.argv[2])) or {}
name_of = lambda d: d["metadata"]["labels"].get("app.kubernetes.io/name")
configs = {name_of(d): d["data"] for d in docs if d["kind"] == "ConfigMap" and "app.kubernetes.io/name" in d["metadata"].get("labels", {})}
callers = {name_of(d): set(filter(None, d["metadata"]["annotations"]["marquee.io/callers"].split(","))) for d in docs if d["kind"] == "NetworkPolicy"}
var = lambda callee: callee.upper().replace("-", "_")
want = {name: set(calls or []) for name, calls in declared.items()}
want["3p-connector"] = want.get("3p-connector", set()) | {"partner-reference"}
bad = []
if set(declared) != set(configs): bad.append(f"files/calls.yaml lists {sorted(declared)}, the chart renders {sorted(configs)}")
if not want.get("edge-gateway"): bad.append("no calls of edge-gateway in files/calls.yaml")
headless = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Service" and d["spec"].get("clusterIP") == "None"}
for name, cfg in configs.items():
    for key, value in cfg.items():
        if not key.startswith("GRPC_ADDR_"): continue
        # dns:///<service>.<namespace>.svc.<domain>:<port>, a headless Service with that gRPC port.
        m = re.fullmatch(r"dns:///([a-z0-9-]+)\.[a-z0-9-]+\.svc\.[a-z0-9.-]+:(\d+)", value)
        target = headless.get(m.group(1)) if m else None
        if not target or int(m.group(2)) not in {p["port"] for p in target["spec"]["ports"]}:
            bad.append(f"{name}: {key}={value} is not the dns:/// name and port of a headless Service")
for name, cfg in configs.items():
    got = {k[len("GRPC_ADDR_"):] for k in cfg if k.startswith("GRPC_ADDR_")}
    if got != {var(c) for c in want.get(name, set())}:
        bad.append(f"{name}: GRPC_ADDR_* of {sorted(got)}, calls {sorted(want.get(name, set()))}")
    for callee in want.get(name, set()):
        if f"HTTP_URL_{var(callee)}" not in cfg: bad.append(f"{name}: no HTTP_URL_{var(callee)}")
for callee, admitted in callers.items():
    expected = {name for name, calls in want.items() if callee in calls}
    if admitted != expected: bad.append(f"{callee}: NetworkPolicy admits {sorted(admitted)}, callers {sorted(expected)}")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY
then pass "calls of each service are its ServiceDefinition calls (headless dns:/// addresses and the callees' NetworkPolicies)"
else fail "calls differ from the services' ServiceDefinition calls"; fi

# ---- 3. security properties ------------------------------------------------------------------
# default.yaml: the chart as installed with only the required values; ci.yaml: every option on.
security() { # file label
  python3 - "$1" <<'PY'
import os, re, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = lambda k: [d for d in docs if d["kind"] == k]
bad = []
deployments = {d["metadata"]["labels"]["app.kubernetes.io/component"]: d for d in kinds("Deployment")}
configs = {d["metadata"]["labels"]["app.kubernetes.io/name"]: d["data"] for d in kinds("ConfigMap") if "app.kubernetes.io/name" in d["metadata"].get("labels", {})}
policies = {d["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/name"]: d for d in kinds("NetworkPolicy")}
secret_keys = set()
for s in kinds("Secret"):
    secret_keys |= set((s.get("stringData") or {}).keys())
for name, dep in deployments.items():
    cfg = configs.get(name, {})
    pod = dep["spec"]["template"]["spec"]
    c = pod["containers"][0]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    if cfg.get("NODE_ENV") != "production": bad.append(f"{name}: NODE_ENV is {cfg.get('NODE_ENV')!r}, not production")
    if "MONGO_URL" in cfg: bad.append(f"{name}: MONGO_URL in the ConfigMap (credentials belong in the Secret)")
    if "MONGO_DB" in cfg and env.get("MONGO_URL_FILE") != "/var/run/secrets/marquee/MONGO_URL":
        bad.append(f"{name}: has a database but no MONGO_URL_FILE")
    mounted = set()
    for v in pod.get("volumes", []):
        if "secret" in v and v["name"] == "secrets": mounted |= {i["key"] for i in v["secret"].get("items", [])}
        # The Kafka login (kafkaAuth): this service's own password only, as KAFKA_SASL_PASSWORD_FILE.
        if "secret" in v and v["name"] == "kafka-auth":
            keys = {i["key"] for i in v["secret"].get("items", [])} - {"ca.crt"}
            if keys != {f"{name}.password"}: bad.append(f"{name}: Kafka login keys {sorted(keys)}")
            if env.get("KAFKA_SASL_PASSWORD_FILE") != "/var/run/secrets/kafka/password" or cfg.get("KAFKA_SASL_USERNAME") != name:
                bad.append(f"{name}: Kafka login not as its own user from a file")
    for key in mounted:
        if env.get(f"{key}_FILE") != f"/var/run/secrets/marquee/{key}": bad.append(f"{name}: {key} mounted without {key}_FILE")
    if name != "partner-reference" and "SERVICE_AUTH_KEY" not in mounted:
        bad.append(f"{name}: no SERVICE_AUTH_KEY (every gRPC service and client needs it)")
    if "ADMIN_TOKEN" in mounted and name != "edge-gateway":
        bad.append(f"{name}: mounts ADMIN_TOKEN, which only the edge uses (partner-reference has PARTNER_ADMIN_TOKEN)")
    if name == "partner-reference" and "PARTNER_ADMIN_TOKEN" not in mounted:
        bad.append("partner-reference: no PARTNER_ADMIN_TOKEN (its back office's own token)")
    # Stripe: cart takes the money (NODE_ENV=production refuses the sandbox), the edge verifies
    # webhooks with the signing secret only, nobody else holds either.
    if name == "cart" and (cfg.get("CART_PAYMENT_PROCESSOR") != "stripe" or not {"STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"} <= mounted):
        bad.append(f"cart: not on Stripe with its secrets (CART_PAYMENT_PROCESSOR={cfg.get('CART_PAYMENT_PROCESSOR')!r}, mounted {sorted(mounted)})")
    if "STRIPE_SECRET_KEY" in mounted and name != "cart":
        bad.append(f"{name}: mounts STRIPE_SECRET_KEY, which only cart uses")
    if name == "edge-gateway" and "STRIPE_WEBHOOK_SECRET" not in mounted:
        bad.append("edge-gateway: no STRIPE_WEBHOOK_SECRET (it verifies Stripe's webhooks)")
    if "STRIPE_WEBHOOK_SECRET" in mounted and name not in ("cart", "edge-gateway"):
        bad.append(f"{name}: mounts STRIPE_WEBHOOK_SECRET, which only cart and the edge use")
    policy = policies.get(name, {}).get("spec", {})
    if "Egress" not in policy.get("policyTypes", []):
        bad.append(f"{name}: no egress NetworkPolicy")
    for rule in policy.get("egress", []):
        if not rule.get("to"): bad.append(f"{name}: an egress rule open to any destination")
        for peer in rule.get("to", []):
            block = peer.get("ipBlock", {})
            if block.get("cidr") in ("0.0.0.0/0", "::/0") and not {"169.254.0.0/16", "fe80::/10"} & set(block.get("except", [])):
                bad.append(f"{name}: an egress rule to every address, link-local included")
            if block.get("cidr") in ("0.0.0.0/0", "::/0") and {p.get("port") for p in rule.get("ports", [])} & {80, 443, 8080, 8090}:
                bad.append(f"{name}: HTTP(S) ports open to every address")
    if name == "3p-connector" and not cfg.get("PARTNER_ALLOWED_HOSTS", "").endswith("partner-reference"):
        bad.append(f"3p-connector: PARTNER_ALLOWED_HOSTS {cfg.get('PARTNER_ALLOWED_HOSTS')!r} does not list the chart's partner-reference")
    for source in c.get("envFrom", []):
        if "secretRef" in source and not (name == "reconciler" and os.path.basename(sys.argv[1]) == "ci.yaml"):
            bad.append(f"{name}: the whole Secret in its environment (envFrom)")
    if name not in policies: bad.append(f"{name}: no NetworkPolicy")
    for rule in policies.get(name, {}).get("spec", {}).get("ingress", []):
        if not rule.get("from"): bad.append(f"{name}: a NetworkPolicy rule open to any source")
    if name in ("edge-gateway", "auth-gateway") and "TRUSTED_PROXIES" not in cfg:
        bad.append(f"{name}: no TRUSTED_PROXIES")
if secret_keys and not {"SERVICE_AUTH_KEY", "MONGO_URL"} <= secret_keys:
    bad.append(f"the Secret lacks SERVICE_AUTH_KEY or MONGO_URL: {sorted(secret_keys)}")
token = next((s.get("stringData", {}).get("ADMIN_TOKEN") for s in kinds("Secret")), None)
def secret_bits(value):
    # The edge's rule (randomSecret, packages/platform/src/config/secret-strength.ts): characters
    # times bits per character of the encoding (hex 4, base64 or base64url 6), none for a value in
    # no such encoding or one shorter part repeated.
    if re.fullmatch(r"(.+?)\1+", value, re.S): return 0
    if re.fullmatch(r"[0-9a-fA-F]+", value): return 4 * len(value)
    if re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value) or re.fullmatch(r"[A-Za-z0-9_-]+={0,2}", value):
        return 6 * len(value.rstrip("="))
    return 0
if token is not None and secret_bits(token) < 128:
    bad.append("the ADMIN_TOKEN of these values is one the edge refuses (under 128 bits: hex, base64 or base64url)")
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
print(f"{len(deployments)} deployments")
PY
}
for label in default ci existing-secret; do
  if security "$work/$label.yaml" >"$work/security.out" 2>&1; then pass "security properties ($label): production mode, NetworkPolicies with sources, secrets as files where used, Mongo URL in the Secret"
  else fail "security properties ($label): $(cat "$work/security.out")"; fi
done
if grep -q 'TRUSTED_PROXIES: "10.244.0.0/16,192.0.2.10,fd00::/8"' "$work/ci.yaml" && grep -q 'cidr: 192.0.2.10/32' "$work/ci.yaml"; then
  pass "clientAddress.trustedProxyCidrs reach TRUSTED_PROXIES and the external NetworkPolicy rule"
else
  fail "clientAddress.trustedProxyCidrs not rendered into TRUSTED_PROXIES / ipBlock"
fi

# partner-reference is a reference partner, not part of the platform: no external rule by default
if python3 - "$work/default.yaml" "$work/ci.yaml" <<'PY'
import sys, yaml
def policy(path, name):
    for d in yaml.safe_load_all(open(path)):
        if d and d["kind"] == "NetworkPolicy" and d["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/name"] == name:
            return d["spec"]
    sys.exit(f"{path}: no NetworkPolicy of {name}")
ref = policy(sys.argv[1], "partner-reference")
# The metrics scrape rule (metrics.scrapeFrom, the metrics port only) is not an exposure.
scrape = lambda r: [p.get("port") for p in r.get("ports", [])] == ["metrics"]
external = [r for r in ref["ingress"] if not scrape(r) and any("podSelector" not in p or "namespaceSelector" in p for p in r["from"])]
if external: sys.exit(f"partner-reference admits external sources by default: {external}")
# the partners' CIDRs reach 3p-connector's egress, and no other service's
for name in ("3p-connector", "cart", "edge-gateway"):
    cidrs = {p["ipBlock"]["cidr"] for r in policy(sys.argv[2], name)["egress"] for p in r["to"] if "ipBlock" in p}
    has = {"203.0.113.0/24", "198.51.100.7/32", "2001:db8::/32"} <= cidrs
    if has != (name == "3p-connector"): sys.exit(f"{name}: partner CIDRs {'missing' if name == '3p-connector' else 'present'}: {sorted(cidrs)}")
    stripe = "192.0.2.200/29" in cidrs
    if stripe != (name == "cart"): sys.exit(f"{name}: Stripe CIDRs {'missing' if name == 'cart' else 'present'}: {sorted(cidrs)}")
PY
then pass "partner-reference not external by default; partner CIDRs only in 3p-connector's egress, Stripe's only in cart's"
else fail "partner-reference exposure / partner egress"; fi

# ---- 4. negative checks --------------------------------------------------------------------
if render "$work/neg.yaml" --set secrets.partnerClientSecret=x 2>"$work/neg.err"; then
  fail "rendering without secrets.adminToken succeeded"
elif grep -q "secrets.adminToken is required" "$work/neg.err"; then
  pass "rendering without secrets.adminToken is refused"
else
  fail "rendering without secrets.adminToken failed for another reason: $(cat "$work/neg.err")"
fi
if render "$work/neg.yaml" --set secrets.adminToken=x --set secrets.partnerClientSecret=x --set secrets.partnerAdminToken=y 2>"$work/neg.err"; then
  fail "rendering without secrets.partnerCredentialsKey succeeded"
elif grep -q "secrets.partnerCredentialsKey is required" "$work/neg.err"; then
  pass "rendering without secrets.partnerCredentialsKey is refused"
else
  fail "rendering without secrets.partnerCredentialsKey failed for another reason: $(cat "$work/neg.err")"
fi
for key in stripeSecretKey stripeWebhookSecret; do
  if render "$work/neg.yaml" "${secrets[@]}" --set "secrets.$key=" 2>"$work/neg.err"; then
    fail "rendering without secrets.$key succeeded"
  elif grep -q "secrets.$key is required" "$work/neg.err"; then
    pass "rendering without secrets.$key is refused (cart takes no money without it)"
  else
    fail "rendering without secrets.$key failed for another reason: $(cat "$work/neg.err")"
  fi
done
if helm lint --strict "$chart" --kube-version "$K8S_VERSION" "${secrets[@]}" --set secrets.stripeSecretKey=pk_live_publishable >"$work/lint.out" 2>&1; then
  fail "helm lint accepted a publishable key as secrets.stripeSecretKey"
else
  pass "helm lint refuses a secrets.stripeSecretKey that is not sk_/rk_"
fi
if render "$work/neg.yaml" "${secrets[@]}" --set secrets.serviceAuthKey= 2>"$work/neg.err"; then
  fail "rendering without secrets.serviceAuthKey succeeded"
elif grep -q "secrets.serviceAuthKey is required" "$work/neg.err"; then
  pass "rendering without secrets.serviceAuthKey is refused"
else
  fail "rendering without secrets.serviceAuthKey failed for another reason: $(cat "$work/neg.err")"
fi
if render "$work/neg.yaml" "${secrets[@]}" --set secrets.partnerAdminToken=check-admin-token-Xk9LmP4sR8tW3yZ7Hq2v 2>"$work/neg.err"; then
  fail "rendering with partner-reference's token equal to the platform's admin token succeeded"
elif grep -q "partnerAdminToken must differ" "$work/neg.err"; then
  pass "partner-reference's back-office token equal to the admin token is refused"
else
  fail "rendering with equal admin tokens failed for another reason: $(cat "$work/neg.err")"
fi
if render "$work/neg.yaml" "${secrets[@]}" --set secrets.partnerAdminToken= 2>"$work/neg.err"; then
  fail "rendering without secrets.partnerAdminToken succeeded"
elif grep -q "secrets.partnerAdminToken is required" "$work/neg.err"; then
  pass "rendering without secrets.partnerAdminToken is refused"
else
  fail "rendering without secrets.partnerAdminToken failed for another reason: $(cat "$work/neg.err")"
fi
if render "$work/neg.yaml" "${secrets[@]}" --set 'networkPolicy.externalFrom=null' --set services.partner-reference.externalIngress=true 2>"$work/neg.err"; then
  fail "rendering a NetworkPolicy open to any external source succeeded"
elif grep -q "must say where external traffic" "$work/neg.err"; then
  pass "an external NetworkPolicy rule without sources is refused"
else
  fail "rendering without networkPolicy.externalFrom failed for another reason: $(cat "$work/neg.err")"
fi
security_mutant() { # label sed-expression: the security check must reject the mutated default render
  sed "$2" "$work/default.yaml" >"$work/mutant.yaml"
  if cmp -s "$work/default.yaml" "$work/mutant.yaml"; then fail "security mutant ($1): the mutation did not apply"
  elif security "$work/mutant.yaml" >/dev/null 2>&1; then fail "security check accepted a manifest with $1"
  else pass "security check rejects a manifest with $1"; fi
}
security_mutant "an egress rule without destinations" '0,/^    # Kafka brokers$/s//    - ports: [{ port: 1 }]/'
security_mutant "NODE_ENV=development" 's/NODE_ENV: "production"/NODE_ENV: "development"/'
security_mutant "cart on the sandbox processor" 's/CART_PAYMENT_PROCESSOR: "stripe"/CART_PAYMENT_PROCESSOR: "sandbox"/'
security_mutant "MONGO_URL in a ConfigMap" '0,/^  NODE_ENV: "production"/s//  MONGO_URL: "mongodb:\/\/user:pw@mongo"\n  NODE_ENV: "production"/'
# ADMIN_TOKEN: the edge's entropy rule (128 bits in hex, base64 or base64url), not a count of
# different characters: 48 hex characters with only 12 different ones hold 192 bits and pass.
security_mutant "an ADMIN_TOKEN of 96 bits" 's/ADMIN_TOKEN: "check-admin-token-Xk9LmP4sR8tW3yZ7Hq2v"/ADMIN_TOKEN: "0f1e2d3c4b5a69788796a5b4"/'
security_mutant "a repeated ADMIN_TOKEN" 's/ADMIN_TOKEN: "check-admin-token-Xk9LmP4sR8tW3yZ7Hq2v"/ADMIN_TOKEN: "abcdabcdabcdabcdabcdabcdabcdabcdabcdabcd"/'
sed 's/ADMIN_TOKEN: "check-admin-token-Xk9LmP4sR8tW3yZ7Hq2v"/ADMIN_TOKEN: "0123456789ab0123456789ab0123456789ab0123456789ac"/' "$work/default.yaml" >"$work/hex-token.yaml"
if cmp -s "$work/default.yaml" "$work/hex-token.yaml"; then fail "hex ADMIN_TOKEN: the substitution did not apply"
elif security "$work/hex-token.yaml" >/dev/null 2>&1; then pass "security check accepts a 192-bit hex ADMIN_TOKEN with 12 different characters"
else fail "security check refused a 192-bit hex ADMIN_TOKEN"; fi
if helm lint --strict "$chart" --kube-version "$K8S_VERSION" "${secrets[@]}" --set services.cart.hpa.maxReplica=3 >"$work/lint.out" 2>&1; then
  fail "helm lint accepted a typo (services.cart.hpa.maxReplica)"
else
  pass "helm lint rejects a typo in values (values.schema.json)"
fi
if helm lint --strict "$chart" --kube-version "$K8S_VERSION" "${secrets[@]}" --set services.carts.replicas=3 >"$work/lint.out" 2>&1; then
  fail "helm lint accepted an unknown service (services.carts)"
else
  pass "helm lint rejects an unknown service name"
fi
# an unknown field under a container, and a string where an integer belongs
awk 'done == 0 && /^ +imagePullPolicy:/ { print; sub(/imagePullPolicy:.*/, "bogusField: true"); print; done = 1; next } { print }' \
  "$work/default.yaml" >"$work/bad-field.yaml"
sed '0,/containerPort: [0-9]*/s//containerPort: "http-port"/' "$work/default.yaml" >"$work/bad-type.yaml"
for bad in bad-field bad-type; do
  if cmp -s "$work/default.yaml" "$work/$bad.yaml"; then fail "$bad: the mutation did not apply"; continue; fi
  if kubeconform_strict "$work/$bad.yaml" >"$work/$bad.out" 2>&1; then
    fail "kubeconform accepted an invalid manifest ($bad)"
  else
    pass "kubeconform -strict rejects an invalid manifest ($bad): $(grep -m1 -o 'at .*' "$work/$bad.out" || true)"
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "[check] $failures check(s) failed" >&2
  exit 1
fi
echo "[check] helm chart: all checks passed"
