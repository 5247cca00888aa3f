#include "core/convert_checks.hpp"

namespace spx::detail {

void check_sell_options(const ConvertOptions& options) {
  const int C = options.slice_size, sigma = options.sigma, tpr = options.threads_per_row;
  if (C < 1) throw InvalidInput(fmt::format("SELL: slice_size C = {} must be at least 1", C));
  if (tpr < 1)
    throw InvalidInput(fmt::format("SELL: threads_per_row = {} must be at least 1", tpr));
  if (sigma < 1 || (sigma != 1 && sigma % C != 0))
    throw InvalidInput(fmt::format(
        "SELL: sigma = {} must be 1 (keep the row order) or a positive multiple of the slice size "
        "C = {}",
        sigma, C));
}

void check_hll_options(const ConvertOptions& options) {
  if (options.hack_size < 1)
    throw InvalidInput(
        fmt::format("HLL: hack_size H = {} must be at least 1", options.hack_size));
}

void check_hdi_options(const ConvertOptions& options) {
  if (options.hack_size < 1)
    throw InvalidInput(
        fmt::format("HDI: ConvertOptions::hack_size = {}, expected at least 1", options.hack_size));
}

void check_hyb_options(const ConvertOptions& options) {
  if (options.hyb_width < -1)
    throw InvalidInput(
        fmt::format("HYB: hyb_width = {} must be -1 (Bell and Garland's rule) or a width >= 0",
                    options.hyb_width));
}

void check_bcsr_options(const ConvertOptions& options, int max_block) {
  if (options.block_size < 1 || options.block_size > max_block)
    throw InvalidInput(fmt::format("BCSR: ConvertOptions::block_size = {} is out of range [1, {}]",
                                   options.block_size, max_block));
}

}  // namespace spx::detail
