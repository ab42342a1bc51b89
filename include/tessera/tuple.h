#pragma once
// Tuple: several values computed together at each point of a Func.

#include <vector>

#include "tessera/expr.h"

namespace tessera {

class FuncRef;

class Tuple {
public:
    explicit Tuple(const Expr& e) : values_{e} {}
    explicit Tuple(const std::vector<Expr>& values) : values_(values) {}
    template <typename... Rest>
    Tuple(const Expr& a, const Expr& b, Rest&&... rest) : values_{a, b, Expr(std::forward<Rest>(rest))...} {}
    // The values of a Func at a point (implicit, as in Halide: Tuple t = f(x, y);).
    Tuple(const FuncRef& ref);

    size_t size() const { return values_.size(); }
    Expr& operator[](size_t i) { return values_[i]; }
    const Expr& operator[](size_t i) const { return values_[i]; }
    const std::vector<Expr>& as_vector() const { return values_; }

private:
    std::vector<Expr> values_;
};

}  // namespace tessera
