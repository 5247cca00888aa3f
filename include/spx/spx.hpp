// Everything SpX offers, in one include.
#pragma once

#include "spx/advisor.hpp"
#include "spx/analysis.hpp"
#include "spx/batch/ops.hpp"
#include "spx/convert.hpp"
#include "spx/core/array.hpp"
#include "spx/core/enums.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"
#include "spx/core/view.hpp"
#include "spx/generate.hpp"
#include "spx/io/matrix_market.hpp"
#include "spx/matrix.hpp"
#include "spx/ops.hpp"
#include "spx/plan.hpp"
#include "spx/registry.hpp"
