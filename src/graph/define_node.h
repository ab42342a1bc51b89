#pragma once
// Defining one node of a graph as Funcs, from Funcs for its inputs: the one place that checks a
// node against its operator and calls the operator's definition.

#include <vector>

#include "graph/ops/operator.h"

namespace tessera::graph {

// The operator of node; a CompileError naming the node and listing what is supported when the
// op is unknown or has the wrong number of inputs.
const OperatorInfo& operator_of(const Node& node);

// Defines node's outputs from inputs (one per node input, undefined for a missing optional one).
// Values of constant inputs are taken from g.
OpResult define_node(const Graph& g, const Node& node, const std::vector<TensorFunc>& inputs,
                     const Target& target);

// A Func that reads an ImageParam of the value's type and shape: what a value stands for when
// its data is given only when the pipeline runs.
struct ParamTensor {
    ImageParam param;
    TensorFunc tensor;
};
ParamTensor param_tensor(const Value& v, const std::string& name);

// The static shape of a value, once shape inference has made every dimension known.
std::vector<int64_t> static_shape(const Value& v);

// A Buffer seeing a tensor's data, dimensions reversed (innermost first).
Buffer<> buffer_view(const Tensor& t, const std::string& name = "");

}  // namespace tessera::graph
