#pragma once
// Var: a named dimension of a Func's domain. Two Vars with the same name are the same Var.

#include <string>

#include "tessera/expr.h"

namespace tessera {

class Var {
public:
    Var();  // a fresh, uniquely named Var
    explicit Var(const std::string& name);

    const std::string& name() const { return name_; }
    bool same_as(const Var& other) const { return name_ == other.name_; }
    operator Expr() const;

    // The i-th implicit Var, written _0, _1, ... (Halide's placeholders).
    static Var implicit(int i);
    static bool is_implicit(const std::string& name);

private:
    std::string name_;
};

}  // namespace tessera
