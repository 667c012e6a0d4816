. /tmp/w/s8c/env.sh
one 1796076725 0 v6_naive_n8192 python3 -m agent run --seqlen 8192 --budget 20 --exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring --time-budget 1.0 --db /tmp/w/s8c/v6_naive_n8192.db > /tmp/w/s8c/q0.log 2>&1 &
one 1796076725 1 random_naive_n8192 python3 -m agent run --strategy random --rng-seed 0 --seqlen 8192 --budget 20 --exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring --no-profile --time-budget 1.0 --db /tmp/w/s8c/random_naive_n8192.db > /tmp/w/s8c/q1.log 2>&1 &
wait
touch /tmp/w/s8c/q.done
