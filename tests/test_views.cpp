// Views over the caller's memory (Array::view, Csr/Coo/Csc::view): no copy
// (the matrix's pointers are the caller's), never freed (run under the
// sanitize preset, a free of a view's vector or stack memory is caught),
// products through a view equal those through an owned copy for every
// registered SpMV and SpMM kernel of the three formats, the caller's arrays
// are never written, validation is the same with the same messages, and
// whatever is derived from a view owns its memory. The device test needs a
// GPU: it skips without one, and fails instead when SPX_REQUIRE_GPU=1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#if SPX_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "common.hpp"
#include "cuda_common.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

template <class P>
class Views : public ::testing::Test {};
TYPED_TEST_SUITE(Views, TypePairs, TypePairNames);

/// The three arrays of a format, in the order its `view` takes them.
template <Value T, Index I>
auto arrays(const Csr<T, I>& A) {
  return std::tie(A.row_ptr(), A.col_idx(), A.values());
}
template <Value T, Index I>
auto arrays(const Coo<T, I>& A) {
  return std::tie(A.row_idx(), A.col_idx(), A.values());
}
template <Value T, Index I>
auto arrays(const Csc<T, I>& A) {
  return std::tie(A.col_ptr(), A.row_idx(), A.values());
}

/// A matrix of format M as a caller holds it: three std::vectors of its own,
/// over which `view` builds M without a copy.
template <class M>
struct Caller {
  using T = typename M::value_type;
  using I = typename M::index_type;
  I rows = 0, cols = 0;
  std::vector<I> a, b;
  std::vector<T> v;

  explicit Caller(const M& A) : rows(A.rows()), cols(A.cols()) {
    const auto& [pa, pb, pv] = arrays(A);
    a = pa.to_vector();
    b = pb.to_vector();
    v = pv.to_vector();
  }
  Caller(I r, I c, std::vector<I> a0, std::vector<I> b0, std::vector<T> v0)
      : rows(r), cols(c), a(std::move(a0)), b(std::move(b0)), v(std::move(v0)) {}

  M view(Check check = Check::Full) const {
    return M::view(rows, cols, a, b, v, Space::Host, check);
  }
  M owned(Check check = Check::Full) const {
    return M(rows, cols, Array<I>(a), Array<I>(b), Array<T>(v), check);
  }
  bool operator==(const Caller&) const = default;
};

/// Expects the view's arrays to be the caller's (same pointers, no copy).
template <class M>
void expect_no_copy(const M& view, const Caller<M>& c) {
  const auto& [pa, pb, pv] = arrays(view);
  EXPECT_EQ(pa.data(), c.a.data());
  EXPECT_EQ(pb.data(), c.b.data());
  EXPECT_EQ(pv.data(), c.v.data());
  EXPECT_TRUE(pa.is_view() && pb.is_view() && pv.is_view());
  EXPECT_EQ(view.space(), Space::Host);
}

/// Expects every array of M to own its memory.
template <class M>
void expect_owning(const M& A) {
  const auto& [pa, pb, pv] = arrays(A);
  EXPECT_FALSE(pa.is_view() || pb.is_view() || pv.is_view());
}

/// beta = 0 (y poisoned with NaN) and general scalars.
constexpr std::span<const Scalars> kViewScalars = kScalars.first(2);

/// What ran, per (operation, format, algorithm), to check that every kernel
/// was reached.
using Ran = std::set<std::tuple<Op, Format, Algorithm>>;

/// Every kernel of `kernels` of M's format on `backend`, on the owned matrix
/// and on the view: `product(matrix, algorithm, alpha, beta, out)` from `out0`
/// (NaN where beta = 0) gives equal results bitwise when the kernel is SpX's
/// and deterministic, and both lie within `reference(alpha, beta)`.
template <class M, class Kernels, class CanRun, class Product, class Reference,
          class T = typename M::value_type>
