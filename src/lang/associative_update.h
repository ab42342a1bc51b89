#pragma once
// Recognizing an update that combines a Func's value with something else by an associative and
// commutative operator: what rfactor can reassociate and what atomic() can run in any order.

#include <optional>
#include <vector>

#include "lang/function.h"

namespace tessera::lang {

// An update f(args) = f(args) op rest, taken apart.
struct AssociativeUpdate {
    ir::IRKind op;  // Add, Mul, Min or Max
    Expr rest;      // does not read f
};

// Whether e calls f.
bool reads_func(const Expr& e, const FunctionContents& f);

// The update's value taken apart, or nothing where it is not of that form.
std::optional<AssociativeUpdate> associative_update(const Expr& value, const FunctionContents& f,
                                                    const std::vector<Expr>& args);

}  // namespace tessera::lang
