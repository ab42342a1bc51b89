// Operators that move elements without computing new values: Transpose, Concat, Split, Slice,
// Gather, GatherElements, Expand, Tile, Pad, DepthToSpace, SpaceToDepth and Trilu. Every read at a
// coordinate that comes from data, or that lies outside an input on some branch of a select, is
// clamped into the input, so that no model can make them read out of bounds.

#include <algorithm>
#include <limits>
#include <sstream>

#include "graph/element_types.h"
#include "graph/ops/broadcast.h"
#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

// Coordinates are int32: a dimension must fit.
void check_dimensions_fit(const OpContext& ctx, const std::vector<int64_t>& shape) {
    for (int64_t d : shape)
        if (d > std::numeric_limits<int32_t>::max())
            TESSERA_GRAPH_UNSUPPORTED(ctx) << "the dimension " << d << " of " << shape_text(shape)
                                           << " is too large (dimensions up to 2^31 - 1 are supported).";
}

Expr clamp_to(const Expr& i, int64_t size) { return clamp(i, 0, int32_t(std::max<int64_t>(size - 1, 0))); }

// A coordinate read from an index tensor: negative counts from the end, and the result is clamped
// into [0, size) in the index's own type before it becomes an int32 coordinate.
Expr data_coordinate(Expr i, int64_t size) {
    const Type t = i.type();
    i = select(i < cast(t, 0), i + cast(t, Expr(size)), i);
    return cast(Int(32), clamp(i, cast(t, 0), cast(t, Expr(std::max<int64_t>(size - 1, 0)))));
}

void require_index_type(const OpContext& ctx, const TensorFunc& indices) {
    if (indices.type != Int(32) && indices.type != Int(64))
        TESSERA_GRAPH_ERROR(ctx) << "the indices must be int32 or int64, not " << type_name(indices.type)
                                 << ".";
}

TensorFunc zeros(const std::string& name, Type type, const std::vector<int64_t>& shape) {
    return define_tensor(name, type, shape, [&](const std::vector<Expr>&) { return cast(type, 0); });
}

int64_t element_count(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

OpResult transpose(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    std::vector<int64_t> perm = ctx.attributes().get_ints("perm");
    if (!ctx.attributes().has("perm"))
        for (int i = x.rank() - 1; i >= 0; i--) perm.push_back(i);
    std::vector<bool> seen(x.rank(), false);
    if (int(perm.size()) != x.rank())
        TESSERA_GRAPH_ERROR(ctx) << "perm has " << perm.size() << " entries for an input of rank " << x.rank()
                                 << ".";
    for (int64_t& p : perm) {
        p = normalize_axis(ctx, p, x.rank(), "perm entry");
        if (seen[p]) TESSERA_GRAPH_ERROR(ctx) << "perm names axis " << p << " twice.";
        seen[p] = true;
    }
    std::vector<int64_t> shape;
    for (int64_t p : perm) shape.push_back(x.shape[p]);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        std::vector<Expr> in(x.rank());
        for (size_t k = 0; k < perm.size(); k++) in[perm[k]] = index[k];
        return x(in);
    });
    return {{out}, {}};
}

