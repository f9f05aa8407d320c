#!/usr/bin/env bash
# Installs the Kubernetes tooling used by deploy/helm/check.sh, offline-capable:
#   - helm (v3)      via `go install` (Go module proxy)
#   - kubeconform    via `go install` (Go module proxy)
#   - Kubernetes JSON schemas for kubeconform, taken from the PyPI package `kubernetes-validate`
#     (it ships the schemas generated from the Kubernetes OpenAPI documents), rewritten so that
#     every schema file is self-contained (no $ref to kubernetes.io, nothing fetched at run time).
# Everything lands under $MARQUEE_TOOLS (default ~/.cache/marquee), outside the work tree.
# Idempotent: a tool already at its pinned version is skipped.
# Prints the bin dir on stdout (last line); with --env prints shell exports instead.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tools.sh
. "$here/tools.sh"

HELM_VERSION="${HELM_VERSION:-v3.21.4}"
KUBECONFORM_VERSION="${KUBECONFORM_VERSION:-v0.7.0}"
K8S_SCHEMA_PKG_VERSION="${K8S_SCHEMA_PKG_VERSION:-1.37.0}"   # PyPI kubernetes-validate
K8S_VERSION="${K8S_VERSION:-1.34.0}"                         # schema set to extract

bin_dir="$MARQUEE_TOOLS/bin"
schema_root="$MARQUEE_TOOLS/k8s-schemas"
mkdir -p "$bin_dir" "$schema_root"

