#include "commands.hpp"
#include "spx/core/error.hpp"

namespace spx::cli {

void add_convert(CLI::App& app) {
  auto* cmd = app.add_subcommand("convert", "(not yet implemented)");
  cmd->callback([] { throw Unsupported("spx convert is not implemented yet"); });
}

}  // namespace spx::cli
