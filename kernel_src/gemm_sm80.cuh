// The mma.sync GEMMs of the tensor-core mainloop (compute=mma, sm_80 and later): S = Q K^T and
// O += P V as m16n8k16 with fp32 accumulators, Q and K fragments by ldmatrix, V by ldmatrix.trans or
// 16-bit loads. gemm_sm90.cuh has the warpgroup-MMA GEMMs of compute=wgmma.
//
// v1: tensor cores. Each warp owns 16 query rows; S = Q K^T and O += P V run as
// mma.sync.m16n8k16 with fp32 accumulators, operands fed by ldmatrix (V through .trans).
// S's accumulator layout is exactly P's A-operand layout, so P never leaves registers.
// Hypothesis (seed 2.3): the unit that defines the card wakes up; H200: 3.54x paired
// (results/2026-11-30_h200_run2), 6.9x on the 5090.
#pragma once
#include <stdint.h>

#include "config.cuh"
#include "copy.cuh"
#include "target.cuh"
#include "tile.cuh"

namespace fa {

// V's B fragments for two n-tiles (i, i+1) of one 16-key slab. ldmatrix.trans gathers them in one
// LDSM.T; the lds path reads the same 8 half-words per lane with 16-bit loads and packs them: the
// same bits reach the same mma, so the output is bitwise the same; what changes is 8 LDS.U16 +
// 4 PRMT per LDSM. Hypothesis (seed v1, the 5090 ladder's first tensor-core step): ldmatrix.trans
// is what makes the V path cheap. H200, against ldmatrix.trans: 0.827x at N=8192 fp16, 0.657x at
// causal N=32768 bf16 (results/2026-11-30_h200_margins).
template <class K, typename T, int D>
__device__ __forceinline__ void v_frag(uint32_t* b, const T* Vb, int kk, int i, int lane) {
  using TL = Tile<D, K::LAYOUT>;
  if constexpr (K::V_LOAD == V_LDMATRIX_TRANS) {
    ldmatrix_x4_trans(b, Vb + TL::rd(kk * 16 + (lane & 15), i * 8 + (lane >> 4) * 8));
  } else {
    const int g = lane >> 2, t = lane & 3;
    const uint16_t* v = reinterpret_cast<const uint16_t*>(Vb);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = kk * 16 + 8 * (j & 1) + 2 * t, col = (i + (j >> 1)) * 8 + g;
      b[j] = (uint32_t)v[TL::rd(row, col)] | ((uint32_t)v[TL::rd(row + 1, col)] << 16);
    }
  }
}

// The policy is functions of their operands alone: the mainloop keeps the registers (Q fragments, S, P,
// O) and passes them in, with the lambdas it calls them from. Q's fragments held in the policy as a member
// compiled to other instructions (the same arithmetic, reordered), which the PTX check refuses.
template <class K, typename T, int D>
struct GemmSm80 {
  using TL = Tile<D, K::LAYOUT>;
  static constexpr int MT = K::MT, NT = K::BC / 8, DT = D / 8;
  // Q in registers: 4 x D/16 registers per m-tile held across the whole key loop. Re-read from
  // shared memory instead (FA_Q_IN=1): D/16 more ldmatrix per m-tile per key block, 32 registers
  // back per m-tile at D=128. H200 from the padded kernel: 174 -> 166 registers, 2 -> 3 CTAs/SM,
  // 1.190x at N=8192 fp16 and 1.158x at causal N=32768 bf16 (results/2026-11-30_h200_margins).
  using QFrags = uint32_t[K::Q_IN ? 1 : MT][K::Q_IN ? 1 : D / 16][4];

  // after Q's tile is staged and visible: its fragments into registers (FA_Q_IN=0); r0 the warp's first row
  __device__ __forceinline__ static void load_q(QFrags& qf, const T* Qs, int r0, int lane) {
    if constexpr (!K::Q_IN) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk)
          ldmatrix_x4(qf[mt][kk], Qs + TL::rd(r0 + mt * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8));
    }
  }

  // S = Q K^T. With two m-tiles per warp each K fragment feeds two mma: half the LDSM per mma.
  // H200 (BR 128 on 4 warps, 255 registers): 0.988x at N=8192 fp16, 0.923x at causal N=32768.
  __device__ __forceinline__ static void qk(const T* Kb, float (&s)[MT][NT][4], const T* Qs, const QFrags& qf, int r0,
                                            int lane) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int j = 0; j < NT; ++j) s[mt][j][0] = s[mt][j][1] = s[mt][j][2] = s[mt][j][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t qa[K::Q_IN ? MT : 1][4];
      if constexpr (K::Q_IN) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
          ldmatrix_x4(qa[mt], Qs + TL::rd(r0 + mt * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8));
      }
#pragma unroll
      for (int j = 0; j < NT; j += 2) {
        uint32_t b[4];
        ldmatrix_x4(b, Kb + TL::rd(j * 8 + (lane & 7) + ((lane >> 4) << 3), kk * 16 + ((lane >> 3) & 1) * 8));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          const uint32_t* a = K::Q_IN ? qa[K::Q_IN ? mt : 0] : qf[K::Q_IN ? 0 : mt][K::Q_IN ? 0 : kk];
          mma16816<T>(s[mt][j], a, b);
          mma16816<T>(s[mt][j + 1], a, b + 2);
        }
      }
    }
  }

  // O += P V, each V fragment feeding MT m-tiles
  __device__ __forceinline__ static void pv(const uint32_t (&pf)[MT][NT][2], const T* Vb, float (&o)[MT][DT][4], int lane) {
#pragma unroll
    for (int kk = 0; kk < K::BC / 16; ++kk) {
#pragma unroll
      for (int i = 0; i < DT; i += 2) {
        uint32_t b[4];
        v_frag<K, T, D>(b, Vb, kk, i, lane);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          const uint32_t a[4] = {pf[mt][2 * kk][0], pf[mt][2 * kk][1], pf[mt][2 * kk + 1][0], pf[mt][2 * kk + 1][1]};
          mma16816<T>(o[mt][i], a, b);
          mma16816<T>(o[mt][i + 1], a, b + 2);
        }
      }
    }
  }

  // FA_PV_SLAB=1: the PV MMAs of pv() above, one 16-key slab's P at a time, p_tile(mt, j, out) making
  // n-tile j's P as it goes (a copy of that loop, so that pv_slab=off keeps the PTX it had:
  // results/2026-11-30_cpu_build_checks/pv_slab_off_identical.txt)
  template <class PTile>
  __device__ __forceinline__ static void pv_slab(PTile& p_tile, const T* Vb, float (&o)[MT][DT][4], int lane) {
#pragma unroll
    for (int kk = 0; kk < K::BC / 16; ++kk) {
      uint32_t a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        p_tile(mt, 2 * kk, a[mt]);
        p_tile(mt, 2 * kk + 1, a[mt] + 2);
      }
#pragma unroll
      for (int i = 0; i < DT; i += 2) {
        uint32_t b[4];
        v_frag<K, T, D>(b, Vb, kk, i, lane);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma16816<T>(o[mt][i], a[mt], b);
          mma16816<T>(o[mt][i + 1], a[mt], b + 2);
        }
      }
    }
  }
};

}  // namespace fa
