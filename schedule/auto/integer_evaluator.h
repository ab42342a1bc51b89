#pragma once
// The value of an integer expression at given values of its variables: fast enough for an automatic
// scheduler to evaluate the footprints of thousands of candidate tiles without the simplifier.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/expr_nodes.h"

namespace tessera::autoschedule {

// Integer arithmetic as the language defines it (division and modulo rounding toward negative
// infinity, zero when dividing by zero). Nothing where the expression reads memory, uses a
// variable without a value, or is not made of integer and boolean arithmetic.
std::optional<int64_t> evaluate_integer(const Expr& e, const std::map<std::string, int64_t>& values);

}  // namespace tessera::autoschedule
