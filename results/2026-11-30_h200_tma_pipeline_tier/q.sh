. /tmp/w/s6/env.sh
bash /tmp/w/s6/q0.sh > /tmp/w/s6/q0.log 2>&1 &
bash /tmp/w/s6/q1.sh > /tmp/w/s6/q1.log 2>&1 &
wait
CACHE=/tmp/facache_dask one 1796057245 0,1 dask_two_gpus python3 -m agent run --seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2  --seqlen 8192 --screen --no-profile --time-budget 1.5 --budget 30 --gpus 2 --db /tmp/w/s6/dask_two_gpus.db
CACHE=/tmp/facache_dask one 1796057245 0,1 random_two_gpus python3 -m agent run --seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2  --seqlen 8192 --strategy random --no-profile --budget 6 --time-budget 1.5 --gpus 2 --db /tmp/w/s6/random_two_gpus.db
touch /tmp/w/s6/q.done