void compare_kernels(const std::string& name, const M& owned, const M& view, Backend backend,
                     const Kernels& kernels, CanRun can_run, Product product,
                     const std::vector<T>& out0, Reference reference, std::uint64_t seed,
                     Ran& ran) {
  for (const auto& kernel : kernels) {
    if (kernel.info.format != M::kFormat || kernel.info.backend != backend) continue;
    const std::string reason = can_run(kernel, owned);
    EXPECT_EQ(can_run(kernel, view), reason);
    if (!reason.empty()) continue;
    for (auto [alpha, beta] : kViewScalars) {
      const std::string what =
          fmt::format("{} {} as {}, {}, alpha={} beta={} seed={}", to_string(kernel.info.op), name,
                      to_string(M::kFormat), to_string(kernel.info.algorithm), alpha, beta, seed);
      const auto a = static_cast<T>(alpha), b = static_cast<T>(beta);
      std::vector<T> got[2];
      for (int k = 0; k < 2; ++k) {
        Array<T> out =
            Array<T>(b == T{0} ? nan_vector<T>(std::ssize(out0)) : out0).to(space_of(backend));
        product(k == 0 ? owned : view, kernel.info.algorithm, a, b, out);
        got[k] = out.to_vector();
      }
      // Bitwise for SpX's deterministic kernels. The baselines are held to
      // the reference only: cuSPARSE's SpMM ALG2/ALG3 gave different bits
      // for the same f32 operands at other addresses (H100, CUDA 13.0).
      if (kernel.info.deterministic && !kernel.info.baseline) {
        EXPECT_TRUE(bitwise_equal(got[0], got[1])) << what;
      }
      const auto ref = reference(a, b);
      expect_matches(got[0], ref, what + ", owned");
      expect_matches(got[1], ref, what + ", view");
    }
    ran.insert({kernel.info.op, M::kFormat, kernel.info.algorithm});
  }
}

/// SpMV, and SpMM with B and C row-major of 3 columns, through every
/// registered kernel of M's format on `backend`: the owned matrix against the
/// view, both against the reference of A (the same matrix in CSR).
template <class M, class T = typename M::value_type, class I = typename M::index_type>
void compare_products(const std::string& name, const M& owned, const M& view, const Csr<T, I>& A,
                      Backend backend, Ran& ran) {
  const Registry<T, I>& registry = Registry<T, I>::instance();
  const Space space = space_of(backend);
  const std::uint64_t seed = fresh_seed();

  const auto x = random_values<T>(A.cols(), seed);
  const auto y0 = random_values<T>(A.rows(), seed + 1);
  const Array<T> dx = Array<T>(x).to(space);
  compare_kernels(
      name, owned, view, backend, registry.spmv_kernels(),
      [](const auto& kernel, const M& m) { return kernel.can_run(MatrixRef<T, I>{&m}); },
      [&](const M& m, Algorithm algorithm, T alpha, T beta, Array<T>& y) {
        spmv(alpha, m, dx, beta, y, SpmvOptions{algorithm});
      },
      y0,
      [&](T alpha, T beta) {
        return expected_spmv<T, I>(alpha, A, std::span<const T>(x), beta, std::span<const T>(y0));
      },
      seed, ran);

  constexpr std::int64_t n = 3;
  const auto B = random_values<T>(A.cols() * n, seed + 2);
  const auto C0 = random_values<T>(A.rows() * n, seed + 3);
  const Array<T> dB = Array<T>(B).to(space);
  const Product product = reference::product(A, std::span<const T>(B), n);
  const SpmmShape shape{n, Layout::RowMajor, Layout::RowMajor, n, n};
  compare_kernels(
      name, owned, view, backend, registry.spmm_kernels(),
      [&](const auto& kernel, const M& m) { return kernel.can_run(MatrixRef<T, I>{&m}, shape); },
      [&](const M& m, Algorithm algorithm, T alpha, T beta, Array<T>& C) {
        spmm(alpha, m, DenseView<const T>{dB.data(), A.cols(), n, n, Layout::RowMajor, space}, beta,
             DenseView<T>{C.data(), A.rows(), n, n, Layout::RowMajor, space},
             SpmmOptions{algorithm});
      },
      C0,
      [&](T alpha, T beta) { return expected<T>(product, alpha, beta, std::span<const T>(C0)); },
      seed, ran);
}

