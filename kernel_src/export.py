"""One self-contained .cu file for one configuration: the kernel at those knobs, a CPU reference
check and a timing loop printing TFLOP/s; it builds with one nvcc command (the shape of the
peer's standalone files, ../shared/seeds/002_ad8713791642b336.txt)."""

from __future__ import annotations

from .knobs import SOURCE, Knobs, inlined

_MAIN = r'''
// ---------------------------------------------------------------------------------------------
// Standalone driver: random inputs, the kernel, a CPU reference on sampled rows, a timing loop.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(2); } } while (0)

static float rnd(unsigned long long& s) {  // ~N(0,1): sum of 4 uniforms, scaled
  float a = 0.f;
  for (int i = 0; i < 4; ++i) { s = s * 6364136223846793005ULL + 1442695040888963407ULL; a += (s >> 40) / 16777216.f; }
  return (a - 2.f) * 1.7320508f;
}

int main(int argc, char** argv) {
  const int B = argc > 1 ? std::atoi(argv[1]) : 2, H = argc > 2 ? std::atoi(argv[2]) : 16;
  const int N = argc > 3 ? std::atoi(argv[3]) : 2048, causal = argc > 4 ? std::atoi(argv[4]) : 0;
  const int Hkv = argc > 5 ? std::atoi(argv[5]) : H;
  constexpr int D = EXPORT_D;
  using T = EXPORT_T;
  const size_t nq = (size_t)B * H * N * D, nkv = (size_t)B * Hkv * N * D;
  std::vector<T> hq(nq), hk(nkv), hv(nkv), ho(nq);
  unsigned long long seed = 20261130ULL;
  for (auto& x : hq) x = EXPORT_CAST(rnd(seed));
  for (auto& x : hk) x = EXPORT_CAST(rnd(seed));
  for (auto& x : hv) x = EXPORT_CAST(rnd(seed));
  T *q, *k, *v, *o;
  float* lse;
  CK(cudaMalloc(&q, nq * sizeof(T))); CK(cudaMalloc(&k, nkv * sizeof(T))); CK(cudaMalloc(&v, nkv * sizeof(T)));
  CK(cudaMalloc(&o, nq * sizeof(T))); CK(cudaMalloc(&lse, (size_t)B * H * N * sizeof(float)));
  CK(cudaMemcpy(q, hq.data(), nq * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(k, hk.data(), nkv * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(v, hv.data(), nkv * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemset(o, 0xff, nq * sizeof(T)));  // NaN poison: an unwritten output fails the check
  const float scale = (float)(1.0 / std::sqrt((double)D) * (FA_EXP == 1 ? 1.4426950408889634 : 1.0));
  auto run = [&] {
    int rc = fa_fwd(q, k, v, o, lse, B, H, Hkv, N, D, EXPORT_DTYPE, causal, scale, nullptr);
    if (rc) { std::fprintf(stderr, "fa_fwd: %s\n", fa_error_string(rc)); std::exit(2); }
  };
  run();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(ho.data(), o, nq * sizeof(T), cudaMemcpyDeviceToHost));

  // CPU reference in double on 64 sampled rows, against the rounded fp16/bf16 inputs
  double worst = 0.0;
  unsigned long long pick = 7;
  for (int sample = 0; sample < 64; ++sample) {
    pick = pick * 6364136223846793005ULL + 1;
    const int bh = (int)((pick >> 33) % (B * H)), row = (int)((pick >> 13) % N);
    const int b = bh / H, kvh = (bh % H) / (H / Hkv);
    const T* qr = &hq[((size_t)bh * N + row) * D];
    const size_t kvbase = ((size_t)b * Hkv + kvh) * N * D;
    const int last = causal ? row : N - 1;
    std::vector<double> p(last + 1);
    double mx = -1e300, sum = 0.0;
    for (int j = 0; j <= last; ++j) {
      double s = 0;
      for (int d = 0; d < D; ++d) s += (double)EXPORT_FLOAT(qr[d]) * (double)EXPORT_FLOAT(hk[kvbase + (size_t)j * D + d]);
      p[j] = s / std::sqrt((double)D);
      mx = std::max(mx, p[j]);
    }
    for (auto& x : p) { x = std::exp(x - mx); sum += x; }
    for (int d = 0; d < D; ++d) {
      double ref = 0;
      for (int j = 0; j <= last; ++j) ref += p[j] * (double)EXPORT_FLOAT(hv[kvbase + (size_t)j * D + d]);
      ref /= sum;
      const double got = (double)EXPORT_FLOAT(ho[((size_t)bh * N + row) * D + d]);
      worst = std::isfinite(got) ? std::max(worst, std::fabs(got - ref)) : INFINITY;
    }
  }
  // one output rounding of a value of magnitude < 4 plus fp32 accumulation: a loose, fixed bound
  // (the tool's own tier derives its bound from a same-dtype reference instead)
  const double tol = EXPORT_TOL;
  std::printf("check: max_abs %.3g over 64 sampled rows (tolerance %.3g): %s\n", worst, tol, worst <= tol ? "PASS" : "FAIL");
  if (!(worst <= tol)) return 1;

  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int i = 0; i < 10; ++i) run();
  const int iters = 50;
  CK(cudaEventRecord(e0));
  for (int i = 0; i < iters; ++i) run();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  ms /= iters;
  const double pairs = causal ? (double)N * (N + 1) / 2 : (double)N * N;
  std::printf("%s B=%d H=%d Hkv=%d N=%d D=%d causal=%d: %.4f ms, %.1f TFLOP/s (mean of %d, unpaired)\n", EXPORT_LABEL, B, H,
              Hkv, N, D, causal, ms, 4.0 * B * H * pairs * D / (ms * 1e-3) / 1e12, iters);
  return 0;
}
'''


