#!/usr/bin/env bash
# One device call of the race (agent vs random vs TPE, the same budget, timer and keep gate, each from the naive
# seed on a fresh database and a cold build cache): the given strategy:seed runs at one problem, one after another,
# each started only while 150 s of the call's 580 (or $LIMIT) remain and interrupted by SIGINT at the call's end (then
# `python3 -m agent run --resume --db ...` finishes it in the next call). Random and TPE read no profile.
# `sweep:N` instead: the ceiling, `python3 -m agent sweep --n N` of the same space at the problem (N uniform draws,
# each checked and paired against SDPA flash; --json into <name>_sweep_N.json).
# `resume:NAME` instead: finish run NAME (e.g. gqa_tpe_1) that an earlier call on this same, still warm machine
# interrupted, by `python3 -m agent run --resume --db /tmp/NAME/fa5090.db`, into NAME_resume.txt and NAME_db.tgz.
# TPE needs Optuna there: carry its wheel with colorlog's and tqdm's in .whl (all `import optuna` loads beside numpy).
# Usage: [LIMIT=<s>] SOURCE=<commit> bash race.sh NAME "RUN OPTIONS" STRATEGY:SEED [STRATEGY:SEED ...]
#   e.g. SOURCE=01f371b bash race.sh d128 "" random:1 random:2
#        SOURCE=01f371b bash race.sh d64 "--seqlen 8192 --head-dim 64" tpe:1 tpe:2
#        SOURCE=01f371b bash race.sh d128 "" sweep:60
#        SOURCE=417ae3c bash race.sh gqa "" resume:gqa_tpe_1 tpe:2 tpe:3   (the options are not read by resume)
name=$1; opts=$2; shift 2
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
for arm in "$@"; do
  st=${arm%%:*}; seed=${arm##*:}; left=$((${LIMIT:-580} - SECONDS)); run=${name}_${st}_${seed}
  if [ $left -lt 150 ]; then echo "$run: not started, $left s left"; continue; fi
  if [ "$st" = resume ]; then
    d=/tmp/$seed
    { date -u +%FT%TZ; echo "python3 -m agent run --resume --db $d/fa5090.db"
      time (cd $d && timeout -s INT $((left - 10)) python3 -m agent run --resume --db $d/fa5090.db)
      echo "exit $?"; date -u +%FT%TZ; } > $OUT/${seed}_resume.txt 2>&1
    tar czf $OUT/${seed}_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
    echo "$seed resumed: $(grep -E '^summary|^stopped' $OUT/${seed}_resume.txt | cut -c1-160 | tr '\n' ' ') $(grep real $OUT/${seed}_resume.txt)"
    continue
  fi
  if [ "$st" = sweep ]; then
    { date -u +%FT%TZ; echo "python3 -m agent sweep --n $seed --rng-seed 1 $opts --json"
      time timeout $((left - 10)) python3 -m agent sweep --n $seed --rng-seed 1 $opts --json > $OUT/$run.json
      echo "exit $?"; date -u +%FT%TZ; } > $OUT/$run.txt 2>&1
    echo "$run: $(python3 -c "import json,sys; r=[x for x in json.load(open(sys.argv[1])) if x.get('vs_sdpa')]; print(len(r), 'timed, best', max(x['vs_sdpa'] for x in r))" $OUT/$run.json 2>&1 | tail -1)"
    continue
  fi
  prof=""; [ "$st" != agent ] && prof=--no-profile
  d=/tmp/$run; mkdir -p $d
  { date -u +%FT%TZ; echo "python3 -m agent run --db $d/fa5090.db --budget 20 $opts --strategy $st --rng-seed $seed $prof"
    time (cd $d && timeout -s INT $((left - 10)) python3 -m agent run --db $d/fa5090.db --budget 20 $opts \
      --strategy $st --rng-seed $seed $prof)
    echo "exit $?"; date -u +%FT%TZ; } > $OUT/$run.txt 2>&1
  tar czf $OUT/${run}_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
  echo "$run: $(grep -E '^summary|^stopped' $OUT/$run.txt | cut -c1-160 | tr '\n' ' ') $(grep real $OUT/$run.txt)"
done
