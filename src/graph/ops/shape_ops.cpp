// Operators about shapes and constants: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze,
// Constant, ConstantOfShape, Range, EyeLike and Dropout (which in inference passes its input on).
// Reshape and its relatives reorder no element: each output element reads the input element of
// the same row-major position.

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "graph/define_node.h"
#include "graph/element_types.h"
#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

int64_t product(const std::vector<int64_t>& shape, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t i = begin; i < end; i++) n *= shape[i];
    return n;
}

// The index into x, of shape from, of the element at `index` of a tensor of shape to holding the
// same elements in the same row-major order. Dimensions are matched in runs whose products agree,
// so that a run of one dimension on each side reads its coordinate directly and only the runs
// that really merge or split dimensions divide.
std::vector<Expr> reshaped_index(const std::vector<Expr>& index, const std::vector<int64_t>& to,
                                 const std::vector<int64_t>& from) {
    std::vector<Expr> result(from.size());
    size_t a = 0, b = 0;  // the starts of the current run in to and from
    while (true) {
        // Dimensions of size 1 read coordinate 0 and take no part in runs. With as many elements
        // on both sides (and at least one), both sides run out together.
        while (b < from.size() && from[b] == 1) result[b++] = Expr(0);
        while (a < to.size() && to[a] == 1) a++;
        if (a == to.size() || b == from.size()) break;
        size_t a_end = a, b_end = b;
        int64_t n_to = 1, n_from = 1;
        // Extend the run on the side with the smaller product until both agree.
        do {
            if ((n_to <= n_from && a_end < to.size()) || b_end == from.size()) {
                n_to *= to[a_end++];
            } else {
                n_from *= from[b_end++];
            }
        } while (n_to != n_from && (a_end < to.size() || b_end < from.size()));
        if (a_end - a == 1 && b_end - b == 1) {
            result[b] = index[a];
        } else {
            const bool wide = n_to > std::numeric_limits<int32_t>::max();
            const Type t = wide ? Int(64) : Int(32);
            Expr flat = cast(t, 0);
            for (size_t i = a; i < a_end; i++) flat = flat * cast(t, Expr(to[i])) + cast(t, index[i]);
            int64_t stride = 1;
            for (size_t i = b_end; i-- > b;) {
                Expr coordinate = stride == 1 ? flat : flat / cast(t, Expr(stride));
                if (i != b) coordinate = coordinate % cast(t, Expr(from[i]));
                result[i] = cast(Int(32), coordinate);
                stride *= from[i];
            }
        }
        a = a_end;
        b = b_end;
    }
    return result;
}

// x seen with another shape of as many elements.
TensorFunc reshape(const OpContext& ctx, const TensorFunc& x, const std::vector<int64_t>& shape) {
    int64_t elements = 1;
    for (int64_t d : shape) {
        // Coordinates are int32; and a product that overflows must not pass for the input's size.
        if (d > std::numeric_limits<int32_t>::max() || __builtin_mul_overflow(elements, d, &elements))
            TESSERA_GRAPH_UNSUPPORTED(ctx) << "the shape " << shape_text(shape)
                                           << " is too large (dimensions up to 2^31 - 1 are supported).";
    }
    if (elements != x.elements())
        TESSERA_GRAPH_ERROR(ctx) << "cannot reshape " << shape_text(x.shape) << " (" << x.elements()
                                 << " elements) to " << shape_text(shape) << ".";
    return define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        if (x.elements() == 0) return cast(x.type, 0);
        return x(reshaped_index(index, shape, x.shape));
    });
}

// Reshape's target shape: 0 copies the input's dimension (unless allowzero), -1 takes what is left.
std::vector<int64_t> reshape_target(const OpContext& ctx, const std::vector<int64_t>& in,
                                    const std::vector<int64_t>& requested, bool allow_zero) {
    std::vector<int64_t> shape = requested;
    int inferred = -1;
    int64_t known = 1;
    for (size_t i = 0; i < shape.size(); i++) {
        if (shape[i] == 0 && !allow_zero) {
            if (i >= in.size())
                TESSERA_GRAPH_ERROR(ctx) << "the shape " << shape_text(requested) << " copies dimension " << i
                                         << " of an input of rank " << in.size() << ".";
            shape[i] = in[i];
        } else if (shape[i] == -1) {
            if (inferred >= 0)
                TESSERA_GRAPH_ERROR(ctx) << "the shape " << shape_text(requested) << " has more than one -1.";
            inferred = int(i);
            continue;
        } else if (shape[i] < 0) {
            TESSERA_GRAPH_ERROR(ctx) << "the shape " << shape_text(requested)
                                     << " has the negative dimension " << shape[i] << ".";
        }
        known *= shape[i];
    }
    if (inferred >= 0) {
        const int64_t elements = product(in, 0, in.size());
        if (known == 0 || elements % known != 0)
            TESSERA_GRAPH_ERROR(ctx) << "cannot reshape " << shape_text(in) << " to " << shape_text(requested)
                                     << ": the -1 cannot be inferred.";
        shape[inferred] = elements / known;
    }
    return shape;
}

