// The nanobind extension `spx._spx`: SpX matrices as views over the caller's
// arrays (NumPy/SciPy on the host; DLPack arrays on the device when the
// library has the CUDA backend), the products, conversions, plans, the
// advisor, Matrix Market files and the generators. The Python layer
// (spx/__init__.py) recognizes SciPy/CuPy/PyTorch objects and allocates
// outputs in the caller's array type; every array check is made here, naming
// the offending argument.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "spx/spx.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;
using In = nb::ndarray<nb::ro>;  // any dtype, shape, device; read-only allowed
using Out = nb::ndarray<>;       // writable

// ---- the four (value, index) pairs ------------------------------------------

template <class T, class I>
struct Pair {
  using value = T;
  using index = I;
};
using AnyMatrix = std::variant<spx::Matrix<float, i32>, spx::Matrix<float, i64>,
                               spx::Matrix<double, i32>, spx::Matrix<double, i64>>;
template <class M>
struct PairOf;
template <class T, class I>
struct PairOf<spx::Matrix<T, I>> {
  using type = Pair<T, I>;
};
template <class T, class I>
struct PairOf<spx::Plan<T, I>> {
  using type = Pair<T, I>;
};

// ---- array checks -----------------------------------------------------------

std::string dtype_name(nb::dlpack::dtype d) {
  std::string kind;
  switch (static_cast<nb::dlpack::dtype_code>(d.code)) {
    case nb::dlpack::dtype_code::Int:
      kind = "int";
      break;
    case nb::dlpack::dtype_code::UInt:
      kind = "uint";
      break;
    case nb::dlpack::dtype_code::Float:
      kind = "float";
      break;
    case nb::dlpack::dtype_code::Bfloat:
      kind = "bfloat";
      break;
    case nb::dlpack::dtype_code::Complex:
      kind = "complex";
      break;
    case nb::dlpack::dtype_code::Bool:
      return "bool";
    default:
      kind = "code" + std::to_string(d.code) + "_";
  }
  return kind + std::to_string(d.bits);
}

enum class Kind { F32, F64, I32, I64, Other };
Kind kind_of(nb::dlpack::dtype d) {
  if (d.lanes != 1) return Kind::Other;
  if (d == nb::dtype<float>()) return Kind::F32;
  if (d == nb::dtype<double>()) return Kind::F64;
  if (d == nb::dtype<i32>()) return Kind::I32;
  if (d == nb::dtype<i64>()) return Kind::I64;
  return Kind::Other;
}

spx::Space space_of(const nb::ndarray<nb::ro>& a, const std::string& name) {
  const int dev = a.device_type();
  if (dev == nb::device::cpu::value) return spx::Space::Host;
  if (dev == nb::device::cuda::value) {
    if (!spx::cuda_compiled())
      throw nb::value_error((name + ": a CUDA array, but this SpX was built without CUDA").c_str());
    return spx::Space::Device;
  }
  throw nb::value_error((name + ": arrays on device type " + std::to_string(dev) +
                         " are not supported (CPU or CUDA only)")
                            .c_str());
}

/// A 1-D contiguous array: its data pointer, length and space.
struct Vec {
  const void* data = nullptr;
  i64 size = 0;
  spx::Space space = spx::Space::Host;
  Kind kind = Kind::Other;
};

Vec vec(const In& a, const std::string& name) {
  if (a.ndim() != 1)
    throw nb::value_error(
        (name + ": expected a 1-D array, got " + std::to_string(a.ndim()) + " dimensions").c_str());
  if (a.shape(0) > 1 && a.stride(0) != 1)
    throw nb::value_error((name + ": not contiguous (stride " + std::to_string(a.stride(0)) +
                           " elements); pass a contiguous copy")
                              .c_str());
  return {a.data(), static_cast<i64>(a.shape(0)), space_of(a, name), kind_of(a.dtype())};
}

void require_index(const In& a, const std::string& name) {
  const Kind k = kind_of(a.dtype());
  if (k != Kind::I32 && k != Kind::I64)
    throw nb::type_error((name + ": dtype " + dtype_name(a.dtype()) +
                          " is not supported; indices are int32 or int64")
                             .c_str());
}
void require_value(const In& a, const std::string& name) {
  const Kind k = kind_of(a.dtype());
  if (k != Kind::F32 && k != Kind::F64)
    throw nb::type_error((name + ": dtype " + dtype_name(a.dtype()) +
                          " is not supported; SpX computes in float32 or float64")
                             .c_str());
}

template <class T>
void require_dtype(const In& a, const std::string& name) {
  if (a.dtype() != nb::dtype<T>())
    throw nb::type_error((name + ": dtype " + dtype_name(a.dtype()) + " does not match the " +
                          (sizeof(T) == 4 ? "float32" : "float64") + " of the matrix")
                             .c_str());
}

