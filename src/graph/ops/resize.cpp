// Resize and Upsample: every output element reads the input around the coordinates its own map
// back to, axis by axis: the nearest element, or a linear or cubic interpolation of the 2 or 4
// nearest along each axis that needs one. Coordinates are mapped as ONNX's reference
// implementation maps them, in double precision, and clamped into the input before any read.

#include <algorithm>
#include <cmath>
#include <optional>

#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

enum class Mode { Nearest, Linear, Cubic };
enum class Coordinates {
    HalfPixel,
    Asymmetric,
    AlignCorners,
    PytorchHalfPixel,
    TfHalfPixelForNn,
    TfCropAndResize
};
// Nearest's rounding; Legacy is Upsample's and opset 10's: floor where the axis grows, ceil where
// it shrinks (as ONNX Runtime does).
enum class Rounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Legacy };

struct ResizeOptions {
    Mode mode = Mode::Nearest;
    Coordinates coordinates = Coordinates::Asymmetric;
    Rounding rounding = Rounding::Legacy;
    double cubic_a = -0.75;
    bool exclude_outside = false;
    double extrapolation = 0;
};

// One axis: its sizes, the scale that maps it, and its region of interest for tf_crop_and_resize.
struct Axis {
    int64_t input = 1, output = 1;
    double scale = 1;
    double roi_start = 0, roi_end = 1;
};

// The same arithmetic at definition time (double) and in the definition (Float(64) Exprs).
double floor_of(double x) { return std::floor(x); }
Expr floor_of(const Expr& x) { return floor(x); }
double ceil_of(double x) { return std::ceil(x); }
Expr ceil_of(const Expr& x) { return ceil(x); }
double choose(bool c, double a, double b) { return c ? a : b; }
Expr choose(const Expr& c, const Expr& a, const Expr& b) { return select(c, a, b); }

// The input coordinate, fractional, that output coordinate o of axis a maps back to. The
// reference takes the resized length as scale * input, not the output's integer size.
template <typename T>
T original_coordinate(const T& o, const Axis& a, Coordinates c) {
    const double resized = a.scale * double(a.input);
    const double last = double(a.input - 1);
    switch (c) {
        case Coordinates::HalfPixel: return (o + 0.5) / a.scale - 0.5;
        case Coordinates::Asymmetric: return o / a.scale;
        case Coordinates::AlignCorners: return resized == 1 ? o * 0.0 : o * last / (resized - 1);
        case Coordinates::PytorchHalfPixel: return resized > 1 ? (o + 0.5) / a.scale - 0.5 : o * 0.0;
        case Coordinates::TfHalfPixelForNn: return (o + 0.5) / a.scale;
        case Coordinates::TfCropAndResize:
            if (resized > 1) return o * (a.roi_end - a.roi_start) * last / (resized - 1) + a.roi_start * last;
            return o * 0.0 + 0.5 * (a.roi_start + a.roi_end) * last;
    }
    return o;
}

// Nearest's input coordinate (not yet clamped into the input) from the original coordinate x.
template <typename T>
T nearest_coordinate(const T& x, const Axis& a, Rounding r) {
    switch (r) {
        case Rounding::Floor: return floor_of(x);
        case Rounding::Ceil: return ceil_of(x);
        case Rounding::Legacy: return a.scale < 1 ? ceil_of(x) : floor_of(x);
        case Rounding::RoundPreferFloor: return choose(x - floor_of(x) > 0.5, floor_of(x) + 1.0, floor_of(x));
        case Rounding::RoundPreferCeil: return choose(x - floor_of(x) >= 0.5, floor_of(x) + 1.0, floor_of(x));
    }
    return x;
}

// Cubic convolution's weights of the four neighbours left - 1 ... left + 2 of a coordinate at
// ratio (in (0, 1]) past left, for the coefficient A.
template <typename T>
std::vector<T> cubic_weights(const T& ratio, double A) {
    auto far = [&](const T& t) { return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A; };  // 1 < t < 2
    auto near = [&](const T& t) { return ((A + 2) * t - (A + 3)) * t * t + 1; };       // t <= 1
    return {far(ratio + 1.0), near(ratio), near(1.0 - ratio), far(2.0 - ratio)};
}

