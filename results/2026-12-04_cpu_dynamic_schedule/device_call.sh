#!/usr/bin/env bash
# The device call that measures schedule=dynamic and kv_l2_hint=evict_last (written on the CPU, not yet run; about 9
# minutes):
# 1. the tier of the four dynamic kernels of scripts/device_suite.py (DYN, `_dy`), each in a bitwise pair with its static
#    build (the same items, each on whichever CTA claims it), and of the final's dynamic build in launch order (LO), over
#    the tier's configurations; and of the three `_kh` kernels (KH: the K/V loads evict-last), each bitwise its own base;
# 2. margins at B16 H16 N512 D64 fp16 (the suite's one shape below cuDNN): the agent's final and the suite's kernel
#    (P packed mid-wait), each against its dynamic build, the two-consumer kernel (BR 128: 1024 equal items) against its
#    own, the final against its dynamic build in launch order (a head's tiles together: its K/V read once), SDPA cuDNN
#    against each dynamic build; the final against its evict-last build; the final's A/A null in three fresh processes;
# 3. ncu of the final, its two dynamic builds and its evict-last build, each beside cuDNN at N512 (busiest, average and idlest SM; elapsed
#    cycles, and of them those after the busiest SM ends: whether a late-starting CTA taking fewer items shortens them;
#    DRAM bytes read);
# 4. margins at causal B2 H16 N8192 D128 fp16: the persistent kernel (heaviest first in place), its snaking build and the
#    suite's one-item-a-CTA kernel there, each against the dynamic build; cuDNN against it;
# 5. while time is left, causal B8 H32/8 N1024 D128 bf16 (short causal prefill) the same way, and each of the two
#    causal kernels against its evict-last build (ncu read 152 MB of DRAM there against cuDNN's 100).
# Usage: SOURCE=<commit> bash results/2026-12-04_cpu_dynamic_schedule/device_call.sh   (carry .whl)
#        MORE_ONLY=1 runs parts 4-5 alone (a second call, where the first ran out of time before them)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/dyn; mkdir -p $W
A=ws3_lazy_qp_hf_ot_ts_s3; S=ws3_lazy_qp_hf_ot_pm_ts_s3; T2=ws_op_lazy_qp_ot_pr; LO=ws3_lazy_qp_ot_ts_s3_dy
C=ws_op_lazy_qp_hf_w_ot_pr_pk; CB=ws_op_lazy_hf_w_oq_pk  # causal: the persistent kernel, and the suite's best there
run() { echo "\$ $*"; local t=$SECONDS; timeout ${LIMIT:-230} "$@"; echo "exit $? in $((SECONDS - t)) s"; }
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
if [ -z "$MORE_ONLY" ]; then
LIMIT=300 run python3 scripts/device_suite.py $W/tier --plan tier --only ${A}_dy --only ${S}_dy --only ${T2}_dy --only ${C}_dy \
  --only $LO --only ${A}_kh --only ${C}_kh --only ${CB}_kh > $OUT/tier.txt 2>&1
tail -6 $OUT/tier.txt
m n512 --shape "B16 H16 N512 D64 fp16" --aa $A --move $A\>${A}_dy --move $S\>${S}_dy --move $T2\>${T2}_dy \
  --move $A\>$LO --move $A\>${A}_kh --move cudnn\>$A --move cudnn\>${A}_dy --move cudnn\>${S}_dy --move cudnn\>$LO
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
{ time timeout 180 python3 scripts/device_anatomy.py $W/an --shape "B16 H16 N512 D64 fp16=$A" \
  --shape "B16 H16 N512 D64 fp16=${A}_dy" --shape "B16 H16 N512 D64 fp16=$LO" \
  --shape "B16 H16 N512 D64 fp16=${A}_kh"; echo "exit $?"; } \
  > $OUT/anatomy.txt 2>&1
tail -12 $OUT/anatomy.txt
fi
more() { [ $SECONDS -lt 440 ] && m "$@" || echo "$1: not run, $SECONDS s elapsed"; }
more causal8k --shape "B2 H16 N8192 D128 fp16 causal" --aa $C --move $C\>${C}_dy --move ${C}_sn\>${C}_dy \
  --move $CB\>${C}_dy --move cudnn\>${C}_dy
more causal_gqa --shape "B8 H32 N1024 D128 bf16 causal Hkv8" --move $C\>${C}_dy --move $CB\>${C}_dy --move cudnn\>${C}_dy \
  --move $C\>${C}_kh --move $CB\>${CB}_kh
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup | tail -12
tar czf $OUT/json.tgz -C $W --exclude=an . 2>/dev/null
[ -d $W/an ] && tar czf $OUT/an.tgz -C $W --exclude='*.ncu-rep' an
echo "total $SECONDS s"