void require_space(spx::Space got, spx::Space want, const std::string& name) {
  if (got != want)
    throw nb::value_error((name + ": the array is on the " +
                           (got == spx::Space::Host ? std::string("CPU") : std::string("GPU")) +
                           " but the matrix is on the " +
                           (want == spx::Space::Host ? std::string("CPU") : std::string("GPU")))
                              .c_str());
}

/// A 2-D array with unit stride in one dimension: row- or column-major with
/// a leading dimension.
template <class T>
spx::DenseView<T> dense(const In& a, const std::string& name, spx::Space want) {
  require_dtype<std::remove_const_t<T>>(a, name);
  if (a.ndim() != 2)
    throw nb::value_error(
        (name + ": expected a 2-D array, got " + std::to_string(a.ndim()) + " dimensions").c_str());
  const auto sp = space_of(a, name);
  require_space(sp, want, name);
  const i64 r = static_cast<i64>(a.shape(0)), c = static_cast<i64>(a.shape(1));
  const i64 s0 = a.stride(0), s1 = a.stride(1);
  spx::DenseView<T> v;
  v.data = static_cast<T*>(const_cast<void*>(a.data()));
  v.rows = r;
  v.cols = c;
  v.space = sp;
  if ((s1 == 1 || c <= 1) && s0 >= std::max<i64>(c, 1)) {
    v.layout = spx::Layout::RowMajor;
    v.ld = s0;
  } else if ((s0 == 1 || r <= 1) && s1 >= std::max<i64>(r, 1)) {
    v.layout = spx::Layout::ColMajor;
    v.ld = s1;
  } else if (r * c <= 1) {
    v.layout = spx::Layout::RowMajor;
    v.ld = std::max<i64>(c, 1);
  } else {
    throw nb::value_error((name + ": strides (" + std::to_string(s0) + ", " + std::to_string(s1) +
                           ") elements are neither row- nor column-major with unit stride")
                              .c_str());
  }
  return v;
}

// ---- matrices ---------------------------------------------------------------

/// An SpX matrix of any format and type pair, with the caller's arrays it
/// views (holding them keeps their owners alive).
struct PyMatrix {
  AnyMatrix m;
  std::vector<In> owners;

  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(
        [&](const auto& M) -> decltype(auto) {
          using P = typename PairOf<std::decay_t<decltype(M)>>::type;
          return std::visit([&](const auto& A) -> decltype(auto) { return f(P{}, A); }, M);
        },
        m);
  }
  spx::Format format() const {
    return visit([](auto, const auto& A) { return std::decay_t<decltype(A)>::kFormat; });
  }
  spx::Space space() const {
    return visit([](auto, const auto& A) { return A.space(); });
  }
  bool is_view() const {
    return visit([](auto, const auto& A) {
      if constexpr (requires { A.values().is_view(); })
        return A.values().is_view();
      else
        return false;
    });
  }
};

/// CSR, CSC (ptr, idx) and COO (row, col) views over caller arrays.
template <spx::Format F>
PyMatrix make_view(i64 rows, i64 cols, const In& a0, const In& a1, const In& data, bool check,
                   const char* n0, const char* n1) {
  require_index(a0, n0);
  require_index(a1, n1);
  require_value(data, "data");
  const Vec v0 = vec(a0, n0), v1 = vec(a1, n1), vd = vec(data, "data");
  if (v0.kind != v1.kind)
    throw nb::type_error((std::string(n0) + " and " + n1 + " have different dtypes (" +
                          dtype_name(a0.dtype()) + ", " + dtype_name(a1.dtype()) +
                          "); SpX needs one index type")
                             .c_str());
  if (v0.space != v1.space || v0.space != vd.space)
    throw nb::value_error(
        (std::string(n0) + ", " + n1 + " and data must be on the same device (CPU or one GPU)")
            .c_str());
  if (rows < 0 || cols < 0)
    throw nb::value_error(
        ("shape: negative (" + std::to_string(rows) + ", " + std::to_string(cols) + ")").c_str());
  const auto chk = check ? spx::Check::Full : spx::Check::Trusted;
  PyMatrix out;
  auto build = [&]<class T, class I>() {
    if (static_cast<i64>(static_cast<I>(rows)) != rows ||
        static_cast<i64>(static_cast<I>(cols)) != cols)
      throw nb::value_error("shape: does not fit the index type int32; use int64 indices");
    std::span<const I> s0(static_cast<const I*>(v0.data), static_cast<std::size_t>(v0.size));
    std::span<const I> s1(static_cast<const I*>(v1.data), static_cast<std::size_t>(v1.size));
    std::span<const T> sd(static_cast<const T*>(vd.data), static_cast<std::size_t>(vd.size));
    const I r = static_cast<I>(rows), c = static_cast<I>(cols);
    spx::Matrix<T, I> m;
    if constexpr (F == spx::Format::Csr)
      m = spx::Csr<T, I>::view(r, c, s0, s1, sd, v0.space, chk);
    else if constexpr (F == spx::Format::Csc)
      m = spx::Csc<T, I>::view(r, c, s0, s1, sd, v0.space, chk);
    else
      m = spx::Coo<T, I>::view(r, c, s0, s1, sd, v0.space, chk);
    out.m = std::move(m);
  };
  const bool f64 = vd.kind == Kind::F64, l64 = v0.kind == Kind::I64;
  if (f64 && l64)
    build.template operator()<double, i64>();
  else if (f64)
    build.template operator()<double, i32>();
  else if (l64)
    build.template operator()<float, i64>();
  else
    build.template operator()<float, i32>();
  out.owners = {a0, a1, data};
  return out;
}

