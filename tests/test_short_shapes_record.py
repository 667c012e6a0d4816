"""The shapes below cuDNN on the H200 (results/2026-12-02_h200_short_ncu, results/2026-12-02_h200_short_screen): what
their READMEs state is read from the recorded files: the deep-lead check's margins against cuDNN's own null, the ncu
figures at N512 D64, and the wide screen's bests and confirmations."""
import csv
import gzip
import io
import json
import tarfile
from collections import Counter

from recorded import RESULTS

NCU = RESULTS / "2026-12-02_h200_short_ncu" / "call1"
SCREEN = RESULTS / "2026-12-02_h200_short_screen" / "call1"


def _leads():
    rec = json.loads(gzip.open(NCU / "lead_check.json.gz").read())
    out = {}
    for shape, e in rec["shapes"].items():
        assert e["status"] == "ok"
        for st in e["steps"]:
            if st["tag"].startswith("check:"):
                assert st["result"]["ok"], (shape, st["tag"])
            elif st["tag"].count(":") == 2:
                _, lead, name = st["tag"].split(":")
                out.setdefault((shape, float(lead), name), []).append(round(st["result"]["margin"], 4))
    return rec, out


def test_the_n512_loss_is_the_gpus_and_n2048_d128_is_level_under_the_deep_lead():
    rec, m = _leads()
    assert rec["deep_ms"] == 20.0
    for lead in (0.3, 20.0):
        assert all(0.936 <= x <= 0.942 for n in ("ws2c_ot", "ws3_lazy_qp_ot") for x in m["B16 H16 N512 D64 fp16", lead, n])
        assert all(abs(x - 1) < 0.004 for x in m["B16 H16 N512 D64 fp16", lead, "cudnn"])
    n2048 = "B2 H16 N2048 D128 fp16"
    assert m[n2048, 0.3, "ws_op_lazy_w_oq"] == [0.9963, 0.9947]
    assert m[n2048, 20.0, "ws_op_lazy_w_oq"] == [1.0052, 1.0042] and m[n2048, 20.0, "cudnn"] == [1.0041, 1.0049]
    causal = "B8 H32 N1024 D128 bf16 causal Hkv8"
    assert m[causal, 20.0, "ws_op_lazy_qp_hf_w_ot"] == [0.9957, 0.9952]


def test_the_unconfirmed_suite_shape_is_above_cudnn():
    _, m = _leads()
    xs = m["B8 H16 N2048 D64 fp16 Hkv4", 0.3, "ws3_lazy_qp_ot"] + m["B8 H16 N2048 D64 fp16 Hkv4", 20.0, "ws3_lazy_qp_ot"]
    assert len(xs) == 4 and min(xs) >= 1.064


def test_ncu_at_n512_d64():
    with tarfile.open(NCU / "ncu.tgz") as tf:
        rep = json.load(io.TextIOWrapper(tf.extractfile("ncu/short_ncu.json")))
    k = rep["kernels"]
    got = {n: (e["metrics"]["duration_ns"], e["metrics"]["grid_size"], e["metrics"]["block_size"],
               e["metrics"]["registers_per_thread"]) for n, e in k.items()}
    assert got == {"ws2c_ot": (50944.0, 1024.0, 384.0, 80.0), "ws3_lazy_qp_ot": (51200.0, 132.0, 512.0, 128.0),
                   "sdpa_cudnn": (47232.0, 132.0, 384.0, 168.0)}
    assert "64x128x64" in k["sdpa_cudnn"]["kernel"]


def test_the_wide_screen_finds_nothing_at_cudnn():
    recs = json.loads(gzip.open(SCREEN / "best" / "best.json.gz").read())
    got = {}
    for r in recs:
        scr = r["screen"]["summary"]
        assert all(v == "pass" for t, v in scr.items() if t.startswith("check:"))
        n = sum(t.startswith("cudnn:") for t in scr)
        best = max(v["margin"] for t, v in scr.items() if t.startswith("cudnn:"))
        conf = r["confirm"]["summary"][f"cudnn:{r['best']}"]["margin"]
        got[r["shape"]] = (n, r["best"], round(conf, 3))
        assert best < 1.0 and conf < 1.0
    assert got == {"B16-H16-N512-D64-float16-noncausal": (50, "ws3_lazy_qp_ot", 0.941),
                   "B8-H32-Hkv8-N1024-D128-bfloat16-causal": (40, "ws_op_lazy_qp_hf_w_ot", 0.987),
                   "B2-H16-N2048-D128-float16-noncausal": (24, "ws_op_lazy_w_oq", 0.996)}
    n512 = recs[0]["screen"]["summary"]
    assert round(n512["cudnn:ws_op_lazy_qp_w_ot"]["margin"], 3) == 0.851


def test_the_two_consumer_kernel_has_cudnns_launch_and_waits_twice_as_long():
    with tarfile.open(RESULTS / "2026-12-02_h200_figures_wait" / "call2" / "ncu.tgz") as tf:
        k = json.load(io.TextIOWrapper(tf.extractfile("ncu/short_ncu.json")))["kernels"]
    ours, theirs = k["ws_op_lazy_qp_w_ot"]["metrics"], k["sdpa_cudnn"]["metrics"]
    launch = lambda m: (m["grid_size"], m["block_size"], m["registers_per_thread"])
    assert launch(ours) == launch(theirs) == (132.0, 384.0, 168.0)
    assert (ours["duration_ns"], theirs["duration_ns"]) == (56064.0, 46912.0)
    assert ours["stalls"]["wait"] > 1.9 * theirs["stalls"]["wait"]


def _by_opcode(tf, name):
    rows = list(csv.reader(io.TextIOWrapper(tf.extractfile(f"src/{name}_source.csv"))))
    hdr = rows[1]
    data = [r for r in rows[2:] if len(r) == len(hdr)]
    src, every, wait = hdr.index("Source"), hdr.index("Warp Stall Sampling (All Samples)"), hdr.index("stall_wait")
    by, byw = Counter(), Counter()
    for r in data:
        words = r[src].split()
        op = (words[1] if words[0].startswith("@") else words[0]).split(".")[0]
        by[op] += float(r[every] or 0)
        byw[op] += float(r[wait] or 0)
    return by, byw


def test_the_wait_stall_sits_on_the_softmax_at_d64():
    with tarfile.open(NCU.parent / "call2" / "src.tgz") as tf:
        for name, mufu in (("ws_op_lazy_qp_w_ot", 26.2), ("ws3_lazy_qp_ot", 30.3)):
            by, byw = _by_opcode(tf, name)
            share = lambda c, k: 100 * c[k] / sum(c.values())
            assert round(share(byw, "MUFU"), 1) == mufu and byw.most_common(1)[0][0] == "MUFU"
            assert share(byw, "MUFU") + share(byw, "FMNMX") + share(byw, "FADD") > 45
            assert share(by, "HGMMA") < 6
