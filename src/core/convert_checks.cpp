#include "core/convert_checks.hpp"

#include "core/format_ellpack.hpp"
#include "core/validate.hpp"

namespace spx::detail {

void check_advice_options(const ConvertOptions& options) {
  for (Format f : {Format::Sell, Format::Hll, Format::Hdi, Format::Hyb})
    check_options(f, options);
  if (options.block_size >= 0) check_options(Format::Bcsr, options);
}

void check_options(Format f, const ConvertOptions& options) {
  switch (f) {
    case Format::Sell:
    case Format::SellPack:
    case Format::SellLp:
      check_sell_parameters(options.slice_size, options.sigma, options.threads_per_row);
      break;
    case Format::Hll:
    case Format::Hdi:
      check_at_least(format_label(f), "hack_size", options.hack_size, 1);
      break;
    case Format::Hyb:
      if (options.hyb_width < -1)
        throw InvalidInput(
            fmt::format("HYB: hyb_width = {} must be -1 (Bell and Garland's rule) or a width >= 0",
                        options.hyb_width));
      break;
    case Format::Bcsr:
      check_block_size(options.block_size, Bcsr<float, std::int32_t>::kMaxBlockSize);
      break;
    default:
      break;
  }
}

void check_sym_square(std::int64_t rows, std::int64_t cols, std::string_view format) {
  if (rows != cols)
    throw Unsupported(
        fmt::format("{}: the matrix is {}x{}, not square ({} holds symmetric matrices)", format,
                    rows, cols, format));
}

template <Value T>
void throw_not_symmetric(std::int64_t i, std::int64_t j, T aij, const T* aji,
                         std::string_view format) {
  if (aji == nullptr)
    throw Unsupported(fmt::format(
        "{}: the matrix is not symmetric: a({}, {}) = {} is stored but a({}, {}) is not", format, i,
        j, aij, j, i));
  throw Unsupported(
      fmt::format("{}: the matrix is not symmetric: a({}, {}) = {} but a({}, {}) = {}", format, i,
                  j, aij, j, i, *aji));
}
template void throw_not_symmetric(std::int64_t, std::int64_t, float, const float*,
                                  std::string_view);
template void throw_not_symmetric(std::int64_t, std::int64_t, double, const double*,
                                  std::string_view);

}  // namespace spx::detail