OpResult concat(const OpContext& ctx) {
    const TensorFunc& first = ctx.input(0);
    const int axis = normalize_axis(ctx, ctx.attributes().get_int("axis", 0), first.rank());
    std::vector<int64_t> shape = first.shape;
    shape[axis] = 0;
    std::vector<int64_t> offsets;
    for (int i = 0; i < ctx.input_count(); i++) {
        const TensorFunc& t = ctx.input(i);
        bool fits = t.rank() == first.rank();
        for (int k = 0; fits && k < t.rank(); k++) fits = k == axis || t.shape[k] == first.shape[k];
        if (!fits)
            TESSERA_GRAPH_ERROR(ctx) << "input " << i << " of shape " << shape_text(t.shape)
                                     << " does not fit input 0 of shape " << shape_text(first.shape)
                                     << " (all dimensions but axis " << axis << " must agree).";
        if (t.type != first.type)
            TESSERA_GRAPH_ERROR(ctx) << "input " << i << " is " << type_name(t.type) << " but input 0 is "
                                     << type_name(first.type) << ".";
        offsets.push_back(shape[axis]);
        shape[axis] += t.shape[axis];
    }
    check_dimensions_fit(ctx, shape);
    if (element_count(shape) == 0) return {{zeros(ctx.func_name(), first.type, shape)}, {}};
    TensorFunc out = define_tensor(ctx.func_name(), first.type, shape, [&](const std::vector<Expr>& index) {
        // From the last input backwards: each earlier input takes the coordinates below its end.
        Expr value;
        for (int i = ctx.input_count() - 1; i >= 0; i--) {
            const TensorFunc& t = ctx.input(i);
            if (t.shape[axis] == 0) continue;
            std::vector<Expr> at = index;
            at[axis] = clamp_to(index[axis] - int32_t(offsets[i]), t.shape[axis]);
            value = value.defined() ? select(index[axis] < int32_t(offsets[i] + t.shape[axis]), t(at), value)
                                    : t(at);
        }
        return value;
    });
    return {{out}, {}};
}

// The part of x from `begin` along axis, `size` long.
TensorFunc slice_along(const std::string& name, const TensorFunc& x, int axis, int64_t begin, int64_t size) {
    std::vector<int64_t> shape = x.shape;
    shape[axis] = size;
    return define_tensor(name, x.type, shape, [&](const std::vector<Expr>& index) {
        std::vector<Expr> at = index;
        at[axis] = index[axis] + int32_t(begin);
        return x(at);
    });
}

OpResult split(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const int axis = normalize_axis(ctx, ctx.attributes().get_int("axis", 0), x.rank());
    const int64_t length = x.shape[axis];
    const int64_t outputs = int64_t(ctx.node.outputs.size());
    std::vector<int64_t> sizes;
    if (auto given = ints_input_or_attribute(ctx, 1, "split")) {
        sizes = *given;
        int64_t total = 0;
        for (int64_t s : sizes) {
            if (s < 0) TESSERA_GRAPH_ERROR(ctx) << "the split has the negative size " << s << ".";
            total += s;
        }
        if (total != length || int64_t(sizes.size()) != outputs)
            TESSERA_GRAPH_ERROR(ctx) << "the split " << shape_text(sizes) << " does not cut axis " << axis
                                     << " of size " << length << " into " << outputs << " outputs.";
    } else if (ctx.attributes().has("num_outputs")) {
        // Opset 18: equal parts of ceil(length / n), the last one smaller.
        const int64_t n = ctx.attributes().get_int("num_outputs", 0);
        if (n != outputs || n <= 0)
            TESSERA_GRAPH_ERROR(ctx) << "num_outputs is " << n << " but the node has " << outputs
                                     << " outputs.";
        const int64_t part = (length + n - 1) / n;
        for (int64_t i = 0; i < n; i++) sizes.push_back(std::clamp<int64_t>(length - i * part, 0, part));
    } else {
        if (length % outputs != 0)
            TESSERA_GRAPH_ERROR(ctx) << "axis " << axis << " of size " << length << " does not split into "
                                     << outputs << " equal parts.";
        sizes.assign(outputs, length / outputs);
    }
    OpResult result;
    int64_t begin = 0;
    for (size_t i = 0; i < sizes.size(); i++) {
        result.outputs.push_back(slice_along(ctx.func_name(std::to_string(i)), x, axis, begin, sizes[i]));
        begin += sizes[i];
    }
    return result;
}

// One axis of a Slice: the first input coordinate, the step and the output's size.
struct SliceAxis {
    int64_t start = 0, step = 1, size = 0;
};

// Clamps start and end as ONNX says: into [0, dim] for positive steps, into [-1, dim - 1] (start
// into [0, dim - 1]) for negative ones.
SliceAxis slice_axis(int64_t start, int64_t end, int64_t step, int64_t dim) {
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    // A step longer than the axis takes one element at most, as a step of dim + 1 does.
    step = std::clamp<int64_t>(step, -dim - 1, dim + 1);
    SliceAxis s;
    s.step = step;
    if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        s.size = end > start ? (end - start + step - 1) / step : 0;
    } else {
        start = std::max<int64_t>(std::min(start, dim - 1), 0);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        s.size = start > end && dim > 0 ? (start - end - step - 1) / -step : 0;
    }
    s.start = start;
    return s;
}

