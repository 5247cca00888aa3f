#include "commands.hpp"
#include "spx/core/error.hpp"

namespace spx::cli {

void add_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "(not yet implemented)");
  cmd->callback([] { throw Unsupported("spx bench is not implemented yet"); });
}

}  // namespace spx::cli