go_bin="$(command -v go || true)"
[ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go
py_bin="$(command -v python3 || true)"

# module version recorded in a Go binary's build info ("" when absent/unreadable)
bin_module_version() {
  [ -x "$1" ] || return 0
  "$go_bin" version -m "$1" 2>/dev/null | awk '$1 == "mod" { print $3; exit }'
}

go_install() { # name module-path version [extra -ldflags]
  local name="$1" pkg="$2" version="$3" ldflags="-s -w ${4:-}" have
  have="$(bin_module_version "$bin_dir/$name")"
  if [ "$have" = "$version" ] && "$go_bin" version -m "$bin_dir/$name" | grep -qF -- "$ldflags"; then
    log "$name $version already installed"
    return 0
  fi
  log "installing $name $version (go install; compiling helm takes a few minutes) ..."
  GOBIN="$bin_dir" GOFLAGS="${GOFLAGS:-} -buildvcs=false" CGO_ENABLED=0 \
    "$go_bin" install -ldflags "$ldflags" "$pkg@$version"
  have="$(bin_module_version "$bin_dir/$name")"
  [ "$have" = "$version" ] || { log "$name: expected $version, got '${have:-nothing}'"; exit 1; }
}

# The ldflags helm's Makefile sets: without them `go install` builds a helm that reports
# version "v3.x-dev"-ish and assumes Kubernetes v1.20 for `helm template`/`helm lint`.
helm_ldflags() {
  local gomod k8s_minor
  gomod="$("$go_bin" mod download -json "helm.sh/helm/v3@$HELM_VERSION" | awk -F'"' '/"GoMod"/ { print $4 }')"
  k8s_minor="$(awk '$1 == "k8s.io/client-go" { split($2, v, "."); print v[2]; exit }' "$gomod")"
  [ -n "$k8s_minor" ] || { log "cannot read the client-go version of helm $HELM_VERSION"; exit 1; }
  printf -- '-X helm.sh/helm/v3/internal/version.version=%s -X helm.sh/helm/v3/internal/version.gitTreeState=clean' "$HELM_VERSION"
  printf -- ' -X helm.sh/helm/v3/pkg/%s.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/%s.k8sVersionMinor=%s' \
    lint/rules lint/rules "$k8s_minor" chartutil chartutil "$k8s_minor" | sed 's/  */ /g'
}

install_schemas() {
  local stamp="$schema_root/.installed" want="kubernetes-validate==$K8S_SCHEMA_PKG_VERSION k8s=$K8S_VERSION"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
     && [ -f "$schema_root/v$K8S_VERSION-standalone-strict/deployment-apps-v1.json" ]; then
    log "Kubernetes $K8S_VERSION JSON schemas already installed"
    return 0
  fi
  [ -n "$py_bin" ] || { log "python3 is required to fetch the Kubernetes schemas"; exit 1; }
  local tmp
  tmp="$(mktemp -d)"
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" RETURN
  log "fetching kubernetes-validate $K8S_SCHEMA_PKG_VERSION from PyPI for the Kubernetes $K8S_VERSION schemas ..."
  "$py_bin" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    "kubernetes-validate==$K8S_SCHEMA_PKG_VERSION" -d "$tmp"
  "$py_bin" - "$tmp"/kubernetes_validate-*.whl "$K8S_VERSION" "$schema_root" <<'PY'
import json, os, re, shutil, sys, zipfile

wheel, version, out_root = sys.argv[1], sys.argv[2], sys.argv[3]
DEF_REF = re.compile(r"^(?:https://kubernetes\.io)?/api/_definitions\.json#/\$defs/(.+)$")

def refs(node, acc):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                acc.add(v)
            else:
                refs(v, acc)
    elif isinstance(node, list):
        for v in node:
            refs(v, acc)

def rewrite(node):
    """/api/_definitions.json#/$defs/X -> #/$defs/X (the defs get inlined)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                m = DEF_REF.match(v)
                out[k] = "#/$defs/" + m.group(1) if m else v
            else:
                out[k] = rewrite(v)
        return out
    if isinstance(node, list):
        return [rewrite(v) for v in node]
    return node

def name_of(ref):
    m = DEF_REF.match(ref)
    if m:
        return m.group(1)
    if ref.startswith("#/$defs/"):
        return ref[len("#/$defs/"):]
    return None

with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    for variant, suffix in (("local", ""), ("local-strict", "-strict")):
        prefix = f"kubernetes_validate/kubernetes-json-schema/v{version}-{variant}/"
        files = [n for n in names if n.startswith(prefix) and n.endswith(".json")]
        if not files:
            sys.exit(f"no schemas for Kubernetes v{version} ({variant}) in {wheel}")
        defs = json.loads(z.read(prefix + "_definitions.json"))["$defs"]
        dest = os.path.join(out_root, f"v{version}-standalone{suffix}")
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        count = 0
        for n in files:
            base = n[len(prefix):]
            if base in ("_definitions.json", "all.json"):
                continue
            doc = json.loads(z.read(n))
            # transitive closure of the definitions this kind needs, inlined as $defs
            need, todo = set(), set()
            refs(doc, todo)
            while todo:
                d = name_of(todo.pop())
                if d is None or d in need:
                    continue
                need.add(d)
                refs(defs[d], todo)
            doc.pop("$id", None)
            doc = rewrite(doc)
            if need:
                doc["$defs"] = {d: rewrite(defs[d]) for d in sorted(need)}
            with open(os.path.join(dest, base), "w") as f:
                json.dump(doc, f, separators=(",", ":"))
            count += 1
        print(f"[marquee] {count} schemas -> {dest}", file=sys.stderr)
PY
  printf '%s' "$want" >"$stamp"
}

[ -n "$go_bin" ] || { log "go not found (expected on PATH or /usr/local/go/bin/go)"; exit 1; }
go_install helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION" "$(helm_ldflags)"
go_install kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION"
install_schemas

if [ "${1:-}" = "--env" ]; then
  printf 'export PATH=%q:"$PATH"\n' "$bin_dir"
  printf 'export MARQUEE_K8S_SCHEMAS=%q\n' "$schema_root"
  printf 'export MARQUEE_K8S_VERSION=%q\n' "$K8S_VERSION"
else
  log "schemas: $schema_root (kubeconform -kubernetes-version $K8S_VERSION -schema-location '$schema_root/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json')"
  echo "$bin_dir"
fi
