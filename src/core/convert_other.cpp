// The entry points over every format: convert() and to_csr(MatrixRef).
#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "spx/convert.hpp"

namespace spx {

// Every format converts from CSR on the host; a device CSR converts on the
// device to every format but CSC (the conversions the CUDA backend registers).
bool convertible(Format) noexcept {
  return true;
}

template <Value T, Index I>
Matrix<T, I> convert(const Csr<T, I>& A, Format to, const ConvertOptions& options) {
  // Matrix lists the formats in the order of enum Format: the alternative
  // whose index is `to` is the format to convert to.
  constexpr std::size_t kFormats = std::variant_size_v<Matrix<T, I>>;
  if (static_cast<std::size_t>(to) >= kFormats)
    throw Unsupported(fmt::format("conversion to format {} is not implemented in this build",
                                  static_cast<int>(to)));
  Matrix<T, I> out;
  [&]<std::size_t... k>(std::index_sequence<k...>) {
    const auto convert_to = [&]<Format F>() {
      if constexpr (F == Format::Csr)
        out = detail::name_allocation_failures("CSR to CSR", [&] { return A.clone(); });
      else
        out = detail::ToFormat<F>{}(A, options);
    };
    ((to == static_cast<Format>(k) ? convert_to.template operator()<static_cast<Format>(k)>()
                                   : void()),
     ...);
  }
  (std::make_index_sequence<kFormats>{});
  return out;
}

template <Value T, Index I>
Csr<T, I> to_csr(MatrixRef<T, I> A) {
  return std::visit(
      [](auto* m) -> Csr<T, I> {
        using M = std::remove_cvref_t<decltype(*m)>;
        if constexpr (std::is_same_v<M, Csr<T, I>>) {
          return m->clone();
        } else {
          return to_csr(*m);
        }
      },
      A);
}

#define SPX_INST(T, I)                                                            \
  template Matrix<T, I> convert(const Csr<T, I>&, Format, const ConvertOptions&); \
  template Csr<T, I> to_csr(MatrixRef<T, I>);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx
