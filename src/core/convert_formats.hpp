// What the host conversions share (src/core/convert*.cpp): each format's
// conversions from and to CSR are a specialization of HostConversion; the
// public entry points (to_ell, ..., to_csr) are defined once over them in
// core/convert_host.hpp.
#pragma once

#include <string_view>

#include "spx/convert.hpp"

namespace spx::detail {

/// Throws Unsupported when `s` is not host memory.
void require_host(Space s, std::string_view what);

/// The host conversions of format M (= F<T, I>), specialized in
/// src/core/convert_<format>.cpp:
///
///   static M from_csr(const Csr<T, I>& A, const ConvertOptions& options);
///   static Csr<T, I> to_csr(const M& A);
///
/// Both run on host matrices; from_csr gets options already checked.
template <class M>
struct HostConversion;

}  // namespace spx::detail
