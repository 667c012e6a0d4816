#!/usr/bin/env bash
# Searches longer than one device call (10 minutes): `start` launches one queue of runs per GPU in
# the background (setsid, so they outlive the call) and returns before the call's limit with what
# has been printed so far; `wait`, called at once after it on the same warm machine, waits for the
# queues and packs the databases, artifacts and printed runs under $OUT/long/.
#   bash scripts/device_long.sh start      (device tool, kind nvidia-h200-x2, carrying .whl)
#   bash scripts/device_long.sh wait
# Queues (QUEUES=strategies, the default, as run on 2026-11-30 for results/2026-11-30_h200_agent_vs_random): GPU 0: agent at B2 H16 N8192 D128 fp16,
#   then random at B2 H16 N16384 D128 bf16 causal, then A/A keep decisions on the agent's final
#   kernel; GPU 1: agent at N16384 bf16 causal.
# QUEUES=rest (what that call could not finish): GPU 0: random at N16384 bf16 causal, then A/A
#   keep decisions on the N8192 agent's final kernel (its knobs from the committed database);
#   GPU 1: TPE at N8192 fp16, then TPE at N16384 bf16 causal.
set -uo pipefail
W=/tmp/w/long; R=$OUT/long; mkdir -p $W $R
N8="--seqlen 8192"; C16="--seqlen 16384 --dtype bfloat16 --causal"; COMMON="--budget 20 --time-budget 1.5"
if [ "$1" = start ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
  cat > $W/env.sh <<EOF
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200
cd $PWD
DEADLINE=\$(( $(date +%s) + ${TOTAL:-1080} ))
one() {  # one GPU NAME ARGS...: a run on one GPU, its own build cache and database, killed at the deadline
  local gpu=\$1 name=\$2; shift 2; local left=\$(( DEADLINE - \$(date +%s) ))
  [ \$left -gt 60 ] || { echo "# not started: \${left}s left" > $W/\$name.txt; return; }
  { echo "# \$(date -u +%FT%TZ) on GPU \$gpu: \$(nvidia-smi -i \$gpu --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"
    echo "\\\$ python3 -m agent \$* --db $W/\$name.db   (CUDA_VISIBLE_DEVICES=\$gpu, timeout \${left}s)"
    CUDA_VISIBLE_DEVICES=\$gpu FA5090_CACHE=/tmp/facache\$gpu timeout \$left python3 -m agent "\$@" --db $W/\$name.db
    echo "# exit \$? at \$(date -u +%FT%TZ)"; } > $W/\$name.txt 2>&1
}
final_knobs() { python3 -c "
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
r = c.execute(\"select knobs from experiments where outcome='KEPT' and kind!='comparator' order by id\").fetchall()
print(' '.join(f'--knob {a}={b}' for a, b in json.loads(r[-1][0]).items()))" \$1; }
EOF
  if [ "${QUEUES:-strategies}" = rest ]; then
    cp results/2026-11-30_h200_agent_vs_random/n8192_agent.db $W/agent_n8192.db
    Q0="one 0 random_c16384 run $C16 $COMMON --strategy random --no-profile
one 0 aa_final_n8192 calibrate \$(final_knobs $W/agent_n8192.db) $N8 --repeats 5 --keep-trials 10 --time-budget 1.5"
    Q1="one 1 tpe_n8192 run $N8 $COMMON --strategy tpe --no-profile
one 1 tpe_c16384 run $C16 $COMMON --strategy tpe --no-profile"
  else
    Q0="one 0 agent_n8192 run $N8 $COMMON --strategy agent
one 0 random_c16384 run $C16 $COMMON --strategy random --no-profile
one 0 aa_final_n8192 calibrate \$(final_knobs $W/agent_n8192.db) $N8 --repeats 5 --keep-trials 8 --time-budget 1.5"
    Q1="one 1 agent_c16384 run $C16 $COMMON --strategy agent"
  fi
  printf '. %s/env.sh\n%s\ntouch %s/q0.done\n' "$W" "$Q0" "$W" > $W/q0.sh
  printf '. %s/env.sh\n%s\ntouch %s/q1.done\n' "$W" "$Q1" "$W" > $W/q1.sh
  setsid nohup bash $W/q0.sh > $W/q0.log 2>&1 < /dev/null &
  setsid nohup bash $W/q1.sh > $W/q1.log 2>&1 < /dev/null &
  sleep ${FIRST:-540}
  for f in $W/*.txt; do cp $f $R/; done
  for f in $W/*.txt; do echo "== $f"; grep -E "^#[0-9]|KEPT|SDPA|stopped" $f | cut -c1-160 | tail -12; done
  exit 0
fi
# wait: until both queues are done (or the call's own limit nears), then pack
export PYTHONPATH=/tmp/site:$PWD
for i in $(seq 1 ${WAITS:-110}); do [ -f $W/q0.done ] && [ -f $W/q1.done ] && break; sleep 5; done
for f in $W/*.db; do
  n=$(basename $f .db)
  python3 -m agent history --json --db $f > $W/${n}_history.json 2>/dev/null
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $f
done
rm -f $W/*.db-wal $W/*.db-shm
tar -C /tmp/w -czf $R/long.tgz long
cp $W/*.txt $R/ 2>/dev/null
ls -la $R
for f in $W/*.txt; do echo "== $f"; grep -E "^#[0-9]|KEPT|SDPA|stopped|predictions|false|decision" $f | cut -c1-200 | tail -30; done
