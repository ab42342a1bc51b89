#pragma once
// What an operator of the graph layer is: a function from input tensors, as Funcs, and a node's
// attributes to output tensors, as Funcs, with a schedule for when it ends a group of its own.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessera/graph.h"
#include "tessera/tessera.h"
#include "util/error_stream.h"

namespace tessera::graph {

// A tensor as operators see it. Its Func takes the innermost (fastest varying) dimension first,
// the reverse of shape, which is written outermost first as ONNX writes it; operator() takes
// coordinates outermost first and reverses them.
struct TensorFunc {
    Func func;
    Type type = Float(32);
    std::vector<int64_t> shape;

    int rank() const { return int(shape.size()); }
    int64_t elements() const;
    Expr operator()(const std::vector<Expr>& index) const;
};

// "[1,3,640,640]": how messages write a shape.
std::string shape_text(const std::vector<int64_t>& shape);

// The value of a one-element tensor as an Expr of its type, exact for 64-bit integers.
Expr scalar_expr(const Tensor& t);

// Defines a Func of the given shape: value is called with one Var per dimension, outermost first.
TensorFunc define_tensor(const std::string& name, Type type, const std::vector<int64_t>& shape,
                         const std::function<Expr(const std::vector<Expr>&)>& value);

// How an operator's definition relates to fusion.
enum class OpKind {
    Elementwise,  // each output element reads the same element of each input (after broadcasting)
    Injective,    // each output element reads a few input elements at computed coordinates
    Anchor,       // convolutions and matrix products: elementwise consumers fuse into their output
    Opaque,       // reductions and the rest: a group of their own
};

// The arguments of an operator's definition.
struct OpContext {
    const Node& node;
    int opset;                                 // of the model's default domain
    std::vector<TensorFunc> inputs;            // undefined Func for an optional input left out
    std::vector<const Tensor*> constant_data;  // the input's value when it is a constant, else null
    Target target;

    int input_count() const { return int(inputs.size()); }
    bool has_input(int i) const { return i < int(inputs.size()) && inputs[i].func.defined(); }
    const TensorFunc& input(int i) const;
    // The value of input i, which must be a constant (a shape, axes, pads ...); what names it in
    // a message otherwise.
    const Tensor& constant_input(int i, const char* what) const;
    const Attributes& attributes() const { return node.attributes; }
    // "node conv1 (Conv)": how messages name the node.
    std::string where() const;
    // A name for the node's Funcs, usable as a Func name.
    std::string func_name(const std::string& suffix = "") const;
};

// What an operator's definition returns.
struct OpResult {
    std::vector<TensorFunc> outputs;
    // Schedules the operator's inner Funcs, and its output, given the Func the group realizes:
    // output itself when the operator ends the group alone, or an elementwise consumer fused
    // into it. Empty for operators that need nothing beyond the group's default schedule.
    std::function<void(const Func& group_output, const std::vector<int64_t>& shape, const Target&)> schedule;
    // The outputs' values, where the definition knows them without computing anything (Constant):
    // constant folding takes them as they are instead of compiling the Funcs.
    std::vector<Tensor> known_values;
};

// The definition, the kind, and the checks that apply before definition.
struct OperatorInfo {
    std::string name;
    OpKind kind;
    int min_inputs;
    int max_inputs;
    std::function<OpResult(const OpContext&)> define;
    // Its outputs depend only on its inputs' types and shapes (Shape, Size), so shape inference
    // always computes them at compile time.
    bool shape_only = false;
};

// The operator named by an ONNX op type, or null.
const OperatorInfo* find_operator(const std::string& op_type);
// Every operator's ONNX name, sorted: what messages list as supported.
std::vector<std::string> supported_operators();

// An axis in [-rank, rank), counted from the end when negative, made non-negative; a CompileError
// naming the node (and what the axis is, e.g. "perm entry") otherwise.
int normalize_axis(const OpContext& ctx, int64_t axis, int64_t rank, const char* what = "axis");

// A list of integers given by input `input` when the node has it, else by attribute `name`
// (operators moved such lists from attributes to inputs across opsets); nothing when neither is.
std::optional<std::vector<int64_t>> ints_input_or_attribute(const OpContext& ctx, int input,
                                                            const char* name);

// One registration function per family of operators, called by the registry.
void register_operator(OperatorInfo info);
void register_elementwise_operators();
void register_activation_operators();
void register_convolution_operators();     // Conv, ConvTranspose
void register_matrix_product_operators();  // Gemm, MatMul
void register_reduction_operators();       // Reduce*, ArgMax, ArgMin
void register_softmax_operators();         // Softmax, LogSoftmax, Hardmax
void register_normalization_operators();   // BatchNormalization, InstanceNormalization, LayerNormalization
void register_shape_operators();           // Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Constant, ...
void register_data_movement_operators();   // Transpose, Concat, Split, Slice, Gather, Expand, Tile, Pad, ...
void register_pooling_operators();         // GlobalAveragePool, GlobalMaxPool, AveragePool, MaxPool
void register_resize_operators();          // Resize, Upsample

// A CompileError naming the node: TESSERA_GRAPH_ERROR(ctx) << "what is wrong";
#define TESSERA_GRAPH_ERROR(ctx) TESSERA_USER_ERROR << (ctx).where() << ": "
// An UnsupportedError naming the node: TESSERA_GRAPH_UNSUPPORTED(ctx) << "what is not supported";
#define TESSERA_UNSUPPORTED ::tessera::util::ErrorStream<::tessera::graph::UnsupportedError>("Error: ")
#define TESSERA_GRAPH_UNSUPPORTED(ctx) TESSERA_UNSUPPORTED << (ctx).where() << ": "

}  // namespace tessera::graph