def nvcc_arch(knobs: Knobs) -> tuple[str, str]:
    """The -arch flag the exported file builds with, and the archs it builds for: a wgmma kernel exists on sm_90a
    alone (plain sm_90 refuses its instructions), every other one on any sm_80+ part."""
    if knobs.needs_arch():  # not -arch=sm_90a: nvcc 13 then also emits compute_90 PTX, which has no wgmma
        num = knobs.needs_arch().removeprefix("sm_")
        return f"-gencode arch=compute_{num}a,code=sm_{num}a", f"sm_{num}a only: Hopper's warpgroup MMA"
    return "-arch=sm_90", "any of sm_80, sm_86, sm_89, sm_90, sm_120"


def standalone(knobs: Knobs, head_dim: int = 128, dtype: str = "float16") -> str:
    if head_dim not in (64, 128):
        raise ValueError("head dim must be 64 or 128")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError("dtype must be float16 or bfloat16")
    src = inlined(SOURCE)  # the headers inlined: one file, one nvcc command
    half = dtype == "float16"
    defines = {**knobs.defines(), "FA_DTYPES": 1 if half else 2, "FA_DIMS": 1 if head_dim == 64 else 2, "FA_CAUSALS": 3}
    head = [
        f"// fa5090-search export: {knobs.label()}, D={head_dim}, {dtype}",
        f"// knobs: {knobs.canonical()}",
        f"// build: nvcc -O3 -std=c++17 {nvcc_arch(knobs)[0]} attn.cu -o attn   ({nvcc_arch(knobs)[1]})",
        "// run:   ./attn [B H N causal Hkv]   - checks 64 sampled rows against a CPU reference, then times it",
        *[f"#define {k} {v}" for k, v in sorted(defines.items())],
        f"#define EXPORT_D {head_dim}",
        f"#define EXPORT_T {'__half' if half else '__nv_bfloat16'}",
        f"#define EXPORT_CAST(x) {'__float2half_rn' if half else '__float2bfloat16_rn'}(x)",
        f"#define EXPORT_FLOAT(x) {'__half2float' if half else '__bfloat162float'}(x)",
        f"#define EXPORT_DTYPE {0 if half else 1}",
        f"#define EXPORT_TOL {2e-2 if half else 1.2e-1}",
        f'#define EXPORT_LABEL "{knobs.label()}"',
        "",
    ]
    return "\n".join(head) + src + _MAIN