OpResult slice(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const bool inputs = ctx.input_count() > 1;  // the form of opset 10 on
    auto list = [&](int input, const char* name) -> std::optional<std::vector<int64_t>> {
        if (inputs) {
            if (!ctx.has_input(input)) return std::nullopt;
            return ctx.constant_input(input, name).to_int64s();
        }
        if (!ctx.attributes().has(name)) return std::nullopt;
        return ctx.attributes().get_ints(name);
    };
    auto starts = list(1, "starts"), ends = list(2, "ends");
    if (!starts || !ends) TESSERA_GRAPH_ERROR(ctx) << "needs both starts and ends.";
    std::vector<int64_t> axes, steps(starts->size(), 1);
    if (auto a = list(3, "axes")) {
        axes = *a;
    } else {
        for (size_t i = 0; i < starts->size(); i++) axes.push_back(int64_t(i));
    }
    if (auto s = list(4, "steps")) steps = *s;
    if (ends->size() != starts->size() || axes.size() != starts->size() || steps.size() != starts->size())
        TESSERA_GRAPH_ERROR(ctx) << "starts, ends, axes and steps must have one length.";
    std::vector<SliceAxis> per_axis(x.rank());
    for (int k = 0; k < x.rank(); k++) per_axis[k].size = x.shape[k];
    std::vector<bool> seen(x.rank(), false);
    for (size_t i = 0; i < axes.size(); i++) {
        const int axis = normalize_axis(ctx, axes[i], x.rank());
        if (seen[axis]) TESSERA_GRAPH_ERROR(ctx) << "axis " << axes[i] << " is sliced twice.";
        seen[axis] = true;
        if (steps[i] == 0) TESSERA_GRAPH_ERROR(ctx) << "the step of axis " << axes[i] << " is 0.";
        per_axis[axis] = slice_axis((*starts)[i], (*ends)[i], steps[i], x.shape[axis]);
    }
    std::vector<int64_t> shape;
    for (const SliceAxis& s : per_axis) shape.push_back(s.size);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        std::vector<Expr> at;
        for (int k = 0; k < x.rank(); k++) {
            const SliceAxis& s = per_axis[k];
            Expr i = s.step == 1 || s.size <= 1 ? index[k] : index[k] * int32_t(s.step);
            at.push_back(s.start == 0 ? i : i + int32_t(s.start));
        }
        return x(at);
    });
    return {{out}, {}};
}

OpResult gather(const OpContext& ctx) {
    const TensorFunc& data = ctx.input(0);
    const TensorFunc& indices = ctx.input(1);
    require_index_type(ctx, indices);
    if (data.rank() == 0) TESSERA_GRAPH_ERROR(ctx) << "cannot gather from a scalar.";
    const int axis = normalize_axis(ctx, ctx.attributes().get_int("axis", 0), data.rank());
    const int q = indices.rank();
    std::vector<int64_t> shape(data.shape.begin(), data.shape.begin() + axis);
    shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
    shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
    if (data.shape[axis] == 0 && element_count(shape) > 0)
        TESSERA_GRAPH_ERROR(ctx) << "gathers along axis " << axis << " of size 0.";
    TensorFunc out = define_tensor(ctx.func_name(), data.type, shape, [&](const std::vector<Expr>& index) {
        std::vector<Expr> at(index.begin(), index.begin() + axis);
        std::vector<Expr> which(index.begin() + axis, index.begin() + axis + q);
        at.push_back(data_coordinate(indices(which), data.shape[axis]));
        at.insert(at.end(), index.begin() + axis + q, index.end());
        return data(at);
    });
    return {{out}, {}};
}

