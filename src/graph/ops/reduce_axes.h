#pragma once
// Reductions of a tensor over some of its axes, as the reduction, softmax and normalization
// operators compute them, and how those operators are scheduled.

#include <functional>
#include <vector>

#include "graph/ops/operator.h"

namespace tessera::graph {

// Axes made non-negative and sorted; a CompileError for one out of range or given twice.
std::vector<int> normalize_axes(const OpContext& ctx, const std::vector<int64_t>& axes, int rank);
// first, first + 1, ..., rank - 1.
std::vector<int> trailing_axes(int first, int rank);

// t, whose shape is a tensor's less the axes (sorted), read at an index of the tensor's shape,
// whose coordinates along the axes it ignores.
Expr read_without_axes(const TensorFunc& t, const std::vector<int>& axes, const std::vector<Expr>& index);

enum class Reducer { Sum, Product, Max, Min };

// A reduction over some axes of a tensor: result has the tensor's shape less the reduced axes.
struct AxisReduction {
    TensorFunc result;
    Func reduction;  // the Func with the update definition (result's, or one result reads)
    RDom domain;     // over the reduced axes, innermost first; undefined when there are none
    std::vector<int> axes;
    std::vector<int64_t> input_shape;
    bool associative;  // an update by +, *, min or max, whose loops may be reordered (rfactor)

    // result read at an index of the reduced tensor's shape, whose reduced coordinates it ignores.
    Expr at(const std::vector<Expr>& input_index) const;
    // How many elements each result element reduces.
    int64_t count() const;
};

using TensorValue = std::function<Expr(const std::vector<Expr>&)>;

// For each index of the axes not reduced, the reduction in type of value(index) over every index
// of the reduced axes (sorted). With no axes, the result is value itself.
AxisReduction reduce_over_axes(const std::string& name, Type type, const std::vector<int64_t>& shape,
                               const std::vector<int>& axes, Reducer reducer, const TensorValue& value);

// For each index of the axes not reduced, where x is largest (largest=false: smallest) over the
// reduced axes (sorted, at least one, none of size 0): the position in the block of reduced
// axes, row-major, as Int(32). Ties go to the first position, or to the last with last_wins.
AxisReduction arg_extreme_over_axes(const std::string& name, const TensorFunc& x,
                                    const std::vector<int>& axes, bool largest, bool last_wins);

// Schedules a reduction where it is computed: vectorized along the input's innermost axis (across
// results where that axis is kept, across partial results where it is reduced), its kept axes
// fused and run in parallel when parallel is set and there is enough work.
void schedule_reduction(const AxisReduction& r, bool parallel, const Target& target);

// Schedules an operator whose output has its input's shape and whose statistics are reductions over
// axes from first_reduced on: the output's axes before first_reduced run as parallel rows, each
// computing the statistics and the per_row Funcs it reads first; vectorized along the innermost
// axis. Without such rows (or with one), the statistics and per_row Funcs are computed whole
// beforehand.
void schedule_rows(const Func& out, const std::vector<int64_t>& shape, int first_reduced,
                   const std::vector<AxisReduction>& statistics, const std::vector<TensorFunc>& per_row,
                   const Target& target);

}  // namespace tessera::graph
