// HDI SpMV on the CPU: a thread per hack (dynamically scheduled, since hacks
// differ in their number of diagonals). Within a hack the diagonals are
// streamed into the hack's accumulators, as in the DIA kernel, and y is
// written once.
#include <algorithm>
#include <vector>

#include "common/first_error.hpp"
#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmv_hdi_rows(T alpha, const Hdi<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t m = A.rows(), n = A.cols(), H = A.hack_size(), nh = A.hacks();
  const I* hp = A.hack_ptr().data();
  const I* off = A.offsets().data();
  const T* val = A.values().data();
  const int threads = threads_for(static_cast<std::int64_t>(A.values().size()) + m);
  // Hand out about 1024 rows at a time.
  const int chunk = static_cast<int>(std::max<std::int64_t>(1, 1024 / H));

  detail::FirstError err;  // a thread's accumulator may fail to allocate
#pragma omp parallel num_threads(threads)
  {
    std::vector<T> acc;
    err.run([&] { acc.resize(static_cast<std::size_t>(std::min(H, m))); });
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t h = 0; h < nh; ++h) {
      if (err.failed()) continue;
      const std::int64_t r0 = h * H, hr = std::min(H, m - r0);
      T* a = acc.data();
      std::fill(a, a + hr, T{0});
      const T* hv = val + H * hp[h];  // the hack's values: hack_rows(h) per diagonal
      for (std::int64_t d = hp[h]; d < hp[h + 1]; ++d) {
        // Local rows whose column r0 + r + o lies inside the matrix.
        const std::int64_t o = off[d];
        const std::int64_t lo = std::max<std::int64_t>(0, -o - r0);
        const std::int64_t hi = std::min(hr, n - o - r0);
        const T* vd = hv + (d - hp[h]) * hr;
        const std::int64_t shift = r0 + o;  // column of local row r is r + shift
        for (std::int64_t r = lo; r < hi; ++r)
          a[r] += vd[r] * x[r + shift];
      }
      for (std::int64_t r = 0; r < hr; ++r)
        axpby_store(y, r0 + r, alpha, a[r], beta);
    }
  }
  err.rethrow();
}

#define SPX_INST(T, I) \
  template void spmv_hdi_rows(T, const Hdi<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