OpResult gather_elements(const OpContext& ctx) {
    const TensorFunc& data = ctx.input(0);
    const TensorFunc& indices = ctx.input(1);
    require_index_type(ctx, indices);
    if (indices.rank() != data.rank() || data.rank() == 0)
        TESSERA_GRAPH_ERROR(ctx) << "the indices " << shape_text(indices.shape) << " and the data "
                                 << shape_text(data.shape) << " must have one rank of at least 1.";
    const int axis = normalize_axis(ctx, ctx.attributes().get_int("axis", 0), data.rank());
    for (int k = 0; k < data.rank(); k++)
        if (k != axis && indices.shape[k] > data.shape[k])
            TESSERA_GRAPH_ERROR(ctx) << "the indices " << shape_text(indices.shape)
                                     << " are larger than the data " << shape_text(data.shape)
                                     << " along axis " << k << ".";
    if (data.shape[axis] == 0 && indices.elements() > 0)
        TESSERA_GRAPH_ERROR(ctx) << "gathers along axis " << axis << " of size 0.";
    TensorFunc out =
        define_tensor(ctx.func_name(), data.type, indices.shape, [&](const std::vector<Expr>& index) {
            std::vector<Expr> at = index;
            at[axis] = data_coordinate(indices(index), data.shape[axis]);
            return data(at);
        });
    return {{out}, {}};
}

OpResult expand(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const Tensor& requested = ctx.constant_input(1, "shape");
    if (requested.rank() > 1) TESSERA_GRAPH_ERROR(ctx) << "the shape must be a 1-D tensor.";
    for (int64_t d : requested.to_int64s())
        if (d < 0) TESSERA_GRAPH_ERROR(ctx) << "the shape has the negative dimension " << d << ".";
    const std::vector<int64_t> shape = broadcast_shapes(ctx, {x.shape, requested.to_int64s()});
    check_dimensions_fit(ctx, shape);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        return broadcast_read(x, index, shape);
    });
    return {{out}, {}};
}

OpResult tile(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const std::vector<int64_t> repeats = ctx.constant_input(1, "repeats").to_int64s();
    if (int(repeats.size()) != x.rank())
        TESSERA_GRAPH_ERROR(ctx) << "repeats has " << repeats.size() << " entries for an input of rank "
                                 << x.rank() << ".";
    std::vector<int64_t> shape;
    for (int k = 0; k < x.rank(); k++) {
        if (repeats[k] < 0)
            TESSERA_GRAPH_ERROR(ctx) << "repeats has the negative entry " << repeats[k] << ".";
        int64_t size = 0;
        if (__builtin_mul_overflow(x.shape[k], repeats[k], &size)) size = std::numeric_limits<int64_t>::max();
        shape.push_back(size);
    }
    check_dimensions_fit(ctx, shape);
    if (element_count(shape) == 0) return {{zeros(ctx.func_name(), x.type, shape)}, {}};
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        std::vector<Expr> at;
        for (int k = 0; k < x.rank(); k++)
            at.push_back(repeats[k] == 1   ? index[k]
                         : x.shape[k] == 1 ? Expr(0)
                                           : index[k] % int32_t(x.shape[k]));
        return x(at);
    });
    return {{out}, {}};
}

// The coordinate of x, of size `size` along an axis, that Pad's mode reads for the coordinate i
// that may lie outside [0, size).
Expr pad_source(const std::string& mode, const Expr& i, int64_t size) {
    if (mode == "reflect") {
        if (size == 1) return Expr(0);
        // Reflection without repeating the edge is periodic with period 2 (size - 1); within a
        // period, the distance from the last element folds the second half back onto the first.
        const int32_t last = int32_t(size - 1);
        return last - cast(Int(32), abs(i % (2 * last) - last));
    }
    if (mode == "wrap") return i % int32_t(size);
    return clamp_to(i, size);  // edge, and constant where i is inside
}

// The value constant mode pads with: input 2 from opset 11, the attribute value before.
Expr pad_value(const OpContext& ctx, Type type) {
    if (ctx.has_input(2)) {
        const TensorFunc& v = ctx.input(2);
        if (v.elements() != 1) TESSERA_GRAPH_ERROR(ctx) << "constant_value must be a scalar.";
        return cast(type, v(std::vector<Expr>(v.rank(), Expr(0))));
    }
    return cast(type, Expr(double(ctx.attributes().get_float("value", 0.0f))));
}