template <class T, class I>
AnyMatrix wrap(spx::Matrix<T, I> m) {
  return AnyMatrix(std::move(m));
}

template <class F>
decltype(auto) with_types(const std::string& dtype, const std::string& index, F&& f) {
  const bool f64 = dtype == "float64", l64 = index == "int64";
  if (dtype != "float64" && dtype != "float32")
    throw nb::type_error(
        ("dtype: " + dtype + " is not supported; SpX computes in float32 or float64").c_str());
  if (index != "int32" && index != "int64")
    throw nb::type_error(
        ("index_dtype: " + index + " is not supported; indices are int32 or int64").c_str());
  if (f64 && l64) return f(Pair<double, i64>{});
  if (f64) return f(Pair<double, i32>{});
  if (l64) return f(Pair<float, i64>{});
  return f(Pair<float, i32>{});
}

nb::dict run_info(const spx::RunInfo& r) {
  nb::dict d;
  d["format"] = std::string(spx::to_string(r.format));
  d["algorithm"] = std::string(spx::to_string(r.algorithm));
  d["backend"] = std::string(spx::to_string(r.backend));
  d["deterministic"] = r.deterministic;
  d["trivial"] = r.trivial;
  return d;
}

spx::ConvertOptions convert_options(const nb::dict& o) {
  spx::ConvertOptions c;
  for (auto [k, v] : o) {
    const std::string key = nb::cast<std::string>(k);
    if (key == "max_expansion")
      c.max_expansion = nb::cast<double>(v);
    else if (key == "block_size")
      c.block_size = nb::cast<int>(v);
    else if (key == "min_block_fill")
      c.min_block_fill = nb::cast<double>(v);
    else if (key == "slice_size")
      c.slice_size = nb::cast<int>(v);
    else if (key == "sigma")
      c.sigma = nb::cast<int>(v);
    else if (key == "threads_per_row")
      c.threads_per_row = nb::cast<int>(v);
    else if (key == "hack_size")
      c.hack_size = nb::cast<int>(v);
    else if (key == "hyb_width")
      c.hyb_width = nb::cast<i64>(v);
    else
      throw nb::type_error(("unknown conversion option '" + key +
                            "'; accepted: max_expansion, block_size, min_block_fill, "
                            "slice_size, sigma, threads_per_row, hack_size, hyb_width")
                               .c_str());
  }
  return c;
}

/// Any format to an owning CSR in the same space (a copy; host only for
/// formats other than CSR).
template <class T, class I, class A>
spx::Csr<T, I> csr_copy(const A& a) {
  if constexpr (std::is_same_v<A, spx::Csr<T, I>>)
    return a.clone();
  else
    return spx::to_csr(a);
}

PyMatrix convert_to(const PyMatrix& self, const std::string& name, const nb::dict& options) {
  const spx::Format to = spx::parse_format(name);
  const spx::ConvertOptions opt = convert_options(options);
  return self.visit([&]<class P, class A>(P, const A& a) {
    using T = typename P::value;
    using I = typename P::index;
    PyMatrix out;
    if constexpr (std::is_same_v<A, spx::Csr<T, I>>) {
      if (to == spx::Format::Csr)
        out.m = wrap<T, I>(a.clone());
      else
        out.m = wrap<T, I>(spx::convert(a, to, opt));
    } else {
      spx::Csr<T, I> csr = spx::to_csr(a);
      if (to == spx::Format::Csr)
        out.m = wrap<T, I>(std::move(csr));
      else
        out.m = wrap<T, I>(spx::convert(csr, to, opt));
    }
    return out;
  });
}

