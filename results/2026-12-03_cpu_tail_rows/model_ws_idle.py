"""A model of the warp-specialised mainloop's mbarriers with tail_rows=skip, run under random schedules (no GPU).

It checks the protocol that kernel_src/mainloop_sm90_ws.cuh's comments state, not the compiled code: the producer
thread (per item: the Q-empty wait and Q's fill, then per key block the K-empty wait and K's fill, the V-empty wait and
V's fill, the stage restarting at 0 each item and its fill count carried across items) and twelve consumer warps (three
warpgroups, no turns: the rule of tail_rows=skip). A warp of a warpgroup with rows before N runs ws_consume's order,
the overlapped loop or the one-block-at-a-time loop (each block's K-full wait, K-empty arrival, Q-empty arrival after
the last K, V-full wait, V-empty arrival); the third warpgroup of an item marked `tail` (its rows all past N) runs
ws_idle's order. Full barriers complete a phase when a fill lands (at a random later step); empty barriers complete a
phase per twelve arrivals.

With two Q tiles (q_buffers=2, added after this record) item n's Q is tile n % 2 and each tile's full and empty
barriers count that tile's fills: the producer may fill the next item's tile while the consumers still read this one's.

Every schedule must end with every program done (no deadlock), every arrival counted in the phase of the fill it
releases (an early arrival would let the producer refill a buffer a warp still reads), and no wait whose parity could
alias (its barrier two phases ahead). Two deliberately wrong idle warpgroups must be caught: one that never releases Q
(the next item's Q never loads) and one that releases K and V without waiting for them to land; with two Q tiles,
the first again, and consumers that use tile 0 for every item.
  python3 results/2026-12-03_cpu_tail_rows/model_ws_idle.py [SCHEDULES]"""

from __future__ import annotations

import itertools
import random
import sys

WARPS = 12  # consumer warps: three warpgroups
NS = 2  # K/V stages


class Fail(Exception):
    pass


def live(items: list[tuple[int, bool]], pipe: bool):
    """A warp of a warpgroup with rows before N: ws_consume's barrier operations, (op, barrier, block)."""
    for n, _ in items:
        yield ("wait_full", "Q", None)
        if n == 0:
            yield ("arrive", "Q", None)
        if pipe and n > 0:
            yield ("wait_full", "K", 0)
            yield ("arrive", "K", 0)
            if n == 1:
                yield ("arrive", "Q", None)
            for j in range(1, n):
                yield ("wait_full", "K", j)
                yield ("wait_full", "V", j - 1)
                yield ("arrive", "K", j)
                if j + 1 == n:
                    yield ("arrive", "Q", None)
                yield ("arrive", "V", j - 1)
            yield ("wait_full", "V", n - 1)
            yield ("arrive", "V", n - 1)
        elif n > 0:
            for j in range(n):
                yield ("wait_full", "K", j)
                yield ("arrive", "K", j)
                if j + 1 == n:
                    yield ("arrive", "Q", None)
                yield ("wait_full", "V", j)
                yield ("arrive", "V", j)
        yield ("item_end", None, None)


def idle(items: list[tuple[int, bool]], pipe: bool, wrong: str):
    """A warp of the third warpgroup: ws_idle's order in a `tail` item, ws_consume's otherwise."""
    for n, tail in items:
        if not tail:
            yield from live([(n, tail)], pipe)
            continue
        yield ("wait_full", "Q", None)
        if n == 0 and wrong != "idle_keeps_q":
            yield ("arrive", "Q", None)
        for j in range(n):
            if wrong != "idle_no_wait":
                yield ("wait_full", "K", j)
            yield ("arrive", "K", j)
            if j + 1 == n and wrong != "idle_keeps_q":
                yield ("arrive", "Q", None)
            if wrong != "idle_no_wait":
                yield ("wait_full", "V", j)
            yield ("arrive", "V", j)
        yield ("item_end", None, None)


def producer(items: list[tuple[int, bool]]):
    for n, _ in items:
        yield ("empty_wait", "Q", None)
        yield ("fill", "Q", None)
        for j in range(n):
            yield ("empty_wait", "K", j)
            yield ("fill", "K", j)
            yield ("empty_wait", "V", j)
            yield ("fill", "V", j)
        yield ("item_end", None, None)


