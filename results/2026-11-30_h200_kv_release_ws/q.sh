. /tmp/w/s7/env.sh
{ one 1796066274 0 baseline_tma_t128 python3 -m agent baseline --backend flash --backend cudnn --db /tmp/w/s7/baseline_tma_t128.db
  mkdir -p /tmp/w/s7/faults_out && FAULTS_W=/tmp/w/s7/faults OUT=/tmp/w/s7/faults_out PHASES="build ref kills" TOTAL=$(( 1796066274 - $(date +%s) - 20 )) one 1796066274 0 faults bash scripts/device_faults.sh
  CACHE=/tmp/facache_dask one 1796066794 0 dask_warm python3 -m agent run --seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2  --seqlen 8192 --screen --no-profile --time-budget 1.5  --budget 1 --db /tmp/w/s7/dask_warm.db
  CACHE=/tmp/facache_dask one 1796066794 0 dask_one_gpu python3 -m agent run --seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2  --seqlen 8192 --screen --no-profile --time-budget 1.5  --budget 24 --db /tmp/w/s7/dask_one_gpu.db; } > /tmp/w/s7/q0.log 2>&1 &
{ one 1796066274 1 hopper_tier python3 scripts/device_ladder.py /tmp/w/s7/tier --hopper
  one 1796066274 1 naive_n8192 python3 -m agent run --seqlen 8192 --budget 20 --time-budget 1.5 --db /tmp/w/s7/naive_n8192.db
  one 1796066794 1 naive_n8192_resumed python3 -m agent run --resume --db /tmp/w/s7/naive_n8192.db
  one 1796066794 1 arm_screen python3 -m agent run --seed-knob compute=wgmma --seed-knob layout=sw128 --seed-knob staging=cp_async --seed-knob exp=ex2 --seed-knob q_in=smem --seed-knob br=64 --seed-knob warps=4 --seed-knob bc=64 --seed-knob kv_stages=2 --seed-knob br=128 --seed-knob warps=8 --seed-knob staging=tma --seed-knob rescale_skip=on --seed-knob rescale_lazy=on  --seqlen 8192 --screen --no-profile --budget 14 --time-budget 1.5 --db /tmp/w/s7/arm_screen.db
  one 1796066794 1 release_t128_n8192 python3 -m agent run --seed-knob compute=wgmma --seed-knob layout=sw128 --seed-knob staging=cp_async --seed-knob exp=ex2 --seed-knob q_in=smem --seed-knob br=64 --seed-knob warps=4 --seed-knob bc=64 --seed-knob kv_stages=2 --seed-knob br=128 --seed-knob warps=8 --seed-knob staging=tma --seed-knob rescale_skip=on --seed-knob rescale_lazy=on  --seqlen 8192 --budget 3 --time-budget 1.5 --db /tmp/w/s7/release_t128_n8192.db; } > /tmp/w/s7/q1.log 2>&1 &
wait
CACHE=/tmp/facache_dask one 1796067094 0,1 dask_two_gpus python3 -m agent run --seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2  --seqlen 8192 --screen --no-profile --time-budget 1.5  --budget 24 --gpus 2 --db /tmp/w/s7/dask_two_gpus.db
touch /tmp/w/s7/q.done
