#!/usr/bin/env bash
# The ping-pong's turns carried across items (knob pingpong_handoff=last_turn, `_ho`) on the persistent D=128 kernels,
# and the persistent kernel with the 24-register producer: does either close the persistent kernel's gap to the
# one-item-a-CTA kernel at N8192 D128 (0.96-0.97; ../2026-12-06_h100_turn_cycle: equal tensor work, 2.2% more active
# cycles, its extra warp samples on the turns' waits)? (about 4 minutes; each later step guarded by the time left)
# 1. The tier: each `_ho` kernel bitwise its base; the 24-register producer's kernel bitwise the 40-register one; the
#    dynamic `_ho` kernel with the key split against the bound.
# 2. B2 H16 N8192 D128: one item a CTA -> persistent static; persistent -> `_ho`; -> 24-register producer; dynamic ->
#    `_ho`; the one-item kernel -> its `_ho` (a control: one item, the same turns); one item a CTA -> persistent `_ho`.
# 3. B1 H16 N32768 D128: the dynamic `_ho` kernel with the key split against the one-item kernel and cuDNN.
# 4. B4 H16 N4096 D128 bf16: one item a CTA -> persistent `_ho`. 5. ncu of the persistent `_ho` kernel at N8192 D128.
# Predicted: `_ho` 1.003-1.01 on the persistent kernels (warpgroup 1's epilogue off warpgroup 0's path, ~0.5 us an
# item of ~100 us), 0.999-1.001 on the one-item kernel; the 24-register producer 0.98-0.995 (it spills 100 B); the
# persistent kernels stay 0.97-0.98 of the one-item kernel.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_pingpong_handoff/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null; }
KS=ws_op_lazy_qp_w_ot_pr_pk_dm
K1=ws_op_lazy_w_oq_pk_dm
{ time timeout 110 python3 $S /tmp/w/tier --plan tier --only ${KS}_ho --only ${KS}_dy_sd_ho --only ${K1}_ho --only $KS \
    --only ${KS}_dy_sd_ho_lr; echo "exit $?"; } > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt; save
{ time timeout 130 python3 $S /tmp/w/m8k --plan margins --shape "B2 H16 N8192 D128 fp16" --aa ${KS}_ho \
    --move "$K1>$KS" --move "$KS>${KS}_ho" --move "$KS>ws_op_lazy_qp_w_ot_pk_dm" --move "${KS}_dy_sd>${KS}_dy_sd_ho" \
    --move "$K1>${K1}_ho" --move "$K1>${KS}_ho" --move "cudnn>$K1"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins.txt | grep -v warmup; save
if [ $SECONDS -lt 230 ]; then
  { time timeout 80 python3 $S /tmp/w/m32k --plan margins --shape "B1 H16 N32768 D128 fp16" \
      --move "$K1>${KS}_dy_sd_ho_lr" --move "cudnn>${KS}_dy_sd_ho_lr" --move "${KS}_dy_sd_lr>${KS}_dy_sd_ho_lr"
    echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B1|exit" $OUT/margins.txt | grep -v warmup | tail -4; save
fi
if [ $SECONDS -lt 280 ]; then
  { time timeout 60 python3 $S /tmp/w/m4k --plan margins --shape "B4 H16 N4096 D128 bf16" --move "$K1>${KS}_ho"
    echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B4|exit" $OUT/margins.txt | grep -v warmup | tail -2; save
fi
if [ $SECONDS -lt 320 ]; then
  { time timeout 60 python3 scripts/device_anatomy.py /tmp/an --shape "B2 H16 N8192 D128 fp16=${KS}_ho"; echo "exit $?"; } \
    > $OUT/anatomy.txt 2>&1
  cp /tmp/an/anatomy.json $OUT/ 2>/dev/null
  grep -E "ns, tensor|exit" $OUT/anatomy.txt | cut -c1-200
fi
echo "total $SECONDS s"