/// `A`'s entries in a random order (an unsorted COO).
template <Value T, Index I>
Caller<Coo<T, I>> shuffled(const Coo<T, I>& A, std::uint64_t seed) {
  const Caller<Coo<T, I>> c(A);
  std::vector<std::size_t> p(c.v.size());
  std::iota(p.begin(), p.end(), std::size_t{0});
  std::shuffle(p.begin(), p.end(), std::mt19937_64(seed));
  Caller<Coo<T, I>> out(c.rows, c.cols, {}, {}, {});
  for (std::size_t k : p) {
    out.a.push_back(c.a[k]);
    out.b.push_back(c.b[k]);
    out.v.push_back(c.v[k]);
  }
  return out;
}

/// The products of `c`'s view against those of its owned copy on the CPU;
/// then checks that the caller's arrays were not written.
template <class M, class T = typename M::value_type, class I = typename M::index_type>
void compare_host_products(const std::string& name, const Caller<M>& c, const Csr<T, I>& A,
                           Ran& ran) {
  const Caller<M> before = c;
  const M owned = c.owned();
  const M view = c.view();
  expect_no_copy(view, c);
  compare_products(name, owned, view, A, Backend::Cpu, ran);
  EXPECT_TRUE(c == before) << name << ": a product wrote the caller's arrays";
}