// An input element an output coordinate reads, and its weight.
template <typename T>
struct Tap {
    T index;  // whole, not yet clamped into the input
    T weight;
};

// The input elements output coordinate o of axis a reads, with their weights, as the reference
// computes them (its edge padding is the clamp into the input applied later).
template <typename T>
std::vector<Tap<T>> taps_at(const T& o, const Axis& a, const ResizeOptions& options) {
    const T x = original_coordinate(o, a, options.coordinates);
    if (options.mode == Mode::Nearest) return {{nearest_coordinate(x, a, options.rounding), o * 0.0 + 1.0}};
    // The neighbour on the left is the one below x, or x - 1 where x is whole (then of weight 0).
    const T left = ceil_of(x) - 1.0;
    const T ratio = x - left;
    std::vector<Tap<T>> taps;
    if (options.mode == Mode::Linear) {
        taps = {{left, 1.0 - ratio}, {left + 1.0, ratio}};
    } else {
        const std::vector<T> w = cubic_weights(ratio, options.cubic_a);
        for (int t = 0; t < 4; t++) taps.push_back({left + double(t - 1), w[t]});
    }
    if (!options.exclude_outside) return taps;
    T total = o * 0.0;
    for (Tap<T>& t : taps) {
        t.weight = choose(t.index >= 0.0 && t.index <= double(a.input - 1), t.weight, o * 0.0);
        total = total + t.weight;
    }
    for (Tap<T>& t : taps) t.weight = t.weight / total;
    return taps;
}

// One axis's reads as a pattern that repeats every `period` output coordinates, `shift` input
// elements further on each time: output coordinate o reads, for each tap t, the input at
// (o / period) * shift + offsets[t][o % period], clamped into the input, with weight
// weights[t][o % period]. Integer up- and downsampling are such patterns, which a schedule turns
// into dense (or strided) reads.
struct PeriodicTaps {
    int64_t period = 1, shift = 0;
    std::vector<std::vector<int64_t>> offsets;  // [tap][phase]
    std::vector<std::vector<double>> weights;   // [tap][phase]
    // Whether every read lies inside the input, so that no clamp is needed: bounds inference
    // then sees the exact range of an affine index (not of one that picks an offset by phase).
    bool inside = true;
};

// Patterns longer than this are read through coordinates computed per element.
constexpr int64_t max_period = 16;
// Weights this close are the same (they are used as float32).
constexpr double weight_tolerance = 1e-9;

std::optional<PeriodicTaps> periodic_taps(const Axis& a, const ResizeOptions& options) {
    if (options.coordinates == Coordinates::TfCropAndResize) return {};
    std::vector<std::vector<Tap<double>>> all;
    for (int64_t o = 0; o < a.output; o++) all.push_back(taps_at(double(o), a, options));
    for (int64_t period = 1; period <= std::min(max_period, a.output); period++) {
        const double shift = period < a.output ? all[period][0].index - all[0][0].index : 0;
        bool repeats = true;
        for (int64_t o = period; o < a.output && repeats; o++)
            for (size_t t = 0; t < all[o].size(); t++)
                repeats = repeats && all[o][t].index == all[o - period][t].index + shift &&
                          std::abs(all[o][t].weight - all[o - period][t].weight) < weight_tolerance;
        if (!repeats) continue;
        PeriodicTaps p{period, int64_t(shift), {}, {}, true};
        for (size_t t = 0; t < all[0].size(); t++) {
            std::vector<int64_t> offsets;
            std::vector<double> weights;
            for (int64_t phase = 0; phase < period; phase++) {
                offsets.push_back(int64_t(all[phase][t].index));
                weights.push_back(all[phase][t].weight);
            }
            // A tap of weight 0 in every phase reads nothing: linear and cubic along an axis
            // that keeps its size, or at whole coordinates.
            if (std::all_of(weights.begin(), weights.end(), [](double w) { return w == 0; })) continue;
            for (int64_t o = 0; o < a.output; o++)
                p.inside = p.inside && all[o][t].index >= 0 && all[o][t].index <= double(a.input - 1);
            p.inside = p.inside && std::all_of(offsets.begin(), offsets.end(),
                                               [&](int64_t offset) { return offset == offsets[0]; });
            p.offsets.push_back(offsets);
            p.weights.push_back(weights);
        }
        return p;
    }
    return {};
}

