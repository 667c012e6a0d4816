export PYTHONPATH=/tmp/site:/tmp/w/s9/src PYTHONUNBUFFERED=1 COLUMNS=200
cd /tmp/w/s9/src
T0=1796082142
one() {  # one DEADLINE GPUS NAME CMD...: one step on those GPUs, its own database, killed at the deadline
  local dl=$1 gpus=$2 name=$3; shift 3; local left=$(( dl - $(date +%s) ))
  [ $left -gt 45 ] || { echo "# not started: ${left}s left" > /tmp/w/s9/$name.txt; return; }
  { echo "# $(date -u +%FT%TZ) on GPU(s) $gpus: $(nvidia-smi -i $gpus --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tr '\n' ';')"
    echo "\$ $*   (CUDA_VISIBLE_DEVICES=$gpus, timeout ${left}s)"
    local t0=$(date +%s.%N)
    CUDA_VISIBLE_DEVICES=$gpus FA5090_CACHE=${CACHE:-/tmp/facache${gpus//,/}} timeout $left "$@"
    local rc=$?; echo "$t0 $(date +%s.%N)" > /tmp/w/s9/$name.time
    echo "# exit $rc at $(date -u +%FT%TZ)"; } > /tmp/w/s9/$name.txt 2>&1
}