/// The arrays of a CSR, CSC or COO matrix as NumPy arrays over its memory
/// (owned by `self`, which they keep alive).
nb::tuple arrays(nb::handle self_h) {
  const PyMatrix& self = nb::cast<const PyMatrix&>(self_h);
  if (self.space() != spx::Space::Host)
    throw nb::value_error("arrays(): the matrix is on the GPU; use the device arrays you gave");
  return self.visit([&]<class P, class A>(P, const A& a) -> nb::tuple {
    auto np = [&](const auto& arr) {
      using E = typename std::decay_t<decltype(arr)>::value_type;
      std::size_t shape[1] = {arr.size()};
      return nb::cast(nb::ndarray<nb::numpy, const E, nb::ndim<1>>(arr.data(), 1, shape, self_h),
                      nb::rv_policy::reference);
    };
    if constexpr (A::kFormat == spx::Format::Csr)
      return nb::make_tuple(np(a.row_ptr()), np(a.col_idx()), np(a.values()));
    else if constexpr (A::kFormat == spx::Format::Csc)
      return nb::make_tuple(np(a.col_ptr()), np(a.row_idx()), np(a.values()));
    else if constexpr (A::kFormat == spx::Format::Coo)
      return nb::make_tuple(np(a.row_idx()), np(a.col_idx()), np(a.values()));
    else
      throw nb::value_error(("arrays(): only CSR, CSC and COO expose their arrays, this is " +
                             std::string(spx::to_string(A::kFormat)) + "; use .to('csr')")
                                .c_str());
  });
}

/// The caller's cudaStream_t, passed from Python as an integer (0: the
/// legacy default stream; host products ignore it).
CUstream_st* as_stream(std::uintptr_t stream) {
  return reinterpret_cast<CUstream_st*>(stream);
}

nb::dict spmv(const PyMatrix& self, double alpha, const In& x, double beta, const Out& y,
              const std::string& algorithm, std::uintptr_t stream) {
  spx::SpmvOptions opt;
  opt.algorithm = spx::parse_algorithm(algorithm);
  if (self.space() == spx::Space::Device) opt.stream = as_stream(stream);
  return self.visit([&]<class P, class A>(P, const A& a) {
    using T = typename P::value;
    require_dtype<T>(x, "x");
    require_dtype<T>(In(y), "y");
    const Vec vx = vec(x, "x"), vy = vec(In(y), "y");
    require_space(vx.space, a.space(), "x");
    require_space(vy.space, a.space(), "y");
    spx::VectorView<const T> xv(static_cast<const T*>(vx.data), vx.size, vx.space);
    spx::VectorView<T> yv(static_cast<T*>(y.data()), vy.size, vy.space);
    spx::RunInfo r;
    {
      nb::gil_scoped_release unlocked;
      r = spx::spmv(static_cast<T>(alpha), a, xv, static_cast<T>(beta), yv, opt);
    }
    return run_info(r);
  });
}

nb::dict spmm(const PyMatrix& self, double alpha, const In& B, double beta, const Out& C,
              const std::string& algorithm, std::uintptr_t stream) {
  spx::SpmmOptions opt;
  opt.algorithm = spx::parse_algorithm(algorithm);
  if (self.space() == spx::Space::Device) opt.stream = as_stream(stream);
  return self.visit([&]<class P, class A>(P, const A& a) {
    using T = typename P::value;
    const auto b = dense<const T>(B, "B", a.space());
    const auto c = dense<T>(In(C), "C", a.space());
    spx::RunInfo r;
    {
      nb::gil_scoped_release unlocked;
      r = spx::spmm(static_cast<T>(alpha), a, b, static_cast<T>(beta), c, opt);
    }
    return run_info(r);
  });
}

/// Seconds per call of `reps` spmv calls made in C++ (for the overhead
/// benchmark: the same product without Python).
double time_spmv(const PyMatrix& self, const In& x, const Out& y, int reps) {
  return self.visit([&]<class P, class A>(P, const A& a) {
    using T = typename P::value;
    require_dtype<T>(x, "x");
    require_dtype<T>(In(y), "y");
    const Vec vx = vec(x, "x"), vy = vec(In(y), "y");
    require_space(vx.space, a.space(), "x");
    require_space(vy.space, a.space(), "y");
    spx::VectorView<const T> xv(static_cast<const T*>(vx.data), vx.size, vx.space);
    spx::VectorView<T> yv(static_cast<T*>(y.data()), vy.size, vy.space);
    nb::gil_scoped_release unlocked;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i)
      spx::spmv(T(1), a, xv, T(0), yv);
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count() / std::max(reps, 1);
  });
}

// ---- batched SpMV -----------------------------------------------------------

/// A batch of CSR matrices (their arrays concatenated: one copy).
struct PyBatch {
  std::variant<spx::BatchCsr<float, i32>, spx::BatchCsr<float, i64>, spx::BatchCsr<double, i32>,
               spx::BatchCsr<double, i64>>
      b;
};

