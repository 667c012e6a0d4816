#!/usr/bin/env bash
# Issue 8's proof: from the naive seed, on fresh databases, the same budget for each strategy at one
# problem, two GPUs of one host at a time (each run's pairs stay on its own GPU; each run measures
# its own A/A nulls there). Usage (device tool, kind nvidia-h200-x2, carrying .whl):
#   bash results/2026-11-30_h200_agent_vs_random/device_strategies.sh n8192     agent | random, then tpe; then A/A decisions on the agent's final kernel
#   bash results/2026-11-30_h200_agent_vs_random/device_strategies.sh c16384    agent | random at B2 H16 N16384 D128 bf16 causal
# Everything lands under $OUT/<problem>/ (one .tgz of databases and artifacts, the printed runs).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200
P=$1; LIMIT=${LIMIT:-530}; BUDGET=${BUDGET:-20}
case $P in
  n8192) SHAPE="--seqlen 8192" ;;
  c16384) SHAPE="--seqlen 16384 --dtype bfloat16 --causal" ;;
  *) echo "unknown problem $P"; exit 2 ;;
esac
W=/tmp/w/$P; R=$OUT/$P; mkdir -p $W $R
T0=$(date +%s)
one() {  # one() GPU NAME ARGS...: a run on one GPU, its own build cache, its own database
  local gpu=$1 name=$2; shift 2
  local left=$(( LIMIT - ($(date +%s) - T0) ))
  {
    echo "# $(date -u +%FT%TZ) on GPU $gpu: $(nvidia-smi -i $gpu --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"
    echo "\$ python3 -m agent $* --db $W/$name.db   (CUDA_VISIBLE_DEVICES=$gpu, timeout ${left}s)"
    CUDA_VISIBLE_DEVICES=$gpu FA5090_CACHE=/tmp/facache$gpu timeout $left python3 -m agent "$@" --db $W/$name.db
    echo "# exit $? at $(date -u +%FT%TZ)"
  } > $W/$name.txt 2>&1
}
COMMON="$SHAPE --budget $BUDGET --time-budget 1.5"
one 0 agent run $COMMON --strategy agent &
A=$!
if [ $P = n8192 ]; then
  ( one 1 random run $COMMON --strategy random --no-profile; one 1 tpe run $COMMON --strategy tpe --no-profile ) &
else
  ( one 1 random run $COMMON --strategy random --no-profile ) &
fi
B=$!
wait $A
if [ $P = n8192 ]; then  # false-KEPT and false-SLOWER rates of A/A decisions on the agent's final kernel
  FINAL=$(python3 - $W/agent.db <<'EOF'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("select knobs from experiments where outcome='KEPT' order by id").fetchall()
k = json.loads(rows[-1][0]) if rows else json.loads(c.execute("select seed_knobs from runs").fetchone()[0])
print(" ".join(f"--knob {a}={b}" for a, b in k.items()))
EOF
)
  one 0 aa_final calibrate $FINAL $SHAPE --repeats 5 --keep-trials 10 --time-budget 1.5
fi
wait $B
for n in agent random tpe aa_final; do
  [ -f $W/$n.db ] || continue
  python3 -m agent history --json --db $W/$n.db > $W/${n}_history.json 2>/dev/null
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $W/$n.db
done
rm -f $W/*.db-wal $W/*.db-shm
tar -C /tmp/w -czf $R/$P.tgz $P
cp $W/*.txt $R/
ls -la $R
for n in agent random tpe; do [ -f $W/$n.txt ] && { echo "== $n"; grep -E "^#[0-9]|KEPT|SDPA flash|stopped|predictions|A/A null margins" $W/$n.txt | cut -c1-220 | tail -40; }; done
[ -f $W/aa_final.txt ] && { echo "== aa_final"; tail -15 $W/aa_final.txt; }
