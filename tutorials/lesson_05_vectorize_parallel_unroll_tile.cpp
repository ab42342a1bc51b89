// Lesson 5: one algorithm, many loop orders.
//
// A schedule changes the order in which a Func's points are computed, never their values. This
// lesson takes one Func and schedules it ten ways: it prints each loop nest and checks that every
// one computes exactly what plain C++ computes.
//
// The primitives, each of which returns the Func so that they chain:
//   reorder(a, b, ...)           the named loops, innermost first
//   split(x, xo, xi, n)          one loop becomes two: x = xo * n + xi, with xi in [0, n)
//   fuse(x, y, xy)               two loops become one over their product
//   tile(x, y, xi, yi, nx, ny)   two splits and a reorder: tiles of nx by ny points
//   vectorize(x, n)              split by n and compute the inner loop as vectors of n lanes
//   unroll(x, n)                 split by n and repeat the inner loop's body n times, no loop
//   parallel(y)                  run the iterations of y on the thread pool

#include <tessera/tessera.h>
#include <cstdio>
#include <string>

using namespace tessera;

namespace {

// What every schedule must compute: a value that tells the coordinates apart.
int expected_value(int x, int y) { return 1000 * y + x; }

// Realizes f over width x height, compares every point with expected_value() and prints a line.
bool realize_and_check(Func f, const std::string& schedule, int width, int height) {
    std::printf("--- %s ---\n", schedule.c_str());
    f.print_loop_nest();
    Buffer<int> out = f.realize({width, height});
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            if (out(x, y) != expected_value(x, y)) {
                std::printf("MISMATCH under '%s' at (%d, %d): %d, expected %d\n", schedule.c_str(), x, y,
                            out(x, y), expected_value(x, y));
                return false;
            }
    std::printf("(%d x %d points, all as expected)\n\n", width, height);
    return true;
}

}  // namespace