def run(items: list[tuple[int, bool]], pipe: bool, rng: random.Random, wrong: str = "", q_tiles: int = 1) -> None:
    """q_tiles 2 (q_buffers=2): item n's Q is tile n % 2, each tile's full/empty pair counting its own fills; wrong
    "q2_one_tile": consumers that wait and release tile 0 for every item while the producer alternates."""
    progs = {f"c{w}": (idle(items, pipe, wrong) if w >= 8 else live(items, pipe)) for w in range(WARPS)}
    progs["p"] = producer(items)
    pending = {k: next(g) for k, g in progs.items()}
    stages = [("Q", t) for t in range(q_tiles)] + [(b, s) for b in "KV" for s in range(NS)]
    item_no = dict.fromkeys(progs, 0)  # items each program has ended

    def q_stage(k: str) -> tuple:
        return ("Q", 0 if (wrong == "q2_one_tile" and k != "p") else item_no[k] % q_tiles)
    landed = dict.fromkeys(stages, 0)  # completed phases of each full barrier
    fills = dict.fromkeys(stages, 0)  # fills issued (the producer's count)
    arrivals = dict.fromkeys(stages, 0)  # arrivals on each empty barrier
    in_flight: list[tuple] = []  # fills issued, not landed
    base = {k: dict.fromkeys(stages, 0) for k in progs}  # a program's fills of each stage used by earlier items
    used = {k: dict.fromkeys(stages, 0) for k in progs}

    def slot(k: str, bar: str, j) -> tuple[tuple, int]:
        """The stage of block j (Q: its one barrier) and which fill of it this program means."""
        st = q_stage(k) if bar == "Q" else (bar, j % NS)
        return st, base[k][st] + (0 if bar == "Q" else j // NS)

    stall = 0  # steps without progress: the waits poll, so a deadlock shows as none
    while pending:
        stall += 1
        if stall > 20_000:
            raise Fail(f"deadlock: waiting {pending}")
        if in_flight and rng.random() < 0.3:
            st = in_flight.pop(rng.randrange(len(in_flight)))
            landed[st] += 1
            stall = 0
            continue
        k = rng.choice(list(pending))
        op, bar, j = pending[k]
        advance = True
        if op == "wait_full":
            st, f = slot(k, bar, j)
            if landed[st] > f + 1:
                raise Fail(f"{k} waits {st} fill {f} with {landed[st]} landed: parity aliases")
            advance = landed[st] == f + 1
        elif op == "arrive":
            st, f = slot(k, bar, j)
            if arrivals[st] // WARPS != f:
                raise Fail(f"{k} releases {st} fill {f} into the empty barrier's phase {arrivals[st] // WARPS}")
            arrivals[st] += 1
            used[k][st] = max(used[k][st], f + 1 - base[k][st])
        elif op == "empty_wait":
            st = q_stage(k) if bar == "Q" else (bar, j % NS)
            done = arrivals[st] // WARPS  # fill n waits for the empty barrier's phase n - 1
            if done > fills[st]:
                raise Fail(f"producer waits {st} phase {fills[st] - 1} with {done} complete: parity aliases")
            advance = done == fills[st]
        elif op == "fill":
            st = q_stage(k) if bar == "Q" else (bar, j % NS)
            fills[st] += 1
            in_flight.append(st)
        elif op == "item_end":
            for st in stages:  # the next item's blocks continue each stage's fill count (Q: one fill of its tile)
                base[k][st] += (st == q_stage(k)) if st[0] == "Q" else used[k][st]
                used[k][st] = 0
            item_no[k] += 1
        if advance:
            stall = 0
            try:
                pending[k] = next(progs[k])
            except StopIteration:
                del pending[k]
    if any(arrivals[st] != WARPS * fills[st] for st in stages):
        raise Fail(f"empty arrivals {arrivals} against fills {fills}")


def main() -> None:
    schedules = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    item_sets = {"N512: 4, 4, 4 tail": [(4, False), (4, False), (4, True)],
                 "one tail item, 4": [(4, True)], "one tail item, 1": [(1, True)],
                 "empty tail item, then 3": [(0, True), (3, False)],
                 "persistent 3, 1t, 6, 2t, 5": [(3, False), (1, True), (6, False), (2, True), (5, False)],
                 "causal 1, 2, 3t, 2t": [(1, False), (2, False), (3, True), (2, True)]}
    total = 0
    for (name, items), pipe, qt in itertools.product(item_sets.items(), (False, True), (1, 2)):
        for seed in range(schedules):
            run(items, pipe, random.Random(seed), q_tiles=qt)
            total += 1
        print(f"ok  {name:28s} pipeline {'on ' if pipe else 'off'}, {qt} Q tile{'s' if qt > 1 else ' '}: "
              f"{schedules} random schedules")
    for wrong, qt in (("idle_keeps_q", 1), ("idle_no_wait", 1), ("idle_keeps_q", 2), ("q2_one_tile", 2)):
        caught, why = 0, ""
        for seed in range(schedules):
            try:
                run([(4, True), (4, False), (2, True)], True, random.Random(seed), wrong=wrong, q_tiles=qt)
            except Fail as e:
                caught, why = caught + 1, str(e)[:90]
        print(f"wrong variant {wrong}, {qt} Q tile{'s' if qt > 1 else ''}: caught in {caught} of {schedules} schedules "
              f"(e.g. {why})")
        if caught == 0:
            raise SystemExit("the model missed a wrong variant")
    print(f"{total} schedules, no deadlock, every arrival in its fill's phase, no parity alias")


if __name__ == "__main__":
    main()
