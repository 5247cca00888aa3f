// The kinds of entries the cuSPARSE and cuBLAS baselines keep in a matrix's
// StructureCache (include/spx/core/cache.hpp): one struct each, declaring its
// parameters as `Key`; a lookup matches the entry's type and key, so the
// entries of different baselines, and those of the CUDA backend
// (src/cuda/cache_entries.hpp), never collide. Host code only.
//
// The cached work buffers are shared by every call on one matrix, so
// concurrent calls on one matrix from several streams are not supported for
// the baselines (SpX's own kernels allow them).
#pragma once

#include <cusparse.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "spx/core/array.hpp"
#include "spx/core/cache.hpp"
#include "spx/registry.hpp"

namespace spx::baselines {

/// A cuSPARSE object (a descriptor) owned: destroyed by `Destroy` with its
/// owner. Converts to the handle; a cusparseCreate* call writes it at out().
template <class D, auto Destroy>
class Owned {
 public:
  Owned() = default;
  Owned(Owned&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
  Owned& operator=(Owned&&) = delete;
  ~Owned() {
    if (d_ != nullptr) Destroy(d_);
  }
  operator D() const { return d_; }
  D* out() { return &d_; }

 private:
  D d_ = nullptr;
};
using SpMat = Owned<cusparseConstSpMatDescr_t, cusparseDestroySpMat>;
using MutableSpMat = Owned<cusparseSpMatDescr_t, cusparseDestroySpMat>;
using ConstDnVec = Owned<cusparseConstDnVecDescr_t, cusparseDestroyDnVec>;
using DnVec = Owned<cusparseDnVecDescr_t, cusparseDestroyDnVec>;
using ConstDnMat = Owned<cusparseConstDnMatDescr_t, cusparseDestroyDnMat>;
using DnMat = Owned<cusparseDnMatDescr_t, cusparseDestroyDnMat>;

/// Nothing held besides the descriptor (SpmvPlan's default).
struct NoExtra {};

// ---- SpMV (cusparse.cpp, cusparse_sell.cpp, cusparse_bsr.cpp) -----------------

/// cusparseSpMV: the matrix descriptor and the work buffer of one (matrix,
/// algorithm), and what the descriptor points to besides the matrix's arrays
/// (`Extra`: for SELL, the column indices with -1 in the padding). Built on
/// the first call; when it enqueued work (cusparseSpMV_preprocess, the SELL
/// column copy), the call's stream is synchronized before it is shared.
/// Key: the cuSPARSE algorithm.
template <class Extra = NoExtra>
struct SpmvPlan {
  using Key = cusparseSpMVAlg_t;
  Extra extra;
  SpMat mat;
  mutable Array<std::byte> buffer;  ///< device; cuSPARSE writes it during calls
};

/// Legacy bsrmv: the general-matrix descriptor (zero-based). No parameters.
struct BsrmvDescr {
  using Key = detail::NoKey;
  Owned<cusparseMatDescr_t, cusparseDestroyMatDescr> descr;
};

// ---- SpMM (cusparse_spmm.cpp) ---------------------------------------------------

/// One cusparseSpMM set-up: A's descriptor and work buffer for one algorithm
/// and one set of operands.
struct SpmmSetup {
  cusparseSpMMAlg_t alg;
  SpmmShape shape;
  const void* values;  ///< A's values array when the descriptor was made
  const void* b;
  const void* c;
  SpMat descr;
  Array<std::byte> buffer;
  bool preprocessed = false;

  SpmmSetup(cusparseSpMMAlg_t a, const SpmmShape& s, const void* v, const void* b_, const void* c_)
      : alg(a), shape(s), values(v), b(b_), c(c_) {}
  bool matches(cusparseSpMMAlg_t a, const SpmmShape& s, const void* v, const void* b_,
               const void* c_) const {
    return alg == a && shape.n == s.n && shape.b_layout == s.b_layout &&
           shape.c_layout == s.c_layout && shape.ldb == s.ldb && shape.ldc == s.ldc &&
           values == v && b == b_ && c == c_;
  }
};

/// cusparseSpMM: the set-ups made for one matrix, most recently used first, at
/// most kMaxSpmmSetups (cusparse_spmm.cpp). The operands are part of a
/// set-up, so the list changes from call to call, under the state's own
/// lock (hence mutable). No parameters.
struct SpmmState {
  using Key = detail::NoKey;
  mutable std::mutex mutex;
  mutable std::list<SpmmSetup> entries;  ///< most recently made first
};

/// cuBLAS GEMM: the dense copy of A (column-major m×k, ld = m), holding A's
/// values when it was made. No parameters.
template <class T>
struct DenseCopy {
  using Key = detail::NoKey;
  Array<T> data;
};

// ---- batched SpMV (cusparse_batch.cpp) ------------------------------------------

/// A loop of cusparseSpMV calls: the descriptors of every matrix with entries
/// (null for the others) and the work buffer. No parameters.
template <class T>
struct LoopPlan {
  using Key = detail::NoKey;
  std::vector<MutableSpMat> mats;
  std::vector<DnVec> xs, ys;
  Array<T> scratch;  // placeholder vectors for the descriptors until the first product
  Array<unsigned char> buffer;
};

/// Strided-batch cusparseSpMM: empty when every matrix has matrix 0's shape
/// and nonzero count, else the reason (asked on every product). No
/// parameters.
struct BatchSpmmCheck {
  using Key = detail::NoKey;
  std::string reason;
};

/// One batched cusparseSpMM call over at most 65535 matrices.
struct SpmmChunk {
  std::int64_t first = 0, count = 0;
  MutableSpMat a;
  DnMat b, c;
};
/// Strided-batch cusparseSpMM: the chunks' descriptors, the column index
/// copies (uniform batches), and the work buffer. Key: the cuSPARSE
/// algorithm.
template <class T, class I>
struct BatchSpmmPlan {
  using Key = cusparseSpMMAlg_t;
  std::vector<SpmmChunk> chunks;
  Array<I> col_copies;  // uniform batches: col_idx once per matrix
  Array<T> scratch;
  Array<unsigned char> buffer;
};

}  // namespace spx::baselines
