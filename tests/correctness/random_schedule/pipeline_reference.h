#pragma once
// The plain C++ evaluation of a random pipeline (random_pipeline.h), and the regions it evaluates:
// those Halide defines, where the last stage of a Func covers what its consumers need and each
// earlier stage also covers what the stages after it read of the Func.

#include "random_pipeline.h"

namespace random_schedule {

// Regions, as Halide defines them: the last stage of a Func covers what its consumers need; each
// earlier stage also covers what the stages after it read of the Func.

struct Interval {
    int64_t min = 1, max = 0;  // empty when min > max
    bool empty() const { return min > max; }
    void include(const Interval& o) {
        if (o.empty()) return;
        if (empty()) {
            *this = o;
        } else {
            min = std::min(min, o.min);
            max = std::max(max, o.max);
        }
    }
    int64_t extent() const { return empty() ? 0 : max - min + 1; }
};

struct Box2 {
    Interval dim[2];
    bool empty() const { return dim[0].empty() || dim[1].empty(); }
    void include(const Box2& b) {
        if (b.empty()) return;
        for (int d = 0; d < 2; d++) dim[d].include(b.dim[d]);
    }
};

struct StageRegions {
    Box2 required;            // what the consumers need
    std::vector<Box2> stage;  // [0]: the pure definition's region; [k]: update k - 1's pure Vars
};

// The ranges of x, y, r.x and r.y in a definition.
struct Ranges {
    Interval var[2], rvar[2];
};

inline Interval range_of(const Coord& c, const Ranges& r) {
    Interval i{c.offset, c.offset};
    if (c.var >= 0) i = {i.min + r.var[c.var].min, i.max + r.var[c.var].max};
    if (c.rvar >= 0) i = {i.min + r.rvar[c.rvar].min, i.max + r.rvar[c.rvar].max};
    return i;
}

// The box of `source` that a node reads over the ranges.
inline void box_read(const Node& n, int source, const Ranges& r, Box2& box) {
    if (n.op == Node::Op::Read && n.source == source) {
        Box2 b;
        for (int d = 0; d < 2; d++) b.dim[d] = range_of(n.coords[size_t(d)], r);
        box.include(b);
    }
    for (const Node& a : n.args) box_read(a, source, r, box);
}

inline Ranges update_ranges(const UpdateDef& u, const Box2& pure_region) {
    Ranges r;
    for (int d = 0; d < 2; d++) r.var[d] = pure_region.dim[d];
    for (size_t i = 0; i < u.rdom.size(); i++)
        r.rvar[i] = {u.rdom[i].first, u.rdom[i].first + u.rdom[i].second - 1};
    return r;
}

// The regions of every reachable source (index k + 1 for source k).
inline std::vector<StageRegions> regions_of(const PipelineDef& p) {
    std::vector<StageRegions> regions(p.stages.size() + 1);
    std::vector<bool> used = reachable(p);
    auto box_read_by = [&](int consumer, int source) {
        Box2 box;
        const StageDef& c = p.stages[size_t(consumer)];
        const StageRegions& cr = regions[size_t(consumer) + 1];
        Ranges pure;
        for (int d = 0; d < 2; d++) pure.var[d] = cr.stage[0].dim[d];
        box_read(c.value, source, pure, box);
        for (size_t k = 0; k < c.updates.size(); k++)
            box_read(c.updates[k].value, source, update_ranges(c.updates[k], cr.stage[k + 1]), box);
        return box;
    };
    for (int i = p.output(); i >= -1; i--) {
        StageRegions& r = regions[size_t(i) + 1];
        if (!used[size_t(i) + 1]) continue;
        if (i == p.output()) {
            for (int d = 0; d < 2; d++)
                r.required.dim[d] = {p.output_min[d], p.output_min[d] + p.output_extent[d] - 1};
        } else {
            for (int c = i + 1; c <= p.output(); c++) {
                if (used[size_t(c) + 1]) r.required.include(box_read_by(c, i));
            }
        }
        if (i < 0) {
            r.stage = {r.required};
            continue;
        }
        const StageDef& s = p.stages[size_t(i)];
        r.stage.assign(1 + s.updates.size(), Box2());
        Box2 later;  // what the stages after k touch of the stage
        for (int k = int(s.updates.size()); k >= 1; k--) {
            Box2 region = r.required;
            region.include(later);
            r.stage[size_t(k)] = region;
            const UpdateDef& u = s.updates[size_t(k) - 1];
            Ranges ranges = update_ranges(u, region);
            box_read(u.value, i, ranges, later);
            Box2 written;
            for (int d = 0; d < 2; d++) written.dim[d] = range_of(u.lhs[size_t(d)], ranges);
            later.include(written);
        }
        r.stage[0] = r.required;
        r.stage[0].include(later);
    }
    return regions;
}

// ---------------------------------------------------------------------------------------------
// Plain C++ evaluation

inline int32_t wrap32(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }
inline int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}
// Euclidean division, as Tessera's and Halide's: the remainder is never negative, so the quotient
// of a negative divisor rounds up.
inline int64_t euclid_div(int64_t a, int64_t b) { return b > 0 ? floor_div(a, b) : -floor_div(a, -b); }
inline int64_t euclid_mod(int64_t a, int64_t b) { return a - euclid_div(a, b) * b; }

