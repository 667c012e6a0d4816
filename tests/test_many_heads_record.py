"""More than 65,535 heads on a launch-order grid (results/2026-12-05_cpu_many_heads): the launch splits it into
launches of whole batches, host code alone (the PTX of every covering configuration the same), and the device check
covers a kernel of each grid kind at a shape past the limit."""
import re
import subprocess
import sys

from experiments.problem import Shape
from kernel_src.knobs import SOURCE, Knobs
from recorded import RESULTS, recorded_text

HERE = RESULTS / "2026-12-05_cpu_many_heads"


def test_the_device_code_is_unchanged():
    text = recorded_text(HERE / "ptx_unchanged_small.txt")
    assert re.search(r"^# 719 of 719 same", text, re.M)


def test_the_launch_splits_only_a_launch_order_grid_past_gridDim_y():
    src = SOURCE.read_text()
    assert "constexpr long MAX_GRID_Y = 65535;" in src
    assert "if (!Cfg::PERSISTENT && Cfg::CTA_ORDER != ORDER_HEAVIEST_FIRST && (long)B * H > MAX_GRID_Y)" in src


def test_the_device_check_goes_past_the_limit_with_each_grid_kind():
    sys.path.insert(0, str(HERE))
    import device_many_heads as m

    shapes = [Shape(**s, D=64) for s in m.SHAPES]
    assert shapes[0].B * shapes[0].H > 65535 and shapes[1].kv_heads < shapes[1].H and shapes[2].B * shapes[2].H == 2
    k = {n: Knobs.parse(c) for n, c in m.CONFIGS.items()}
    launch_order = [n for n, x in k.items() if x.persistent.value == "off" and x.cta_order.value == "launch"]
    assert len(launch_order) == 4 and k["mma_persistent"].persistent.value == "on"
    assert k["mma_split4"].split_kv == 4 and k["ws_op_lazy_w_oq_pk"].mainloop.value == "ws" and m.DIM["ws_op_lazy_w_oq_pk"] == 128
    assert subprocess.run(["bash", "-n", str(HERE / "device_call.sh")]).returncode == 0
