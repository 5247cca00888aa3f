// CK(call): the stand-alone profiling programs' CUDA error check
// (bench/profile/*.cu, not part of the build): on an error, prints the file,
// line and CUDA's message and exits with status 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(e)                                                                           \
  do {                                                                                  \
    cudaError_t err_ = (e);                                                             \
    if (err_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)