OpResult reshape_op(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    std::vector<int64_t> requested;
    if (ctx.has_input(1))
        requested = ctx.constant_input(1, "shape").to_int64s();
    else if (ctx.attributes().has("shape"))
        requested = ctx.attributes().get_ints("shape");
    else
        TESSERA_GRAPH_ERROR(ctx) << "has no target shape (input 1, or the attribute shape before opset 5).";
    const bool allow_zero = ctx.attributes().get_int("allowzero", 0) != 0;
    return {{reshape(ctx, x, reshape_target(ctx, x.shape, requested, allow_zero))}, {}};
}

OpResult flatten(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const int64_t rank = x.rank();
    int64_t axis = ctx.attributes().get_int("axis", 1);
    if (axis < -rank || axis > rank)
        TESSERA_GRAPH_ERROR(ctx) << "axis " << axis << " is out of range for rank " << rank
                                 << " (it must be in [" << -rank << ", " << rank << "]).";
    if (axis < 0) axis += rank;
    return {{reshape(ctx, x, {product(x.shape, 0, axis), product(x.shape, axis, rank)})}, {}};
}

OpResult squeeze(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    std::vector<bool> removed(x.rank(), false);
    if (auto axes = ints_input_or_attribute(ctx, 1, "axes")) {
        for (int64_t a : *axes) {
            const int64_t axis = normalize_axis(ctx, a, x.rank(), "axis");
            if (x.shape[axis] != 1)
                TESSERA_GRAPH_ERROR(ctx)
                    << "cannot squeeze axis " << a << " of " << shape_text(x.shape) << ": its size is not 1.";
            removed[axis] = true;
        }
    } else {
        for (int i = 0; i < x.rank(); i++) removed[i] = x.shape[i] == 1;
    }
    std::vector<int64_t> shape;
    for (int i = 0; i < x.rank(); i++)
        if (!removed[i]) shape.push_back(x.shape[i]);
    return {{reshape(ctx, x, shape)}, {}};
}

OpResult unsqueeze(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    auto axes = ints_input_or_attribute(ctx, 1, "axes");
    if (!axes) TESSERA_GRAPH_ERROR(ctx) << "has no axes (input 1 from opset 13, the attribute axes before).";
    const int64_t rank = x.rank() + int64_t(axes->size());
    std::vector<bool> inserted(rank, false);
    for (int64_t a : *axes) {
        const int64_t axis = normalize_axis(ctx, a, rank, "axis");
        if (inserted[axis]) TESSERA_GRAPH_ERROR(ctx) << "axis " << a << " is given twice.";
        inserted[axis] = true;
    }
    std::vector<int64_t> shape;
    size_t next = 0;
    for (int64_t i = 0; i < rank; i++) shape.push_back(inserted[i] ? 1 : x.shape[next++]);
    return {{reshape(ctx, x, shape)}, {}};
}

// A tensor whose elements are the given values, read from a copy the Func owns.
TensorFunc constant_tensor(const OpContext& ctx, const Tensor& value) {
    if (value.elements() == 0)
        return define_tensor(ctx.func_name(), value.type(), value.shape(),
                             [&](const std::vector<Expr>&) { return cast(value.type(), 0); });
    TensorFunc data{Func(buffer_view(value, ctx.func_name("data")).copy()), value.type(), value.shape()};
    return define_tensor(ctx.func_name(), value.type(), value.shape(),
                         [&](const std::vector<Expr>& index) { return data(index); });
}

