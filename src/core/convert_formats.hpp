// Conversions from CSR to the formats beyond COO/CSR/CSC. Implemented in
// src/core/convert_<format>.cpp; convert() dispatches here.
#pragma once

#include <string_view>

#include "spx/convert.hpp"

namespace spx::detail {

/// Throws Unsupported when `s` is not host memory.
void require_host(Space s, std::string_view what);

/// CSR → `to` for every format other than COO, CSR, CSC.
template <Value T, Index I>
Matrix<T, I> convert_other(const Csr<T, I>& A, Format to, const ConvertOptions& options);

}  // namespace spx::detail
