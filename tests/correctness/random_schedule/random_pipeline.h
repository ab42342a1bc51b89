#pragma once
// Random pipelines for random_schedule_test: stages of pointwise and stencil definitions over an
// input read through a boundary condition, some with updates (window reductions, scans, updates at
// fixed points, updates over a box of RVars). A pipeline is plain data, so that it can be built as
// Tessera Funcs (once to schedule, once to keep the default schedule; pipeline_builder.h),
// evaluated by plain C++ (pipeline_reference.h), and printed as the C++ that builds it.
//
// Every value is computed in int32 and kept well inside its range (reads of int32 stages are masked
// to 16 bits, large intermediate results to 20), so that no result depends on overflow, and
// float stages only scale and add small integers, so that no result depends on rounding or on the
// order of operations.

#include <tessera/tessera.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace random_schedule {

using namespace tessera;

enum class ValueType { UInt8, UInt16, Int32, Float32 };

inline Type type_of(ValueType t) {
    switch (t) {
        case ValueType::UInt8: return UInt(8);
        case ValueType::UInt16: return UInt(16);
        case ValueType::Int32: return Int(32);
        default: return Float(32);
    }
}

inline const char* cpp_type(ValueType t) {
    switch (t) {
        case ValueType::UInt8: return "uint8_t";
        case ValueType::UInt16: return "uint16_t";
        case ValueType::Int32: return "int32_t";
        default: return "float";
    }
}

// A coordinate: a pure Var (0: x, 1: y), an RVar (0: r.x, 1: r.y), both or neither, plus an offset.
struct Coord {
    int var = -1;
    int rvar = -1;
    int offset = 0;
    bool is_pure_var(int v) const { return var == v && rvar < 0 && offset == 0; }
    bool is_bare_rvar() const { return var < 0 && rvar >= 0 && offset == 0; }
};

struct Node {
    enum class Op {
        Const,
        Read,
        Coordinate,
        Add,
        Sub,
        MulConst,
        DivConst,
        ModConst,
        Min,
        Max,
        Xor,
        Select,
        Mask
    };
    Op op = Op::Const;
    int value = 0;     // Const: the value; MulConst, DivConst, ModConst: the constant; Mask: the mask
    int source = 0;    // Read: -1 for the input (through its boundary condition), k for stage k
    bool raw = false;  // Read of an int32 stage without the 16-bit mask
    std::vector<Coord> coords;  // Read: one per dimension; Coordinate: the one coordinate
    std::vector<Node> args;
};

struct UpdateDef {
    enum class Kind {
        Window,  // f(x, y) = f(x, y) op g(x + r.x, ...): an associative reduction over a small window
        Scan,    // f(r, y) = f(r - s, y) + f(r, y) + ...: each iteration reads an earlier one
        Point,   // f(c, y) = ...: an update at a fixed coordinate, optionally summing over an RDom
        Box,     // f(r.x, r.y) = ...: each iteration updates its own point, which it alone reads
    };
    Kind kind = Kind::Window;
    std::vector<Coord> lhs;                 // one per dimension
    std::vector<std::pair<int, int>> rdom;  // (min, extent) of each RVar
    int predicate_modulus = 0;              // > 0: where((r.x [+ r.y]) % m != 0)
    Node value;                             // the new value, in int32, before the cast
    bool rvars_reorderable = false;         // the RVars' order does not change the result
    bool rvars_independent = false;         // RVar iterations may run in parallel
};

struct StageDef {
    ValueType type = ValueType::Int32;
    // For a float stage, value.args are two int32 terms a and b, and the value is
    // float(a & 0xfff) * 0.25f + float(b & 0xff).
    Node value;
    std::vector<UpdateDef> updates;
};

