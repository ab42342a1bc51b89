// Schedules never change the values at a pipeline's edges, where boundary conditions clamp or
// remap: a producer read by a consumer that also reads the input directly, under tiled schedules
// with the producer computed or stored per tile. Each case is checked against plain C++.
//
// The pipelines here once read outside the producer's storage: the boundary condition, inlined
// into producer and consumer alike, is one expression in several places, and loop partitioning
// took a clamp that it had proved in one place (the consumer's read of the input) as proved in
// the others (the producer's reads, where it fails at the first row).

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>

using namespace tessera;

namespace {

enum class Boundary { RepeatEdge, ConstantExterior, RepeatImage, MirrorImage, MirrorInterior };

const char* boundary_name(Boundary b) {
    switch (b) {
        case Boundary::RepeatEdge: return "repeat_edge";
        case Boundary::ConstantExterior: return "constant_exterior";
        case Boundary::RepeatImage: return "repeat_image";
        case Boundary::MirrorImage: return "mirror_image";
        default: return "mirror_interior";
    }
}

Func boundary_func(Boundary b, const Buffer<uint16_t>& in) {
    switch (b) {
        case Boundary::RepeatEdge: return BoundaryConditions::repeat_edge(in);
        case Boundary::ConstantExterior: return BoundaryConditions::constant_exterior(in, 7);
        case Boundary::RepeatImage: return BoundaryConditions::repeat_image(in);
        case Boundary::MirrorImage: return BoundaryConditions::mirror_image(in);
        default: return BoundaryConditions::mirror_interior(in);
    }
}

int euclidean_mod(int a, int b) { return ((a % b) + b) % b; }

// The coordinate that a boundary condition reads for x in an image of extent n (-1: the exterior
// value).
int remap(Boundary b, int x, int n) {
    switch (b) {
        case Boundary::RepeatEdge: return std::clamp(x, 0, n - 1);
        case Boundary::ConstantExterior: return x >= 0 && x < n ? x : -1;
        case Boundary::RepeatImage: return euclidean_mod(x, n);
        case Boundary::MirrorImage: {
            const int t = euclidean_mod(x, 2 * n);
            return t < n ? t : 2 * n - 1 - t;
        }
        default: {
            const int period = std::max(2 * (n - 1), 1), t = euclidean_mod(x, period);
            return std::clamp(t < n ? t : period - t, 0, n - 1);
        }
    }
}

uint16_t source_value(Boundary b, const Buffer<uint16_t>& in, int x, int y) {
    const int rx = remap(b, x, in.width()), ry = remap(b, y, in.height());
    return rx < 0 || ry < 0 ? uint16_t(7) : in(rx, ry);
}

Buffer<uint16_t> random_input(int width, int height, uint32_t seed) {
    Buffer<uint16_t> in(width, height);
    std::mt19937 rng(seed);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) in(x, y) = uint16_t(rng() % 4096);
    return in;
}

// The reproducer's pipeline, with the offsets of its producer's and consumer's reads as parameters:
//   f0(x, y) = src(x + 1, y - 1) - src(x + 2, y + 1) + src(x - 2, y)
//   f1(x, y) = f0(x + 2, y + f1_dy)
//   f2(x, y) = src(x + 1, y + 2) - f1(x + 2, y + f2_dy)
struct Offsets {
    int f1_dy = 0, f2_dy = 0;
};

struct EdgePipeline {
    Func f0{"f0"}, f1{"f1"}, f2{"f2"};
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};

    EdgePipeline(Boundary b, const Buffer<uint16_t>& in, Offsets o) {
        Func src = boundary_func(b, in);
        f0(x, y) = src(x + 1, y - 1) - src(x + 2, y + 1) + src(x - 2, y);
        f1(x, y) = f0(x + 2, y + o.f1_dy);
        f2(x, y) = src(x + 1, y + 2) - f1(x + 2, y + o.f2_dy);
    }
};

uint16_t reference(Boundary b, const Buffer<uint16_t>& in, Offsets o, int x, int y) {
    auto src = [&](int u, int v) { return source_value(b, in, u, v); };
    auto f0 = [&](int u, int v) { return uint16_t(src(u + 1, v - 1) - src(u + 2, v + 1) + src(u - 2, v)); };
    auto f1 = [&](int u, int v) { return f0(u + 2, v + o.f1_dy); };
    return uint16_t(src(x + 1, y + 2) - f1(x + 2, y + o.f2_dy));
}

// Realizes the pipeline under the schedule over width x height and checks every value against
// plain C++, reporting the first few that differ.
void check_schedule(Boundary b, Offsets o, const std::string& schedule_name,
                    const std::function<void(EdgePipeline&)>& schedule, int width = 47, int height = 35) {
    const Buffer<uint16_t> in = random_input(56, 42, 17);
    EdgePipeline p(b, in, o);
    schedule(p);
    Buffer<uint16_t> out = p.f2.realize({width, height});
    int wrong = 0;
    std::ostringstream first;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const uint16_t want = reference(b, in, o, x, y);
            if (out(x, y) == want) continue;
            if (wrong++ < 4) first << " (" << x << ", " << y << "): " << out(x, y) << " not " << want << ";";
        }
    }
    CHECK_MESSAGE(wrong == 0, std::string(boundary_name(b))
                                  << ", f1 dy " << o.f1_dy << ", f2 dy " << o.f2_dy << ", " << schedule_name
                                  << ": " << wrong << " values differ:" << first.str());
}

