"""A model of the dynamic schedule's hand-off (schedule=dynamic), run under random interleavings (no GPU).

It checks the protocol that fa_fwd.cu's persistent loop and mainloop_sm90_ws.cuh's WsSlot state, with mbarrier parity
waits as PTX defines them (try_wait.parity p passes once the barrier's current phase has parity other than p) and the
phase bits flipped as ws_slot_put / ws_slot_take flip bit 9 of a role's phase word:

- G CTAs, each a producer thread and W consumer warps. The producer puts item blockIdx.x into the slot (wait on the
  empty barrier, store, arrive on the full one), then per item: issue its key blocks into a one-stage K/V ring (wait
  empty, fill; the fill lands at a random later step), claim the next item (G + an atomic add on the global counter),
  put it. An item past the list is put too, and ends the producer; it then adds one to the count of CTAs done, and the
  last CTA to do so puts both counters back to 0.
- A consumer warp takes the slot's item (wait on the full barrier, read, arrive on the empty one), and runs its key
  blocks (wait full, arrive empty on the ring) until it takes an item past the list.

Every interleaving must end with every program done (no deadlock), every item run by all W warps of exactly one CTA and
by that CTA's producer, each CTA's warps and producer agreeing on its items in order, and both counters back to 0. The
launch runs twice, the second from the counters the first left. Three deliberately wrong variants must be caught: a
consumer waiting on the full barrier with the other parity, a producer that stores the next item without waiting for
the empty barrier, and a launch that does not put the counters back.
  python3 results/2026-12-04_cpu_dynamic_schedule/model_slot.py [SCHEDULES]"""

from __future__ import annotations

import random
import sys

SLOT_BIT = 9


class Fail(Exception):
    pass


class Mbar:
    """An mbarrier: `count` arrivals complete a phase; a wait with parity p passes once phase & 1 != p."""

    def __init__(self, count: int):
        self.count, self.pending, self.phase = count, count, 0

    def arrive(self) -> None:
        self.pending -= 1
        if self.pending == 0:
            self.phase += 1
            self.pending = self.count

    def passes(self, parity: int) -> bool:
        return (self.phase & 1) != parity


def launch(G: int, W: int, blocks: dict, total: int, g_work: list, rng: random.Random, wrong: str = "") -> dict:
    """One launch; returns {cta: [items its consumers ran]}. `blocks[i]`: item i's key blocks (1 or more)."""
    ran: dict = {c: [] for c in range(G)}
    seen = {(c, w): [] for c in range(G) for w in range(W)}  # the items each warp took
    made = {c: [] for c in range(G)}  # the items each producer put, past the list included

    def producer(c: int, bars: dict, state: dict):
        i = c
        while True:
            par = ((state["p_phase"] >> SLOT_BIT) & 1) ^ 1  # ws_slot_put
            state["p_phase"] ^= 1 << SLOT_BIT
            if wrong != "put_without_wait":
                while not bars["empty"].passes(par):
                    yield False
            state["slot"] = i
            made[c].append(i)
            yield True
            bars["full"].arrive()
            if i >= total:
                break
            for _ in range(blocks[i]):  # the item's copies into the ring
                par_k = ((state["p_phase"] >> 0) & 1) ^ 1
                state["p_phase"] ^= 1
                while not bars["kv_empty"].passes(par_k):
                    yield False
                state["in_flight"].append(c)
                yield True
            old = g_work[0]  # the claim: one atomic step
            g_work[0] = old + 1
            i = G + old
            yield True
        old = g_work[1]
        g_work[1] = old + 1
        if old == G - 1 and wrong != "no_reset":
            g_work[0] = 0
            g_work[1] = 0

    def consumer(c: int, w: int, bars: dict, state: dict):
        phase = 0
        while True:
            par = (phase >> SLOT_BIT) & 1  # ws_slot_take
            if wrong == "consumer_parity":
                par ^= 1
            phase ^= 1 << SLOT_BIT
            while not bars["full"].passes(par):
                yield False
            i = state["slot"]
            if i is None:
                raise Fail(f"CTA {c} warp {w} read the slot before any item was put")
            seen[(c, w)].append(i)
            yield True
            bars["empty"].arrive()
            if i >= total:
                return
            for _ in range(blocks[i]):
                par_k = phase & 1
                phase ^= 1
                while not bars["kv_full"].passes(par_k):
                    yield False
                yield True
                bars["kv_empty"].arrive()
            if w == 0:
                ran[c].append(i)

    progs, cta_state = {}, {}
    for c in range(G):
        bars = {"full": Mbar(1), "empty": Mbar(W), "kv_full": Mbar(1), "kv_empty": Mbar(W)}
        st = {"p_phase": 0, "slot": None, "in_flight": [], "bars": bars}
        cta_state[c] = st
        progs[("p", c)] = producer(c, bars, st)
        for w in range(W):
            progs[("c", c, w)] = consumer(c, w, bars, st)
    live = list(progs)
    stall = 0  # steps without progress: a deadlock shows as none
    while live:
        stall += 1
        if stall > 50_000:
            raise Fail(f"deadlock: {len(live)} programs waiting")
        landing = [c for c in range(G) if cta_state[c]["in_flight"]]
        if landing and rng.random() < 0.3:  # a fill lands
            c = rng.choice(landing)
            cta_state[c]["in_flight"].pop(0)
            cta_state[c]["bars"]["kv_full"].arrive()
            stall = 0
            continue
        k = rng.choice(live)
        try:
            if next(progs[k]):  # a step, not a wait that polled
                stall = 0
        except StopIteration:
            live.remove(k)
            stall = 0
    for c in range(G):
        items = [i for i in made[c] if i < total]
        for w in range(W):
            if [i for i in seen[(c, w)] if i < total] != items or seen[(c, w)][-1] < total:
                raise Fail(f"CTA {c} warp {w} took {seen[(c, w)]}, its producer put {made[c]}")
        if ran[c] != items:
            raise Fail(f"CTA {c} ran {ran[c]}, its producer put {made[c]}")
    return ran


def check(G: int, W: int, total: int, rng: random.Random, wrong: str = "") -> None:
    g_work = [0, 0]
    for _ in range(2):  # the second launch starts from what the first left
        blocks = {i: rng.randint(1, 3) for i in range(total)}
        ran = launch(G, W, blocks, total, g_work, rng, wrong)
        got = sorted(i for v in ran.values() for i in v)
        if got != list(range(total)):
            raise Fail(f"items run {got}, not each of {total} once")
        if g_work != [0, 0]:
            raise Fail(f"the work list left at {g_work}")


def main() -> None:
    schedules = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    shapes = [(3, 4, 10), (4, 3, 4), (2, 12, 7), (5, 2, 5), (3, 4, 3)]  # (CTAs, consumer warps, items); last: G = items
    total = 0
    for G, W, n in shapes:
        for seed in range(schedules):
            check(G, W, n, random.Random(seed))
            total += 1
        print(f"ok  {G} CTAs, {W} consumer warps, {n:2d} items: {schedules} random schedules, two launches each")
    for wrong in ("consumer_parity", "put_without_wait", "no_reset"):
        caught, why = 0, ""
        for seed in range(schedules):
            try:
                check(3, 4, 10, random.Random(seed), wrong)
            except Fail as e:
                caught, why = caught + 1, str(e)[:80]
        print(f"wrong variant {wrong}: caught in {caught} of {schedules} schedules (e.g. {why})")
        if caught == 0:
            raise SystemExit("the model missed a wrong variant")
    print(f"{total} schedules, no deadlock, every item once on one CTA, its warps and producer agreeing, the list reset")


if __name__ == "__main__":
    main()