// A value per phase, as a constant when every phase has the same one.
template <typename V>
Expr per_phase(const Expr& phase, const std::vector<V>& values, Type t) {
    std::vector<Expr> exprs;
    for (V v : values) exprs.push_back(cast(t, Expr(double(v))));
    if (std::all_of(values.begin(), values.end(), [&](V v) { return v == values[0]; })) return exprs[0];
    return mux(phase, exprs);
}

// An input index, clamped into the input; likely() lets loop partitioning drop the clamp away
// from the edges.
Expr clamped_index(const Expr& index, int64_t size) { return clamp(likely(index), 0, int(size) - 1); }

struct AxisTaps {
    std::vector<Expr> indices;  // Int(32), inside the input
    std::vector<Expr> weights;  // Float(32); empty for a single read
};

AxisTaps axis_taps(const Expr& o, const Axis& a, const ResizeOptions& options,
                   const std::optional<PeriodicTaps>& periodic) {
    AxisTaps taps;
    const bool single = periodic && periodic->weights.size() == 1 &&
                        std::all_of(periodic->weights[0].begin(), periodic->weights[0].end(),
                                    [](double w) { return w == 1; });
    if (periodic) {
        const Expr phase = o % int(periodic->period);
        const Expr base = (o / int(periodic->period)) * int(periodic->shift);
        for (size_t t = 0; t < periodic->offsets.size(); t++) {
            Expr index = base + per_phase(phase, periodic->offsets[t], Int(32));
            taps.indices.push_back(periodic->inside ? index : clamped_index(index, a.input));
            if (!single) taps.weights.push_back(per_phase(phase, periodic->weights[t], Float(32)));
        }
        return taps;
    }
    for (const Tap<Expr>& t : taps_at(cast(Float(64), o), a, options)) {
        taps.indices.push_back(clamp(cast(Int(32), t.index), 0, int(a.input) - 1));
        if (options.mode != Mode::Nearest) taps.weights.push_back(cast(Float(32), t.weight));
    }
    return taps;
}

// Whether tf_crop_and_resize maps o outside the input along a, where it reads the extrapolation value.
Expr outside_input(const Expr& o, const Axis& a, const ResizeOptions& options) {
    const Expr x = original_coordinate(cast(Float(64), o), a, options.coordinates);
    return x < 0.0 || x > double(a.input - 1);
}

// The sum over every combination of taps (one per axis) of their weights' product times the input.
Expr interpolate(const TensorFunc& x, const std::vector<AxisTaps>& taps, Type accumulate) {
    Expr value;
    std::vector<size_t> pick(taps.size(), 0);
    while (true) {
        std::vector<Expr> at;
        Expr weight;
        for (size_t d = 0; d < taps.size(); d++) {
            at.push_back(taps[d].indices[pick[d]]);
            if (taps[d].weights.empty()) continue;
            const Expr& w = taps[d].weights[pick[d]];
            weight = weight.defined() ? weight * w : w;
        }
        Expr term = x(at);
        if (weight.defined()) term = cast(accumulate, weight) * cast(accumulate, term);
        value = value.defined() ? value + term : term;
        size_t d = 0;
        while (d < taps.size() && ++pick[d] == taps[d].indices.size()) pick[d++] = 0;
        if (d == taps.size()) return value;
    }
}

