// Lesson 8: scheduling update definitions.
//
// Each definition of a Func is a stage with its own loops: the pure definition is f, the updates
// are f.update(0), f.update(1), ... and each is scheduled on its own. An update's loops are its
// pure Vars (the arguments it leaves as plain Vars) and the RVars of its RDom, the RVars inside
// the Vars by default.
//
// What may be done to an update's loops depends on what its iterations share. Splitting, reordering
// and unrolling never change which values are computed, only in which order, so they are always
// allowed where the order does not matter. Running iterations at the same time (parallel, vectorize)
// needs them to be independent: no iteration may write a point that another reads or writes.

#include <tessera/tessera.h>
#include <cstdio>
#include <string>
#include <vector>

using namespace tessera;

namespace {

constexpr int kWidth = 19, kHeight = 7;

// The reference for the Func `rows` below, in plain C++.
std::vector<int> expected_rows() {
    std::vector<int> v(kWidth * kHeight);
    for (int y = 0; y < kHeight; y++) {
        for (int x = 0; x < kWidth; x++) v[y * kWidth + x] = (x + 2 * y) % 5;         // pure definition
        for (int x = 0; x < kWidth; x++) v[y * kWidth + x] *= 3;                      // update 0
        for (int x = 1; x < kWidth; x++) v[y * kWidth + x] += v[y * kWidth + x - 1];  // update 1
    }
    return v;
}

bool check_rows(Func rows, const std::string& schedule) {
    std::printf("--- %s ---\n", schedule.c_str());
    rows.print_loop_nest();
    Buffer<int> out = rows.realize({kWidth, kHeight});
    const std::vector<int> want = expected_rows();
    for (int y = 0; y < kHeight; y++)
        for (int x = 0; x < kWidth; x++)
            if (out(x, y) != want[y * kWidth + x]) {
                std::printf("MISMATCH under '%s' at (%d, %d): %d, expected %d\n", schedule.c_str(), x, y,
                            out(x, y), want[y * kWidth + x]);
                return false;
            }
    std::printf("row 2: ");
    for (int x = 0; x < kWidth; x++) std::printf("%d ", out(x, 2));
    std::printf("\n(values as expected)\n\n");
    return true;
}

// A Func with three stages: a pure definition, an update over its pure Vars (triple every
// point), and an update with an RDom along x (a running sum along each row: a scan).
struct Rows {
    Var x{"x"}, y{"y"};
    RDom r{1, kWidth - 1, "r"};
    Func f{"rows"};
    Rows() {
        f(x, y) = (x + 2 * y) % 5;
        f(x, y) = f(x, y) * 3;
        f(r, y) = f(r, y) + f(r - 1, y);
    }
};

}  // namespace

int main() {
    bool ok = true;

    // 1. No schedule: each stage is a loop nest over its own domain, one after the other.
    {
        Rows p;
        ok &= check_rows(p.f, "default: three loop nests in turn");
    }

    // 2. Each stage scheduled differently. The pure definition and update(0) touch each point on
    // its own, so any of their loops may be split and vectorized. update(1) is a scan along x:
    // the iteration at r reads the point the iteration at r - 1 wrote, so r must stay serial, but
    // the rows (y) are independent, so update(1) may run its rows in parallel.
    {
        Rows p;
        Var x_vec("x_vec");
        p.f.vectorize(p.x, 4);
        p.f.update(0).split(p.x, p.x, x_vec, 4).vectorize(x_vec);
        p.f.update(1).parallel(p.y);
        ok &= check_rows(p.f, "pure: vectorize(x, 4); update(0): split + vectorize; update(1): parallel(y)");
    }

    // 3. Reordering an update's RVar and Var. By default update(1) runs y outside and r inside, one
    // row's scan after another; reorder(y, r.x) puts y innermost instead, so that the scans of
    // neighbouring rows advance together. Now the innermost loop's iterations are different rows,
    // which are independent, so it can be vectorized: four rows are scanned at once, one per vector
    // lane. (Here it also walks memory down columns; on a real image one would tile first.)
    {
        Rows p;
        p.f.update(1).reorder(p.y, p.r.x).vectorize(p.y, 4);
        ok &= check_rows(p.f, "update(1): reorder(y, r.x).vectorize(y, 4)");
    }

    // 4. The RVar of the scan may not run in parallel or as vectors: the compiler says why rather
    // than compute a wrong answer.
    try {
        Rows p;
        p.f.update(1).vectorize(p.r.x, 4);
        std::printf("vectorizing the scan was NOT refused\n");
        ok = false;
    } catch (const CompileError& e) {
        std::printf("vectorizing the scan's RVar is refused:\n  %s\n\n", e.what());
    }

    // 5. A histogram: every pixel of an image adds one to the bin of its value. The update's only
    // argument is a computed bin, not a Var, so it has no pure Vars at all, only the RVars. Two
    // pixels anywhere in the image can have the same value and hence update the same bin: run
    // two rows on two threads and both may read a bin's count, add one, and write it back, losing
    // one of the increments. So the RVars of this update cannot be parallelized (nor vectorized),
    // and Tessera refuses. (rfactor, in a later lesson, rewrites such a reduction into one that
    // can be: partial histograms per row, then a sum of them.)
    Buffer<uint8_t> image(23, 11, "image");
    for (int y = 0; y < 11; y++)
        for (int x = 0; x < 23; x++) image(x, y) = uint8_t((x * 7 + y * 13) % 16);

    Var i("i");
    RDom pixels(0, image.width(), 0, image.height(), "pixels");
    Func histogram("histogram");
    histogram(i) = 0;
    // The bins written must lie inside the output: a uint8 could be any of 0 ... 255, so the clamp
    // tells the compiler (and guarantees) that only bins 0 ... 15 are touched.
    histogram(clamp(image(pixels.x, pixels.y), 0, 15)) += 1;

    try {
        histogram.update(0).parallel(pixels.y);
        std::printf("parallelizing the histogram was NOT refused\n");
        ok = false;
    } catch (const CompileError& e) {
        std::printf("histogram.update(0).parallel(pixels.y) is refused:\n  %s\n\n", e.what());
    }

    // What is allowed: the pure definition (clearing the bins) may be vectorized, and the update's
    // loops may be split and unrolled, which keep the order of the increments. The RVar loop over
    // 23 pixels is split by 4 with a guarded tail: an RDom must not run past its domain.
    RVar px_outer("px_outer"), px_inner("px_inner");
    histogram.vectorize(i, 8);
    histogram.update(0).split(pixels.x, px_outer, px_inner, 4).unroll(px_inner);
    std::printf("--- histogram: clearing vectorized, counting unrolled by 4 ---\n");
    histogram.print_loop_nest();
    Buffer<int> counts = histogram.realize({16});
    std::vector<int> want(16, 0);
    for (int y = 0; y < 11; y++)
        for (int x = 0; x < 23; x++) want[image(x, y)]++;
    std::printf("bin:   ");
    for (int b = 0; b < 16; b++) std::printf("%4d", b);
    std::printf("\ncount: ");
    for (int b = 0; b < 16; b++) {
        std::printf("%4d", counts(b));
        if (counts(b) != want[b]) ok = false;
    }
    std::printf("\n%s\n\n", ok ? "(counts as expected)" : "MISMATCH in the histogram");

    std::printf(ok ? "lesson 8: every schedule of every stage computed the same values\n"
                   : "lesson 8: FAILED\n");
    return ok ? 0 : 1;
}
