// Lesson 9: specialize and rfactor.
//
// Two ways to get a faster schedule than the algorithm as written allows.
//
// specialize(cond) gives a stage a second copy of its definition that runs only where cond holds
// at run time, with a schedule of its own. Inside that copy the compiler knows cond is true, so a
// size known to be a multiple of the vector width needs no tail, and a boolean known to be false
// takes its unused branch out of the loop body. The general definition stays as the fallback.
//
// rfactor rewrites a reduction f() = f() + g(r) into two: an intermediate that sums over part of the
// RDom for each value of a new pure Var, and f, which sums the intermediate. The pure Var's
// iterations are independent, so they may run in parallel or as vector lanes, which the RVar of the
// original reduction may not.

#include <tessera/tessera.h>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

using namespace tessera;

namespace {

// Plain C++ for the Func `bright` below.
int bright_value(int v, bool clip) {
    const int scaled = v * 3 + 7;
    return clip ? std::min(scaled, 255) : scaled;
}

constexpr int kWidth = 67, kHeight = 29;  // 67 is not a multiple of the split factor 16

// A sum over every pixel of an image: one serial loop nest over r.y, r.x by default.
struct Total {
    RDom r{0, kWidth, 0, kHeight, "r"};
    Func f;
    Total(const std::string& name, const Buffer<int>& image) : f(name) {
        f() = 0;
        f() += image(r.x, r.y);
    }
};

bool check_total(Func total, int64_t expected, const std::string& schedule) {
    std::printf("--- %s ---\n", schedule.c_str());
    total.print_loop_nest();
    Buffer<int> out = total.realize();
    std::printf("sum = %d (plain C++: %lld)\n\n", out(), (long long)expected);
    return out() == expected;
}

}  // namespace

int main() {
    bool ok = true;
    Var x("x"), y("y");

    // 1. specialize. A brightening with an optional clip to 255, over an image whose size is only
    // known when the pipeline runs.
    ImageParam input(Int(32), 2, "input");
    Param<bool> clip("clip");
    Func bright("bright");
    Expr scaled = input(x, y) * 3 + 7;
    bright(x, y) = select(clip, min(scaled, 255), scaled);

    // Fast path: a row whose width is a multiple of 8 is a whole number of 8-lane vectors, with no
    // ragged last vector to shift or guard, so vectorize it and run the rows in parallel. Inside it,
    // a second specialization on !clip: there clip is known false, so its body needs neither the
    // select nor the min.
    // The general case (any other width) keeps the default serial loops: it is rare and not worth
    // its own vector code. Each specialization is one more copy of the loop nest to compile, so it
    // pays only for a condition that is common and that makes its copy much simpler or faster.
    Stage fast = bright.specialize(input.width() % 8 == 0);
    fast.vectorize(x, 8).parallel(y);
    fast.specialize(!clip);  // copies fast's schedule as it is now
    std::printf("--- bright: specialized on width %% 8 == 0, then on !clip ---\n");
    bright.print_loop_nest();
    std::printf("(three copies, tried in order: width %% 8 == 0 and !clip; width %% 8 == 0; general)\n\n");

    std::mt19937 rng(9);
    for (int width : {16, 13, 40, 21}) {
        Buffer<int> image(width, 6, "image");
        image.for_each_value([&](int& v) { v = int(rng() % 120); });  // up to 367 after scaling
        input.set(image);
        for (bool c : {false, true}) {
            clip.set(c);
            Buffer<int> out = bright.realize({width, 6});
            bool same = true;
            for (int j = 0; j < 6; j++)
                for (int i = 0; i < width; i++) same &= out(i, j) == bright_value(image(i, j), c);
            std::printf("width %2d, clip %-5s -> %s path: %s\n", width, c ? "true" : "false",
                        width % 8 == 0 ? "vector" : "general", same ? "as plain C++" : "MISMATCH");
            ok &= same;
        }
    }

    // specialize_fail: where no general case makes sense, make reaching it an error with a message
    // of one's own. The check happens when the pipeline runs, before anything is computed.
    Func strict("strict");
    strict(x, y) = input(x, y) * 2;
    strict.specialize(input.width() % 8 == 0).vectorize(x, 8);
    strict.specialize_fail("strict needs an input whose width is a multiple of 8");
    Buffer<int> odd(13, 2, "odd");
    odd.fill(1);
    input.set(odd);
    try {
        strict.realize({13, 2});
        std::printf("strict on width 13 was NOT refused\n");
        ok = false;
    } catch (const RuntimeError& e) {
        std::printf("\nstrict on width 13 is refused:\n  %s\n\n", e.what());
    }

    // 2. rfactor. A sum of every pixel of an image, checked exactly against plain C++: integer sums
    // give the same value in any order. Float sums would not: rfactor reassociates them, so their
    // last bits may change (as with any parallel sum).
    Buffer<int> image(kWidth, kHeight, "image");
    image.for_each_value([&](int& v) { v = int(rng() % 1000) - 500; });
    int64_t expected = 0;
    image.for_each_value([&](int v) { expected += v; });

    {
        Total t("total_serial", image);
        ok &= check_total(t.f, expected, "serial: one loop nest over r.y, r.x");
    }

    // Every iteration of the update reads and writes the same single value total(). Two threads
    // running rows at once would both read it, add, and write back, losing one row. So parallel
    // (or vectorize) of an RVar of this update is refused.
    try {
        Total t("total_refused", image);
        t.f.update().parallel(t.r.y);
        std::printf("parallel(r.y) was NOT refused\n");
        ok = false;
    } catch (const CompileError& e) {
        std::printf("total.update().parallel(r.y) is refused:\n  %s\n\n", e.what());
    }

    // rfactor(r.y, u): r.y becomes a pure Var u of an intermediate,
    //   rows(u) = 0;  rows(u) += image(r.x, u)      one sum per row, independent of each other
    //   total() = 0;  total() += rows(r.y)          then a short sum of the row sums
    // and the intermediate's loop over u may run in parallel.
    {
        Total t("total_by_rows", image);
        Var u("u");
        Func rows = t.f.update().rfactor(t.r.y, u);
        rows.compute_root().update().parallel(u);
        ok &= check_total(t.f, expected, "rfactor(r.y, u), intermediate parallel over u");
    }

    // Split, then rfactor the inner RVar: r.x = rxo * 16 + rxi. The intermediate keeps one partial
    // sum per value of rxi, lanes(u) += image(rxo * 16 + u, r.y), so lane u adds up columns u,
    // u + 16, u + 32, ...: sixteen independent running sums, one per vector lane, added up at the
    // end by total. The loop nest lists "vectorized u" outside, but its lanes span the whole body:
    // each step of r.y, rxo adds one 16-pixel vector into a 16-lane accumulator. The last 3 columns
    // (67 = 4 * 16 + 3) are behind a guard, as a split of an RVar must never run past the RDom.
    {
        Total t("total_by_lanes", image);
        RVar rxo("rxo"), rxi("rxi");
        Var u("u");
        t.f.update().split(t.r.x, rxo, rxi, 16);
        Func lanes = t.f.update().rfactor(rxi, u);
        lanes.compute_root().update().vectorize(u);
        ok &= check_total(t.f, expected, "split(r.x, rxo, rxi, 16), rfactor(rxi, u), vectorize(u)");
    }

    std::printf(ok ? "lesson 9: every specialization and every rfactor gave the plain C++ values\n"
                   : "lesson 9: FAILED\n");
    return ok ? 0 : 1;
}