// Scalar loops over the innermost axis, one iteration per repetition of its pattern with the
// phases unrolled: each phase then reads the input at affine coordinates, which LLVM's loop
// vectorizer turns into dense loads and shuffles (Tessera's own vectors would gather). The output
// starts at 0, as the graph layer's buffers do, so that the phase of each unrolled copy is known.
void schedule_resize(const Func& output, const std::vector<int64_t>& shape, int64_t period) {
    Func f = output;
    std::vector<Var> vars = f.args();
    f.output_buffer().dim(0).set_min(0);
    if (period > 1 && shape.back() >= period) {
        Var outer(vars[0].name() + "o"), phase(vars[0].name() + "p");
        f.split(vars[0], outer, phase, int(period), TailStrategy::GuardWithIf).unroll(phase);
    }
    if (vars.size() < 2) return;
    Var rows = vars[1];
    for (size_t i = 2; i < vars.size(); i++) {
        Var fused(rows.name() + "_" + vars[i].name());
        f.fuse(rows, vars[i], fused);
        rows = fused;
    }
    int64_t elements = 1;
    for (int64_t d : shape) elements *= d;
    if (elements >= (1 << 15)) f.parallel(rows);
}

OpResult resize(const OpContext& ctx, const TensorFunc& x, const std::vector<Axis>& axes,
                const ResizeOptions& options) {
    std::vector<int64_t> shape;
    std::vector<std::optional<PeriodicTaps>> periodic;
    for (const Axis& a : axes) {
        shape.push_back(a.output);
        periodic.push_back(periodic_taps(a, options));
    }
    const Type accumulate = x.type.is_float() ? x.type : Float(32);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& index) {
        std::vector<AxisTaps> taps;
        Expr outside;
        for (size_t d = 0; d < axes.size(); d++) {
            taps.push_back(axis_taps(index[d], axes[d], options, periodic[d]));
            if (options.coordinates == Coordinates::TfCropAndResize) {
                Expr o = outside_input(index[d], axes[d], options);
                outside = outside.defined() ? (outside || o) : o;
            }
        }
        Expr value = interpolate(x, taps, accumulate);
        if (value.type() != x.type)
            value = x.type.is_float() ? cast(x.type, value) : saturating_cast(x.type, round(value));
        if (outside.defined()) value = select(outside, cast(x.type, options.extrapolation), value);
        return value;
    });
    // Where the innermost axis has no short pattern, Tessera's vectors (the default schedule)
    // compute its coordinates and gather.
    if (!periodic.back()) return {{out}, {}};
    const int64_t period = periodic.back()->period;
    return {{out}, [period](const Func& output, const std::vector<int64_t>& s, const Target&) {
                schedule_resize(output, s, period);
            }};
}

// ---- Attributes and inputs ----

// The enumerator an attribute's string names, or a CompileError listing the names.
template <typename E>
E named(const OpContext& ctx, const char* attribute, const std::string& fallback,
        const std::vector<std::pair<std::string, E>>& names) {
    const std::string value = ctx.attributes().get_string(attribute, fallback);
    std::string list;
    for (const auto& [name, e] : names) {
        if (name == value) return e;
        list += (list.empty() ? "" : ", ") + name;
    }
    TESSERA_GRAPH_ERROR(ctx) << attribute << " is " << value << "; it must be one of " << list << ".";
    return names[0].second;  // not reached: the error throws
}

Mode mode_of(const OpContext& ctx) {
    std::vector<std::pair<std::string, Mode>> modes = {{"nearest", Mode::Nearest}, {"linear", Mode::Linear}};
    if (ctx.node.op == "Upsample") modes.push_back({"bilinear", Mode::Linear});
    if (ctx.node.op == "Resize" && ctx.opset >= 11) modes.push_back({"cubic", Mode::Cubic});
    return named(ctx, "mode", "nearest", modes);
}

