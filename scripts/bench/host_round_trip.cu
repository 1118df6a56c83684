/** @file host_round_trip.cu
 *  How long one host decision between two kernels takes on this GPU (scripts/bench-round-trip):
 *  a solver's global sum must reach the host (an MPI without CUDA support sums it there) and
 *  set the next kernel's coefficient. Two ways, alternating, `reps` times each:
 *  - launch + sync: the kernel is launched, cudaStreamSynchronize, the value read;
 *  - queued ahead: the next kernel waits in the stream (cuStreamWaitValue32 on a flag in mapped
 *    host memory) while the host polls the flag the kernel before wrote; the host releases it.
 *  Each kernel streams `n` doubles (y += a x) and its last block publishes a value; both ways
 *  check every value before a time is reported. One table, medians. Plain CUDA (no Porta): it
 *  measures the platform the core runs on. */
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__device__ unsigned done_blocks;

/** y += a x over n elements; the last block to finish writes 1 + tag to *out, then tag to *flag
 *  (when flag is not null), both in mapped host memory. */
__global__ void stream_and_publish(volatile double *out, volatile unsigned *flag, unsigned tag,
                                   const double *x, long n, double *y, double a) {
  __shared__ bool last;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    y[i] += a * x[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&done_blocks, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    done_blocks = 0;
    *out = 1.0 + tag;
    __threadfence_system();
    if (flag) *flag = tag;
  }
}

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench-round-trip: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

int main(int argc, char **argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 0;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5, trips = 2000;
  if (n < 0 || reps < 1) {
    std::fprintf(stderr, "usage: host_round_trip [ELEMENTS (0)] [REPS (5)]\n");
    return 2;
  }
  double *x, *y;
  check(cudaMalloc(&x, (n + 1) * sizeof(double)), "cudaMalloc");
  check(cudaMalloc(&y, (n + 1) * sizeof(double)), "cudaMalloc");
  check(cudaMemset(x, 0, (n + 1) * sizeof(double)), "cudaMemset");
  check(cudaMemset(y, 0, (n + 1) * sizeof(double)), "cudaMemset");
  volatile double *hv;
  volatile unsigned *hf; /* [0] the kernel's flag, [1] the host's release */
  check(cudaHostAlloc((void **)&hv, 64, cudaHostAllocMapped), "cudaHostAlloc");
  check(cudaHostAlloc((void **)&hf, 64, cudaHostAllocMapped), "cudaHostAlloc");
  volatile double *dv;
  volatile unsigned *df;
  check(cudaHostGetDevicePointer((void **)&dv, (void *)hv, 0), "cudaHostGetDevicePointer");
  check(cudaHostGetDevicePointer((void **)&df, (void *)hf, 0), "cudaHostGetDevicePointer");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
  const int grid = n ? sms * 8 : 1;
  cudaStream_t st;
  check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("host round trip between two kernels: %s, %ld doubles streamed per kernel, %d "
              "trips per rep, %d reps\n",
              prop.name, n, trips, reps);
  std::vector<double> sync_us, queued_us;
  for (int rep = 0; rep < reps; ++rep) {
    check(cudaDeviceSynchronize(), "sync");
    auto t0 = std::chrono::steady_clock::now();
    for (int it = 1; it <= trips; ++it) {
      stream_and_publish<<<grid, 256, 0, st>>>(dv, nullptr, it, x, n, y, 1e-9);
      check(cudaStreamSynchronize(st), "launch + sync");
      if (hv[0] != 1.0 + it) {
        std::fprintf(stderr, "bench-round-trip: launch + sync read %g, not %g\n", hv[0], 1.0 + it);
        return 1;
      }
    }
    sync_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        trips);
    hf[0] = hf[1] = 0;
    check(cudaDeviceSynchronize(), "sync");
    int queued = 0;
    t0 = std::chrono::steady_clock::now();
    for (int it = 1; it <= trips; ++it) {
      while (queued < it + 1 && queued < trips) { /* one kernel queued ahead */
        ++queued;
        if (cuStreamWaitValue32((CUstream)st, (CUdeviceptr)(df + 1), (cuuint32_t)queued,
                                CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS) {
          std::fprintf(stderr, "bench-round-trip: cuStreamWaitValue32 failed\n");
          return 2;
        }
        stream_and_publish<<<grid, 256, 0, st>>>(dv, df, queued, x, n, y, 1e-9);
      }
      hf[1] = it; /* release kernel it */
      while (hf[0] != (unsigned)it) {
      }
      if (hv[0] != 1.0 + it) {
        std::fprintf(stderr, "bench-round-trip: queued read %g, not %g\n", hv[0], 1.0 + it);
        return 1;
      }
    }
    check(cudaStreamSynchronize(st), "queued");
    queued_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        trips);
  }
  std::printf("%-34s %10s %10s %10s\n", "way", "median us", "min us", "max us");
  std::printf("%-34s %10.2f %10.2f %10.2f\n", "launch + cudaStreamSynchronize", median(sync_us),
              *std::min_element(sync_us.begin(), sync_us.end()),
              *std::max_element(sync_us.begin(), sync_us.end()));
  std::printf("%-34s %10.2f %10.2f %10.2f\n", "queued ahead, cuStreamWaitValue32",
              median(queued_us), *std::min_element(queued_us.begin(), queued_us.end()),
              *std::max_element(queued_us.begin(), queued_us.end()));
  std::printf("values checked: all %d trips of every rep, both ways\n", trips);
  return 0;
}
