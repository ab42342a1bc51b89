#pragma once
// What is known of an integer expression's value modulo a constant: e = modulus * q + remainder for
// some integer q. Knowing that a tile's start is a multiple of 16 lets the simplifier turn
// `ramp(x0, 1, 16) / 16` into a broadcast and `% 16` into a constant ramp: a dense vector load of a
// packed layout instead of a gather.

#include <map>
#include <string>

#include "ir/interval.h"

namespace tessera::ir {

struct ModulusRemainder {
    // modulus 0: the value is exactly `remainder`. modulus 1: nothing is known. Otherwise
    // 0 <= remainder < modulus.
    int64_t modulus = 1, remainder = 0;
};

// The largest modulus (and its remainder) that e is proved to have, for scalar integers of types
// assumed not to overflow (others are modulus 1). A variable whose interval in `scope` is a single
// expression (a let's value) has that expression's; any other variable is unknown.
ModulusRemainder modulus_remainder(const Expr& e, const std::map<std::string, Interval>& scope = {});

}  // namespace tessera::ir