OpResult pad(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const int rank = x.rank();
    const std::string mode = ctx.attributes().get_string("mode", "constant");
    if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "mode " << mode << " is not supported (constant, reflect, edge, wrap are).";
    std::optional<std::vector<int64_t>> given = ints_input_or_attribute(ctx, 1, "pads");
    if (!given && ctx.attributes().has("paddings")) given = ctx.attributes().get_ints("paddings");
    if (!given) TESSERA_GRAPH_ERROR(ctx) << "has no pads (input 1 from opset 11, the attribute pads before).";
    std::vector<int> axes;
    if (ctx.has_input(3)) {
        for (int64_t a : ctx.constant_input(3, "axes").to_int64s())
            axes.push_back(normalize_axis(ctx, a, rank));
    } else {
        for (int k = 0; k < rank; k++) axes.push_back(k);
    }
    if (given->size() != 2 * axes.size())
        TESSERA_GRAPH_ERROR(ctx) << "pads has " << given->size() << " entries; it needs " << 2 * axes.size()
                                 << " (a begin and an end for each of " << axes.size() << " axes).";
    std::vector<int64_t> before(rank, 0), shape = x.shape;
    std::vector<bool> padded(rank, false);
    for (size_t i = 0; i < axes.size(); i++) {
        const int64_t begin = (*given)[i], end = (*given)[i + axes.size()];
        if (padded[axes[i]]) TESSERA_GRAPH_ERROR(ctx) << "axis " << axes[i] << " is padded twice.";
        padded[axes[i]] = true;
        before[axes[i]] = begin;
        if (__builtin_add_overflow(shape[axes[i]], begin, &shape[axes[i]]) ||
            __builtin_add_overflow(shape[axes[i]], end, &shape[axes[i]]))
            shape[axes[i]] = std::numeric_limits<int64_t>::max();
        if (shape[axes[i]] < 0)
            TESSERA_GRAPH_ERROR(ctx) << "pads " << shape_text(*given) << " remove more than axis " << axes[i]
                                     << " of size " << x.shape[axes[i]] << " holds.";
    }
    check_dimensions_fit(ctx, shape);
    const bool empty_input = x.elements() == 0;
    if (empty_input && mode != "constant" && element_count(shape) > 0)
        TESSERA_GRAPH_ERROR(ctx) << "mode " << mode << " cannot pad an empty tensor.";
    const Expr value = pad_value(ctx, x.type);
    if (empty_input) {
        return {
            {define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>&) { return value; })},
            {}};
    }
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        std::vector<Expr> at;
        Expr inside;
        for (int k = 0; k < rank; k++) {
            if (before[k] == 0 && shape[k] == x.shape[k]) {
                at.push_back(index[k]);
                continue;
            }
            Expr i = index[k] - int32_t(before[k]);
            at.push_back(pad_source(mode, i, x.shape[k]));
            Expr in_range = i >= 0 && i < int32_t(x.shape[k]);
            inside = inside.defined() ? (inside && in_range) : in_range;
        }
        if (mode != "constant" || !inside.defined()) return x(at);
        return select(inside, x(at), value);
    });
    return {{out}, {}};
}

int64_t block_size(const OpContext& ctx, const TensorFunc& x) {
    if (x.rank() != 4)
        TESSERA_GRAPH_ERROR(ctx) << "takes a 4-D tensor (NCHW), not " << shape_text(x.shape) << ".";
    const int64_t b = ctx.attributes().get_int("blocksize", 0);
    if (b <= 0) TESSERA_GRAPH_ERROR(ctx) << "blocksize must be positive, not " << b << ".";
    return b;
}

