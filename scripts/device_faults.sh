#!/usr/bin/env bash
# The fault battery on the GPU, in one device call (kind nvidia-h200, carrying .whl from
# scripts/fetch_wheels.sh). In order, each a phase of scripts/device_faults.py (its docstring says more):
#   build            the run's seed and the fault libraries (one ninja call, into FA5090_CACHE)
#   illegal_address  DEF_ILLEGAL_ADDRESS through the search's own evaluation (Lab.evaluate_libraries):
#                    expected CRASH, then the next candidate measured in a fresh worker
#   side_stream      DEF_SIDE_STREAM the same way: expected WRONG or SUSPICIOUS, then the next candidate
#   ref              the run uninterrupted: run --seqlen 2048 --budget 2 --aa-repeats 3 --no-profile
#                    --time-budget 0.5 --seed-knob compute=mma --seed-knob staging=cp_async --db ref.db
#                    (--budget 6 with 5-process nulls in the first battery: its 241 s reference left room for no kill)
#   kills            the same run in a fresh database, SIGKILLed (its whole process group, setsid) at seeded
#                    random moments (each cycle: with probability 1/3 wait for the run's next finished row,
#                    then a delay uniform in 0.5-8 s), `run --resume`d after each, 20 kills, then resumed to its end;
#                    planned first (kills.json "plan": how many kills fit before the final resume, and why; the
#                    final resume is reserved the reference's time less its builds, for the rows left)
#                    after each kill integrity_check, the rows, `history`, processes and GPU apps left
#                    behind; then its keeps and outcomes against the uninterrupted run's
#   hang             DEF_HANG with the worker deadline the tool uses (Lab._timeout, 151.5 s here) when it
#                    fits before the deadline, else shortened to what fits (said in its row; not run under
#                    45 s): expected TIMEOUT, the GPU freed, then the next candidate
# Each phase gets what is left of the call (TOTAL s, less 20 for packing) and stops at that deadline;
# a summary always follows. Everything lands in $OUT/faults/: faults.tgz (the work directory: databases
# and their artifacts, printed runs, the history after each kill, each phase's JSON record and log,
# commands.txt, the scripts as run), summary.txt (header lines, then a markdown table: fault | expected |
# observed | PASS/FAIL/NOT RUN/INFO) and phases.txt (each phase's exit and seconds).
#   bash scripts/device_faults.sh                                (one call, about 540 s)
#   PHASES="build ref kills" TOTAL=560 bash scripts/device_faults.sh  (the kills alone: ~140 s reference, then
#                    20 kills and the final resume planned at ~380 s of ~385 s left; estimated, see device_faults.py)
#   PHASES="build hang" TOTAL=300 bash scripts/device_faults.sh  (a second call for a phase that did not fit)
# Environment: TOTAL (540), PHASES, FAULTS_RUN_ARGS, KILLS (20), KILL_SEED (11), KILL_MIN / KILL_MAX (0.5 / 8 s),
# KILL_AFTER_ROW_P (0.33), HANG_TIMEOUT (`tool` or seconds), FAULTS_W (/tmp/w/faults), FAULTS_AGENT (a dry run's
# stand-in for `python3 -m agent`).
# Run on an H200: results/2026-11-30_h200_tma_pipeline_tier (the kill phase made no kill there: its plan is new since),
# results/2026-11-30_h200_kv_release_ws (20 kills, then resume).
set -uo pipefail
T0=$(date +%s); TOTAL=${TOTAL:-540}; DEADLINE=$((T0 + TOTAL - ${PACK_S:-20}))
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=${FA5090_CACHE:-/tmp/facache}
# every process the battery starts carries the tag (a killed run's orphaned workers too): how it finds its own
export FAULTS_TAG=device_faults-$$-$T0 KILL_MIN=${KILL_MIN:-0.5} KILL_MAX=${KILL_MAX:-8} KILLS=${KILLS:-20}
export KILL_AFTER_ROW_P=${KILL_AFTER_ROW_P:-0.33}
PHASES=${PHASES:-build illegal_address side_stream ref kills hang}
W=${FAULTS_W:-/tmp/w/faults}; R=$OUT/faults
rm -rf $W; mkdir -p $W $R
cp scripts/device_faults.sh $W/device_faults.sh.as_run; cp scripts/device_faults.py $W/device_faults.py.as_run
{ echo "# $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"
  echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git status --porcelain 2>/dev/null | grep -q . && echo ', with uncommitted changes')"
  echo "# TOTAL=$TOTAL PHASES=\"$PHASES\" KILLS=$KILLS KILL_SEED=${KILL_SEED:-11} after-row p $KILL_AFTER_ROW_P, delays ${KILL_MIN}-${KILL_MAX} s HANG_TIMEOUT=${HANG_TIMEOUT:-tool}"
} > $W/header.txt
cat $W/header.txt
for phase in $PHASES; do
  left=$((DEADLINE - $(date +%s)))
  if [ $left -lt 15 ]; then echo "# $phase: not started, $left s left" | tee -a $W/phases.txt; continue; fi
  t=$(date +%s)
  echo "== $phase ($left s left)"
  timeout -k 10 $left python3 scripts/device_faults.py $phase $W --deadline $DEADLINE 2>&1 | tee -a $W/$phase.log
  echo "# $phase: exit ${PIPESTATUS[0]} after $(( $(date +%s) - t )) s" | tee -a $W/phases.txt
done
python3 scripts/device_faults.py summary $W > /dev/null 2> $W/summary.err  # always, from what the phases left
# pack: each database's WAL folded into it (nothing writes them now), then one archive
for f in $W/*.db; do
  [ -f "$f" ] && python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $f
done
rm -f $W/*.db-wal $W/*.db-shm
echo "# packed $(( $(date +%s) - T0 )) s after the start" | tee -a $W/phases.txt
tar -C $(dirname $W) -czf $R/faults.tgz $(basename $W)
cp $W/summary.txt $W/phases.txt $R/ 2>/dev/null
cat $R/summary.txt 2>/dev/null || cat $W/summary.err
ls -la $R
