// The lane layout shared by the CUDA SpMM kernels for n > 16 (spmm_csr.cu,
// spmm_panel.cu): strided dense operands, vector loads of B and stores of C,
// a lane's place in a column tile (LaneTile) and the choice of the tile
// (with_lane_tile). Device helpers and small host helpers only; no fmt here
// (nvcc includes it).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "cuda/primitives.cuh"
#include "spx/core/view.hpp"

namespace spx::cuda::spmm_tile {

inline constexpr int kWarp = kWarpSize;
inline constexpr int kSpmmBlock = 128;  ///< 4 warps per block, as in the paper
inline constexpr int kWarpsPerBlock = kSpmmBlock / kWarp;
inline constexpr std::int64_t kMaxGridY = 65535;
inline constexpr std::int64_t kMaxGridX = std::numeric_limits<std::int32_t>::max();

/// A dense matrix as (pointer, row stride, column stride): element (i, j) at
/// data[i*rs + j*cs]. Row-major: (ld, 1); column-major: (1, ld).
template <class T>
struct Strided {
  T* data;
  std::int64_t rs;
  std::int64_t cs;
};

template <class T>
inline Strided<T> strided(DenseView<T> v) {
  return v.layout == Layout::RowMajor ? Strided<T>{v.data, v.ld, 1} : Strided<T>{v.data, 1, v.ld};
}

/// Read-only loads through the non-coherent cache.
template <class T>
__device__ __forceinline__ T load(const T* p) {
  return __ldg(p);
}

/// C(i, j) = alpha*acc + beta*C(i, j), not reading C when beta = 0.
template <class T>
__device__ __forceinline__ void store_c(const Strided<T>& C, std::int64_t i, std::int64_t j,
                                        T alpha, T acc, T beta) {
  T* c = C.data + i * C.rs + j * C.cs;
  *c = beta == T{0} ? alpha * acc : alpha * acc + beta * *c;
}

/// How a lane holds its columns of a tile when n > 16: NV vectors of VEC
/// consecutive columns, vector v of lane l starting at column
/// tile + v·32·VEC + l·VEC, so a warp reads 32·VEC consecutive values of a
/// row of B per load. VEC = 1 is the paper's layout and works for any B and
/// C; VEC > 1 (16- or 8-byte loads and stores) needs row-major B and C
/// aligned to the vector (vector_fits).
template <class T, int VEC>
struct VecOf;
template <>
struct VecOf<double, 2> {
  using type = double2;
};
template <>
struct VecOf<float, 2> {
  using type = float2;
};
template <>
struct VecOf<float, 4> {
  using type = float4;
};

/// C(i, j..j+VEC) = alpha*acc + beta*C(i, j..j+VEC), not reading C when
/// beta = 0.
template <int VEC, class T>
__device__ __forceinline__ void store_c_vec(const Strided<T>& C, std::int64_t i, std::int64_t j,
                                            T alpha, const T* acc, T beta) {
  if constexpr (VEC == 1) {
    store_c(C, i, j, alpha, acc[0], beta);
  } else {
    using V = typename VecOf<T, VEC>::type;
    V* c = reinterpret_cast<V*>(C.data + i * C.rs + j);
    V out;
    if (beta == T{0}) {
      out.x = alpha * acc[0];
      out.y = alpha * acc[1];
      if constexpr (VEC == 4) {
        out.z = alpha * acc[2];
        out.w = alpha * acc[3];
      }
    } else {
      const V old = *c;
      out.x = alpha * acc[0] + beta * old.x;
      out.y = alpha * acc[1] + beta * old.y;
      if constexpr (VEC == 4) {
        out.z = alpha * acc[2] + beta * old.z;
        out.w = alpha * acc[3] + beta * old.w;
      }
    }
    *c = out;
  }
}

/// A lane's place in a column tile of 32·VEC·NV columns.
template <int VEC, int NV>
struct LaneTile {
  static constexpr int kCols = VEC * NV;  ///< columns per lane
  static constexpr int kWidth = kWarp * kCols;
  std::int64_t j0;  ///< the lane's first column
  bool active[NV];  ///< vector v lies inside the matrix (the tail tile)

  __device__ LaneTile(std::int64_t tile, std::int64_t n) {
    j0 = tile * kWidth + (threadIdx.x % kWarp) * VEC;
#pragma unroll
    for (int v = 0; v < NV; ++v)
      active[v] = column(v) < n;  // n % VEC == 0: a vector is wholly in or out
  }
  __device__ std::int64_t column(int v) const {
    return j0 + std::int64_t{v} * kWarp * VEC;
  }