#if SPX_HAVE_CUDA
/// Device memory the test allocates itself, as a caller would (not through SpX).
template <class T>
struct CallerDeviceArray {
  T* p = nullptr;
  std::size_t n = 0;
  explicit CallerDeviceArray(const std::vector<T>& host) : n(host.size()) {
    if (n == 0) return;
    void* raw = nullptr;
    EXPECT_EQ(cudaMalloc(&raw, n * sizeof(T)), cudaSuccess);
    p = static_cast<T*>(raw);
    EXPECT_EQ(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  CallerDeviceArray(const CallerDeviceArray&) = delete;
  /// A free that fails would mean SpX freed it already.
  ~CallerDeviceArray() {
    if (p != nullptr) {
      EXPECT_EQ(cudaFree(p), cudaSuccess) << "the caller's device array was freed";
    }
  }
  std::span<const T> span() const { return {p, n}; }
  std::vector<T> to_host() const {
    std::vector<T> h(n);
    if (n > 0) {
      EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    return h;
  }
};

/// The device copy of a host caller's arrays, and views of it.
template <class M>
struct DeviceCaller {
  using T = typename M::value_type;
  using I = typename M::index_type;
  const Caller<M>& host;
  CallerDeviceArray<I> a{host.a}, b{host.b};
  CallerDeviceArray<T> v{host.v};

  M view(Check check = Check::Full) const {
    return M::view(host.rows, host.cols, a.span(), b.span(), v.span(), Space::Device, check);
  }
  M owned(Check check = Check::Full) const {
    return M(host.rows, host.cols, Array<I>(host.a).to(Space::Device),
             Array<I>(host.b).to(Space::Device), Array<T>(host.v).to(Space::Device), check);
  }
  bool unchanged() const {
    return a.to_host() == host.a && b.to_host() == host.b && v.to_host() == host.v;
  }
};

/// The products of a device view of `c`'s arrays against those of an owned
/// device copy; then checks that the caller's device arrays were not written
/// and are still allocated.
template <class M, class T = typename M::value_type, class I = typename M::index_type>
void compare_device_products(const std::string& name, const Caller<M>& c, const Csr<T, I>& A,
                             Ran& ran) {
  const DeviceCaller<M> d{c};
  {
    const M owned = d.owned();
    const M view = d.view();
    const auto& [pa, pb, pv] = arrays(view);
    EXPECT_EQ(pa.data(), d.a.p);
    EXPECT_EQ(pb.data(), d.b.p);
    EXPECT_EQ(pv.data(), d.v.p);
    EXPECT_EQ(view.space(), Space::Device);
    compare_products(name, owned, view, A, Backend::Cuda, ran);
    // A copy to the host owns its memory and holds the same matrix.
    const M back = view.to(Space::Host);
    expect_owning(back);
    EXPECT_TRUE(Caller<M>(back) == c) << name;
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(d.unchanged()) << name << ": a product wrote the caller's device arrays";
}
#endif

/// For every matrix of `mats` as CSR, sorted COO, unsorted COO and CSC: the
/// products through a view of the caller's arrays, in the space of
/// `backend`, against those of an owned copy. Returns what ran.
template <Value T, Index I>
Ran compare_view_products(const std::vector<TestMatrix<T, I>>& mats, Backend backend) {
  Ran ran;
  const auto compare = [&](const std::string& name, const auto& c, const Csr<T, I>& A) {
    if (backend == Backend::Cpu) return compare_host_products(name, c, A, ran);
#if SPX_HAVE_CUDA
    compare_device_products(name, c, A, ran);
#endif
  };
  for (const auto& [name, A] : mats) {
    const Coo<T, I> coo = to_coo(A);
    compare(name, Caller<Csr<T, I>>(A), A);
    compare(name, Caller<Coo<T, I>>(coo), A);
    compare(name + " (unsorted)", shuffled(coo, fresh_seed()), A);
    compare(name, Caller<Csc<T, I>>(to_csc(A)), A);
  }
  return ran;
}

/// The CPU kernels registered for CSR, COO and CSC.
template <Value T, Index I>
Ran registered_cpu_kernels() {
  Ran all;
  const auto add = [&](const auto& kernels) {
    for (const auto& k : kernels)
      if (k.info.backend == Backend::Cpu &&
          (k.info.format == Format::Csr || k.info.format == Format::Coo ||
           k.info.format == Format::Csc))
        all.insert({k.info.op, k.info.format, k.info.algorithm});
  };
  add(Registry<T, I>::instance().spmv_kernels());
  add(Registry<T, I>::instance().spmm_kernels());
  return all;
}

// ---- Array::view --------------------------------------------------------------

TYPED_TEST(Views, ArrayViewIsTheCallersMemory) {
  using T = typename TypeParam::value_type;
  T stack[5] = {1, 2, 3, 4, 5};  // freeing this would be caught by ASan
  {
    Array<T> v = Array<T>::view(stack, 5);
    EXPECT_TRUE(v.is_view());
    EXPECT_EQ(v.data(), stack);
    EXPECT_EQ(v.size(), 5u);
    EXPECT_EQ(v.space(), Space::Host);
    v[2] = 30;  // writes the caller's memory
    EXPECT_EQ(stack[2], T{30});

    // A move keeps the view-ness and leaves the source empty.
    Array<T> moved(std::move(v));
    EXPECT_TRUE(moved.is_view());
    EXPECT_EQ(moved.data(), stack);
    EXPECT_FALSE(v.is_view());  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(v.data(), nullptr);
    Array<T> assigned(3);  // owning: freed by the assignment
    assigned = std::move(moved);
    EXPECT_TRUE(assigned.is_view());
    EXPECT_EQ(assigned.data(), stack);
    // Assigning an owning array over a view does not free the view's memory.
    assigned = Array<T>(4);
    EXPECT_FALSE(assigned.is_view());

    // Copies own, from a view as from anything else.
    const Array<T> view = Array<T>::view(stack, 5);
    const Array<T> copies[] = {view.clone(), view.to(Space::Host)};
    for (const Array<T>& copy : copies) {
      EXPECT_FALSE(copy.is_view());
      EXPECT_NE(copy.data(), stack);
      EXPECT_EQ(copy.to_vector(), std::vector<T>(stack, stack + 5));
    }
    EXPECT_EQ(view.to_vector(), std::vector<T>(stack, stack + 5));
  }
  EXPECT_EQ(stack[4], T{5});  // still ours, untouched

  // A view of heap memory outlives nothing: the vector frees it once.
  auto heap = std::make_unique<std::vector<T>>(1000, T{7});
  { const Array<T> v = Array<T>::view(heap->data(), heap->size()); }
  EXPECT_EQ((*heap)[999], T{7});
  heap.reset();

  // An empty view may have a null pointer; owning arrays say they own.
  EXPECT_TRUE(Array<T>::view(nullptr, 0).is_view());
  EXPECT_FALSE(Array<T>(3).is_view());
  EXPECT_FALSE(Array<T>().is_view());
}

TYPED_TEST(Views, ArrayViewRejectsNullAndMisalignedPointers) {
  using T = typename TypeParam::value_type;
  try {
    (void)Array<T>::view(nullptr, 5);
    ADD_FAILURE() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_STREQ(e.what(), "Array::view: null pointer with 5 elements");
  }
  alignas(T) unsigned char bytes[4 * sizeof(T)] = {};
  try {
    (void)Array<T>::view(reinterpret_cast<T*>(bytes + 1), 2);
    ADD_FAILURE() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("not aligned to " + std::to_string(alignof(T))),
              std::string::npos)
        << e.what();
  }
}

// ---- formats over the caller's arrays ---------------------------------------

TYPED_TEST(Views, ProductsThroughViewsEqualOwnedCopies) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Ran ran = compare_view_products(all_test_matrices<T, I>(), Backend::Cpu);
  // Guard: every CPU kernel of the three formats ran through a view.
  for (const auto& [op, f, a] : registered_cpu_kernels<T, I>())
    EXPECT_TRUE(ran.count({op, f, a}))
        << to_string(op) << " " << to_string(f) << "/" << to_string(a) << " never ran";
}

TYPED_TEST(Views, ConversionsFromViewsOwnTheirMemory) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto mats = handmade_matrices<T, I>();
  for (const auto& [name, A] : mats) {
    SCOPED_TRACE(name);
    std::vector<Matrix<T, I>> converted;
    Csr<T, I> from_coo, from_unsorted, from_csc;
    Coo<T, I> sorted;
    {
      Caller<Csr<T, I>> csr(A);
      Caller<Coo<T, I>> coo(to_coo(A));
      Caller<Coo<T, I>> unsorted = shuffled(to_coo(A), fresh_seed());
      Caller<Csc<T, I>> csc(to_csc(A));
      const auto before = std::make_tuple(csr, coo, unsorted, csc);
      {
        const Csr<T, I> view = csr.view();
        for (Format f : kAllFormats) {
          if (!convertible(f)) continue;
          try {
            converted.push_back(convert(view, f));
          } catch (const Unsupported&) {  // too much padding for this matrix
          }
        }
        converted.push_back(view.clone());
        converted.push_back(view.to(Space::Host));
        from_coo = to_csr(coo.view());
        from_unsorted = to_csr(unsorted.view());
        sorted = sort_coo(coo.view());
        from_csc = to_csr(csc.view());
      }
      EXPECT_TRUE(std::make_tuple(csr, coo, unsorted, csc) == before)
          << "a conversion wrote the caller's arrays";
      // Poison the caller's arrays: nothing derived may still read them.
      for (auto* v : {&csr.v, &coo.v, &unsorted.v, &csc.v})
        std::fill(v->begin(), v->end(), std::numeric_limits<T>::quiet_NaN());
      for (auto* ix : {&csr.b, &coo.b, &unsorted.b, &csc.b})
        std::fill(ix->begin(), ix->end(), I{-1});
    }
    // ...and after the caller's arrays are gone (ASan: no use after free).
    // rounded: SELL-LP holds A's values rounded to its storage type.
    const auto expect_equal_to_A = [&](const Csr<T, I>& B, const std::string& what,
                                       bool rounded = false) {
      expect_owning(B);
      EXPECT_EQ(B.row_ptr().to_vector(), A.row_ptr().to_vector()) << what;
      EXPECT_EQ(B.col_idx().to_vector(), A.col_idx().to_vector()) << what;
      std::vector<T> want = A.values().to_vector();
      if (rounded)
        for (T& v : want)
          v = lowp::widen<T>(lowp::narrow<T>(v));
      EXPECT_TRUE(bitwise_equal(B.values().to_vector(), want)) << what;
    };
    for (const Matrix<T, I>& M : converted) {
      std::visit([](const auto& m) { EXPECT_EQ(m.space(), Space::Host); }, M);
      const Format f = format_of(spx::ref(M));
      expect_equal_to_A(to_csr(spx::ref(M)), std::string(to_string(f)), reduced_precision(f));
    }
    expect_equal_to_A(from_coo, "COO view to CSR");
    expect_equal_to_A(from_unsorted, "unsorted COO view to CSR");
    expect_equal_to_A(from_csc, "CSC view to CSR");
    expect_owning(sorted);
    expect_equal_to_A(to_csr(sorted), "sorted COO view");
  }
}

TYPED_TEST(Views, ValuesChangedInPlaceAreSeenAndTheStructureCacheStaysValid) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const auto& [name, A] : generated_matrices<T, I>()) {
    SCOPED_TRACE(name);
    Caller<Csr<T, I>> c(A);
    Csr<T, I> view = c.view();
    const auto x = random_values<T>(A.cols(), fresh_seed());
    std::vector<T> y(A.rows());
    for (int round = 0; round < 3; ++round) {
      spmv(T{1}, view, x, T{0}, y);  // the first call fills the structure cache
      expect_matches(
          y,
          expected_spmv<T, I>(T{1}, c.owned(), std::span<const T>(x), T{0}, std::span<const T>(y)),
          name);
      for (T& v : c.v)  // by the caller, in its own array
        v = -2 * v;
      for (T& v : view.values())  // through the matrix, into the caller's array
        v = v / 2;
    }
  }
}

