#!/usr/bin/env bash
# The machine breaks under a running search, for real: `run` starts with /tmp/brk first on PYTHONPATH (empty), and
# once BREAK_AFTER experiments are in its database a torch package that raises ImportError is written there, so
# every new worker process fails to load torch while the run's own process keeps the torch it loaded. Expected:
# after two CRASH/TIMEOUT in a row the run re-checks its best in a fresh process, that fails too, and it stops
# `interrupted` naming what failed, with the streak uncounted. Then the machine is mended (the package removed)
# and `run --resume` finishes the run. Usage: broken_env.sh OUT_DIR (PYTHONPATH as the device README sets it)
OUT_DIR=$1; BREAK_AFTER=${BREAK_AFTER:-3}
DB=/tmp/streak/streak.db; mkdir -p /tmp/streak /tmp/brk; rm -rf /tmp/brk/torch
export PYTHONPATH=/tmp/brk:$PYTHONPATH
ARGS="--budget 8 --seqlen 1024 --aa-repeats 2 --db $DB"
echo "python3 -m agent run $ARGS   (PYTHONPATH=$PYTHONPATH)" > $OUT_DIR/run_broken.txt
( time timeout 170 python3 -m agent run $ARGS ) >> $OUT_DIR/run_broken.txt 2>&1 &
PID=$!
count() { python3 - "$DB" <<'PY' 2>/dev/null || echo 0
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(c.execute("select count(*) from experiments where kind in ('lever', 'rescreen', 'compound', 'sample') and outcome is not null").fetchone()[0])
PY
}
while kill -0 $PID 2>/dev/null; do
  n=$(count); [ "${n:-0}" -ge "$BREAK_AFTER" ] && break; sleep 2
done
mkdir -p /tmp/brk/torch
echo 'raise ImportError("torch cannot be loaded: this machine was broken on purpose under a running search")' > /tmp/brk/torch/__init__.py
echo "broken at $(date -u +%T) after $(count) experiments" | tee $OUT_DIR/broke_at.txt
wait $PID; echo "exit $?" >> $OUT_DIR/run_broken.txt
rm -rf /tmp/brk/torch; echo "mended at $(date -u +%T)" >> $OUT_DIR/broke_at.txt
python3 -m agent history --db $DB > $OUT_DIR/history_interrupted.txt 2>&1
echo "python3 -m agent run --resume --db $DB" > $OUT_DIR/run_resumed.txt
( time timeout 200 python3 -m agent run --resume --db $DB ) >> $OUT_DIR/run_resumed.txt 2>&1; echo "exit $?" >> $OUT_DIR/run_resumed.txt
python3 -m agent history --db $DB > $OUT_DIR/history_resumed.txt 2>&1
# the database with its write-ahead log folded in (a plain cp of the main file leaves the WAL's pages behind)
python3 -c "import sqlite3; sqlite3.connect('$DB').backup(sqlite3.connect('$OUT_DIR/streak.db'))"
