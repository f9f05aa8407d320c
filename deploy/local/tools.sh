#!/usr/bin/env bash
# Shared settings for the local tool installs. Sourced, never executed.
# Tools live outside the work tree so a fresh clone reuses them and nothing lands in git.
MARQUEE_TOOLS="${MARQUEE_TOOLS:-$HOME/.cache/marquee}"
MARQUEE_STATE="${MARQUEE_STATE:-$HOME/.local/state/marquee}"
NODE_VERSION="${NODE_VERSION:-24.21.0}"
PNPM_VERSION="${PNPM_VERSION:-10.34.9}"
mkdir -p "$MARQUEE_TOOLS" "$MARQUEE_STATE"
log() { printf '[marquee] %s\n' "$*" >&2; }