  template <class T>
  __device__ void store(const Strided<T>& C, std::int64_t row, T alpha, const T (&acc)[kCols],
                        T beta) const {
#pragma unroll
    for (int v = 0; v < NV; ++v)
      if (active[v]) store_c_vec<VEC>(C, row, column(v), alpha, acc + v * VEC, beta);
  }
};

/// Whether B and C take VEC-wide loads and stores: row-major, n, the
/// leading dimensions and the pointers multiples of the vector.
template <int VEC, class T>
inline bool vector_fits(const Strided<const T>& B, const Strided<T>& C, std::int64_t n) {
  if constexpr (VEC == 1) {
    return true;
  } else {
    const auto aligned = [](const void* p) {
      return reinterpret_cast<std::uintptr_t>(p) % (VEC * sizeof(T)) == 0;
    };
    return B.cs == 1 && C.cs == 1 && n % VEC == 0 && B.rs % VEC == 0 && C.rs % VEC == 0 &&
           aligned(B.data) && aligned(C.data);
  }
}

/// Calls f.template operator()<VEC, NV>() with the lane layout for n > 16:
/// tiles of 32 columns up to n = 32, of 64 up to 64, else of 128; 8- or
/// 16-byte vectors per lane where B and C allow them, else one column per
/// lane (VEC = 1).
template <class T, class F>
inline void with_lane_tile(const Strided<const T>& B, const Strided<T>& C, std::int64_t n, F&& f) {
  constexpr int kWide = sizeof(T) == 4 ? 4 : 2;  // 16-byte vectors
  if (n <= kWarp) {
    f.template operator()<1, 1>();
  } else if (n <= 2 * kWarp) {
    if (vector_fits<2>(B, C, n)) {
      f.template operator()<2, 1>();
    } else {
      f.template operator()<1, 2>();
    }
  } else if (vector_fits<kWide>(B, C, n)) {
    f.template operator()<kWide, 4 / kWide>();
  } else {
    f.template operator()<1, 4>();
  }
}

/// at + i·row_bytes: for a 32-bit i one mad.wide.s32 (nvcc otherwise
/// multiplies in 64 bits: five instructions per load of B).
template <class I>
__device__ __forceinline__ const char* row_address(const char* at, int row_bytes, I i) {
  if constexpr (sizeof(I) == 4) {
    std::uint64_t p;
    asm("mad.wide.s32 %0, %1, %2, %3;"
        : "=l"(p)
        : "r"(static_cast<int>(i)), "r"(row_bytes), "l"(reinterpret_cast<std::uint64_t>(at)));
    return reinterpret_cast<const char*>(p);
  } else {
    return at + static_cast<std::int64_t>(i) * row_bytes;
  }
}

/// This lane's view of B in a column tile: a pointer to each of its NV
/// vectors in row 0 of B (column 0 for a vector past n, so that its loads
/// stay inside B; sums of such vectors are never stored) and B's row stride
/// in bytes as an int (spmm_csr_can_run refuses a larger one), so that the
/// address of row i is one 32 × 32 → 64-bit multiply-add.
template <int VEC, int NV, class T>
struct LaneB {
  const char* at[NV];
  int row_bytes;

  __device__ LaneB(const Strided<const T>& B, const LaneTile<VEC, NV>& tile)
      : row_bytes(static_cast<int>(B.rs * static_cast<std::int64_t>(sizeof(T)))) {
#pragma unroll
    for (int v = 0; v < NV; ++v)
      at[v] = reinterpret_cast<const char*>(B.data + (tile.active[v] ? tile.column(v) : 0) * B.cs);
  }
  /// Vector v of row i.
  template <class I>
  __device__ const T* row(I i, int v) const {
    return reinterpret_cast<const T*>(row_address(at[v], row_bytes, i));
  }
};

/// out[0..VEC) = p[0..VEC) in one load (p aligned to the vector when VEC > 1).
template <int VEC, class T>
__device__ __forceinline__ void load_vec(const T* p, T* out) {
  if constexpr (VEC == 1) {
    out[0] = __ldg(p);
  } else {
    using V = typename VecOf<T, VEC>::type;
    const V v = __ldg(reinterpret_cast<const V*>(p));
    out[0] = v.x;
    out[1] = v.y;
    if constexpr (VEC == 4) {
      out[2] = v.z;
      out[3] = v.w;
    }
  }
}

/// VEC consecutive columns j..j+VEC of B as the grouped kernels read them
/// (row_split_narrow, merge_based: a group of W lanes covers W·VEC columns),
/// one VEC-wide load at one multiply-add from a per-lane pointer, as LaneB
/// (VEC > 1 needs vector_fits).
template <class T, int VEC>
struct GroupB {
  const char* at;
  int row_bytes;

  __device__ GroupB(const Strided<const T>& B, std::int64_t j)
      : at(reinterpret_cast<const char*>(B.data + j * B.cs)),
        row_bytes(static_cast<int>(B.rs * static_cast<std::int64_t>(sizeof(T)))) {}
  template <class I>
  __device__ void operator()(I i, T* out) const {
    load_vec<VEC>(reinterpret_cast<const T*>(row_address(at, row_bytes, i)), out);
  }
};

/// b[u] = this lane's columns of row col_of(t0 + u) of B, for the kGroup
/// entries t0 + u of a batch of `count` (warp-uniform); zeros past the
/// batch. The kGroup·NV loads are independent (issued before any use).
/// Every lane calls col_of(t0 + u) for every u (it may shuffle).
template <int kGroup, int VEC, int NV, class T, class ColOf>
__device__ __forceinline__ void load_b_group(const LaneB<VEC, NV, T>& lb, int t0, int count,
                                             ColOf&& col_of, T (&b)[kGroup][VEC * NV]) {
#pragma unroll
  for (int u = 0; u < kGroup; ++u) {
    const int t = t0 + u;
    const auto ct = col_of(t);
#pragma unroll
    for (int q = 0; q < NV; ++q) {
      if (t < count) {
        load_vec<VEC>(lb.row(ct, q), &b[u][q * VEC]);
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          b[u][q * VEC + e] = T{0};
      }
    }
  }
}

}  // namespace spx::cuda::spmm_tile
