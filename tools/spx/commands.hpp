// The subcommands of `spx`, one file each.
#pragma once

#include <CLI/CLI.hpp>

namespace spx::cli {

void add_info(CLI::App& app);
void add_gen(CLI::App& app);
void add_convert(CLI::App& app);
void add_bench(CLI::App& app);

}  // namespace spx::cli