struct PipelineDef {
    ValueType input_type = ValueType::UInt8;
    int input_min[2] = {0, 0}, input_extent[2] = {1, 1};
    uint32_t input_seed = 0;
    enum class Boundary { RepeatEdge, ConstantExterior, RepeatImage, MirrorImage, MirrorInterior };
    Boundary boundary = Boundary::RepeatEdge;
    int exterior = 0;
    std::vector<StageDef> stages;  // the last is the output
    int output_min[2] = {0, 0}, output_extent[2] = {1, 1};
    int output() const { return int(stages.size()) - 1; }
};

struct GeneratorOptions {
    int min_stages = 2, max_stages = 6;
    bool reductions = true;
    double update_probability = 0.45;  // of an integer stage, having updates
    bool floats = true;
    int max_size = 70;
    // Sizes are at least min_size, but for the small ones (up to 8) drawn with this probability.
    int min_size = 1;
    double small_size_probability = 0.3;
    int max_input_size = 40;
    // How often a stage that reads other stages also reads the input directly, at offsets of its
    // own: the input's boundary condition is then inlined into producer and consumer alike.
    double input_read_probability = 0.4;
    // How often a stage reads the stage just before it rather than any earlier one: chains of
    // single consumers are where compute_at has the most places to choose from.
    double previous_stage_bias = 0.25;
};
// The sources (-1: the input, k: stage k) a node reads, other than `self`.
inline void sources_of(const Node& n, int self, std::set<int>& out) {
    if (n.op == Node::Op::Read && n.source != self) out.insert(n.source);
    for (const Node& a : n.args) sources_of(a, self, out);
}

// ---------------------------------------------------------------------------------------------
// Generation

