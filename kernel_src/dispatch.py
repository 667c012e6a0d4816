"""A dispatch table: one library whose `fa_fwd` picks, per (dtype, head dim, causal, N bucket), the
configuration measured fastest there (FlashAttention-2 switches tile shapes by head dim,
causality and arch the same way).

The knobs are preprocessor defines, so each configuration is the kernel source pasted once more
inside a namespace of its own (kernels, template statics and host stubs stay apart; the knobs
are #undef'd between copies) with its C API renamed by FA_API_PREFIX; then a small C dispatch.
One .cu, one nvcc command.

N buckets have power-of-two edges: N <= 512, 513-1024, ..., 16385-32768, N > 32768. A run at
N = 8192 fills the bucket 4097-8192. A bucket with no measurement takes the nearest measured
bucket of the same (dtype, D, causal) (on a tie the longer one, where the time goes), and
says so; a (dtype, D, causal) never measured is not built (fa_fwd returns FA_NOT_BUILT).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from .knobs import DTYPES, HEAD_DIMS, SOURCE, Knobs, inlined

EDGES = (512, 1024, 2048, 4096, 8192, 16384, 32768)  # upper edges; one more bucket holds N > 32768
N_MAX = 2**31 - 1
LOG2E = 1.4426950408889634


def bucket_of(n: int) -> int:
    return next((i for i, e in enumerate(EDGES) if n <= e), len(EDGES))


def bucket_range(i: int) -> tuple[int, int]:
    lo = 1 if i == 0 else EDGES[i - 1] + 1
    return lo, EDGES[i] if i < len(EDGES) else N_MAX


def bucket_name(i: int) -> str:
    lo, hi = bucket_range(i)
    return f"N<={hi}" if i == 0 else f"N>{lo - 1}" if hi == N_MAX else f"N {lo}-{hi}"


class Measured(BaseModel):
    """One run's best kernel at the run's problem, where it came from and how fast it was."""

    model_config = ConfigDict(frozen=True)

    dtype: str
    head_dim: int
    causal: bool
    n: int
    knobs: Knobs
    tflops: float | None
    source: str  # "n8192_agent.db run 1 #12 (B2 H16)"


class Row(BaseModel):
    """One N bucket of one (dtype, D, causal): the kernel serving it and the measurement behind it."""

    model_config = ConfigDict(frozen=True)

    dtype: str
    head_dim: int
    causal: bool
    n_lo: int
    n_hi: int
    knobs: Knobs
    measured_n: int
    tflops: float | None
    source: str
    fallback: bool  # no measurement in this bucket: the nearest measured bucket's kernel

    def key(self) -> tuple[str, int, bool]:
        return self.dtype, self.head_dim, self.causal

    def bucket(self) -> str:
        return bucket_name(bucket_of(self.n_lo))

    def tsv(self) -> str:
        """The line fa_dispatch_table() returns for this row (the command's --json has the same fields)."""
        return "\t".join(str(x) for x in (self.dtype, self.head_dim, int(self.causal), self.n_lo, self.n_hi,
                                           self.knobs.label(), self.measured_n, int(self.fallback)))


def choose(measured: list[Measured]) -> list[Row]:
    """Per (dtype, D, causal) and N bucket the fastest measurement (by its TFLOP/s; the first given
    wins a tie or a missing rate), then every empty bucket filled from the nearest measured one."""
    best: dict[tuple, Measured] = {}
    for m in measured:
        k = (m.dtype, m.head_dim, m.causal, bucket_of(m.n))
        if k not in best or (m.tflops or 0.0) > (best[k].tflops or 0.0):
            best[k] = m
    rows = []
    for dt, d, c in sorted({k[:3] for k in best}, key=lambda k: (DTYPES.index(k[0]), k[1], k[2])):
        have = sorted(b for (x, y, z, b) in best if (x, y, z) == (dt, d, c))
        for b in range(len(EDGES) + 1):
            src = min(have, key=lambda h: (abs(h - b), -h))  # nearest; a tie goes to the longer N
            m = best[(dt, d, c, src)]
            lo, hi = bucket_range(b)
            rows.append(Row(dtype=dt, head_dim=d, causal=c, n_lo=lo, n_hi=hi, knobs=m.knobs, measured_n=m.n,
                            tflops=m.tflops, source=m.source, fallback=src != b))
    return rows


def kernels(rows: list[Row]) -> list[tuple[Knobs, str, int, bool]]:
    """The distinct (knobs, dtype, D, causal) the rows need: one compiled instantiation each."""
    seen: list[tuple[Knobs, str, int, bool]] = []
    for r in rows:
        k = (r.knobs, r.dtype, r.head_dim, r.causal)
        if k not in seen:
            seen.append(k)
    return seen


def _kernel_body() -> tuple[list[str], str, list[str]]:
    """The kernel source with its headers inlined: its system includes (hoisted above every
    namespace, where they belong), the body, and every macro the body defines (to #undef)."""
    src = inlined(SOURCE, banner=False)
    includes = sorted(set(re.findall(r"^#include <[^>]+>$", src, re.MULTILINE)))
    body = re.sub(r"^#include <[^>]+>\n", "", src, flags=re.MULTILINE)
    macros = sorted(set(re.findall(r"^\s*#\s*define\s+(\w+)", body, re.MULTILINE)))
    return includes, body, macros


def _c(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def source(rows: list[Row], header: list[str]) -> str:
    """The dispatch library's one .cu: `header` (comment lines without //) first, then one
    namespace per kernel, then the C entry points."""
    includes, body, macros = _kernel_body()
    ks = kernels(rows)
    out = [f"// {h}" if h else "//" for h in header] + [""] + includes + [""]
    for i, (kn, dt, d, c) in enumerate(ks):
        defines = {**kn.defines(), "FA_DTYPES": 1 << DTYPES.index(dt), "FA_DIMS": 1 << HEAD_DIMS.index(d),
                   "FA_CAUSALS": 1 << int(c)}
        out += [
            "// " + "=" * 96,
            f"// kernel {i}: {kn.label()}, {dt} D={d} {'causal' if c else 'non-causal'}",
            f"// knobs: {kn.canonical()}",
            *[f"#define {k} {v}" for k, v in sorted(defines.items())],
            f"#define FA_API_PREFIX fa5090_k{i}_",
            f"namespace fa5090_k{i} {{",
            body.rstrip("\n"),
            f"}}  // namespace fa5090_k{i}",
            *[f"#undef {m}" for m in sorted(set(macros) | set(defines) | {"FA_API_PREFIX"})],
            "",
        ]
    index = {k: i for i, k in enumerate(ks)}
    table = "".join(r.tsv() + "\n" for r in rows)
    out += [
        "// " + "=" * 96,
        "// The dispatch. `scale` is the softmax scale itself (1/sqrt(D) usually): a kernel built with",
        "// exp=ex2 gets log2(e) folded in here, as the tool's binding does for one configuration.",
        "#define FA_NOT_BUILT -2",
        "#define FA_BAD_ARG -3",
        "#define FA_BAD_LAYOUT -4",
        "#define FA_DISPATCH_API __attribute__((visibility(\"default\")))",
        "namespace fa5090_dispatch {",
        "typedef int (*Fwd)(const void*, const void*, const void*, void*, float*, int, int, int, int, int, int, int, float, void*);",
        "typedef int (*FwdStrided)(const void*, const void*, const void*, void*, float*, int, int, int, int, int, int, int, float,",
        "                          void*, const long long*);",
        "typedef int (*Attrs)(int, int, int, int*);",
        "typedef int (*Strided)(int, int, int);",
        "struct Kernel { Fwd fwd; FwdStrided fwd_strided; Attrs attrs; Strided strided; float scale_mul; };",
        "struct Row { int dtype, D, causal, n_lo, n_hi, kernel; };",
        "static const Kernel kKernels[] = {",
        *[f"  {{fa5090_k{i}::fa5090_k{i}_fa_fwd, fa5090_k{i}::fa5090_k{i}_fa_fwd_strided, "
          f"fa5090_k{i}::fa5090_k{i}_fa_attributes, fa5090_k{i}::fa5090_k{i}_fa_strided, "
          f"{LOG2E if kn.exp.value == 'ex2' else 1.0}f}},  // {kn.label()}" for i, (kn, *_rest) in enumerate(ks)],
        "};",
        "static const Row kRows[] = {",
        *[f"  {{{DTYPES.index(r.dtype)}, {r.head_dim}, {int(r.causal)}, {r.n_lo}, {r.n_hi}, "
          f"{index[(r.knobs, r.dtype, r.head_dim, r.causal)]}}},  // {r.knobs.label()}"
          + (f" (from N={r.measured_n})" if r.fallback else "") for r in rows],
        "};",
        "static const int kRowCount = (int)(sizeof(kRows) / sizeof(kRows[0]));",
        "}  // namespace fa5090_dispatch",
        "",
        'extern "C" {',
        "// The row of the table that serves (dtype, D, causal, N): an index for fa_dispatch_table's lines,",
        "// or FA_NOT_BUILT / FA_BAD_ARG. Touches no device.",
        "FA_DISPATCH_API int fa_dispatch_pick(int dtype, int D, int causal, int N) {",
        "  using namespace fa5090_dispatch;",
        "  if ((dtype != 0 && dtype != 1) || (D != 64 && D != 128) || N <= 0) return FA_BAD_ARG;",
        "  for (int i = 0; i < kRowCount; ++i) {",
        "    const Row& r = kRows[i];",
        "    if (r.dtype == dtype && r.D == D && r.causal == (causal != 0) && N >= r.n_lo && N <= r.n_hi) return i;",
        "  }",
        "  return FA_NOT_BUILT;",
        "}",
        "// Same arguments as the one-configuration library's fa_fwd, except that `scale` is always the",
        "// softmax scale itself.",
        "FA_DISPATCH_API int fa_fwd(const void* q, const void* k, const void* v, void* o, float* lse, int B, int H, int Hkv,",
        "                           int N, int D, int dtype, int causal, float scale, void* stream) {",
        "  using namespace fa5090_dispatch;",
        "  if (B <= 0 || H <= 0 || N <= 0 || Hkv <= 0 || H % Hkv) return FA_BAD_ARG;",
        "  const int row = fa_dispatch_pick(dtype, D, causal, N);",
        "  if (row < 0) return row;",
        "  const Kernel& kn = kKernels[kRows[row].kernel];",
        "  return kn.fwd(q, k, v, o, lse, B, H, Hkv, N, D, dtype, causal, scale * kn.scale_mul, stream);",
        "}",
        "// fa_fwd with each operand's strides (the one-configuration library's fa_fwd_strided: 12 values in elements,",
        "// (batch, head, row) for q, k, v, o; nullptr: contiguous).",
        "FA_DISPATCH_API int fa_fwd_strided(const void* q, const void* k, const void* v, void* o, float* lse, int B, int H,",
        "                                   int Hkv, int N, int D, int dtype, int causal, float scale, void* stream,",
        "                                   const long long* strides) {",
        "  using namespace fa5090_dispatch;",
        "  if (B <= 0 || H <= 0 || N <= 0 || Hkv <= 0 || H % Hkv) return FA_BAD_ARG;",
        "  const int row = fa_dispatch_pick(dtype, D, causal, N);",
        "  if (row < 0) return row;",
        "  const Kernel& kn = kKernels[kRows[row].kernel];",
        "  return kn.fwd_strided(q, k, v, o, lse, B, H, Hkv, N, D, dtype, causal, scale * kn.scale_mul, stream, strides);",
        "}",
        "// The operands the kernel serving (dtype, D, causal, N) takes in any layout (bits: 1 q, 2 k, 4 v, 8 o; the others",
        "// must be contiguous [B, H, N, D]), or an error code. Touches no device.",
        "FA_DISPATCH_API int fa_strided(int dtype, int D, int causal, int N) {",
        "  using namespace fa5090_dispatch;",
        "  const int row = fa_dispatch_pick(dtype, D, causal, N);",
        "  if (row < 0) return row;",
        "  const Row& r = kRows[row];",
        "  return kKernels[r.kernel].strided(r.dtype, r.D, r.causal);",
        "}",
        "// fa_attributes of the kernel serving row `row` (see fa_fwd.cu: registers, spill bytes, static",
        "// smem, dynamic smem/CTA, threads/CTA, CTAs/SM).",
        "FA_DISPATCH_API int fa_dispatch_attributes(int row, int* out) {",
        "  using namespace fa5090_dispatch;",
        "  if (row < 0 || row >= kRowCount) return FA_BAD_ARG;",
        "  const Row& r = kRows[row];",
        "  return kKernels[r.kernel].attrs(r.dtype, r.D, r.causal, out);",
        "}",
        "// The table, one line per row: dtype, D, causal, n_lo, n_hi, knobs label, measured N, fallback",
        "// (tab-separated; the same rows `export --dispatch --json` prints).",
        "FA_DISPATCH_API const char* fa_dispatch_table(void) {",
        f"  return {_c(table)};",
        "}",
        "FA_DISPATCH_API const char* fa_error_string(int code) {",
        '  if (code == FA_NOT_BUILT) return "no kernel for this (dtype, head dim, causal) in the dispatch table: it was never measured";',
        '  if (code == FA_BAD_ARG) return "bad argument: dtype must be fp16/bf16, D 64 or 128, B, H, N > 0, Hkv dividing H";',
        '  if (code == FA_BAD_LAYOUT) return "a layout this kernel cannot take: the operands it addresses by pointer (see '
        'fa_strided) must be contiguous [B, H, N, D], the others need 16-byte aligned bases and strides";',
        "  return cudaGetErrorString((cudaError_t)code);",
        "}",
        "}",
        "",
    ]
    return "\n".join(out)
