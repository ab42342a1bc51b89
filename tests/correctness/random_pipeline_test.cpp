// Random pipelines of pointwise and stencil stages, under random placements (inline or root),
// against a plain C++ evaluation of the same stages. TESSERA_RANDOM_PIPELINES=N runs N pipelines
// (the default keeps ctest fast).

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <cstdlib>
#include <functional>
#include <random>

using namespace tessera;

namespace {

constexpr int kMaxOffset = 2;

// One term of a stage: an earlier stage (or the input, index -1) read at an offset.
struct Term {
    int source;
    int dx, dy;
};

// stage(x, y) = combine(term0, term1) with one of a few integer operations.
struct StageSpec {
    Term a, b;
    int op;
};

// Euclidean modulo by a positive constant, as Tessera's % is.
int32_t mod(int32_t a, int32_t m) { return ((a % m) + m) % m; }

int32_t combine(int op, int32_t a, int32_t b) {
    auto wrap = [](int64_t v) { return int32_t(uint32_t(uint64_t(v))); };
    switch (op) {
        case 0: return wrap(int64_t(a) + b);
        case 1: return wrap(int64_t(a) - b);
        case 2: return wrap(int64_t(a) * mod(b, 7));
        case 3: return std::min(a, b);
        case 4: return std::max(a, b);
        case 5: {  // Euclidean division by a small nonzero divisor
            int32_t d = mod(b, 5) + 6;
            int32_t q = a / d;
            if (a % d < 0) q -= 1;
            return q;
        }
        default: return a > b ? a - b : b;
    }
}

Expr combine(int op, const Expr& a, const Expr& b) {
    switch (op) {
        case 0: return a + b;
        case 1: return a - b;
        case 2: return a * (b % 7);
        case 3: return min(a, b);
        case 4: return max(a, b);
        case 5: return a / ((b % 5) + 6);
        default: return select(a > b, a - b, b);
    }
}

std::vector<StageSpec> random_specs(std::mt19937& rng, int stages) {
    std::uniform_int_distribution<int> offset(-kMaxOffset, kMaxOffset), op(0, 6);
    std::vector<StageSpec> specs;
    for (int i = 0; i < stages; i++) {
        std::uniform_int_distribution<int> source(-1, i - 1);
        specs.push_back(
            {{source(rng), offset(rng), offset(rng)}, {source(rng), offset(rng), offset(rng)}, op(rng)});
    }
    return specs;
}

// The reference: every stage evaluated over the output region grown by the largest reach of the
// stages after it, with the input clamped at its edges.
Buffer<int32_t> reference(const std::vector<StageSpec>& specs, const Buffer<int32_t>& input, int w, int h) {
    const int n = int(specs.size());
    std::vector<Buffer<int32_t>> values;
    auto read = [&](int source, int x, int y) {
        if (source < 0)
            return input(std::clamp(x, 0, input.width() - 1), std::clamp(y, 0, input.height() - 1));
        return values[source](x, y);
    };
    for (int i = 0; i < n; i++) {
        const int margin = kMaxOffset * (n - 1 - i);
        Buffer<int32_t> v(w + 2 * margin, h + 2 * margin);
        v.set_min(-margin, -margin);
        for (int y = -margin; y < h + margin; y++)
            for (int x = -margin; x < w + margin; x++) {
                const StageSpec& s = specs[i];
                v(x, y) = combine(s.op, read(s.a.source, x + s.a.dx, y + s.a.dy),
                                  read(s.b.source, x + s.b.dx, y + s.b.dy));
            }
        values.push_back(v);
    }
    return values.back();
}

Func build_pipeline(const std::vector<StageSpec>& specs, const Buffer<int32_t>& input, std::mt19937& rng) {
    Func clamped = BoundaryConditions::repeat_edge(input);
    std::vector<Func> stages;
    Var x("x"), y("y");
    auto read = [&](const Term& t) -> Expr {
        const Func& f = t.source < 0 ? clamped : stages[t.source];
        return f(x + t.dx, y + t.dy);
    };
    for (size_t i = 0; i < specs.size(); i++) {
        Func f("stage" + std::to_string(i));
        f(x, y) = combine(specs[i].op, read(specs[i].a), read(specs[i].b));
        if (rng() % 2) f.compute_root();
        stages.push_back(f);
    }
    return stages.back();
}

int pipeline_count() {
    const char* n = std::getenv("TESSERA_RANDOM_PIPELINES");
    return n ? std::atoi(n) : 12;
}

}  // namespace

TEST_CASE("random pipelines under random placements match plain C++") {
    std::mt19937 rng(20261122);
    for (int trial = 0; trial < pipeline_count(); trial++) {
        const int stages = 2 + int(rng() % 5), w = 5 + int(rng() % 30), h = 3 + int(rng() % 20);
        std::vector<StageSpec> specs = random_specs(rng, stages);
        Buffer<int32_t> input(7 + int(rng() % 20), 5 + int(rng() % 20));
        input.for_each_value([&](int32_t& v) { v = int32_t(rng() % 2001) - 1000; });
        Buffer<int32_t> expected = reference(specs, input, w, h);
        Func output = build_pipeline(specs, input, rng);
        Buffer<int32_t> out = output.realize({w, h});
        int mismatches = 0;
        for (int yy = 0; yy < h; yy++)
            for (int xx = 0; xx < w; xx++)
                if (out(xx, yy) != expected(xx, yy) && mismatches++ == 0)
                    FAIL_CHECK("trial " << trial << " (" << stages << " stages, " << w << "x" << h
                                        << ") differs at " << xx << ", " << yy << ": " << out(xx, yy)
                                        << " != " << expected(xx, yy));
        CHECK_MESSAGE(mismatches == 0, "trial " << trial);
    }
}