OpResult constant(const OpContext& ctx) {
    const Attributes& a = ctx.attributes();
    Tensor value;
    if (const Attribute* v = a.find("value")) {
        const Tensor* t = std::get_if<Tensor>(v);
        if (!t) TESSERA_GRAPH_ERROR(ctx) << "the attribute value must be a tensor.";
        value = *t;
    } else if (a.has("value_float")) {
        value = Tensor::scalar<float>(a.get_float("value_float", 0));
    } else if (a.has("value_floats")) {
        const std::vector<float> v = a.get_floats("value_floats");
        value = Tensor::from<float>({int64_t(v.size())}, v);
    } else if (a.has("value_int")) {
        value = Tensor::scalar<int64_t>(a.get_int("value_int", 0));
    } else if (a.has("value_ints")) {
        const std::vector<int64_t> v = a.get_ints("value_ints");
        value = Tensor::from<int64_t>({int64_t(v.size())}, v);
    } else if (a.has("value_string") || a.has("value_strings")) {
        TESSERA_GRAPH_UNSUPPORTED(ctx) << "string constants are not supported (numbers and bool are).";
    } else {
        TESSERA_GRAPH_ERROR(ctx) << "has no value (one of the attributes value, value_float, value_floats, "
                                    "value_int, value_ints).";
    }
    return {{constant_tensor(ctx, value)}, {}, {value}};
}

// A shape given as a tensor of sizes: every size must be 0 or more.
std::vector<int64_t> shape_input(const OpContext& ctx, int input) {
    const Tensor& t = ctx.constant_input(input, "shape");
    if (t.rank() > 1)
        TESSERA_GRAPH_ERROR(ctx) << "the shape must be a 1-D tensor, not " << describe(t) << ".";
    const std::vector<int64_t> shape = t.to_int64s();
    for (int64_t d : shape)
        if (d < 0)
            TESSERA_GRAPH_ERROR(ctx) << "the shape " << shape_text(shape) << " has a negative dimension.";
    return shape;
}

OpResult constant_of_shape(const OpContext& ctx) {
    const std::vector<int64_t> shape = shape_input(ctx, 0);
    Tensor value = Tensor::scalar<float>(0);
    if (const Attribute* v = ctx.attributes().find("value")) {
        const Tensor* t = std::get_if<Tensor>(v);
        if (!t || t->elements() != 1)
            TESSERA_GRAPH_ERROR(ctx) << "the attribute value must be a tensor of one element.";
        value = *t;
    }
    const Expr e = scalar_expr(value);
    return {
        {define_tensor(ctx.func_name(), value.type(), shape, [&](const std::vector<Expr>&) { return e; })},
        {}};
}

const Tensor& scalar_input(const OpContext& ctx, int input, const char* what) {
    const Tensor& t = ctx.constant_input(input, what);
    if (t.elements() != 1)
        TESSERA_GRAPH_ERROR(ctx) << "the " << what << " must be a scalar, not " << describe(t) << ".";
    return t;
}

// Range: start + i * delta for i in [0, ceil((limit - start) / delta)).
OpResult range(const OpContext& ctx) {
    const Tensor& start = scalar_input(ctx, 0, "start");
    const Tensor& limit = scalar_input(ctx, 1, "limit");
    const Tensor& delta = scalar_input(ctx, 2, "delta");
    const Type type = start.type();
    if (limit.type() != type || delta.type() != type)
        TESSERA_GRAPH_ERROR(ctx) << "start, limit and delta must have one type.";
    long double count = 0;
    if (type.is_float()) {
        const double d = delta.to_doubles()[0];
        if (d == 0) TESSERA_GRAPH_ERROR(ctx) << "delta is 0.";
        count = std::ceil((limit.to_doubles()[0] - start.to_doubles()[0]) / d);
    } else {
        // In 128 bits, so that no span of int64 values overflows.
        const __int128 d = delta.to_int64s()[0];
        if (d == 0) TESSERA_GRAPH_ERROR(ctx) << "delta is 0.";
        const __int128 span = __int128(limit.to_int64s()[0]) - __int128(start.to_int64s()[0]);
        const __int128 distance = d > 0 ? span : -span, step = d > 0 ? d : -d;
        count = distance <= 0 ? 0 : (long double)((distance + step - 1) / step);
    }
    if (std::isnan(count)) TESSERA_GRAPH_ERROR(ctx) << "start, limit and delta give no number of elements.";
    count = std::max<long double>(count, 0);
    if (count > std::numeric_limits<int32_t>::max())
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "the range has " << double(count) << " elements (up to 2^31 - 1 are supported).";
    const Expr first = scalar_expr(start), step = scalar_expr(delta);
    TensorFunc out =
        define_tensor(ctx.func_name(), type, {int64_t(count)},
                      [&](const std::vector<Expr>& index) { return first + cast(type, index[0]) * step; });
    return {{out}, {}};
}