template <class T, class I>
spx::BatchCsr<T, I> concat(const std::vector<const PyMatrix*>& ms) {
  const std::size_t n = ms.size();
  std::vector<const spx::Csr<T, I>*> csr(n);
  for (std::size_t k = 0; k < n; ++k) {
    const auto* any = std::get_if<spx::Matrix<T, I>>(&ms[k]->m);
    const auto* c = any ? std::get_if<spx::Csr<T, I>>(any) : nullptr;
    if (!c)
      throw nb::type_error(("matrices[" + std::to_string(k) +
                            "]: batch_spmv takes CSR matrices of one dtype and index dtype")
                               .c_str());
    if (c->space() != spx::Space::Host)
      throw nb::value_error(("matrices[" + std::to_string(k) +
                             "]: on the GPU; the batch "
                             "is assembled on the host (pass CPU matrices)")
                                .c_str());
    csr[k] = c;
  }
  spx::Array<i64> ro(n + 1), co(n + 1), no(n + 1);
  ro[0] = co[0] = no[0] = 0;
  for (std::size_t k = 0; k < n; ++k) {
    ro[k + 1] = ro[k] + csr[k]->rows();
    co[k + 1] = co[k] + csr[k]->cols();
    no[k + 1] = no[k] + csr[k]->nnz();
  }
  spx::Array<I> rp(static_cast<std::size_t>(ro[n]) + n), ci(static_cast<std::size_t>(no[n]));
  spx::Array<T> va(static_cast<std::size_t>(no[n]));
  std::size_t p = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const auto& c = *csr[k];
    std::copy(c.row_ptr().begin(), c.row_ptr().end(), rp.begin() + p);
    p += c.row_ptr().size();
    std::copy(c.col_idx().begin(), c.col_idx().end(), ci.begin() + no[k]);
    std::copy(c.values().begin(), c.values().end(), va.begin() + no[k]);
  }
  return spx::BatchCsr<T, I>(std::move(ro), std::move(co), std::move(no), std::move(rp),
                             std::move(ci), std::move(va), spx::Check::Trusted);
}

PyBatch make_batch(const std::vector<const PyMatrix*>& ms) {
  if (ms.empty()) throw nb::value_error("matrices: the batch is empty");
  PyBatch out;
  std::visit(
      [&](const auto& M) {
        using P = typename PairOf<std::decay_t<decltype(M)>>::type;
        out.b = concat<typename P::value, typename P::index>(ms);
      },
      ms[0]->m);
  return out;
}

nb::dict batch_spmv(const PyBatch& self, double alpha, const In& x, double beta, const Out& y) {
  return std::visit(
      [&](const auto& b) {
        using T = typename std::decay_t<decltype(b)>::value_type;
        require_dtype<T>(x, "x");
        require_dtype<T>(In(y), "y");
        const Vec vx = vec(x, "x"), vy = vec(In(y), "y");
        require_space(vx.space, b.space(), "x");
        require_space(vy.space, b.space(), "y");
        spx::VectorView<const T> xv(static_cast<const T*>(vx.data), vx.size, vx.space);
        spx::VectorView<T> yv(static_cast<T*>(y.data()), vy.size, vy.space);
        spx::RunInfo r;
        {
          nb::gil_scoped_release unlocked;
          r = spx::batch_spmv(static_cast<T>(alpha), b, xv, static_cast<T>(beta), yv);
        }
        return run_info(r);
      },
      self.b);
}

// ---- plans and the advisor --------------------------------------------------

spx::Workload workload(i64 products, const std::string& op, i64 cols,
                       std::optional<i64> memory_limit) {
  spx::Workload w;
  w.products = products;
  w.op = spx::parse_op(op);
  w.cols = cols;
  if (memory_limit) w.memory_limit = *memory_limit;
  spx::check_workload(w);
  return w;
}

nb::dict advice_dict(const spx::Advice& a) {
  nb::dict d;
  d["products"] = a.work.products;
  d["op"] = std::string(spx::to_string(a.work.op));
  d["cols"] = a.work.cols;
  d["backend"] = std::string(spx::to_string(a.backend));
  d["bandwidth_gbs"] = a.bandwidth_gbs;
  d["compute_scale"] = a.compute_scale;
  d["regularity"] = a.regularity;
  d["why"] = a.why;
  d["pick"] = a.pick;
  d["advise_s"] = a.advise_s;
  nb::list cs;
  for (const auto& c : a.candidates) {
    nb::dict e;
    e["format"] = std::string(spx::to_string(c.format));
    e["algorithm"] = std::string(spx::to_string(c.algorithm));
    e["bytes"] = c.bytes;
    e["bytes_moved"] = c.bytes_moved;
    e["product_s"] = c.product_s;
    e["convert_s"] = c.convert_s;
    e["total_s"] = c.total_s;
    e["break_even"] = c.break_even;
    e["efficiency"] = c.efficiency;
    e["feasible"] = c.feasible;
    e["reason"] = c.reason;
    e["measured"] = c.measured;
    e["measured_s"] = c.measured_s;
    cs.append(e);
  }
  d["candidates"] = cs;
  return d;
}

