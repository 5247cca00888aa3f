// The subcommands of `spx`, one file each.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace spx::cli {

/// The value and index types a subcommand runs with: --precision f32|f64 and
/// --index i32|i64.
struct TypeOptions {
  std::string precision = "f64";
  std::string index = "i32";

  /// Adds --precision (described by `precision_help`) and --index to `cmd`.
  void add_to(CLI::App* cmd, const std::string& precision_help) {
    cmd->add_option("--precision", precision, precision_help)
        ->check(CLI::IsMember({"f32", "f64"}))
        ->capture_default_str();
    cmd->add_option("--index", index, "Index type: i32 or i64")
        ->check(CLI::IsMember({"i32", "i64"}))
        ->capture_default_str();
  }
  /// Runs f.template operator()<T, I>() with the chosen types.
  template <class F>
  void run(F&& f) const {
    const bool f32 = precision == "f32", i64 = index == "i64";
    if (f32 && i64)
      f.template operator()<float, std::int64_t>();
    else if (f32)
      f.template operator()<float, std::int32_t>();
    else if (i64)
      f.template operator()<double, std::int64_t>();
    else
      f.template operator()<double, std::int32_t>();
  }
};

void add_info(CLI::App& app);
void add_gen(CLI::App& app);
void add_convert(CLI::App& app);
void add_bench(CLI::App& app);

}  // namespace spx::cli