int main() {
    Var x("x"), y("y");
    bool ok = true;

    // Each schedule goes on a fresh Func with the same definition: a Func keeps its schedule, and
    // splitting x twice would split the loops the first split made.
    auto fresh = [&](const char* name) {
        Func f(name);
        f(x, y) = 1000 * y + x;
        return f;
    };

    // 1. The default: row by row, x innermost, as a C programmer would write it.
    {
        Func f = fresh("row_major");
        ok &= realize_and_check(f, "default order: y outside, x inside", 8, 4);
    }

    // 2. reorder(y, x): y becomes the innermost loop, so the Func is walked column by column. For
    // a buffer stored row by row this strides through memory, which is usually slower.
    {
        Func f = fresh("column_major");
        f.reorder(y, x);
        ok &= realize_and_check(f, "reorder(y, x): column by column", 8, 4);
    }

    // 3. split: the loop over x becomes x_outer and x_inner. Alone it changes nothing about the
    // order of points; it makes loops that the other primitives can then treat differently.
    {
        Func f = fresh("split");
        Var x_outer("x_outer"), x_inner("x_inner");
        f.split(x, x_outer, x_inner, 4);
        ok &= realize_and_check(f, "split(x, x_outer, x_inner, 4)", 8, 4);
    }

    // 4. fuse: the opposite of split, two loops become one over the product of their extents. Here
    // the two inner loops of 4 x 2 tiles become one loop over the 8 points of a tile, which can
    // then be computed as one vector of 8 lanes. Fusing is also how one gives a parallel loop more
    // iterations to share out.
    {
        Func f = fresh("fused");
        Var x_outer("x_outer"), y_outer("y_outer"), x_inner("x_inner"), y_inner("y_inner"),
            tile_point("tile_point");
        f.tile(x, y, x_outer, y_outer, x_inner, y_inner, 4, 2)
            .fuse(x_inner, y_inner, tile_point)
            .vectorize(tile_point);
        ok &= realize_and_check(f, "4 x 2 tiles, fuse(x_inner, y_inner, tile_point).vectorize(tile_point)", 8,
                                4);
    }

    // 5. tile: split x and y and put both inner loops inside both outer ones. The points of one
    // 4 x 2 tile are computed together, which matters once a consumer reads a neighbourhood.
    {
        Func f = fresh("tiled");
        Var x_outer("x_outer"), y_outer("y_outer"), x_inner("x_inner"), y_inner("y_inner");
        f.tile(x, y, x_outer, y_outer, x_inner, y_inner, 4, 2);
        ok &= realize_and_check(f, "tile(x, y, x_outer, y_outer, x_inner, y_inner, 4, 2)", 8, 4);
    }

    // 6. vectorize: an inner loop of constant extent is computed as vector operations, here 4
    // lanes at a time. vectorize(x, 4) is split(x, x, x_vec, 4).vectorize(x_vec) in one call.
    {
        Func f = fresh("vectorized");
        Var x_vec("x_vec");
        f.split(x, x, x_vec, 4).vectorize(x_vec);
        ok &= realize_and_check(f, "split(x, x, x_vec, 4).vectorize(x_vec)", 8, 4);
    }

    // 7. unroll: the inner loop of 2 disappears and its body is written out twice. It saves loop
    // overhead and lets neighbouring iterations share loads.
    {
        Func f = fresh("unrolled");
        Var x_pair("x_pair");
        f.split(x, x, x_pair, 2).unroll(x_pair);
        ok &= realize_and_check(f, "split(x, x, x_pair, 2).unroll(x_pair)", 8, 4);
    }

    // 8. A size the factor does not divide. Splitting 7 points by 3 leaves a ragged last
    // iteration, and TailStrategy says what to do with it:
    //   ShiftInwards (the default for a pure definition): the last iteration starts earlier, at
    //     7 - 3 = 4, so points 4 and 5 are computed twice. Harmless for a pure Func, and every
    //     iteration still has exactly 3 points, which vectors need.
    //   GuardWithIf: the last iteration computes only the points with x < 7 behind an if.
    //   RoundUp: compute 9 points; only legal where there is room for them, not on this output.
    // trace_stores() prints every value stored (to stderr), which shows the overlap.
    {
        Func f("shifted_tail"), g("guarded_tail");
        Var x_outer("x_outer"), x_inner("x_inner");
        f(x) = 10 * x;
        g(x) = 10 * x;
        f.split(x, x_outer, x_inner, 3, TailStrategy::ShiftInwards).trace_stores();
        g.split(x, x_outer, x_inner, 3, TailStrategy::GuardWithIf).trace_stores();
        std::printf("--- split of 7 points by 3, ShiftInwards: ---\n");
        std::fflush(stdout);
        Buffer<int> shifted = f.realize({7});
        std::printf("--- split of 7 points by 3, GuardWithIf: ---\n");
        std::fflush(stdout);
        Buffer<int> guarded = g.realize({7});
        for (int i = 0; i < 7; i++) {
            if (shifted(i) != 10 * i || guarded(i) != 10 * i) {
                std::printf("MISMATCH in the ragged split at x = %d\n", i);
                ok = false;
            }
        }
        std::printf("(both give 0, 10, ..., 60)\n");

        // RoundUp would write x = 7 and 8, past the end of the 7-element output: an error when the
        // pipeline runs, before anything is written.
        Func h("rounded_up_tail");
        h(x) = 10 * x;
        h.split(x, x_outer, x_inner, 3, TailStrategy::RoundUp);
        try {
            h.realize({7});
            std::printf("RoundUp on 7 points was NOT refused\n");
            ok = false;
        } catch (const RuntimeError& e) {
            std::printf("RoundUp on 7 points is refused:\n  %s\n", e.what());
        }
        std::printf("\n");
    }

    // 9. parallel: the rows are shared among the runtime's threads (TESSERA_NUM_THREADS, or all
    // cores). Only legal where iterations are independent, which points of a pure Func always are.
    {
        Func f = fresh("parallel_rows");
        f.parallel(y);
        ok &= realize_and_check(f, "parallel(y)", 8, 4);
    }

    // 10. Everything at once, the shape of a typical CPU schedule: tiles of 16 x 8, the rows of
    // tiles run in parallel; inside a tile, vectors of 4 along x, with two rows at a time unrolled.
    // The size, 37 x 23, leaves ragged tiles on both edges, which the default tail strategy
    // (ShiftInwards) handles.
    {
        Func f = fresh("everything");
        Var x_outer("x_outer"), y_outer("y_outer"), x_inner("x_inner"), y_inner("y_inner");
        Var x_vec("x_vec"), y_pair("y_pair");
        f.tile(x, y, x_outer, y_outer, x_inner, y_inner, 16, 8)
            .parallel(y_outer)
            .split(x_inner, x_inner, x_vec, 4)
            .split(y_inner, y_inner, y_pair, 2)
            .reorder(x_vec, y_pair, x_inner, y_inner, x_outer, y_outer)
            .vectorize(x_vec)
            .unroll(y_pair);
        ok &= realize_and_check(f, "tiled, parallel, vectorized and unrolled", 37, 23);
    }

    std::printf(ok ? "lesson 5: every schedule computed the same values\n" : "lesson 5: FAILED\n");
    return ok ? 0 : 1;
}
