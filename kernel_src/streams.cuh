// The library's host state per device and per stream, so that one process may launch it from any thread on any
// of its devices and streams (a model split over two GPUs calls it on each; a server may run two streams at once):
// - per device, what a launch reads once: the kernel's shared-memory attribute (cudaFuncSetAttribute sets it on
//   the current device alone), its resident CTAs, the L2 size (OnDevice in fa_fwd.cu, through per_device);
// - per stream, what a launch writes: the persistent grid's work list (scheduler.cuh: a pair of counters its
//   launch leaves at zero; two launches of one stream run in turn, two streams' may run at once) and split-KV's
//   partials (epilogue.cuh), each stream its own (stream_slot).
// A build with neither a work list nor key splits asks for no slot. Before this, one work list and one workspace
// served every stream and device of the process, and the attribute was set on the first device only.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace fa {

constexpr int MAX_DEVICES = 64;
constexpr int STREAM_SLOTS = 64;  // per device: streams with a work list and workspace of their own at one time

// `make()` once per device, under a lock the first time the device asks; the value kept for the process.
template <class T, class Make>
const T* per_device(std::atomic<const T*> (&cache)[MAX_DEVICES], cudaError_t* err, Make&& make) {
  int dev = 0;
  *err = cudaGetDevice(&dev);
  if (*err != cudaSuccess) return nullptr;
  if (dev < 0 || dev >= MAX_DEVICES) {
    *err = cudaErrorInvalidDevice;
    return nullptr;
  }
  const T* v = cache[dev].load(std::memory_order_acquire);
  if (!v) {
    static std::mutex m;
    std::lock_guard<std::mutex> hold(m);
    v = cache[dev].load(std::memory_order_relaxed);
    if (!v) {
      v = new T(make());  // one per device and kernel, never freed
      cache[dev].store(v, std::memory_order_release);
    }
  }
  return v;
}

// What one stream of one device owns: the index of its work list (g_work, scheduler.cuh) and its split-KV workspace.
struct StreamSlot {
  cudaStream_t stream = nullptr;
  std::thread::id thread{};  // for the per-thread default stream, whose one handle names a stream per thread
  unsigned long long used = 0;  // the launch count at its stream's last launch: 0 never taken
  float* ws = nullptr;
  size_t cap = 0;
};

// The slot of `st` on the current device for this launch, its workspace grown to `ws_bytes` (0: none asked):
// its index (the work list) or -1 with *err set. A stream keeps its slot while it launches; past STREAM_SLOTS
// streams on one device the least recently launched stream's slot goes to the new one (a stream idle since
// STREAM_SLOTS other streams launched; were it still running, the two would share a list again). The slot's
// workspace stays with the slot: the first launch of a stream that needs more than its slot holds pays a
// cudaMalloc (which synchronises the device), as one workspace for the process did before.
inline int stream_slot(cudaStream_t st, size_t ws_bytes, float** ws, cudaError_t* err) {
  static std::mutex m;
  static StreamSlot* tables[MAX_DEVICES] = {};
  static unsigned long long launches = 0;
  int dev = 0;
  *err = cudaGetDevice(&dev);
  if (*err != cudaSuccess) return -1;
  if (dev < 0 || dev >= MAX_DEVICES) {
    *err = cudaErrorInvalidDevice;
    return -1;
  }
  if (st == cudaStreamLegacy) st = nullptr;  // the one legacy default stream, by either of its names
  const std::thread::id thread = st == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id{};
  std::lock_guard<std::mutex> hold(m);
  if (!tables[dev]) tables[dev] = new StreamSlot[STREAM_SLOTS];  // never freed
  StreamSlot* t = tables[dev];
  int i = 0, oldest = 0;
  for (; i < STREAM_SLOTS; ++i) {
    if (t[i].used && t[i].stream == st && t[i].thread == thread) break;
    if (t[i].used < t[oldest].used) oldest = i;
  }
  if (i == STREAM_SLOTS) {
    i = oldest;
    t[i].stream = st;
    t[i].thread = thread;
  }
  t[i].used = ++launches;
  if (ws_bytes > t[i].cap) {
    if (t[i].ws) cudaFree(t[i].ws);
    t[i].ws = nullptr;
    t[i].cap = 0;
    *err = cudaMalloc(&t[i].ws, ws_bytes);
    if (*err == cudaSuccess) *err = cudaMemset(t[i].ws, 0, ws_bytes);  // FA_LAST_ROUND=1's counters start at zero
    if (*err != cudaSuccess) return -1;
    t[i].cap = ws_bytes;
  }
  if (ws) *ws = t[i].ws;
  return i;
}

}  // namespace fa
