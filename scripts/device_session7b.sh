#!/usr/bin/env bash
# Session 7b (ran in session 7: results/2026-11-30_h200_session7/s7b/, README there): one call on nvidia-h200, carrying .whl
# (scripts/fetch_wheels.sh fills it), at most BUDGET (215) s from its first line to the last step's end:
#   device tool `run`: command "bash scripts/device_session7b.sh", kind nvidia-h200, carry [".whl"], timeout_s 270
# 1. The Hopper tier on the kv_release configurations only (--only kv_release=): last_warp, producer with its
#    empty-mbarrier wait (new), producer + pingpong (new); 11 configurations and their partners, 19 libraries,
#    15 bitwise pairs (each against its cp.async build, and each pingpong build against its pingpong=off build).
#    A hang in the new barrier code is killed at the step's timeout and the screens are skipped.
# 2. If the tier passed (exit 0 and "failures: 0"): a paired screen (agent v4) from the measured kernel (TMA
#    t128x64w8, two stages, lazy rescale, fused softmax) with every lever but producer_warpgroup excluded:
#    the empty-mbarrier producer against kv_release=barrier (the spinning form measured 0.72x / 0.80x).
# 3. A screen from the same kernel with kv_release=producer, every lever but pingpong excluded: pingpong on
#    against off. --strategy ladder: the lever is since=5 and agent v4 never proposes it (the ladder reads the
#    catalog without a version); a move producer+pingpong in one step is not in the catalog.
# Each step runs under `timeout` (its cap or the time left to the deadline, SIGKILL 5 s after SIGTERM; the tool's
# workers die with their parent) and is not started with under 45 s left. Expected (session 7's figures): tier
# ~35 s (43 libraries built in 15 s there), a one-lever screen ~80 s (seed ~20 s, A/A null ~37 s, the lever
# ~10-20 s, SDPA comparator ~8 s); a screen cut at its cap keeps every experiment it finished (one transaction
# each). Everything lands in $OUT/s7b: each step's output (.txt), databases with their artifacts (recordings).
set -uo pipefail
T0=$(date +%s); DEADLINE=$(( T0 + ${BUDGET:-215} ))
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200
R=$OUT/s7b; mkdir -p $R; cp scripts/device_session7b.sh $R/device_session7b.sh.as_run
step() {  # step NAME CAP CMD...: CMD under timeout (CAP, or less if the deadline is nearer) into $R/NAME.txt
  local name=$1 cap=$2; shift 2
  local left=$(( DEADLINE - $(date +%s) ))
  [ $left -lt $cap ] && cap=$left
  if [ $cap -lt 45 ]; then echo "# not started: ${left}s left" > $R/$name.txt; return 125; fi
  local t0=$(date +%s.%N) rc
  { echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"
    echo "\$ $*   (timeout ${cap}s)"
    timeout -k 5 $cap "$@"; rc=$?
    echo "# exit $rc at $(date -u +%FT%TZ)"; } > $R/$name.txt 2>&1
  echo "$t0 $(date +%s.%N)" > $R/$name.time
  return $rc
}
# every lever of the catalog but $1, as --exclude-lever options
only() { python3 -c "from agent.levers import CATALOG; print(' '.join('--exclude-lever ' + lv.name for lv in CATALOG if lv.name != '$1'))"; }
SEED="--seed-knob compute=wgmma --seed-knob layout=sw128 --seed-knob staging=tma --seed-knob exp=ex2 --seed-knob q_in=smem
--seed-knob br=128 --seed-knob warps=8 --seed-knob bc=64 --seed-knob kv_stages=2 --seed-knob rescale_skip=on
--seed-knob rescale_lazy=on --seed-knob softmax=fused"
SCREEN="--seqlen 8192 --screen --no-profile --time-budget 1.5 --budget 1"

step hopper_tier 70 python3 scripts/device_ladder.py $R/tier --hopper --only kv_release=
rc=$?
if [ $rc -eq 0 ] && grep -q "^failures: 0$" $R/hopper_tier.txt; then
  step producer_screen 90 python3 -m agent run $SEED $SCREEN $(only producer_warpgroup) --db $R/producer_screen.db
  # the producer measured (an outcome line under its experiment): its kernel is the next screen's seed. Not
  # measured when the step ran out of time, or measured as a crash or a hang: the seed would hang again
  if grep -qE "^  (KEPT|SLOWER|NULL|WRONG|COMPILE_FAIL|RESOURCE_FAIL|BLOCKED_BY_ARITHMETIC|SUSPICIOUS) " $R/producer_screen.txt; then
    step pingpong_screen 90 python3 -m agent run $SEED --seed-knob kv_release=producer --strategy ladder $SCREEN \
      $(only pingpong) --db $R/pingpong_screen.db
  else
    echo "# producer_warpgroup has no outcome at N8192 (or crashed, or hung): no pingpong screen" > $R/pingpong_skipped.txt
  fi
else
  echo "# the tier did not pass (exit $rc): no screens" > $R/screens_skipped.txt
fi
echo "# total $(( $(date +%s) - T0 )) s"
for f in $R/*.txt; do echo "== $f"; cat $f; done
# one archive: the device tool returns a bounded number of files and folders of bounded depth (the run in
# session 7 lost producer_screen.txt, the tier's json and both recordings to that)
tar -C $OUT -czf $OUT/s7b.tgz s7b && rm -rf $R