const char* tail_name(TailStrategy t) {
    switch (t) {
        case TailStrategy::GuardWithIf: return "GuardWithIf";
        case TailStrategy::ShiftInwards: return "ShiftInwards";
        case TailStrategy::RoundUp: return "RoundUp";
        default: return "Auto";
    }
}

const Boundary all_boundaries[] = {Boundary::RepeatEdge, Boundary::ConstantExterior, Boundary::RepeatImage,
                                   Boundary::MirrorImage, Boundary::MirrorInterior};
const Offsets all_offsets[] = {{0, 0}, {-2, -1}, {1, 2}, {-1, 3}};

}  // namespace

TEST_CASE(
    "the reproducer: a producer computed per tile, read beside the input, gives the unscheduled values") {
    check_schedule(Boundary::RepeatEdge, {0, 0}, "tile 16x2 GuardWithIf, f1 at xo", [](EdgePipeline& p) {
        p.f2.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 16, 2, TailStrategy::GuardWithIf);
        p.f1.compute_at(p.f2, p.xo);
    });
    check_schedule(Boundary::RepeatEdge, {-2, -1}, "tile 16x2 GuardWithIf, f1 at xo", [](EdgePipeline& p) {
        p.f2.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 16, 2, TailStrategy::GuardWithIf);
        p.f1.compute_at(p.f2, p.xo);
    });
}

namespace {

// Each boundary condition of [first, last) with two of the offsets, the tail strategies taking
// turns as they would over all of them.
void check_boundaries(size_t first, size_t last) {
    const TailStrategy tails[] = {TailStrategy::GuardWithIf, TailStrategy::ShiftInwards, TailStrategy::Auto};
    for (size_t i = first; i < last; i++) {
        for (size_t k = 0; k < 2; k++) {
            const size_t turn = 2 * i + k;
            const TailStrategy tail = tails[turn % 3];
            check_schedule(all_boundaries[i], all_offsets[turn % 4],
                           std::string("tile 16x2 ") + tail_name(tail) + ", f1 at xo",
                           [tail](EdgePipeline& p) {
                               p.f2.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 16, 2, tail);
                               p.f1.compute_at(p.f2, p.xo);
                           });
        }
    }
}

// A producer computed and stored at every level of a tiled nest, under one boundary condition.
void check_levels(Boundary b, Offsets o) {
    check_schedule(b, o, "f1 at yo", [](EdgePipeline& p) {
        p.f2.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 3, TailStrategy::GuardWithIf);
        p.f1.compute_at(p.f2, p.yo);
    });
    check_schedule(b, o, "f1 at yi", [](EdgePipeline& p) {
        p.f2.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 3, TailStrategy::GuardWithIf);
        p.f1.compute_at(p.f2, p.yi);
    });
    check_schedule(b, o, "f1 at xi, stored at yo", [](EdgePipeline& p) {
        p.f2.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 3, TailStrategy::GuardWithIf);
        p.f1.compute_at(p.f2, p.xi).store_at(p.f2, p.yo);
    });
    check_schedule(b, o, "f0 and f1 at xo, f2 vectorized", [](EdgePipeline& p) {
        p.f2.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 16, 2, TailStrategy::GuardWithIf).vectorize(p.xi, 8);
        p.f1.compute_at(p.f2, p.xo);
        p.f0.compute_at(p.f2, p.xo);
    });
    check_schedule(b, o, "fused parallel tiles, f1 at the fused loop", [](EdgePipeline& p) {
        Var tile("tile");
        p.f2.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 16, 2, TailStrategy::ShiftInwards)
            .fuse(p.xo, p.yo, tile)
            .parallel(tile);
        p.f1.compute_at(p.f2, tile);
    });
}

}  // namespace

// Split in two so that each test stays well inside ctest's timeout under the sanitizers.
TEST_CASE("repeat_edge, constant_exterior and repeat_image give the values of plain C++ at the edges") {
    check_boundaries(0, 3);
}

TEST_CASE("mirror_image and mirror_interior give the values of plain C++ at the edges") {
    check_boundaries(3, std::size(all_boundaries));
}

TEST_CASE(
    "a producer computed and stored at every level of a tiled nest gives the edge values (repeat_edge)") {
    check_levels(Boundary::RepeatEdge, all_offsets[1]);
}

TEST_CASE(
    "a producer computed and stored at every level of a tiled nest gives the edge values (mirror_interior)") {
    check_levels(Boundary::MirrorInterior, all_offsets[3]);
}

TEST_CASE("a producer read in one value of a select is realized wherever the select is computed") {
    // Both values of a select are computed: a region cut to where the condition holds would be read
    // outside its storage (the checked mode reports each such read).
    Func producer("producer"), consumer("consumer");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    producer(x, y) = x * 3 + y;
    consumer(x, y) = select(x < -5, producer(x, y), x - y);
    consumer.split(x, xo, xi, 8, TailStrategy::GuardWithIf).vectorize(xi);
    producer.compute_at(consumer, xo);
    const Target checked = get_host_target().with_feature(Target::CheckBounds);
    Buffer<int> out = consumer.realize({29, 5}, checked);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 29; x++) CHECK_MESSAGE(out(x, y) == x - y, "at (" << x << ", " << y << ")");
}