nb::dict advise(const PyMatrix& self, i64 products, const std::string& op, i64 cols,
                std::optional<i64> memory_limit, double bandwidth_gbs, double compute_scale) {
  const spx::Workload w = workload(products, op, cols, memory_limit);
  return self.visit([&]<class P, class A>(P, const A& a) {
    using T = typename P::value;
    using I = typename P::index;
    // A GPU matrix is advised for GPU products: a CSR where it is (only its
    // row pointers come to the host; its columns are measured on the GPU),
    // another format as a plan does, through a host CSR.
    spx::AdvisorOptions o;
    o.backend = a.space() == spx::Space::Host ? spx::Backend::Cpu : spx::Backend::Cuda;
    o.bandwidth_gbs = bandwidth_gbs;
    o.compute_scale = compute_scale;
    spx::Advice adv;
    {
      nb::gil_scoped_release unlocked;
      if constexpr (std::is_same_v<A, spx::Csr<T, I>>)
        adv = spx::advise(a, w, o, spx::Format::Csr);
      else if (a.space() == spx::Space::Host)
        adv = spx::advise(spx::to_csr(a), w, o, A::kFormat);
      else
        adv = spx::advise(spx::to_csr(a.to(spx::Space::Host)), w, o, A::kFormat);
    }
    return advice_dict(adv);
  });
}

struct PyPlan {
  std::variant<std::unique_ptr<spx::Plan<float, i32>>, std::unique_ptr<spx::Plan<float, i64>>,
               std::unique_ptr<spx::Plan<double, i32>>, std::unique_ptr<spx::Plan<double, i64>>>
      p;
  spx::Space space = spx::Space::Host;
};

PyPlan make_plan(const PyMatrix& self, i64 products, const std::string& op, i64 cols,
                 std::optional<i64> memory_limit, bool tune, std::optional<std::string> format,
                 const std::string& algorithm, bool warm, bool always_advise) {
  const spx::Workload w = workload(products, op, cols, memory_limit);
  spx::PlanOptions o;
  o.tune = tune;
  o.warm = warm;
  o.always_advise = always_advise;
  if (format) o.format = spx::parse_format(*format);
  o.algorithm = spx::parse_algorithm(algorithm);
  PyPlan out;
  out.space = self.space();
  self.visit([&]<class P, class A>(P, const A& a) {
    using T = typename P::value;
    using I = typename P::index;
    nb::gil_scoped_release unlocked;
    out.p = std::make_unique<spx::Plan<T, I>>(spx::MatrixRef<T, I>{&a}, w, o);
  });
  return out;
}

nb::dict plan_run(const PyPlan& self, double alpha, const In& x, double beta, const Out& y,
                  std::uintptr_t stream) {
  CUstream_st* const s = self.space == spx::Space::Device ? as_stream(stream) : nullptr;
  return std::visit(
      [&](const auto& p) {
        using T = typename PairOf<std::decay_t<decltype(*p)>>::type::value;
        spx::RunInfo r;
        if (x.ndim() == 1) {
          require_dtype<T>(x, "x");
          require_dtype<T>(In(y), "y");
          const Vec vx = vec(x, "x"), vy = vec(In(y), "y");
          require_space(vx.space, self.space, "x");
          require_space(vy.space, self.space, "y");
          spx::VectorView<const T> xv(static_cast<const T*>(vx.data), vx.size, vx.space);
          spx::VectorView<T> yv(static_cast<T*>(y.data()), vy.size, vy.space);
          nb::gil_scoped_release unlocked;
          r = p->run(static_cast<T>(alpha), xv, static_cast<T>(beta), yv, s);
        } else {
          const auto b = dense<const T>(x, "B", self.space);
          const auto c = dense<T>(In(y), "C", self.space);
          nb::gil_scoped_release unlocked;
          r = p->run(static_cast<T>(alpha), b, static_cast<T>(beta), c, s);
        }
        return run_info(r);
      },
      self.p);
}

void plan_update(const PyPlan& self, const In& values) {
  std::visit(
      [&](const auto& p) {
        using T = typename PairOf<std::decay_t<decltype(*p)>>::type::value;
        require_dtype<T>(values, "values");
        const Vec v = vec(values, "values");
        require_space(v.space, self.space, "values");
        nb::gil_scoped_release unlocked;
        p->update_values(
            std::span<const T>(static_cast<const T*>(v.data), static_cast<std::size_t>(v.size)));
      },
      self.p);
}

nb::dict plan_report(const PyPlan& self) {
  return std::visit(
      [&](const auto& p) {
        const spx::PlanReport& r = p->report();
        nb::dict d;
        d["format"] = std::string(spx::to_string(r.format));
        d["algorithm"] = std::string(spx::to_string(r.algorithm));
        d["why"] = r.why;
        d["predicted_build_s"] = r.predicted_build_s;
        d["build_s"] = r.build_s;
        d["convert_s"] = r.convert_s;
        d["tuned"] = r.tuned;
        d["tune_s"] = r.tune_s;
        d["bytes"] = static_cast<i64>(std::visit([](auto* m) { return m->bytes(); }, p->matrix()));
        d["advice"] = advice_dict(r.advice);
        return d;
      },
      self.p);
}

