#!/usr/bin/env bash
# The project's test command: formatting, lints and rustdoc warnings as errors, then every test of
# the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --release --quiet
cargo test --workspace --release