Coordinates coordinates_of(const OpContext& ctx) {
    if (ctx.attributes().get_string("coordinate_transformation_mode", "") == "half_pixel_symmetric")
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "coordinate_transformation_mode half_pixel_symmetric is not supported "
               "(half_pixel, asymmetric, align_corners, pytorch_half_pixel, "
               "tf_half_pixel_for_nn and tf_crop_and_resize are).";
    return named(ctx, "coordinate_transformation_mode", "half_pixel",
                 std::vector<std::pair<std::string, Coordinates>>{
                     {"half_pixel", Coordinates::HalfPixel},
                     {"asymmetric", Coordinates::Asymmetric},
                     {"align_corners", Coordinates::AlignCorners},
                     {"pytorch_half_pixel", Coordinates::PytorchHalfPixel},
                     {"tf_half_pixel_for_nn", Coordinates::TfHalfPixelForNn},
                     {"tf_crop_and_resize", Coordinates::TfCropAndResize}});
}

Rounding rounding_of(const OpContext& ctx) {
    return named(
        ctx, "nearest_mode", "round_prefer_floor",
        std::vector<std::pair<std::string, Rounding>>{{"round_prefer_floor", Rounding::RoundPreferFloor},
                                                      {"round_prefer_ceil", Rounding::RoundPreferCeil},
                                                      {"floor", Rounding::Floor},
                                                      {"ceil", Rounding::Ceil}});
}

// Resize from opset 11 on: its attributes, which opset 10's and Upsample's lack.
ResizeOptions resize_options(const OpContext& ctx) {
    const Attributes& at = ctx.attributes();
    ResizeOptions options;
    options.mode = mode_of(ctx);
    options.coordinates = coordinates_of(ctx);
    options.rounding = rounding_of(ctx);
    options.cubic_a = at.get_float("cubic_coeff_a", -0.75f);
    options.exclude_outside = at.get_int("exclude_outside", 0) != 0;
    options.extrapolation = at.get_float("extrapolation_value", 0.0f);
    if (at.get_int("antialias", 0) != 0)
        TESSERA_GRAPH_UNSUPPORTED(ctx) << "antialias is not supported (only antialias=0 is).";
    return options;
}

// The axes that scales, sizes and roi describe: all of them, or those the attribute axes lists.
std::vector<int> described_axes(const OpContext& ctx, int rank) {
    std::vector<int> axes;
    if (!ctx.attributes().has("axes")) {
        for (int d = 0; d < rank; d++) axes.push_back(d);
        return axes;
    }
    for (int64_t a : ctx.attributes().get_ints("axes")) {
        if (a < -rank || a >= rank)
            TESSERA_GRAPH_ERROR(ctx) << "axis " << a << " is outside rank " << rank << ".";
        axes.push_back(int(a < 0 ? a + rank : a));
    }
    return axes;
}

void check_count(const OpContext& ctx, const char* what, size_t count, size_t axes) {
    if (count != axes)
        TESSERA_GRAPH_ERROR(ctx) << what << " has " << count << " values; it needs one for each of the "
                                 << axes << " axes it resizes.";
}

// Every axis of x as it is, before scales or sizes apply.
std::vector<Axis> unresized_axes(const OpContext& ctx, const TensorFunc& x) {
    std::vector<Axis> axes;
    for (int64_t d : x.shape) {
        if (d == 0) TESSERA_GRAPH_UNSUPPORTED(ctx) << "resizing an empty tensor is not supported.";
        axes.push_back({d, d, 1.0});
    }
    return axes;
}

void apply_scales(const OpContext& ctx, const std::vector<double>& scales, const std::vector<int>& which,
                  std::vector<Axis>& axes) {
    check_count(ctx, "scales", scales.size(), which.size());
    for (size_t i = 0; i < which.size(); i++) {
        Axis& a = axes[which[i]];
        if (!(scales[i] > 0)) TESSERA_GRAPH_ERROR(ctx) << "scale " << scales[i] << " is not positive.";
        a.scale = scales[i];
        a.output = int64_t(std::floor(double(a.input) * a.scale));
    }
}