namespace detail {

inline int rand_int(std::mt19937& rng, int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
}
inline bool chance(std::mt19937& rng, double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

// An upper bound of the magnitude of a node's value.
inline int64_t magnitude(const Node& n, const PipelineDef& p, int self) {
    auto of = [&](int i) { return magnitude(n.args[size_t(i)], p, self); };
    switch (n.op) {
        case Node::Op::Const: return std::abs(int64_t(n.value));
        case Node::Op::Read: {
            ValueType t = n.source < 0 ? p.input_type : p.stages[size_t(n.source)].type;
            if (t == ValueType::UInt8) return 255;
            if (t == ValueType::Float32) return 5115;
            if (t == ValueType::Int32 && n.raw) return int64_t(1) << 27;
            return 65535;
        }
        case Node::Op::Coordinate: return 2000;
        case Node::Op::Add:
        case Node::Op::Sub: return of(0) + of(1);
        case Node::Op::MulConst: return of(0) * n.value;
        case Node::Op::DivConst: return of(0) / std::abs(n.value) + 1;
        case Node::Op::ModConst: return std::abs(n.value);
        case Node::Op::Min:
        case Node::Op::Max: return std::max(of(0), of(1));
        case Node::Op::Xor: {
            int64_t m = std::max(of(0), of(1)), p2 = 1;
            while (p2 <= m) p2 *= 2;
            return 2 * p2;
        }
        case Node::Op::Select: return std::max(of(2), of(3));
        case Node::Op::Mask: return n.value;
    }
    return 0;
}

// A constant of magnitude in [lo, hi], negative a third of the time.
inline int signed_constant(std::mt19937& rng, int lo, int hi) {
    const int v = rand_int(rng, lo, hi);
    return chance(rng, 1.0 / 3) ? -v : v;
}

inline Node leaf_const(int v) {
    Node n;
    n.op = Node::Op::Const;
    n.value = v;
    return n;
}

inline Node unary(Node::Op op, Node a, int value) {
    Node n;
    n.op = op;
    n.value = value;
    n.args.push_back(std::move(a));
    return n;
}

inline Node binary(Node::Op op, Node a, Node b) {
    Node n;
    n.op = op;
    n.args.push_back(std::move(a));
    n.args.push_back(std::move(b));
    return n;
}

inline Node read(int source, std::vector<Coord> coords, bool raw = false) {
    Node n;
    n.op = Node::Op::Read;
    n.source = source;
    n.coords = std::move(coords);
    n.raw = raw;
    return n;
}

// Keeps a node's value within 20 bits when it might grow beyond.
inline Node bounded(Node n, const PipelineDef& p, int self) {
    if (magnitude(n, p, self) <= (int64_t(1) << 20)) return n;
    return unary(Node::Op::Mask, std::move(n), 0xfffff);
}

// A random int32 expression tree whose leaves are reads made by `make_read`, coordinates from
// `coordinates` and constants.
template <typename MakeRead>
Node random_tree(std::mt19937& rng, int depth, const PipelineDef& p, int self, MakeRead&& make_read,
                 const std::vector<Coord>& coordinates) {
    if (depth == 0 || chance(rng, 0.25)) {
        int pick = rand_int(rng, 0, 9);
        if (pick < 7) return make_read();
        if (pick < 9 && !coordinates.empty()) {
            Node n;
            n.op = Node::Op::Coordinate;
            n.coords.push_back(coordinates[size_t(rand_int(rng, 0, int(coordinates.size()) - 1))]);
            return n;
        }
        return leaf_const(rand_int(rng, -50, 100));
    }
    auto sub = [&] { return random_tree(rng, depth - 1, p, self, make_read, coordinates); };
    Node n;
    switch (rand_int(rng, 0, 10)) {
        case 0:
        case 1: n = binary(Node::Op::Add, sub(), sub()); break;
        case 2: n = binary(Node::Op::Sub, sub(), sub()); break;
        case 3: n = unary(Node::Op::MulConst, sub(), rand_int(rng, 2, 7)); break;
        // Divisors of either sign: Euclidean division rounds the quotient of a negative divisor up.
        case 4: n = unary(Node::Op::DivConst, sub(), signed_constant(rng, 2, 9)); break;
        case 5: n = unary(Node::Op::ModConst, sub(), signed_constant(rng, 2, 300)); break;
        case 6: n = binary(Node::Op::Min, sub(), sub()); break;
        case 7: n = binary(Node::Op::Max, sub(), sub()); break;
        case 8: n = binary(Node::Op::Xor, sub(), sub()); break;
        case 9: {
            n.op = Node::Op::Select;
            for (int i = 0; i < 4; i++) n.args.push_back(sub());
            break;
        }
        default: n = binary(Node::Op::Add, sub(), leaf_const(rand_int(rng, -20, 20))); break;
    }
    return bounded(std::move(n), p, self);
}

inline ValueType random_int_type(std::mt19937& rng) {
    switch (rand_int(rng, 0, 2)) {
        case 0: return ValueType::UInt8;
        case 1: return ValueType::UInt16;
        default: return ValueType::Int32;
    }
}

inline Coord coord(int var, int rvar, int offset) { return Coord{var, rvar, offset}; }

// The largest value a stage of type t holds, as a mask (0 for int32: no mask needed).
inline int type_mask(ValueType t) {
    return t == ValueType::UInt8 ? 0xff : t == ValueType::UInt16 ? 0xffff : 0;
}

class UpdateGenerator {
public:
    UpdateGenerator(std::mt19937& rng, const PipelineDef& p, int stage, bool is_output)
        : rng(rng), p(p), stage(stage), is_output(is_output) {
        for (int d = 0; d < 2; d++) {
            // Fixed coordinates of an output stay inside its buffer; other Funcs may reach a little
            // outside the output's region.
            const int margin = is_output ? 0 : 2;
            lo[d] = p.output_min[d] - margin;
            hi[d] = p.output_min[d] + p.output_extent[d] - 1 + margin;
        }
    }

    bool make(UpdateDef& u) {
        switch (rand_int(rng, 0, 3)) {
            case 0: return window(u);
            case 1: return scan(u);
            case 2: return point(u);
            default: return box(u);
        }
    }

private:
    std::mt19937& rng;
    const PipelineDef& p;
    const int stage;
    const bool is_output;
    int lo[2], hi[2];

    int source() { return rand_int(rng, -1, stage - 1); }
    int small_offset() { return rand_int(rng, -2, 2); }
    Node self(std::vector<Coord> c, bool raw = false) { return read(stage, std::move(c), raw); }

    // A term reading other stages at coordinates made of the given coordinates plus offsets. With
    // `must_read`, it reads at least once, so that the RVars in the coordinates are used (an RDom
    // that a definition does not mention is not part of it).
    Node term(const std::vector<Coord>& at, const std::vector<Coord>& coordinates, bool must_read = false) {
        auto make_read = [&] {
            std::vector<Coord> c = at;
            for (Coord& k : c) k.offset += small_offset();
            return read(source(), c);
        };
        Node t = random_tree(rng, rand_int(rng, 0, 2), p, stage, make_read, coordinates);
        if (must_read)
            t = bounded(binary(chance(rng, 0.5) ? Node::Op::Add : Node::Op::Xor, make_read(), t), p, stage);
        return t;
    }

    // A sub-range [min, min + extent) of [a, b], of extent at most max_extent, or false.
    bool range_in(int a, int b, int max_extent, int& min, int& extent) {
        if (b < a) return false;
        extent = rand_int(rng, 1, std::min(max_extent, b - a + 1));
        min = rand_int(rng, a, b - extent + 1);
        return true;
    }

    bool window(UpdateDef& u) {
        u.kind = UpdateDef::Kind::Window;
        const int dims = rand_int(rng, 1, 2);
        std::vector<Coord> at = {coord(0, -1, 0), coord(1, -1, 0)};
        std::vector<Coord> rvars;
        for (int i = 0; i < dims; i++) {
            const int d = dims == 2 ? i : rand_int(rng, 0, 1);
            const int min = rand_int(rng, -2, 0), extent = rand_int(rng, 1, 4);
            u.rdom.emplace_back(min, extent);
            at[size_t(d)].rvar = i;
            rvars.push_back(coord(-1, i, 0));
        }
        u.lhs = {coord(0, -1, 0), coord(1, -1, 0)};
        Node t = term(at, rvars, /*must_read=*/true);
        const int mask = type_mask(p.stages[size_t(stage)].type);
        Node::Op op;
        switch (rand_int(rng, 0, 3)) {
            case 0: op = Node::Op::Add; break;
            case 1: op = Node::Op::Max; break;
            case 2: op = Node::Op::Min; break;
            default: op = Node::Op::Xor; break;
        }
        // The reduction must give the same bits in any order: max and min of a narrow Func need
        // terms it can hold, xor needs non-negative terms; sums wrap the same way in any order.
        if ((op == Node::Op::Max || op == Node::Op::Min) && mask) t = unary(Node::Op::Mask, t, mask);
        if (op == Node::Op::Xor) t = unary(Node::Op::Mask, t, mask ? mask : 0xfffff);
        u.value = binary(op, self(u.lhs, /*raw=*/true), t);
        u.rvars_reorderable = true;
        return true;
    }

    bool scan(UpdateDef& u) {
        u.kind = UpdateDef::Kind::Scan;
        const int d = rand_int(rng, 0, 1);
        const int step = std::array<int, 3>{1, 2, -1}[size_t(rand_int(rng, 0, 2))];
        // r and r - step both within [lo, hi].
        int min, extent;
        if (!range_in(lo[d] + std::max(step, 0), hi[d] + std::min(step, 0), 12, min, extent)) return false;
        u.rdom.emplace_back(min, extent);
        u.lhs = {coord(0, -1, 0), coord(1, -1, 0)};
        u.lhs[size_t(d)] = coord(-1, 0, 0);
        std::vector<Coord> previous = u.lhs;
        previous[size_t(d)].offset = -step;
        Node v = binary(Node::Op::Add, self(previous), self(u.lhs));
        if (chance(rng, 0.7)) v = binary(Node::Op::Add, v, term(u.lhs, {coord(-1, 0, 0)}));
        u.value = v;
        return true;
    }

    bool point(UpdateDef& u) {
        u.kind = UpdateDef::Kind::Point;
        const int d = rand_int(rng, 0, 1);
        if (hi[d] < lo[d]) return false;
        const int c = rand_int(rng, lo[d], hi[d]);
        u.lhs = {coord(0, -1, 0), coord(1, -1, 0)};
        u.lhs[size_t(d)] = coord(-1, -1, c);
        if (chance(rng, 0.15)) {
            // Both coordinates fixed: a stage with no loops at all.
            const int e = 1 - d;
            if (hi[e] < lo[e]) return false;
            u.lhs[size_t(e)] = coord(-1, -1, rand_int(rng, lo[e], hi[e]));
        }
        if (chance(rng, 0.5)) {
            // A sum over an RDom into the fixed point.
            const int extent = rand_int(rng, 1, 8);
            u.rdom.emplace_back(rand_int(rng, -3, 3), extent);
            std::vector<Coord> at = u.lhs;
            at[size_t(d)] = coord(-1, 0, 0);
            u.value = binary(Node::Op::Add, self(u.lhs, /*raw=*/true),
                             term(at, {coord(-1, 0, 0)}, /*must_read=*/true));
            u.rvars_reorderable = true;
            return true;
        }
        // f(c, y) = f(c, y) * k + f(c +- 1, y) + term, with c +- 1 inside [lo, hi].
        std::vector<Coord> neighbour = u.lhs;
        const int e = c + 1 <= hi[d] ? 1 : c - 1 >= lo[d] ? -1 : 0;
        neighbour[size_t(d)].offset += e;
        Node v = binary(Node::Op::Add, unary(Node::Op::MulConst, self(u.lhs), rand_int(rng, 2, 5)),
                        self(neighbour));
        u.value = binary(Node::Op::Add, v, term(u.lhs, {}));
        return true;
    }

    bool box(UpdateDef& u) {
        u.kind = UpdateDef::Kind::Box;
        const int dims = rand_int(rng, 1, 2);
        u.lhs = {coord(0, -1, 0), coord(1, -1, 0)};
        std::vector<Coord> rvars;
        for (int i = 0; i < dims; i++) {
            const int d = dims == 2 ? (i == 0 ? 0 : 1) : rand_int(rng, 0, 1);
            int min, extent;
            if (!range_in(lo[d], hi[d], 9, min, extent)) return false;
            u.rdom.emplace_back(min, extent);
            u.lhs[size_t(d)] = coord(-1, i, 0);
            rvars.push_back(coord(-1, i, 0));
        }
        if (chance(rng, 0.3)) u.predicate_modulus = rand_int(rng, 2, 3);
        Node v = unary(Node::Op::MulConst, self(u.lhs), rand_int(rng, 2, 3));
        u.value = binary(chance(rng, 0.5) ? Node::Op::Add : Node::Op::Xor, v, term(u.lhs, rvars));
        u.value = bounded(u.value, p, stage);
        u.rvars_reorderable = true;
        u.rvars_independent = true;
        return true;
    }
};

}  // namespace detail

inline PipelineDef random_pipeline(std::mt19937& rng, const GeneratorOptions& o) {
    using namespace detail;
    PipelineDef p;
    auto size = [&](int max) {
        return chance(rng, o.small_size_probability) ? rand_int(rng, 1, std::min(8, max))
                                                     : rand_int(rng, std::min(o.min_size, max), max);
    };
    p.input_type = random_int_type(rng);
    for (int d = 0; d < 2; d++) {
        p.input_extent[d] = size(o.max_input_size);
        p.input_min[d] = chance(rng, 0.3) ? rand_int(rng, -5, 5) : 0;
        p.output_extent[d] = size(o.max_size);
        p.output_min[d] = chance(rng, 0.2) ? rand_int(rng, -4, 4) : 0;
    }
    p.input_seed = uint32_t(rng());
    p.boundary = PipelineDef::Boundary(rand_int(rng, 0, 4));
    p.exterior = rand_int(rng, 0, 200);
    const int n = rand_int(rng, o.min_stages, o.max_stages);
    for (int i = 0; i < n; i++) {
        const bool output = i == n - 1;
        StageDef s;
        s.type = output || !o.floats || !chance(rng, 0.15) ? random_int_type(rng) : ValueType::Float32;
        p.stages.push_back(s);
        // Pointwise stages read at (x, y); stencils at small offsets; a few read transposed.
        const bool stencil = chance(rng, 0.6), transposed = chance(rng, 0.08);
        auto make_read = [&] {
            std::vector<Coord> c = {coord(0, -1, 0), coord(1, -1, 0)};
            if (transposed && chance(rng, 0.5)) std::swap(c[0].var, c[1].var);
            if (stencil) {
                for (Coord& k : c) k.offset = rand_int(rng, -2, 2);
            }
            return read(chance(rng, o.previous_stage_bias) ? i - 1 : rand_int(rng, -1, i - 1), c);
        };
        const std::vector<Coord> coordinates = {coord(0, -1, 0), coord(1, -1, 0)};
        StageDef& def = p.stages.back();
        if (def.type == ValueType::Float32) {
            def.value.args.push_back(random_tree(rng, 2, p, i, make_read, coordinates));
            def.value.args.push_back(random_tree(rng, 1, p, i, make_read, coordinates));
            continue;
        }
        def.value = random_tree(rng, rand_int(rng, 1, 3), p, i, make_read, coordinates);
        std::set<int> sources;
        sources_of(def.value, i, sources);
        if (!sources.count(-1) && !sources.empty() && chance(rng, o.input_read_probability)) {
            // Offsets a little wider than the stencils', so that the consumer's reads clamp at other
            // rows and columns than its producers' do.
            const Node input =
                read(-1, {coord(0, -1, rand_int(rng, -3, 3)), coord(1, -1, rand_int(rng, -3, 3))});
            def.value = bounded(
                binary(chance(rng, 0.5) ? Node::Op::Sub : Node::Op::Add, std::move(def.value), input), p, i);
        }
        if (!o.reductions || !chance(rng, o.update_probability)) continue;
        const int updates = chance(rng, 0.3) ? 2 : 1;
        for (int k = 0; k < updates; k++) {
            UpdateDef u;
            UpdateGenerator g(rng, p, i, output);
            for (int attempt = 0; attempt < 4; attempt++) {
                u = UpdateDef();
                if (g.make(u)) {
                    p.stages.back().updates.push_back(u);
                    break;
                }
            }
        }
    }
    return p;
}

// ---------------------------------------------------------------------------------------------
// What reads what

// The sources read by each definition of a stage: [0] the pure one, [k] update k - 1.
inline std::vector<std::set<int>> stage_reads(const PipelineDef& p, int i) {
    const StageDef& s = p.stages[size_t(i)];
    std::vector<std::set<int>> reads(1 + s.updates.size());
    sources_of(s.value, i, reads[0]);
    for (size_t k = 0; k < s.updates.size(); k++) sources_of(s.updates[k].value, i, reads[k + 1]);
    return reads;
}

// Whether each source (index k + 1 for source k) is used by the output.
inline std::vector<bool> reachable(const PipelineDef& p) {
    std::vector<bool> used(p.stages.size() + 1, false);
    used[size_t(p.output()) + 1] = true;
    for (int i = p.output(); i >= 0; i--) {
        if (!used[size_t(i) + 1]) continue;
        for (const auto& reads : stage_reads(p, i)) {
            for (int s : reads) used[size_t(s) + 1] = true;
        }
    }
    return used;
}

}  // namespace random_schedule
