#pragma once
// evaluate<T>(e): the value of an expression with no free variables, computed by compiling and
// running a zero-dimensional pipeline (Halide's scalar JIT evaluation). evaluate(Tuple, &a, &b,
// ...) does the same for each element of a Tuple.

#include <string>

#include "tessera/buffer.h"
#include "tessera/func.h"
#include "tessera/pipeline.h"
#include "tessera/tuple.h"

namespace tessera {

namespace lang {
// Throws CompileError unless e has type `want` (what evaluate's caller asked for).
void check_evaluate_type(const Expr& e, Type want);
// Throws CompileError unless the Tuple has `wanted` elements.
void check_evaluate_size(const Tuple& t, size_t wanted);
}  // namespace lang

template <typename T>
T evaluate(const Expr& e) {
    lang::check_evaluate_type(e, type_of<T>());
    Func f;
    f() = e;
    Buffer<T, 0> result = f.realize();
    return result();
}

template <typename First, typename... Rest>
void evaluate(const Tuple& t, First* first, Rest*... rest) {
    lang::check_evaluate_size(t, sizeof...(Rest) + 1);
    size_t i = 0;
    lang::check_evaluate_type(t[i++], type_of<First>());
    (lang::check_evaluate_type(t[i++], type_of<Rest>()), ...);
    Func f;
    f() = t;
    Realization r = f.realize();
    size_t j = 0;
    *first = Buffer<First, 0>(r[j++])();
    ((*rest = Buffer<Rest, 0>(r[j++])()), ...);
}

}  // namespace tessera
