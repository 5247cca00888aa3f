// spx: the command-line tool. Errors print one line and exit non-zero.
#include <cstdio>
#include <exception>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "spx/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"SpX: sparse matrix products (SpMV, SpMM, batched SpMV) on GPUs and CPUs"};
  app.set_version_flag("--version", SPX_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'spx COMMAND --help' for the options of a command.");
  spx::cli::add_info(app);
  spx::cli::add_gen(app);
  spx::cli::add_convert(app);
  spx::cli::add_bench(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const spx::Error& e) {
    fmt::print(stderr, "spx: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "spx: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
