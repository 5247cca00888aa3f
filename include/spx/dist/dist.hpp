// The distributed layer (library spx_dist, target spx::dist): everything.
#pragma once

#include "spx/dist/cg.hpp"
#include "spx/dist/matrix.hpp"
#include "spx/dist/partition.hpp"
#include "spx/dist/vector.hpp"
