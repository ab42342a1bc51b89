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

    bool is_implicit() const { return is_implicit(name_); }
    // The index of an implicit Var's name (0 for "_0"), or -1.
    static int implicit_index(const std::string& name);
    int implicit_index() const { return implicit_index(name_); }
    // Whether the name is the placeholder "_".
    static bool is_placeholder(const std::string& name) { return name == "_"; }
    bool is_placeholder() const { return is_placeholder(name_); }
    // The Var of the loop outside every loop of a pipeline, for scheduling.
    static Var outermost() { return Var("__outermost"); }

private:
    std::string name_;
};

// Halide's implicit Vars: _0 ... _9 are the Vars named "_0" ... "_9" (the ones Func(buffer) and
// ImageParams use), and _ is the placeholder for "all remaining arguments".
template <int N = -1>
struct ImplicitVar : Var {
    ImplicitVar() : Var(N >= 0 ? "_" + std::to_string(N) : std::string("_")) {}
    Var to_var() const { return *this; }
};

inline const ImplicitVar<> _;
inline const ImplicitVar<0> _0;
inline const ImplicitVar<1> _1;
inline const ImplicitVar<2> _2;
inline const ImplicitVar<3> _3;
inline const ImplicitVar<4> _4;
inline const ImplicitVar<5> _5;
inline const ImplicitVar<6> _6;
inline const ImplicitVar<7> _7;
inline const ImplicitVar<8> _8;
inline const ImplicitVar<9> _9;

}  // namespace tessera
