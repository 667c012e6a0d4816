"""A model of kv_release=producer's barriers with pingpong on or off, run under random schedules (no GPU).

It checks the protocol that the tensor-core mainloop's comments state (kernel_src/gemm_sm90.cuh, mainloop_mma.cuh), not the compiled code: each consumer warp and the
producer thread are programs of barrier operations in the order kernel_src/mainloop_mma.cuh issues them (the consumers' Q
barrier, warpgroup 1's arrival before an item's first turn, the pipeline's first QK^T, per block a K wait,
a QK^T turn, a V wait, a PV turn and the empty-barrier arrival; the producer's empty wait and fill per block;
the persistent grid's two CTA barriers per item). Named barriers complete when their thread count has
arrived (warp granularity) and start a new generation; mbarriers complete a phase per WARPS arrivals (empty)
or per fill (full, landing at a random later step). Every schedule must end with every program done (no
deadlock), no named barrier holding an arrival, every turn barrier's generation made of one warpgroup's 4
syncs and the other's 4 arrivals, and no mbarrier wait whose parity could alias (its barrier two phases
ahead). Three deliberately wrong variants must be caught: warpgroup 1 arriving after its last turn too,
warpgroup 1 not arriving before an item's first turn, and the producer waiting on the parity of phase n
instead of n - 1.
  python3 scripts/model_pingpong.py [SCHEDULES]"""

from __future__ import annotations

import itertools
import random
import sys

WARPS = 8  # consumer warps: two warpgroups


class Fail(Exception):
    pass


def consumer(w: int, items: list[int], ns: int, pipe: bool, ping: bool, wrong: str):
    wg = w // 4
    for n in items:
        yield ("sync", 1, WARPS, "Q")  # the consumers' Q barrier (bar.sync 1, THREADS)
        if ping and wg == 1 and n > 0 and wrong != "no_first_arrival":
            yield ("arrive", 2, 8, "pre")

        def turn(more: bool):
            if ping:
                yield ("sync", 2 + wg, 8, "turn")
            yield ("issue",)
            if ping and (wg == 0 or more or wrong == "arrive_after_last"):
                yield ("arrive", 3 - wg, 8, "turn")

        if pipe and n > 0:
            yield ("wait_full", "K", 0)
            yield from turn(True)
        for j in range(n):
            if pipe:
                if j + 1 < n:
                    yield ("wait_full", "K", j + 1)
                    yield from turn(True)
            else:
                yield ("wait_full", "K", j)
                yield from turn(True)
            yield ("wait_full", "V", j)
            yield from turn(j + 1 < n)
            yield ("empty_arrive", j % ns)
        yield ("item_end",)
        yield ("sync", 0, WARPS + 4, "cta")  # the persistent grid's barriers (consumers and producer warps)
        yield ("sync", 0, WARPS + 4, "cta")


def producer(items: list[int], ns: int):
    for n in items:
        for j in range(n):
            yield ("empty_wait", j % ns)
            yield ("fill", j % ns)
        yield ("item_end",)
        yield ("sync", 0, WARPS + 4, "cta")
        yield ("sync", 0, WARPS + 4, "cta")