inline double store_as(ValueType t, int32_t v) {
    switch (t) {
        case ValueType::UInt8: return double(uint8_t(uint32_t(v)));
        case ValueType::UInt16: return double(uint16_t(uint32_t(v)));
        default: return double(v);
    }
}

inline double float_stage_value(int32_t a, int32_t b) {
    return double(float(a & 0xfff) * 0.25f + float(b & 0xff));
}

// The input's values, a deterministic function of the pipeline's seed.
inline std::vector<double> input_values(const PipelineDef& p) {
    std::mt19937 rng(p.input_seed);
    std::vector<double> v(size_t(p.input_extent[0]) * size_t(p.input_extent[1]));
    for (double& e : v) {
        switch (p.input_type) {
            case ValueType::UInt8: e = double(rng() & 0xff); break;
            case ValueType::UInt16: e = double(rng() & 0xffff); break;
            default: e = double(int32_t(rng() % 200001) - 100000); break;
        }
    }
    return v;
}

template <typename T>
Buffer<T> input_buffer(const PipelineDef& p) {
    std::vector<double> v = input_values(p);
    Buffer<T> b(p.input_extent[0], p.input_extent[1], "input");
    b.set_min(p.input_min[0], p.input_min[1]);
    for (int y = 0; y < p.input_extent[1]; y++)
        for (int x = 0; x < p.input_extent[0]; x++)
            b(x + p.input_min[0], y + p.input_min[1]) =
                T(v[size_t(y) * size_t(p.input_extent[0]) + size_t(x)]);
    return b;
}

// The input as a buffer of the pipeline's input type.
inline Buffer<> make_input(const PipelineDef& p) {
    switch (p.input_type) {
        case ValueType::UInt8: return input_buffer<uint8_t>(p);
        case ValueType::UInt16: return input_buffer<uint16_t>(p);
        default: return input_buffer<int32_t>(p);
    }
}

class Reference {
public:
    explicit Reference(const PipelineDef& p) : p(p), input(input_values(p)), regions(regions_of(p)) {
        planes.resize(p.stages.size());
        std::vector<bool> used = reachable(p);
        for (int i = 0; i <= p.output(); i++) {
            if (used[size_t(i) + 1]) evaluate(i);
        }
    }

    double output(int x, int y) const { return planes.back().at(x, y); }
    const std::vector<StageRegions>& stage_regions() const { return regions; }

private:
    struct Plane {
        Box2 box;
        std::vector<double> values;
        bool contains(int64_t x, int64_t y) const {
            return x >= box.dim[0].min && x <= box.dim[0].max && y >= box.dim[1].min && y <= box.dim[1].max;
        }
        size_t index(int64_t x, int64_t y) const {
            if (!contains(x, y)) throw std::logic_error("the reference reads outside a stage's region");
            return size_t((y - box.dim[1].min) * box.dim[0].extent() + (x - box.dim[0].min));
        }
        double at(int64_t x, int64_t y) const { return values[index(x, y)]; }
        double& at(int64_t x, int64_t y) { return values[index(x, y)]; }
    };

    const PipelineDef& p;
    std::vector<double> input;
    std::vector<StageRegions> regions;
    std::vector<Plane> planes;

    struct Point {
        int64_t var[2] = {0, 0}, rvar[2] = {0, 0};
    };

    int64_t coordinate(const Coord& c, const Point& at) const {
        int64_t v = c.offset;
        if (c.var >= 0) v += at.var[c.var];
        if (c.rvar >= 0) v += at.rvar[c.rvar];
        return v;
    }

    static int64_t boundary_coordinate(PipelineDef::Boundary b, int64_t x, int64_t min, int64_t extent) {
        int64_t c = x;
        switch (b) {
            case PipelineDef::Boundary::RepeatEdge:
            case PipelineDef::Boundary::ConstantExterior: break;
            case PipelineDef::Boundary::RepeatImage: c = euclid_mod(x - min, extent) + min; break;
            case PipelineDef::Boundary::MirrorImage: {
                int64_t t = euclid_mod(x - min, 2 * extent);
                c = (t < extent ? t : 2 * extent - 1 - t) + min;
                break;
            }
            case PipelineDef::Boundary::MirrorInterior: {
                int64_t period = std::max<int64_t>(2 * (extent - 1), 1);
                int64_t t = euclid_mod(x - min, period);
                c = std::clamp<int64_t>(t < extent ? t : period - t, 0, extent - 1) + min;
                break;
            }
        }
        return std::clamp<int64_t>(c, min, min + extent - 1);
    }

