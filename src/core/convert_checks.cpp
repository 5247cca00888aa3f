#include "core/convert_checks.hpp"

#include "core/format_ellpack.hpp"
#include "core/validate.hpp"

namespace spx::detail {

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

}  // namespace spx::detail
