#!/usr/bin/env bash
# The device call that measures the order of the persistent schedule's rounds (written on the CPU, not yet run): the
# tier of the new kernels of scripts/device_suite.py (TR at D=64, each a bitwise pair with ws3_lazy_qp_ot_pm; the
# snaking D=128 kernel with ws_op_lazy_qp_hf_w_ot_pr_pk: the same items in another order), the margins (each move
# against the kernel without it and against SDPA cuDNN, the compared kernel's A/A null in three fresh processes) at
# B16 N512 D64 (turned or heaviest first, with the idle tail warpgroup), B8 N2048 D64 GQA (11 tiles a head, 132 = 12 x 11:
# aliased too, a smaller gain predicted), B2 N8192 D64 (43 tiles: not aliased, predicted null) and causal B2 N8192 D128
# (snake: heaviest first evened out), causal B2 N4096 D64 (the three-warpgroup snake against the one-item-a-CTA
# best); ncu of the turned and snaking kernels beside cuDNN at N512 D64 (the busiest and idlest SM against
# schedule_model.txt's prediction) comes right after the N512 margins, the other shapes while time is left.
# Usage: SOURCE=<commit> bash results/2026-12-03_cpu_round_order/device_call.sh   (about 9 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/ro; mkdir -p $W
P=ws3_lazy_qp_ot_pm; HF=ws3_lazy_qp_hf_ot_pm; TR=ws3_lazy_qp_ot_pm_tr; SN=ws3_lazy_qp_hf_ot_pm_sn_ts
C=ws_op_lazy_qp_hf_w_ot_pr_pk; CB=ws_op_lazy_hf_w_oq_pk  # causal: the persistent kernel, and the suite's best there
ONLY=$(for n in $HF ${HF}_ts $TR ${TR}_ts $SN ${C}_sn; do printf -- "--only %s " $n; done)
run() { echo "\$ $*"; local t=$SECONDS; timeout 170 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier $ONLY > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
m n512 --shape "B16 H16 N512 D64 fp16" --aa $P --move $P\>${P}_ts --move $P\>${TR}_ts --move $P\>${HF}_ts \
  --move $P\>$SN --move $P\>$TR --move cudnn\>$P --move cudnn\>${TR}_ts --move cudnn\>${HF}_ts
# ncu at N512 D64 next (the model's check: the busiest and idlest SM), then the other shapes while time is left
run python3 scripts/device_anatomy.py $W/an --shape "B16 H16 N512 D64 fp16=${TR}_ts" \
  --shape "B16 H16 N512 D64 fp16=$SN" > $OUT/anatomy.txt 2>&1
tail -8 $OUT/anatomy.txt
more() { [ $SECONDS -lt 420 ] && m "$@" || echo "$1: not run, $SECONDS s elapsed"; }
more causal8k --shape "B2 H16 N8192 D128 fp16 causal" --aa $C --move $C\>${C}_sn --move $CB\>${C}_sn --move $CB\>$C \
  --move cudnn\>${C}_sn --move cudnn\>$CB
more gqa64 --shape "B8 H16 N2048 D64 fp16 Hkv4" --aa $P --move $P\>${TR}_ts --move $P\>${HF}_ts --move cudnn\>${TR}_ts
# causal D=64 on three warpgroups: the persistent kernel, snaking (in place the model puts its busiest CTA 15% above the
# average) against the suite's one-item-a-CTA best there (the hardware's dispatch balances it)
more causal64 --shape "B2 H16 N4096 D64 bf16 causal" --aa ws3_lazy_hf_oq_pm --move ws3_lazy_hf_oq_pm\>$SN \
  --move cudnn\>$SN --move cudnn\>ws3_lazy_hf_oq_pm
more n8k64 --shape "B2 H16 N8192 D64 fp16" --aa $P --move $P\>$TR --move $P\>${TR}_ts
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
tar czf $OUT/json.tgz -C $W --exclude=an .
[ -d $W/an ] && tar czf $OUT/an.tgz -C $W --exclude='*.ncu-rep' an
echo "total $SECONDS s"