/// The InvalidInput message of `make()`, or "" if it did not throw.
template <class F>
std::string message_of(F&& make) {
  try {
    (void)make();
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

TYPED_TEST(Views, ValidationIsTheSameThroughAView) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using CsrM = Csr<T, I>;
  using CooM = Coo<T, I>;
  using CscM = Csc<T, I>;
  // Each bad matrix is rejected through a view with the owned copy's message,
  // and accepted unchecked with Check::Trusted.
  const auto expect_same = [](const auto& c, const char* fragment) {
    const std::string owned = message_of([&] { return c.owned(); });
    EXPECT_NE(owned.find(fragment), std::string::npos) << owned;
    EXPECT_EQ(message_of([&] { return c.view(); }), owned);
    EXPECT_EQ(message_of([&] { return c.view(Check::Trusted); }), "");
  };
  expect_same(Caller<CsrM>(2, 3, {0, 2, 3}, {1, 0, 2}, {1, 2, 3}), "not strictly increasing");
  expect_same(Caller<CsrM>(2, 3, {0, 2, 3}, {0, 3, 1}, {1, 2, 3}), "out of range");
  expect_same(Caller<CsrM>(2, 3, {0, 2}, {0, 1}, {1, 2}), "row_ptr has 2 entries");
  expect_same(Caller<CsrM>(2, 3, {0, 2, 3}, {0, 1, 2}, {1, 2}), "values has 2");
  expect_same(Caller<CsrM>(2, 3, {0, 2, 1}, {0, 1}, {1, 2}), "decreases");
  expect_same(Caller<CooM>(2, 3, {0, 2}, {0, 1}, {1, 2}), "row_idx[1] = 2 is out of range");
  expect_same(Caller<CooM>(2, 3, {0, 1}, {0, -1}, {1, 2}), "col_idx[1] = -1 is out of range");
  expect_same(Caller<CooM>(2, 3, {0, 1}, {0, 1}, {1}), "equal length");
  expect_same(Caller<CscM>(3, 2, {0, 2, 3}, {1, 0, 2}, {1, 2, 3}), "not strictly increasing");
  expect_same(Caller<CscM>(3, 2, {0, 2, 3}, {0, 1, 3}, {1, 2, 3}), "out of range");
  expect_same(Caller<CscM>(3, 2, {0, 2, 3, 3}, {0, 1, 2}, {1, 2, 3}), "col_ptr has 4 entries");

  // A null pointer with entries names the format and the array.
  const std::vector<I> ptr{0, 1, 2}, idx{0, 1};
  const std::vector<T> val{1, 2};
  EXPECT_EQ(message_of([&] {
              return CsrM::view(2, 2, ptr, std::span<const I>(static_cast<const I*>(nullptr), 2),
                                val);
            }),
            "CSR view: col_idx: null pointer with 2 elements");
  EXPECT_EQ(message_of([&] {
              return CooM::view(2, 2, idx, idx,
                                std::span<const T>(static_cast<const T*>(nullptr), 2));
            }),
            "COO view: values: null pointer with 2 elements");
  // The empty matrix needs no memory but its one row pointer.
  const std::vector<I> zero{0};
  const CsrM empty = CsrM::view(0, 0, zero, {}, {});
  EXPECT_EQ(empty.nnz(), 0);
  EXPECT_EQ(empty.row_ptr().data(), zero.data());
}

TYPED_TEST(Views, DeviceViewsValidateByCopyingToTheHost) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // With CUDA, DeviceViewsBehaveLikeOwnedDeviceMatrices covers device views
  // (a skip here would fail gpu-check, which requires no skipped test).
  if (cuda_compiled()) return;
  // Without a device backend a device view can be made (nothing is allocated
  // or freed), but validating it needs a copy to the host, which this build
  // cannot do: it refuses as for any device array.
  const std::vector<I> ptr{0, 1}, idx{0};
  const std::vector<T> val{1};
  const auto A = Csr<T, I>::view(1, 1, ptr, idx, val, Space::Device, Check::Trusted);
  EXPECT_EQ(A.space(), Space::Device);
  EXPECT_EQ(A.values().data(), val.data());
  using CsrM = Csr<T, I>;
  EXPECT_THROW((void)CsrM::view(1, 1, ptr, idx, val, Space::Device), Unsupported);
}

