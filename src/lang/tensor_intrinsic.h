#pragma once
// What a TensorIntrinsic is, as lowering reads it: the loop nest and statement it replaces, taken
// from its declaration, and how it is implemented.

#include <string>
#include <vector>

#include "tessera/expr.h"
#include "tessera/func.h"
#include "tessera/type.h"

namespace tessera::lang {

// One loop of the declaration, outermost first. The extent is a constant, or a Variable naming a
// Param<int> (the implementation then takes the extent found).
struct TensorLoop {
    std::string var;
    Expr extent;
};

// An operand the declaration reads (an ImageParam) or writes (its Func).
struct TensorOperand {
    std::string name;
    Type type;
    int dimensions = 0;
};

enum class TensorImplementation { ExternFunction, FmaF32, DotU8S8, DotBF16 };

struct TensorIntrinsicContents {
    std::string name;
    std::vector<TensorLoop> loops;
    // The statement: output(output_args) = value, over the loops' vars. value reads the inputs and the
    // output by Calls (Image calls by the operand's name, the output by a Func call).
    TensorOperand output;
    std::vector<Expr> output_args;
    Expr value;
    std::vector<TensorOperand> inputs;  // in the order the implementation takes them
    std::vector<std::string> extent_params;

    TensorImplementation implementation = TensorImplementation::ExternFunction;
    std::string function_name;      // ExternFunction
    const void* address = nullptr;  // ExternFunction, for the JIT
    int columns = 0, rows = 0;      // the built-in kernels' tile

    // The declaration as a loop nest, for messages.
    std::string describe() const;
};

// Builds the contents from a declaration (see tensorize.h), checking it.
TensorIntrinsicContents declare_tensor_intrinsic(const std::string& name, const Func& declaration,
                                                 const std::vector<std::string>& input_names,
                                                 const std::vector<std::string>& extent_params);

}  // namespace tessera::lang