def run(items: list[int], ns: int, pipe: bool, ping: bool, rng: random.Random, wrong: str = "") -> None:
    progs = {f"c{w}": consumer(w, items, ns, pipe, ping, wrong) for w in range(WARPS)}
    progs["p"] = producer(items, ns)
    progs.update({f"p{i}": producer([0] * len(items), ns) for i in range(1, 4)})  # the producer's idle warps
    pending = {k: next(g) for k, g in progs.items()}
    # named barriers: id -> (threshold, arrived [(warp, kind)], waiting warps)
    bars: dict[int, list] = {}
    fills_issued = [0] * ns  # per stage, fills issued by the producer (its `fills`)
    landed = {("K", s): 0 for s in range(ns)} | {("V", s): 0 for s in range(ns)}  # completed full phases
    in_flight: list[tuple] = []  # fills not yet landed
    empty_arr = [0] * ns  # empty-barrier arrivals per stage
    consumed = {f"c{w}": [0] * ns for w in range(WARPS)}  # per warp, per stage, blocks used so far
    base = {f"c{w}": [0] * ns for w in range(WARPS)}  # per warp, per stage, the fills used before this item
    blocked: dict[str, tuple] = {}

    def fill_index(warp: str, j: int) -> tuple[int, int]:  # stage, this warp's fill number of it
        st = j % ns
        return st, base[warp][st] + j // ns


    def complete(bid: int):
        thr, arrived, waiting = bars[bid]
        if bid in (2, 3):
            owner = bid - 2
            syncs = [w for w, kind in arrived if kind == "sync"]
            arrs = [w for w, kind in arrived if kind == "arrive"]
            if sorted(int(w[1:]) // 4 for w in syncs) != [owner] * 4 or sorted(int(w[1:]) // 4 for w in arrs) != [1 - owner] * 4:
                raise Fail(f"turn barrier {bid} completed with {arrived}")
        for w in waiting:
            blocked.pop(w, None)
        bars[bid] = [thr, [], []]

    idle = 0  # steps since anything advanced: the waits poll, so a deadlock shows as no progress
    while pending:
        idle += 1
        if idle > 20_000:
            raise Fail(f"deadlock: waiting {dict((k, pending[k]) for k in pending)}")
        runnable = [k for k in pending if k not in blocked]
        if not runnable and not in_flight:
            raise Fail(f"deadlock: blocked {blocked}; barriers {bars}")
        if in_flight and (not runnable or rng.random() < 0.3):
            kind, st = in_flight.pop(rng.randrange(len(in_flight)))
            landed[(kind, st)] += 1
            idle = 0
            continue
        k = rng.choice(runnable)
        op = pending[k]
        advance = True
        if op[0] in ("sync", "arrive"):
            _, bid, thr, _ = op
            b = bars.setdefault(bid, [thr, [], []])
            if b[0] != thr:
                raise Fail(f"barrier {bid} used with {thr} and {b[0]}")
            b[1].append((k, op[0]))
            if op[0] == "sync":
                b[2].append(k)
                blocked[k] = op
            if len(b[1]) == thr:
                complete(bid)
        elif op[0] == "wait_full":
            _, kind, j = op
            st, f = fill_index(k, j)
            if landed[(kind, st)] > f + 1:
                raise Fail(f"{k} waits {kind} fill {f} of stage {st} with {landed[(kind, st)]} landed: parity aliases")
            if landed[(kind, st)] < f + 1:
                advance = False
        elif op[0] == "issue":
            pass
        elif op[0] == "empty_arrive":
            st = op[1]
            empty_arr[st] += 1
            consumed[k][st] += 1
        elif op[0] == "empty_wait":
            st = op[1]
            n = fills_issued[st] + (wrong == "producer_parity")  # fill n waits for the empty barrier's phase n - 1
            done = empty_arr[st] // WARPS
            if done > n:
                raise Fail(f"producer waits phase {n - 1} of stage {st} with {done} complete: parity aliases")
            if done < n:
                advance = False
        elif op[0] == "fill":
            st = op[1]
            fills_issued[st] += 1
            in_flight += [("K", st), ("V", st)]
        elif op[0] == "item_end" and k.startswith("c"):
            base[k] = list(consumed[k])  # the next item's blocks continue each stage's fill count
        if advance:
            idle = 0
            try:
                pending[k] = next(progs[k])
            except StopIteration:
                del pending[k]
    for bid, (thr, arrived, waiting) in bars.items():
        if arrived or waiting:
            raise Fail(f"named barrier {bid} left with {arrived}")
    if any(e != WARPS * f for e, f in zip(empty_arr, fills_issued)):
        raise Fail(f"empty arrivals {empty_arr} against fills {fills_issued}")


def main() -> None:
    schedules = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    item_sets = {"one item, 5 blocks": [5], "one item, 1 block": [1], "empty split then 3": [0, 3],
                 "persistent 3,0,1,6,2": [3, 0, 1, 6, 2], "persistent 2,7": [2, 7]}
    total = 0
    for (name, items), ns, pipe, ping in itertools.product(item_sets.items(), (2, 3), (False, True), (False, True)):
        for seed in range(schedules):
            run(items, ns, pipe, ping, random.Random(seed))
            total += 1
        print(f"ok  {name:22s} stages {ns} pipeline {'on ' if pipe else 'off'} pingpong {'on ' if ping else 'off'}: "
              f"{schedules} random schedules")
    for wrong in ("arrive_after_last", "no_first_arrival", "producer_parity"):
        caught, why = 0, ""
        for seed in range(schedules):
            try:
                run([3, 2], 2, False, True, random.Random(seed), wrong=wrong)
            except Fail as e:
                caught, why = caught + 1, str(e).split(";")[0][:90]
        print(f"wrong variant {wrong}: caught in {caught} of {schedules} schedules (e.g. {why})")
        if caught < schedules:
            raise SystemExit("the model missed a wrong variant")
    print(f"{total} schedules, no deadlock, no pending arrival, no parity alias")


if __name__ == "__main__":
    main()
