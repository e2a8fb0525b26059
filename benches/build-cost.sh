#!/usr/bin/env bash
# The build cost of protocol crates written by `defc gen`, beside def-runtime's in the same run.
#
# For each crate: a cold, non-incremental debug build of the crate alone (its dependencies built
# first, then `cargo clean -p` of the crate), timed with GNU time: CPU seconds (user + sys of cargo
# and every rustc it waits for) and the peak resident memory of the largest process. The
# yardstick, built in turn with each crate: `cargo build -p def-runtime --all-features` in this
# workspace, that crate alone. The figures in docs/performance.md come from this script.
#
#   benches/build-cost.sh [ROUNDS]      (default 3; TERA_DATA_DIR: the tera-data checkout)
#
# Crates: the newest map with the defaults (current versions, serde and views); twenty messages
# a damage meter reads; every version (`--versions all`, built with the `history` feature).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
rounds="${1:-3}"
data="${TERA_DATA_DIR:-$repo/../shared/tera-data}"
work="$repo/target/build-cost"
map="$data/maps/protocol.387463.map"
mkdir -p "$work"
export CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0

cargo build -q --release -p defc
defc="$repo/target/release/defc"
twenty="S_LOGIN,S_SPAWN_ME,S_LOAD_TOPO,S_SPAWN_USER,S_DESPAWN_USER,S_SPAWN_NPC,S_DESPAWN_NPC,\
S_EACH_SKILL_RESULT,S_ACTION_STAGE,S_ACTION_END,S_ABNORMALITY_BEGIN,S_ABNORMALITY_REFRESH,\
S_ABNORMALITY_END,S_CREATURE_CHANGE_HP,S_PLAYER_STAT_UPDATE,S_PARTY_MEMBER_LIST,\
S_BOSS_GAGE_INFO,S_USER_STATUS,S_NPC_STATUS,S_CHAT"

gen() {
  local name="$1"
  shift
  rm -rf "$work/$name"
  "$defc" gen --defs "$data/definitions" --map "$map" --deprecated "$data/deprecated.json" \
    --runtime-path "$repo/runtime" --out "$work/$name" "$@"
}
gen newest
gen twenty --messages "$twenty"
gen history --versions all

# One timed build: prints "CPU_SECONDS PEAK_MB".
timed() {
  /usr/bin/time -f "%U %S %M" -o "$work/time.txt" "$@" >/dev/null 2>&1
  awk '{ printf "%.1f %.0f\n", $1 + $2, $3 / 1024 }' "$work/time.txt"
}

runtime_once() {
  CARGO_TARGET_DIR="$work/rt-target" cargo clean -q -p def-runtime
  timed env CARGO_TARGET_DIR="$work/rt-target" cargo build -q -p def-runtime --all-features
}

crate_once() {
  local name="$1"
  shift
  (cd "$work/$name" && CARGO_TARGET_DIR="$work/$name-target" cargo clean -q -p tera-protocol-387463)
  (cd "$work/$name" && timed env CARGO_TARGET_DIR="$work/$name-target" cargo build -q "$@")
}

# Dependencies first (not timed).
CARGO_TARGET_DIR="$work/rt-target" cargo build -q -p def-runtime --all-features
for c in newest twenty; do (cd "$work/$c" && CARGO_TARGET_DIR="$work/$c-target" cargo build -q); done
(cd "$work/history" && CARGO_TARGET_DIR="$work/history-target" cargo build -q --features history)

printf '%-8s %-5s %10s %9s %12s %10s\n' crate round "cpu s" "peak MB" "runtime cpu" "ratio"
for r in $(seq "$rounds"); do
  for c in newest twenty history; do
    features=()
    [ "$c" = history ] && features=(--features history)
    read -r cpu peak < <(crate_once "$c" "${features[@]}")
    read -r rcpu _ < <(runtime_once)
    printf '%-8s %-5s %10s %9s %12s %10s\n' "$c" "$r" "$cpu" "$peak" "$rcpu" \
      "$(awk -v a="$cpu" -v b="$rcpu" 'BEGIN { printf "%.2f", a / b }')"
  done
done
