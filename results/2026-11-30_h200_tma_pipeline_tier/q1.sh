. /tmp/w/s6/env.sh
one 1796056795 1 hopper_tier python3 scripts/device_ladder.py /tmp/w/s6/tier --hopper
CACHE=/tmp/facache_dask one 1796056795 1 dask_warm python3 -m agent run --seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2  --seqlen 8192 --screen --no-profile --time-budget 1.5 --budget 1 --db /tmp/w/s6/dask_warm.db
CACHE=/tmp/facache_dask one 1796056795 1 dask_one_gpu python3 -m agent run --seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2  --seqlen 8192 --screen --no-profile --time-budget 1.5 --budget 30 --db /tmp/w/s6/dask_one_gpu.db
one 1796056795 1 tma_c8192 python3 -m agent run --seed-knob compute=wgmma --seed-knob layout=sw128 --seed-knob staging=cp_async --seed-knob exp=ex2 --seed-knob q_in=smem --seed-knob br=64 --seed-knob warps=4 --seed-knob bc=64 --seed-knob kv_stages=2 --seed-knob staging=tma  --seqlen 8192 --causal --budget 8 --time-budget 1.5 --db /tmp/w/s6/tma_c8192.db
touch /tmp/w/s6/q1.done