OpResult shape_of(const OpContext& ctx) {
    const std::vector<int64_t>& in = ctx.input(0).shape;
    const int64_t rank = int64_t(in.size());
    auto bound = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    const int64_t start = bound(ctx.attributes().get_int("start", 0));
    const int64_t end = bound(ctx.attributes().get_int("end", rank));
    std::vector<Expr> dims;
    for (int64_t i = start; i < end; i++) dims.push_back(Expr(in[i]));
    TensorFunc out =
        define_tensor(ctx.func_name(), Int(64), {int64_t(dims.size())}, [&](const std::vector<Expr>& index) {
            if (dims.empty()) return cast(Int(64), 0);
            return dims.size() == 1 ? dims[0] : mux(index[0], dims);
        });
    return {{out}, {}};
}

OpResult size_of(const OpContext& ctx) {
    const Expr n(ctx.input(0).elements());
    return {{define_tensor(ctx.func_name(), Int(64), {}, [&](const std::vector<Expr>&) { return n; })}, {}};
}

// EyeLike: ones on the k-th diagonal of a matrix of the input's shape, zeros elsewhere.
OpResult eye_like(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    if (x.rank() != 2) TESSERA_GRAPH_ERROR(ctx) << "takes a 2-D tensor, not " << shape_text(x.shape) << ".";
    Type type = x.type;
    if (ctx.attributes().has("dtype")) {
        const int64_t dtype = ctx.attributes().get_int("dtype", 0);
        std::optional<Type> t = type_of_onnx_data_type(dtype);
        if (!t)
            TESSERA_GRAPH_UNSUPPORTED(ctx)
                << "the dtype " << onnx_data_type_name(dtype) << " is not supported (numbers and bool are).";
        type = *t;
    }
    const int64_t k = std::clamp<int64_t>(ctx.attributes().get_int("k", 0), -x.shape[0] - 1, x.shape[1] + 1);
    TensorFunc out = define_tensor(ctx.func_name(), type, x.shape, [&](const std::vector<Expr>& i) {
        return select(i[1] - i[0] == int32_t(k), cast(type, 1), cast(type, 0));
    });
    return {{out}, {}};
}

// Dropout in inference passes its input on; its mask, when asked for, keeps every element.
OpResult dropout(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    if (ctx.has_input(2)) {
        if (!ctx.constant_data[2])
            TESSERA_GRAPH_UNSUPPORTED(ctx)
                << "training_mode given by the model's inputs is not supported (only a "
                   "constant, and only false unless the ratio is 0).";
        const bool training = scalar_input(ctx, 2, "training_mode").to_doubles()[0] != 0;
        const double ratio = ctx.has_input(1) ? scalar_input(ctx, 1, "ratio").to_doubles()[0] : 0.5;
        if (training && ratio != 0)
            TESSERA_GRAPH_UNSUPPORTED(ctx)
                << "training mode (random dropout) is not supported, only inference.";
    }
    TensorFunc out =
        define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) { return x(i); });
    // The mask was of the input's type before opset 10, bool since.
    const Type mask_type = ctx.opset < 10 ? x.type : Bool();
    TensorFunc mask = define_tensor(ctx.func_name("mask"), mask_type, x.shape,
                                    [&](const std::vector<Expr>&) { return cast(mask_type, 1); });
    return {{out, mask}, {}};
}

}  // namespace

void register_shape_operators() {
    register_operator({"Shape", OpKind::Opaque, 1, 1, shape_of, true});
    register_operator({"Size", OpKind::Opaque, 1, 1, size_of, true});
    register_operator({"EyeLike", OpKind::Opaque, 1, 1, eye_like, true});
    register_operator({"Constant", OpKind::Opaque, 0, 0, constant});
    register_operator({"ConstantOfShape", OpKind::Opaque, 1, 1, constant_of_shape});
    register_operator({"Range", OpKind::Opaque, 3, 3, range});
    register_operator({"Reshape", OpKind::Injective, 1, 2, reshape_op});
    register_operator({"Flatten", OpKind::Injective, 1, 1, flatten});
    register_operator({"Squeeze", OpKind::Injective, 1, 2, squeeze});
    register_operator({"Unsqueeze", OpKind::Injective, 1, 2, unsqueeze});
    register_operator({"Dropout", OpKind::Elementwise, 1, 3, dropout});
}

}  // namespace tessera::graph
