"""Two Q tiles on the H200 (results/2026-12-03_h200_q_buffers): tier-clean and a negative; no lever proposes it."""
import inspect

import agent.levers
from recorded import RESULTS

HERE = RESULTS / "2026-12-03_h200_q_buffers" / "call1"


def test_the_tier_of_the_two_tile_kernels_has_no_failure():
    text = (HERE / "tier.txt").read_text()
    assert text.count("failures 0: []") == 2 and "failed: []" in text


def test_two_q_tiles_lose_where_they_were_to_pay():
    text = (HERE / "margins.txt").read_text()
    got = {}
    for line in text.splitlines():
        if "->" in line and "_q2:" in line and " cudnn->" not in line and "warmup" not in line:
            shape, rest = line.split(" ", 1)
            got[(shape, rest.split("->")[0])] = float(rest.split(": ")[1].split()[0])
    assert got == {("B16-H16-N512-D64-float16-noncausal", "ws3_lazy_qp_ot_pm"): 0.9940,
                   ("B16-H16-N512-D64-float16-noncausal", "ws3_lazy_qp_ot"): 0.9924,
                   ("B8-H16-Hkv4-N2048-D64-float16-noncausal", "ws3_lazy_qp_ot_pm"): 1.0033,
                   ("B2-H16-N2048-D128-float16-noncausal", "ws_op_lazy_qp_w_ot_pr_pk"): 0.9874,
                   ("B8-H32-Hkv8-N1024-D128-bfloat16-causal", "ws_op_lazy_qp_hf_w_ot_pm"): 1.0010}
    assert "q_buffers" not in inspect.getsource(agent.levers)  # the knob stays; no lever proposes it


def test_the_diagnosis_notes_an_xu_pipe_at_or_above_the_tensor_pipe(tmp_path):
    """The ncu rows of this record (N512 D64: ours and cuDNN, XU 47.4% / 42.8% beside tensor 43.9% / 41.0%) and of the
    agent suite's call 5 (causal N1024 D128, XU 29.8% / 30.2% beside tensor 56% / 58%), read as a run reads a profile."""
    import tarfile

    from profiler.diagnosis import diagnose, metrics_from_row
    from profiler.ncu import parse_raw_csv

    with tarfile.open(HERE / "an.tgz") as tf:
        tf.extractall(tmp_path, filter="data")
    d64 = (tmp_path / "an" / "B16_H16_N512_D64_fp16__ws3_lazy_qp_ot_pm.csv").read_text()
    d128 = (RESULTS / "2026-12-03_h200_agent_suite" / "call5" / "an" /
            "B8_H32_N1024_D128_bf16_causal_Hkv8__ws_op_lazy_qp_hf_w_ot.csv").read_text()
    read = lambda text: [diagnose(metrics_from_row(r, "sm_90")) for r in parse_raw_csv(text)]
    cudnn, ours = read(d64)
    assert (cudnn.label, ours.label) == ("barrier_bound", "issue_latency_chain")  # the labels do not change
    assert "XU (MUFU: exp2) pipe at 42.8% of peak, at or above the tensor pipe's 41.0%" in cudnn.summary
    assert "XU (MUFU: exp2) pipe at 47.4% of peak, at or above the tensor pipe's 43.9%" in ours.summary
    assert all("XU" not in d.summary and 29 < d.xu_pipe_pct < 31 for d in read(d128))
    assert metrics_from_row(parse_raw_csv(d64)[1], "sm_80").xu_pipe_pct is None  # gh100's counter only