// ---- exceptions -------------------------------------------------------------

PyObject* new_exception(nb::module_& m, const char* name, PyObject* bases) {
  const std::string full = std::string("spx.") + name;
  PyObject* t = PyErr_NewException(full.c_str(), bases, nullptr);
  if (!t) throw nb::python_error();
  m.attr(name) = nb::handle(t);
  return t;
}

struct Exceptions {
  PyObject *error, *invalid, *dims, *unsupported, *oom, *io, *cuda, *internal;
};
Exceptions g_exc{};

void register_exceptions(nb::module_& m) {
  auto both = [](PyObject* a, PyObject* b) { return nb::make_tuple(nb::handle(a), nb::handle(b)); };
  g_exc.error = new_exception(m, "Error", PyExc_RuntimeError);
  g_exc.invalid = new_exception(m, "InvalidInput", both(g_exc.error, PyExc_ValueError).ptr());
  g_exc.dims = new_exception(m, "DimensionMismatch", both(g_exc.error, PyExc_ValueError).ptr());
  g_exc.unsupported =
      new_exception(m, "Unsupported", both(g_exc.error, PyExc_NotImplementedError).ptr());
  g_exc.oom = new_exception(m, "OutOfMemory", both(g_exc.error, PyExc_MemoryError).ptr());
  g_exc.io = new_exception(m, "IoError", both(g_exc.error, PyExc_OSError).ptr());
  g_exc.cuda = new_exception(m, "CudaError", g_exc.error);
  g_exc.internal = new_exception(m, "InternalError", g_exc.error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const spx::InvalidInput& e) {
      PyErr_SetString(g_exc.invalid, e.what());
    } catch (const spx::DimensionMismatch& e) {
      PyErr_SetString(g_exc.dims, e.what());
    } catch (const spx::Unsupported& e) {
      PyErr_SetString(g_exc.unsupported, e.what());
    } catch (const spx::OutOfMemory& e) {
      PyErr_SetString(g_exc.oom, e.what());
    } catch (const spx::IoError& e) {
      PyErr_SetString(g_exc.io, e.what());
    } catch (const spx::CudaError& e) {
      PyErr_SetString(g_exc.cuda, e.what());
    } catch (const spx::InternalError& e) {
      PyErr_SetString(g_exc.internal, e.what());
    } catch (const spx::Error& e) {
      PyErr_SetString(g_exc.error, e.what());
    }
  });
}

}  // namespace