// ---- device views -------------------------------------------------------------

TYPED_TEST(Views, DeviceViewsBehaveLikeOwnedDeviceMatrices) {
  SPX_REQUIRE_GPU_OR_SKIP();
#if SPX_HAVE_CUDA
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Ran ran = compare_view_products(generated_matrices<T, I>(), Backend::Cuda);
  EXPECT_FALSE(ran.empty()) << "no CUDA kernel ran through a device view";

  // Validation copies device arrays to the host, as for owned device arrays,
  // with the same messages; Check::Trusted reads nothing.
  const Caller<Csr<T, I>> bad(2, 3, {0, 2, 3}, {1, 0, 2}, {1, 2, 3});
  const DeviceCaller<Csr<T, I>> dbad{bad};
  const std::string owned = message_of([&] { return dbad.owned(); });
  EXPECT_NE(owned.find("not strictly increasing"), std::string::npos) << owned;
  EXPECT_EQ(message_of([&] { return dbad.view(); }), owned);
  EXPECT_EQ(message_of([&] { return dbad.view(Check::Trusted); }), "");

  // Conversions of a device view stay on the device and own their memory.
  const Csr<T, I> A = std::move(generated_matrices<T, I>().front().A);
  const Caller<Csr<T, I>> c(A);
  const DeviceCaller<Csr<T, I>> d{c};
  std::vector<Matrix<T, I>> converted;
  {
    const Csr<T, I> view = d.view();
    ConvertOptions o;
    o.min_block_fill = 0;
    for (Format f : {Format::Csr, Format::Coo, Format::Ell, Format::Sell, Format::Hll, Format::Hyb,
                     Format::Jad}) {
      try {
        converted.push_back(convert(view, f, o));
      } catch (const Unsupported&) {  // too much padding for this matrix
      }
    }
  }
  for (const Matrix<T, I>& M : converted) {
    std::visit([](const auto& m) { EXPECT_EQ(m.space(), Space::Device); }, M);
    const Csr<T, I> back = to_csr(
        spx::ref(std::visit([](const auto& m) { return Matrix<T, I>(m.to(Space::Host)); }, M)));
    EXPECT_EQ(back.col_idx().to_vector(), c.b) << to_string(format_of(spx::ref(M)));
  }
  EXPECT_TRUE(d.unchanged());
#endif
}

}  // namespace
}  // namespace spx::test
