. /tmp/w/s6/env.sh
mkdir -p /tmp/w/s6/faults_out && FAULTS_W=/tmp/w/s6/faults OUT=/tmp/w/s6/faults_out one 1796056795 0 faults bash scripts/device_faults.sh
one 1796056795 0 wgmma_n8192 python3 -m agent run --seed-knob compute=wgmma --seed-knob layout=sw128 --seed-knob staging=cp_async --seed-knob exp=ex2 --seed-knob q_in=smem --seed-knob br=64 --seed-knob warps=4 --seed-knob bc=64 --seed-knob kv_stages=2  --seqlen 8192 --budget 14 --time-budget 1.5 --db /tmp/w/s6/wgmma_n8192.db
touch /tmp/w/s6/q0.done