    double read_input(int64_t x, int64_t y) const {
        if (p.boundary == PipelineDef::Boundary::ConstantExterior) {
            bool inside = true;
            int64_t at[2] = {x, y};
            for (int d = 0; d < 2; d++)
                inside = inside && at[d] >= p.input_min[d] && at[d] < p.input_min[d] + p.input_extent[d];
            if (!inside) return store_as(p.input_type, p.exterior);
        }
        int64_t cx = boundary_coordinate(p.boundary, x, p.input_min[0], p.input_extent[0]);
        int64_t cy = boundary_coordinate(p.boundary, y, p.input_min[1], p.input_extent[1]);
        return input[size_t(cy - p.input_min[1]) * size_t(p.input_extent[0]) + size_t(cx - p.input_min[0])];
    }

    int32_t eval(const Node& n, const Point& at, int self) const {
        auto arg = [&](int i) { return int64_t(eval(n.args[size_t(i)], at, self)); };
        switch (n.op) {
            case Node::Op::Const: return n.value;
            case Node::Op::Read: {
                const int64_t x = coordinate(n.coords[0], at), y = coordinate(n.coords[1], at);
                ValueType t = n.source < 0 ? p.input_type : p.stages[size_t(n.source)].type;
                double v = n.source < 0 ? read_input(x, y) : planes[size_t(n.source)].at(x, y);
                if (t == ValueType::Float32) return int32_t(float(v) * 4.0f);
                if (t == ValueType::Int32 && !n.raw) return int32_t(v) & 0xffff;
                return int32_t(v);
            }
            case Node::Op::Coordinate: return wrap32(coordinate(n.coords[0], at));
            case Node::Op::Add: return wrap32(arg(0) + arg(1));
            case Node::Op::Sub: return wrap32(arg(0) - arg(1));
            case Node::Op::MulConst: return wrap32(arg(0) * n.value);
            case Node::Op::DivConst: return wrap32(euclid_div(arg(0), n.value));
            case Node::Op::ModConst: return wrap32(euclid_mod(arg(0), n.value));
            case Node::Op::Min: return wrap32(std::min(arg(0), arg(1)));
            case Node::Op::Max: return wrap32(std::max(arg(0), arg(1)));
            case Node::Op::Xor: return wrap32(arg(0) ^ arg(1));
            case Node::Op::Select: return wrap32(arg(0) < arg(1) ? arg(2) : arg(3));
            case Node::Op::Mask: return wrap32(arg(0) & n.value);
        }
        return 0;
    }

    void evaluate(int i) {
        const StageDef& s = p.stages[size_t(i)];
        const StageRegions& r = regions[size_t(i) + 1];
        Plane& plane = planes[size_t(i)];
        plane.box = r.stage[0];
        plane.values.assign(size_t(plane.box.dim[0].extent() * plane.box.dim[1].extent()), 0.0);
        Point at;
        for (at.var[1] = plane.box.dim[1].min; at.var[1] <= plane.box.dim[1].max; at.var[1]++) {
            for (at.var[0] = plane.box.dim[0].min; at.var[0] <= plane.box.dim[0].max; at.var[0]++) {
                double v;
                if (s.type == ValueType::Float32) {
                    v = float_stage_value(eval(s.value.args[0], at, i), eval(s.value.args[1], at, i));
                } else {
                    v = store_as(s.type, eval(s.value, at, i));
                }
                plane.at(at.var[0], at.var[1]) = v;
            }
        }
        for (size_t k = 0; k < s.updates.size(); k++) update(i, s.updates[k], r.stage[k + 1]);
    }

    // The update's loops in their default order: the pure Vars outermost (y, then x), then the
    // RVars (r.y, then r.x innermost).
    void update(int i, const UpdateDef& u, const Box2& region) {
        Plane& plane = planes[size_t(i)];
        Interval ranges[4];
        for (int d = 0; d < 2; d++) {
            bool pure = u.lhs[0].is_pure_var(d) || u.lhs[1].is_pure_var(d);
            ranges[d] = pure ? region.dim[d] : Interval{0, 0};
        }
        for (int k = 0; k < 2; k++)
            ranges[2 + k] = k < int(u.rdom.size())
                                ? Interval{u.rdom[size_t(k)].first,
                                           u.rdom[size_t(k)].first + u.rdom[size_t(k)].second - 1}
                                : Interval{0, 0};
        Point at;
        for (at.var[1] = ranges[1].min; at.var[1] <= ranges[1].max; at.var[1]++)
            for (at.var[0] = ranges[0].min; at.var[0] <= ranges[0].max; at.var[0]++)
                for (at.rvar[1] = ranges[3].min; at.rvar[1] <= ranges[3].max; at.rvar[1]++)
                    for (at.rvar[0] = ranges[2].min; at.rvar[0] <= ranges[2].max; at.rvar[0]++) {
                        if (u.predicate_modulus > 0) {
                            int64_t sum = at.rvar[0] + (u.rdom.size() > 1 ? at.rvar[1] : 0);
                            if (euclid_mod(sum, u.predicate_modulus) == 0) continue;
                        }
                        int32_t v = eval(u.value, at, i);
                        plane.at(coordinate(u.lhs[0], at), coordinate(u.lhs[1], at)) =
                            store_as(p.stages[size_t(i)].type, v);
                    }
    }
};

}  // namespace random_schedule
