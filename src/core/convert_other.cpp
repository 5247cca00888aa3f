// Dispatch of CSR → the padded and blocked formats.
#include <fmt/format.h>

#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"

namespace spx {

// Every format converts from CSR on the host; a device CSR converts on the
// device to every format but CSC (the conversions the CUDA backend registers).
bool convertible(Format) noexcept {
  return true;
}

namespace detail {

template <Value T, Index I>
Matrix<T, I> convert_other(const Csr<T, I>& A, Format to, const ConvertOptions& options) {
  switch (to) {
    case Format::Ell:
      return to_ell(A, options);
    case Format::Sell:
      return to_sell(A, options);
    case Format::Hll:
      return to_hll(A, options);
    case Format::Hyb:
      return to_hyb(A, options);
    case Format::Jad:
      return to_jad(A, options);
    case Format::Dia:
      return to_dia(A, options);
    case Format::Hdi:
      return to_hdi(A, options);
    case Format::Bcsr:
      return to_bcsr(A, options);
    default:
      break;
  }
  throw Unsupported(
      fmt::format("conversion to {} is not implemented in this build", to_string(to)));
}

#define SPX_INST(T, I) \
  template Matrix<T, I> convert_other(const Csr<T, I>&, Format, const ConvertOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace detail
}  // namespace spx
