// What the target offers the components: mma.sync (sm_80 and later) always; warpgroup MMA, TMA,
// mbarriers and setmaxnreg (wgmma.cuh) only in a compute=wgmma build, which exists on sm_90a alone; the
// driver's CUtensorMap type (<cuda.h>) only in a staging=tma build. Nothing else includes those.
#pragma once
#include "config.cuh"
#include "mma.cuh"
#if FA_STAGING == 2
#include <cuda.h>  // CUtensorMap (the kernel's TMA parameters) and the driver's encoder type
#endif
#if FA_COMPUTE == 2
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "compute=wgmma needs the sm_90a target (nvcc -gencode arch=compute_90a,code=sm_90a)"
#endif
#include "wgmma.cuh"
#endif
