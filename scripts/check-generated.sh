#!/usr/bin/env bash
# CI guard for the protobuf contracts (proto/ → packages/proto/src/gen):
#   1. buf lint (STANDARD rules, see buf.yaml);
#   2. regenerate with buf + ts-proto and fail when the committed generated code differs;
#   3. buf breaking against the previous committed state of proto/, when there is one.
# Works in a fresh clone after `pnpm install`. The base for step 3 is, in order: $BUF_BREAKING_AGAINST
# (any git ref), HEAD when proto/ has uncommitted changes, the merge-base with origin/main when HEAD is
# not on it, otherwise HEAD~1. It is skipped, with a message, when that commit has no proto/ tree
# (the very first commit) or is not in the clone (shallow clones).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# protoc-gen-ts_proto runs on node; use the repository's pinned Node when the machine's is too old.
if [ -f deploy/local/install-node.sh ]; then
  node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$node_major" -lt 22 ]; then
    PATH="$(bash deploy/local/install-node.sh):$PATH"
    export PATH
  fi
fi

buf=packages/proto/node_modules/.bin/buf
if [ ! -x "$buf" ] || [ ! -x packages/proto/node_modules/.bin/protoc-gen-ts_proto ]; then
  echo "check-generated: buf or protoc-gen-ts_proto missing; run 'pnpm install' first" >&2
  exit 1
fi

echo "check-generated: buf lint"
"$buf" lint

echo "check-generated: buf generate"
"$buf" generate
changes=$(git status --porcelain --untracked-files=all -- packages/proto/src/gen)
if [ -n "$changes" ]; then
  echo "check-generated: FAIL: packages/proto/src/gen is not what proto/ generates:" >&2
  echo "$changes" >&2
  echo "Run 'pnpm --filter @marquee/proto generate' and commit the result together with the .proto change." >&2
  exit 1
fi
echo "check-generated: generated code is up to date"

base=""
if [ -n "${BUF_BREAKING_AGAINST:-}" ]; then
  base=$BUF_BREAKING_AGAINST
elif [ -n "$(git status --porcelain --untracked-files=all -- proto)" ]; then
  base=HEAD
elif git rev-parse --verify --quiet origin/main >/dev/null &&
  ! git merge-base --is-ancestor HEAD origin/main; then
  base=$(git merge-base HEAD origin/main || true)
else
  base=HEAD~1
fi

base_sha=$(git rev-parse --verify --quiet "${base}^{commit}" || true)
if [ -z "$base_sha" ]; then
  echo "check-generated: buf breaking skipped: '$base' is not in this clone (first commit or shallow clone)"
  exit 0
fi
if ! git cat-file -e "$base_sha:proto/marquee" 2>/dev/null || ! git cat-file -e "$base_sha:buf.yaml" 2>/dev/null; then
  echo "check-generated: buf breaking skipped: $base ($base_sha) has no proto/ yet"
  exit 0
fi

# The common git dir, so that this also works from a linked worktree (where .git is a file).
git_dir=$(git rev-parse --path-format=absolute --git-common-dir)
echo "check-generated: buf breaking against $base ($base_sha)"
"$buf" breaking --against "${git_dir}#ref=${base_sha}"
echo "check-generated: OK"