NB_MODULE(_spx, m) {
  m.doc() = "SpX sparse products (the extension behind the spx package)";
  register_exceptions(m);

  m.def("cuda_compiled", &spx::cuda_compiled);
  m.def("cuda_available", &spx::cuda_available);
  m.def("formats", [] {
    std::vector<std::string> v;
    for (auto f : spx::kAllFormats)
      v.emplace_back(spx::to_string(f));
    return v;
  });

  nb::class_<PyMatrix>(m, "Matrix")
      .def_prop_ro("shape",
                   [](const PyMatrix& s) {
                     return s.visit([](auto, const auto& a) {
                       return nb::make_tuple(static_cast<i64>(a.rows()),
                                             static_cast<i64>(a.cols()));
                     });
                   })
      .def_prop_ro(
          "nnz",
          [](const PyMatrix& s) { return s.visit([](auto, const auto& a) { return a.nnz(); }); })
      .def_prop_ro(
          "bytes",
          [](const PyMatrix& s) {
            return s.visit([](auto, const auto& a) { return static_cast<i64>(a.bytes()); });
          })
      .def_prop_ro("format",
                   [](const PyMatrix& s) { return std::string(spx::to_string(s.format())); })
      .def_prop_ro("dtype",
                   [](const PyMatrix& s) {
                     return s.visit([]<class P>(P, const auto&) {
                       return std::string(sizeof(typename P::value) == 4 ? "float32" : "float64");
                     });
                   })
      .def_prop_ro("index_dtype",
                   [](const PyMatrix& s) {
                     return s.visit([]<class P>(P, const auto&) {
                       return std::string(sizeof(typename P::index) == 4 ? "int32" : "int64");
                     });
                   })
      .def_prop_ro("device",
                   [](const PyMatrix& s) { return s.space() == spx::Space::Host ? "cpu" : "cuda"; })
      .def_prop_ro("is_view", &PyMatrix::is_view)
      .def("to", &convert_to, "format"_a, "options"_a)
      .def("arrays", [](nb::handle self) { return arrays(self); })
      .def("spmv", &spmv, "alpha"_a, "x"_a.noconvert(), "beta"_a, "y"_a.noconvert(), "algorithm"_a,
           "stream"_a = 0)
      .def("spmm", &spmm, "alpha"_a, "B"_a.noconvert(), "beta"_a, "C"_a.noconvert(), "algorithm"_a,
           "stream"_a = 0)
      .def("time_spmv", &time_spmv, "x"_a.noconvert(), "y"_a.noconvert(), "reps"_a);

  m.def("csr", &make_view<spx::Format::Csr>, "rows"_a, "cols"_a, "indptr"_a.noconvert(),
        "indices"_a.noconvert(), "data"_a.noconvert(), "check"_a, "n0"_a, "n1"_a);
  m.def("csc", &make_view<spx::Format::Csc>, "rows"_a, "cols"_a, "indptr"_a.noconvert(),
        "indices"_a.noconvert(), "data"_a.noconvert(), "check"_a, "n0"_a, "n1"_a);
  m.def("coo", &make_view<spx::Format::Coo>, "rows"_a, "cols"_a, "row"_a.noconvert(),
        "col"_a.noconvert(), "data"_a.noconvert(), "check"_a, "n0"_a, "n1"_a);

  nb::class_<PyBatch>(m, "Batch")
      .def_prop_ro(
          "count",
          [](const PyBatch& b) { return std::visit([](const auto& x) { return x.count(); }, b.b); })
      .def_prop_ro("total_rows",
                   [](const PyBatch& b) {
                     return std::visit([](const auto& x) { return x.total_rows(); }, b.b);
                   })
      .def_prop_ro("total_cols",
                   [](const PyBatch& b) {
                     return std::visit([](const auto& x) { return x.total_cols(); }, b.b);
                   })
      .def_prop_ro("row_offsets",
                   [](const PyBatch& b) {
                     return std::visit(
                         [](const auto& x) {
                           auto s = x.host_row_offsets();
                           return std::vector<i64>(s.begin(), s.end());
                         },
                         b.b);
                   })
      .def_prop_ro("col_offsets",
                   [](const PyBatch& b) {
                     return std::visit(
                         [](const auto& x) {
                           auto s = x.host_col_offsets();
                           return std::vector<i64>(s.begin(), s.end());
                         },
                         b.b);
                   })
      .def("spmv", &batch_spmv, "alpha"_a, "x"_a.noconvert(), "beta"_a, "y"_a.noconvert());
  m.def("batch", &make_batch, "matrices"_a);

  m.def("advise", &advise, "A"_a, "products"_a, "op"_a, "cols"_a, "memory_limit"_a.none(),
        "bandwidth_gbs"_a, "compute_scale"_a);
  nb::class_<PyPlan>(m, "Plan")
      .def("run", &plan_run, "alpha"_a, "x"_a.noconvert(), "beta"_a, "y"_a.noconvert(),
           "stream"_a = 0)
      .def("update_values", &plan_update, "values"_a.noconvert())
      .def("report", &plan_report);
  m.def("plan", &make_plan, "A"_a, "products"_a, "op"_a, "cols"_a, "memory_limit"_a.none(),
        "tune"_a, "format"_a.none(), "algorithm"_a, "warm"_a, "always_advise"_a,
        nb::keep_alive<0, 1>());

  m.def(
      "read_matrix_market",
      [](const std::string& path, const std::string& dtype, const std::string& index) {
        return with_types(dtype, index, [&]<class P>(P) {
          PyMatrix out;
          out.m = wrap<typename P::value, typename P::index>(
              spx::io::read_csr<typename P::value, typename P::index>(path));
          return out;
        });
      },
      "path"_a, "dtype"_a, "index_dtype"_a);
  m.def(
      "write_matrix_market",
      [](const std::string& path, const PyMatrix& A, int precision) {
        spx::io::MmWriteOptions o;
        o.precision = precision;
        A.visit([&]<class P, class F>(P, const F& a) {
          if (a.space() != spx::Space::Host)
            throw nb::value_error("A: on the GPU; write a CPU matrix");
          if constexpr (F::kFormat == spx::Format::Csr || F::kFormat == spx::Format::Coo)
            spx::io::write(path, a, o);
          else
            spx::io::write(path, spx::to_csr(a), o);
        });
      },
      "path"_a, "A"_a, "precision"_a);
  m.def(
      "generate",
      [](const std::string& spec, const std::string& dtype, const std::string& index) {
        const spx::GenSpec g = spx::parse_gen_spec(spec);
        return with_types(dtype, index, [&]<class P>(P) {
          PyMatrix out;
          nb::gil_scoped_release unlocked;
          out.m = wrap<typename P::value, typename P::index>(
              spx::generate<typename P::value, typename P::index>(g));
          return out;
        });
      },
      "spec"_a, "dtype"_a, "index_dtype"_a);
  m.def("describe_generator",
        [](const std::string& spec) { return spx::describe(spx::parse_gen_spec(spec)); });
}