// DepthToSpace: out[n, c, h * b + i, w * b + j] reads channel (i * b + j) * C' + c in DCR mode,
// c * b * b + i * b + j in CRD mode.
OpResult depth_to_space(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const int64_t b = block_size(ctx, x);
    const std::string mode = ctx.attributes().get_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD")
        TESSERA_GRAPH_ERROR(ctx) << "mode must be DCR or CRD, not " << mode << ".";
    if (x.shape[1] % (b * b) != 0)
        TESSERA_GRAPH_ERROR(ctx) << "the channels (" << x.shape[1] << ") are not a multiple of blocksize^2 ("
                                 << b * b << ").";
    const int64_t channels = x.shape[1] / (b * b);
    const std::vector<int64_t> shape = {x.shape[0], channels, x.shape[2] * b, x.shape[3] * b};
    const int32_t b32 = int32_t(b);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        Expr i = index[2] % b32, j = index[3] % b32;
        Expr c = mode == "DCR" ? (i * b32 + j) * int32_t(channels) + index[1]
                               : index[1] * (b32 * b32) + i * b32 + j;
        return x({index[0], c, index[2] / b32, index[3] / b32});
    });
    return {{out}, {}};
}

// SpaceToDepth: out[n, (i * b + j) * C + c, h, w] reads x[n, c, h * b + i, w * b + j].
OpResult space_to_depth(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const int64_t b = block_size(ctx, x);
    if (x.shape[2] % b != 0 || x.shape[3] % b != 0)
        TESSERA_GRAPH_ERROR(ctx) << "the height and width of " << shape_text(x.shape)
                                 << " are not multiples of blocksize " << b << ".";
    const int64_t channels = x.shape[1];
    const std::vector<int64_t> shape = {x.shape[0], channels * b * b, x.shape[2] / b, x.shape[3] / b};
    const int32_t b32 = int32_t(b), c32 = int32_t(channels);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        Expr block = index[1] / c32, c = index[1] % c32;
        Expr i = block / b32, j = block % b32;
        return x({index[0], c, index[2] * b32 + i, index[3] * b32 + j});
    });
    return {{out}, {}};
}

// Trilu: keeps the elements on and above (upper) or on and below (lower) the k-th diagonal of
// the last two dimensions, zeros the others.
OpResult trilu(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const int rank = x.rank();
    if (rank < 2)
        TESSERA_GRAPH_ERROR(ctx) << "takes a tensor of rank 2 or more, not " << shape_text(x.shape) << ".";
    const bool upper = ctx.attributes().get_int("upper", 1) != 0;
    Expr k = Expr(0);
    if (ctx.has_input(1)) {
        const TensorFunc& kt = ctx.input(1);
        if (kt.elements() != 1) TESSERA_GRAPH_ERROR(ctx) << "k must be a scalar.";
        // k beyond the matrix keeps all or nothing; clamped first so that it fits int32.
        const int64_t limit = x.shape[rank - 2] + x.shape[rank - 1] + 1;
        Expr v = cast(Int(64), kt(std::vector<Expr>(kt.rank(), Expr(0))));
        k = cast(Int(32), clamp(v, Expr(-limit), Expr(limit)));
    }
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& index) {
        Expr diagonal = index[rank - 1] - index[rank - 2];
        return select(upper ? diagonal >= k : diagonal <= k, x(index), cast(x.type, 0));
    });
    return {{out}, {}};
}

}  // namespace

void register_data_movement_operators() {
    const int many = 1 << 20;
    register_operator({"Transpose", OpKind::Injective, 1, 1, transpose});
    register_operator({"Concat", OpKind::Injective, 1, many, concat});
    register_operator({"Split", OpKind::Injective, 1, 2, split});
    register_operator({"Slice", OpKind::Injective, 1, 5, slice});
    register_operator({"Gather", OpKind::Injective, 2, 2, gather});
    register_operator({"GatherElements", OpKind::Injective, 2, 2, gather_elements});
    register_operator({"Expand", OpKind::Injective, 2, 2, expand});
    register_operator({"Tile", OpKind::Injective, 2, 2, tile});
    register_operator({"Pad", OpKind::Injective, 1, 4, pad});
    register_operator({"DepthToSpace", OpKind::Injective, 1, 1, depth_to_space});
    register_operator({"SpaceToDepth", OpKind::Injective, 1, 1, space_to_depth});
    register_operator({"Trilu", OpKind::Elementwise, 1, 2, trilu});
}

}  // namespace tessera::graph