void apply_sizes(const OpContext& ctx, const std::vector<int64_t>& sizes, const std::vector<int>& which,
                 std::vector<Axis>& axes) {
    check_count(ctx, "sizes", sizes.size(), which.size());
    const std::string policy = ctx.attributes().get_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
        TESSERA_GRAPH_ERROR(ctx) << "keep_aspect_ratio_policy " << policy
                                 << " is not one of stretch, not_larger, not_smaller.";
    // Keeping the aspect ratio: one scale for every axis resized, the largest that fits the sizes
    // (not_larger) or the smallest that covers them (not_smaller).
    double common = policy == "not_larger" ? INFINITY : 0;
    for (size_t i = 0; i < which.size(); i++) {
        if (sizes[i] < 0) TESSERA_GRAPH_ERROR(ctx) << "size " << sizes[i] << " is negative.";
        const double s = double(sizes[i]) / double(axes[which[i]].input);
        common = policy == "not_larger" ? std::min(common, s) : std::max(common, s);
    }
    for (size_t i = 0; i < which.size(); i++) {
        Axis& a = axes[which[i]];
        if (policy == "stretch") {
            a.output = sizes[i];
            a.scale = double(a.output) / double(a.input);
        } else {
            a.output = int64_t(std::round(common * double(a.input)));
            a.scale = common;
        }
    }
}

OpResult resize_operator(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const bool legacy = ctx.opset < 11;
    ResizeOptions options;
    if (legacy)
        options.mode = mode_of(ctx);
    else
        options = resize_options(ctx);
    std::vector<Axis> axes = unresized_axes(ctx, x);
    const std::vector<int> which = described_axes(ctx, x.rank());
    const int scales_input = legacy ? 1 : 2;
    const bool has_scales =
        ctx.has_input(scales_input) && ctx.constant_input(scales_input, "scales").elements() > 0;
    const bool has_sizes = !legacy && ctx.has_input(3) && ctx.constant_input(3, "sizes").elements() > 0;
    if (has_scales == has_sizes)
        TESSERA_GRAPH_ERROR(ctx) << "takes either scales or sizes, exactly one of them non-empty.";
    if (has_scales)
        apply_scales(ctx, ctx.constant_input(scales_input, "scales").to_doubles(), which, axes);
    else
        apply_sizes(ctx, ctx.constant_input(3, "sizes").to_int64s(), which, axes);
    if (options.coordinates == Coordinates::TfCropAndResize) {
        const std::vector<double> roi = ctx.constant_input(1, "roi").to_doubles();
        check_count(ctx, "roi", roi.size(), 2 * which.size());
        for (size_t i = 0; i < which.size(); i++) {
            axes[which[i]].roi_start = roi[i];
            axes[which[i]].roi_end = roi[which.size() + i];
        }
    }
    return resize(ctx, x, axes, options);
}

// Upsample (deprecated since opset 10): scales as an attribute up to opset 8, as an input from 9;
// asymmetric coordinates.
OpResult upsample_operator(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    ResizeOptions options;
    options.mode = mode_of(ctx);
    std::vector<double> scales;
    if (ctx.has_input(1)) {
        scales = ctx.constant_input(1, "scales").to_doubles();
    } else {
        if (!ctx.attributes().has("scales")) TESSERA_GRAPH_ERROR(ctx) << "scales is required.";
        for (float s : ctx.attributes().get_floats("scales")) scales.push_back(s);
    }
    std::vector<Axis> axes = unresized_axes(ctx, x);
    std::vector<int> which;
    for (int d = 0; d < x.rank(); d++) which.push_back(d);
    apply_scales(ctx, scales, which, axes);
    return resize(ctx, x, axes, options);
}

}  // namespace

void register_resize_operators() {
    register_operator({"Resize", OpKind::Injective, 1, 4, resize_operator});
    register_operator({"Upsample", OpKind::Injective, 1, 2, upsample_operator});
}

}  // namespace tessera::graph
