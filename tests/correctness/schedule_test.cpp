// Loop transformations and placements: every schedule gives the bits of plain C++ (and so of the
// default schedule), on sizes the split factors do not divide.

#include <doctest/doctest.h>

#include <tessera/runtime.h>
#include <tessera/tessera.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <regex>
#include "tests/correctness/blur_reference.h"
#include "tests/scratch_files.h"

using namespace tessera;
using namespace blur_reference;

namespace {

void check_blur_schedule(const std::function<void(Blur&)>& schedule, int w = 67, int h = 45) {
    Buffer<uint16_t> in = random_image(w, h, unsigned(w * 1000 + h));
    Blur blur(in);
    schedule(blur);
    check_equal<uint16_t>(blur.blur_y.realize({w, h}), reference_blur(in));
}

std::string lowered_text(Func f) {
    const std::filesystem::path path = scratch_files::fresh_dir("schedule") / "lowered.stmt";
    f.compile_to_lowered_stmt(path.string(), {});
    return scratch_files::read_file(path);
}

}  // namespace

TEST_CASE("split with GuardWithIf computes every point exactly once on a ragged edge") {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x * 3 + 1;
    f.split(x, xo, xi, 8, TailStrategy::GuardWithIf);
    Buffer<int> out = f.realize({21});
    for (int i = 0; i < 21; i++) CHECK_MESSAGE(out(i) == i * 3 + 1, "at x = " << i);
}

TEST_CASE("split with ShiftInwards and with the default strategy covers a ragged output") {
    for (TailStrategy tail : {TailStrategy::ShiftInwards, TailStrategy::Auto}) {
        Func f("f");
        Var x("x"), xo("xo"), xi("xi");
        f(x) = x * x - 7;
        f.split(x, xo, xi, 8, tail);
        Buffer<int> out(23);
        out.set_min(-5);
        f.realize(out);
        for (int i = -5; i < 18; i++) CHECK_MESSAGE(out(i) == i * i - 7, "at x = " << i);
    }
}

TEST_CASE("split with RoundUp of an intermediate Func computes a rounded-up region") {
    Func g("g"), f("f");
    Var x("x"), xo("xo"), xi("xi");
    g(x) = x * 5;
    f(x) = g(x) + g(x + 2);
    g.compute_root().split(x, xo, xi, 4, TailStrategy::RoundUp);
    Buffer<int> out = f.realize({13});
    for (int i = 0; i < 13; i++) CHECK_MESSAGE(out(i) == i * 5 + (i + 2) * 5, "at x = " << i);
}

TEST_CASE("splitting a split Var again, fusing and renaming keep the values") {
    Func f("f");
    Var x("x"), y("y"), xo("xo"), xi("xi"), xoo("xoo"), xoi("xoi"), xy("xy"), t("t");
    f(x, y) = x * 100 + y;
    f.split(x, xo, xi, 4).split(xo, xoo, xoi, 3).fuse(xoi, y, xy).rename(xi, t);
    Buffer<int> out = f.realize({29, 7});
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 29; x++) CHECK_MESSAGE(out(x, y) == x * 100 + y, "at " << x << ", " << y);
}

TEST_CASE("the blur gives the same bits under tiling, reordering and every loop kind") {
    check_blur_schedule([](Blur& b) { b.blur_y.tile(b.x, b.y, b.xi, b.yi, 16, 8); });
    check_blur_schedule([](Blur& b) {
        b.blur_y.tile(b.x, b.y, b.xo, b.yo, b.xi, b.yi, 5, 3).reorder(b.yi, b.xi, b.xo, b.yo);
    });
    check_blur_schedule([](Blur& b) { b.blur_y.reorder(b.y, b.x).parallel(b.x).vectorize(b.y, 8); });
    check_blur_schedule([](Blur& b) { b.blur_y.unroll(b.x, 3).parallel(b.y, 4); });
    check_blur_schedule([](Blur& b) { b.blur_x.compute_root().parallel(b.y).vectorize(b.x, 16); });
}

TEST_CASE("the blur of the design document: blur_x computed per tile of blur_y") {
    check_blur_schedule(
        [](Blur& b) {
            b.blur_y.tile(b.x, b.y, b.xi, b.yi, 256, 32).vectorize(b.xi, 16).parallel(b.y);
            b.blur_x.compute_at(b.blur_y, b.x).vectorize(b.x, 16);
        },
        301, 77);
    check_blur_schedule([](Blur& b) {
        b.blur_y.tile(b.x, b.y, b.xi, b.yi, 16, 8).vectorize(b.xi, 4).parallel(b.y);
        b.blur_x.compute_at(b.blur_y, b.x).vectorize(b.x, 4);
    });
}

TEST_CASE("compute_at every loop of the consumer, with storage at the root or outside") {
    check_blur_schedule([](Blur& b) { b.blur_x.compute_at(b.blur_y, b.y); });
    check_blur_schedule([](Blur& b) { b.blur_x.compute_at(b.blur_y, b.x); });
    check_blur_schedule([](Blur& b) { b.blur_x.compute_at(b.blur_y, b.y).store_root(); });
    check_blur_schedule([](Blur& b) {
        b.blur_y.split(b.y, b.yo, b.yi, 8);
        b.blur_x.store_at(b.blur_y, b.yo).compute_at(b.blur_y, b.yi);
    });
    check_blur_schedule([](Blur& b) {
        b.blur_y.split(b.x, b.xo, b.xi, 7, TailStrategy::GuardWithIf);
        b.blur_x.compute_at(b.blur_y, b.xo);
    });
}

TEST_CASE("a three-stage pipeline with each stage computed inside the next") {
    Buffer<uint16_t> in = random_image(53, 31, 9);
    Func c("c"), a("a"), b("b"), out("out");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    c = BoundaryConditions::mirror_image(in);
    a(x, y) = c(x - 2, y) + c(x + 2, y) * 3;
    b(x, y) = a(x, y - 1) ^ a(x, y + 1);
    out(x, y) = b(x - 1, y) + b(x + 1, y + 1);
    out.tile(x, y, xi, yi, 8, 4);
    b.compute_at(out, x).vectorize(x, 4);
    a.compute_at(b, y);
    Buffer<uint16_t> actual = out.realize({53, 31});
    Func c2("c2"), a2("a2"), b2("b2"), out2("out2");
    c2 = BoundaryConditions::mirror_image(in);
    a2(x, y) = c2(x - 2, y) + c2(x + 2, y) * 3;
    b2(x, y) = a2(x, y - 1) ^ a2(x, y + 1);
    out2(x, y) = b2(x - 1, y) + b2(x + 1, y + 1);
    check_equal<uint16_t>(actual, out2.realize({53, 31}));
}

TEST_CASE("update stages take splits, reorders and loop kinds") {
    Func f("f");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(0, 13);
    RVar ro("ro"), ri("ri");
    f(x, y) = x + y;
    f(x, y) += r * (x + 1);
    f.update(0).split(r, ro, ri, 4).reorder(x, ri, ro).vectorize(x, 4).parallel(y);
    Buffer<int> out = f.realize({10, 6});
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 10; x++)
            CHECK_MESSAGE(out(x, y) == x + y + 78 * (x + 1), "at " << x << ", " << y);
}

TEST_CASE("an intermediate Func with an update, split with RoundUp, is computed per row of its consumer") {
    Func g("g"), f("f");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(-1, 3);
    g(x, y) = x * y;
    g(x, y) += g(x, y) + r;
    f(x, y) = g(x - 1, y) + g(x + 1, y);
    g.compute_at(f, y);
    g.update(0).split(x, xo, xi, 4);
    Buffer<int> out = f.realize({11, 5});
    auto gr = [](int x, int y) {
        int v = x * y;
        for (int r = -1; r < 2; r++) v += v + r;
        return v;
    };
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 11; x++)
            CHECK_MESSAGE(out(x, y) == gr(x - 1, y) + gr(x + 1, y), "at " << x << ", " << y);
}

TEST_CASE("bound fixes the computed region of a Func") {
    Func g("g"), f("f");
    Var x("x"), c("c");
    g(x, c) = x * 10 + c;
    f(x, c) = g(x, c) * 2;
    g.compute_root().bound(c, 0, 3).unroll(c);
    f.bound(c, 0, 3).unroll(c);
    Buffer<int> out = f.realize({9, 3});
    for (int ch = 0; ch < 3; ch++)
        for (int x = 0; x < 9; x++) CHECK_MESSAGE(out(x, ch) == (x * 10 + ch) * 2, "at " << x << ", " << ch);
}

TEST_CASE("bound and bound_extent may be given in Params, which become arguments of the pipeline") {
    Param<int> extent("extent");
    Func g("g"), h("h"), f("f");
    Var x("x");
    g(x) = x * 2;
    h(x) = x * 3;
    f(x) = g(x + 1) + h(x);
    g.compute_root().bound(x, 0, extent);
    h.compute_root().bound_extent(x, extent);
    extent.set(8);
    Buffer<int> out = f.realize({5});
    for (int i = 0; i < 5; i++) CHECK(out(i) == (i + 1) * 2 + i * 3);
}

TEST_CASE("bound_extent gives a Func computed per tile a constant size where its min moves") {
    // out reads f at x and x + offset: without bound_extent f's region per tile is 8 + offset wide,
    // known only at run time, and f goes on the heap; with it, 12 wide, on the stack.
    Param<int> offset("offset");
    Func f("f"), out("out");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x * 7 - 3;
    out(x) = f(x) + f(x + offset);
    out.split(x, xo, xi, 8);
    f.compute_at(out, xo).bound_extent(x, 12);
    offset.set(4);
    Buffer<int> result = out.realize({29});
    for (int i = 0; i < 29; i++) CHECK_MESSAGE(result(i) == (i * 7 - 3) + ((i + 4) * 7 - 3), "at " << i);
    CHECK(lowered_text(out).find("allocate f[int32 * 12] in Stack") != std::string::npos);
    offset.set(5);  // 13 values of f a tile
    try {
        out.realize({29});
        FAIL("a region wider than bound_extent was not refused");
    } catch (const RuntimeError& e) {
        CHECK(std::string(e.what()).find("by bound_extent()") != std::string::npos);
    }
}

TEST_CASE("align_bounds widens the region computed to the modulus, and no further") {
    // out(x) = f(x + 3) over [0, 5) needs f over [3, 7]; aligned to 4 that is [0, 7], and to 4
    // with remainder 1, [1, 8]. f reads the input where it is computed, so an input that covers
    // [3, 7] only is read out of its bounds once the region is widened.
    for (int remainder : {0, 1}) {
        CAPTURE(remainder);
        ImageParam in(Int(32), 1, "in");
        Func f("f"), out("out");
        Var x("x");
        f(x) = in(x)*2;
        out(x) = f(x + 3);
        f.compute_root().align_bounds(x, 4, remainder);
        Buffer<int> wide(16);
        wide.for_each_element([&](int i) { wide(i) = i * i; });
        in.set(wide);
        Buffer<int> result = out.realize({5});
        for (int i = 0; i < 5; i++) CHECK(result(i) == (i + 3) * (i + 3) * 2);
        Buffer<int> narrow(5);
        narrow.set_min(3);
        in.set(narrow);
        try {
            out.realize({5});
            FAIL("the widened region was not read");
        } catch (const RuntimeError& e) {
            const std::string message = e.what();
            CHECK_MESSAGE(message.find(remainder == 0 ? "read at 0" : "read at 1") != std::string::npos,
                          message);
        }
    }
}

TEST_CASE("reorder_storage keeps the values and changes the layout of an intermediate Func") {
    Buffer<uint16_t> in = random_image(19, 13, 4);
    Blur blur(in);
    blur.blur_x.compute_root().reorder_storage(blur.y, blur.x);
    check_equal<uint16_t>(blur.blur_y.realize({19, 13}), reference_blur(in));
}

TEST_CASE("reorder_storage lays out the named Var innermost") {
    Func g("g"), f("f");
    Var x("x"), y("y");
    g(x, y) = x + y * 7;
    f(x, y) = g(x, y) * 2;
    g.compute_root().reorder_storage(y, x);
    const std::string path =
        (std::filesystem::temp_directory_path() / "tessera_reorder_storage_test.stmt").string();
    f.compile_to_lowered_stmt(path, {});
    std::ifstream file(path);
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    // With y innermost, a step in x moves by the realized extent of y (dimension 1).
    CHECK_MESSAGE(text.find("g.realized.extent.1 * (g.s0.x") != std::string::npos, text);
    Buffer<int> out = f.realize({5, 4});
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 5; xx++) CHECK(out(xx, yy) == (xx + yy * 7) * 2);
}

TEST_CASE("a Func stored at the root and computed per row slides its window and folds its storage") {
    Buffer<uint16_t> in = random_image(41, 29, 12);
    Blur blur(in);
    blur.blur_x.store_root().compute_at(blur.blur_y, blur.y);
    const std::string text = lowered_text(blur.blur_y);
    // Each row after the first computes only the row it adds to the window ...
    CHECK_MESSAGE(text.find("let blur_x.s0.y.min.slid = select((blur_y.s0.y > ") != std::string::npos, text);
    // ... and three rows live at a time, in storage for four.
    CHECK_MESSAGE(text.find("allocate blur_x[uint16 * blur_x.realized.extent.0 * 4]") != std::string::npos,
                  text);
    check_equal<uint16_t>(blur.blur_y.realize({41, 29}), reference_blur(in));
}

TEST_CASE("sliding windows and folding stay correct under splits, tiles and parallel outer loops") {
    check_blur_schedule([](Blur& b) {
        b.blur_y.split(b.y, b.yo, b.yi, 8).parallel(b.yo);
        b.blur_x.store_at(b.blur_y, b.yo).compute_at(b.blur_y, b.yi).vectorize(b.x, 8);
    });
    check_blur_schedule([](Blur& b) {
        b.blur_y.split(b.y, b.yo, b.yi, 5, TailStrategy::GuardWithIf).parallel(b.yo);
        b.blur_x.store_root().compute_at(b.blur_y, b.yi);
    });
    check_blur_schedule([](Blur& b) {
        b.blur_y.reorder(b.y, b.x);
        b.blur_x.store_root().compute_at(b.blur_y, b.x);
    });
}

TEST_CASE("fusing loops of unknown extent, as in a parallel loop over fused tiles") {
    Func f("f"), g("g");
    Var x("x"), y("y"), xy("xy"), xi("xi"), yi("yi"), tile("tile");
    f(x, y) = 1000 * y + x;
    f.fuse(x, y, xy);
    g(x, y) = 1000 * y + x;
    g.tile(x, y, xi, yi, 4, 3).fuse(x, y, tile).parallel(tile);
    Buffer<int> a = f.realize({8, 4}), b = g.realize({10, 7});
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) CHECK_MESSAGE(a(x, y) == 1000 * y + x, "at " << x << ", " << y);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 10; x++) CHECK_MESSAGE(b(x, y) == 1000 * y + x, "at " << x << ", " << y);
}

TEST_CASE("a Func computed per row of its consumer reads no more of an input than that row needs") {
    Buffer<int> input(10, 6, "input");
    input.fill(3);
    Func g("g"), f("f");
    Var x("x"), y("y");
    g(x, y) = input(x, y) * 2;
    f(x, y) = g(x, y) + 1;
    g.compute_at(f, y);
    // Six rows of input are enough for six rows of output.
    Buffer<int> out = f.realize({10, 6});
    CHECK(out(9, 5) == 7);
}

TEST_CASE("specialize runs a differently scheduled copy where its condition holds") {
    Param<bool> fast("fast");
    Param<int> offset("offset");
    Func f("f"), g("g");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    g(x, y) = x * 3 + y + offset;
    f(x, y) = g(x, y) + g(x + 1, y);
    g.compute_root();
    f.specialize(fast).vectorize(x, 8).parallel(y);
    f.specialize(offset > 100).split(x, xo, xi, 3, TailStrategy::GuardWithIf);
    const std::string text = lowered_text(f);
    CHECK_MESSAGE(text.find("if (fast)") != std::string::npos, text);
    for (bool use_fast : {true, false}) {
        for (int off : {5, 500}) {
            fast.set(use_fast);
            offset.set(off);
            Buffer<int> out = f.realize({21, 5});
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 21; x++)
                    CHECK_MESSAGE(
                        out(x, y) == (x * 3 + y + off) + ((x + 1) * 3 + y + off),
                        "at " << x << ", " << y << " with fast = " << use_fast << ", offset = " << off);
        }
    }
}

TEST_CASE("specialize_fail makes the general case an error with the user's message") {
    Param<int> width("width");
    Func f("f");
    Var x("x");
    f(x) = x + width;
    f.specialize(width > 0);
    f.specialize_fail("width must be positive");
    width.set(3);
    Buffer<int> ok = f.realize({4});
    CHECK(ok(3) == 6);
    width.set(-1);
    std::string message;
    try {
        f.realize({4});
    } catch (const RuntimeError& e) {
        message = e.what();
    }
    CHECK_MESSAGE(message.find("width must be positive") != std::string::npos, message);
}

TEST_CASE("rfactor turns a serial sum into a parallel, vectorized one with the same result") {
    Buffer<int> in(103, 37);
    std::mt19937 rng(3);
    in.for_each_value([&](int& v) { v = int(rng() % 1000) - 500; });
    Func total("total");
    RDom r(0, 103, 0, 37, "r");
    Var u("u"), ui("ui");
    total() = 0;
    total() += in(r.x, r.y);
    Func intermediate = total.update(0).rfactor(r.y, u);
    // GuardWithIf: rounding u up would read rows of the input that do not exist.
    intermediate.compute_root()
        .update(0)
        .parallel(u, 4, TailStrategy::GuardWithIf)
        .vectorize(u, 8, TailStrategy::GuardWithIf);
    Buffer<int> out = total.realize();
    int64_t expected = 0;
    in.for_each_value([&](int v) { expected += v; });
    CHECK(out() == int(expected));
}

TEST_CASE("rfactor of a maximum per row keeps every row's answer") {
    Buffer<uint8_t> in(61, 9);
    std::mt19937 rng(4);
    in.for_each_value([&](uint8_t& v) { v = uint8_t(rng()); });
    Func m("m");
    Var y("y"), u("u");
    RDom r(0, 61, "r");
    m(y) = cast<uint8_t>(0);
    m(y) = max(m(y), in(r, y));
    RVar ro("ro"), ri("ri");
    m.update(0).split(r.x, ro, ri, 8);
    Func intermediate = m.update(0).rfactor(ri, u);
    // The intermediate's loops over the RVars that remain answer to the RVars the user split.
    intermediate.compute_root().update(0).reorder(u, ro).vectorize(u);
    Buffer<uint8_t> out = m.realize({9});
    for (int row = 0; row < 9; row++) {
        uint8_t expected = 0;
        for (int x = 0; x < 61; x++) expected = std::max(expected, in(x, row));
        CHECK_MESSAGE(out(row) == expected, "row " << row);
    }
}

TEST_CASE("in() wrappers stage a Func for one consumer or for all, scheduled on their own") {
    Buffer<uint16_t> in = random_image(45, 23, 8);
    Blur blur(in);
    Func staged = blur.blur_x.in(blur.blur_y);
    CHECK(staged.name() != blur.blur_x.name());
    CHECK(blur.blur_x.in(blur.blur_y).name() == staged.name());  // the same wrapper again
    blur.blur_x.compute_root();
    staged.compute_at(blur.blur_y, blur.y).vectorize(blur.x, 8);
    const std::string text = blur.blur_y.loop_nest();
    CHECK_MESSAGE(text.find("produce " + staged.name()) != std::string::npos, text);
    check_equal<uint16_t>(blur.blur_y.realize({45, 23}), reference_blur(in));

    Blur global(in);
    Func copy = global.clamped.in();
    copy.compute_root().parallel(copy.args()[1]);
    check_equal<uint16_t>(global.blur_y.realize({45, 23}), reference_blur(in));
}

TEST_CASE("clone_in gives the consumers named their own copy of a Func, definitions and all") {
    Func f("f"), g("g"), h("h"), out("out");
    Var x("x"), y("y");
    RDom r(0, 3, "r");
    f(x, y) = x * 3 + y;
    f(x, y) += r * (x - y);  // the clone's update must read the clone
    g(x, y) = f(x, y) + 2;
    h(x, y) = f(x + 1, y) * 5;
    out(x, y) = g(x, y) - h(x, y);
    f.compute_at(out, y);
    Func f_for_g = f.clone_in(g);
    CHECK(f.clone_in(g).name() == f_for_g.name());
    CHECK(f.in(g).name() != f_for_g.name());  // a wrapper is not the clone
    f_for_g.compute_root().vectorize(x, 4);
    const std::string nest = out.loop_nest();
    CHECK_MESSAGE(nest.find("produce " + f_for_g.name()) != std::string::npos, nest);
    CHECK_MESSAGE(nest.find("produce f:") != std::string::npos, nest);  // h still reads f itself
    Buffer<int> result = out.realize({13, 7});
    auto f_ref = [](int i, int j) { return i * 3 + j + 3 * (i - j); };
    result.for_each_element(
        [&](int i, int j) { REQUIRE(result(i, j) == (f_ref(i, j) + 2) - f_ref(i + 1, j) * 5); });
}

TEST_CASE("a specialization that does not run does not widen the region the buffers must cover") {
    ImageParam input(Int(32), 1, "input");
    Func f("f");
    Var x("x");
    f(x) = input(x) * 2;
    f.specialize(input.width() >= 8).vectorize(x, 8);
    Buffer<int> small(5);
    small.fill(1);
    input.set(small);
    Buffer<int> out = f.realize({5});
    for (int i = 0; i < 5; i++) CHECK(out(i) == 2);
    Buffer<int> large(21);
    large.fill(3);
    input.set(large);
    Buffer<int> out_large = f.realize({21});
    for (int i = 0; i < 21; i++) CHECK(out_large(i) == 6);
}

TEST_CASE("compute_at Var::outermost() computes a producer inside its consumer, outside all its loops") {
    Buffer<uint16_t> in = random_image(33, 17, 6);
    Blur blur(in);
    blur.blur_x.compute_at(blur.blur_y, Var::outermost()).vectorize(blur.x, 8);
    blur.blur_y.parallel(blur.y);
    const std::string nest = blur.blur_y.loop_nest();
    CHECK_MESSAGE(nest.find("produce blur_y:\n  produce blur_x:") != std::string::npos, nest);
    check_equal<uint16_t>(blur.blur_y.realize({33, 17}), reference_blur(in));
}

TEST_CASE("a Func stored outside the loop that computes it in rounded-up vectors keeps all it writes") {
    // Each iteration of consumer.x computes producer over 2 columns, rounded up to 14 by the vector
    // split: folding producer's storage to the 2-column window would let those 14 writes wrap
    // around onto columns still to be read.
    Func producer("producer"), consumer("consumer");
    Var x("x"), y("y");
    producer(x, y) = x * 31 + y * 7;
    consumer(x, y) = producer(x + 2, y + 1) + producer(x + 1, y - 2);
    consumer.compute_root();
    producer.compute_at(consumer, x).store_root().vectorize(x, 14, TailStrategy::RoundUp);
    Buffer<int> out = consumer.realize({26, 12});
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 26; x++)
            REQUIRE(out(x, y) == ((x + 2) * 31 + (y + 1) * 7) + ((x + 1) * 31 + (y - 2) * 7));
}

TEST_CASE("a reduction split with GuardWithIf runs its whole blocks without the guard") {
    // The width, 61 here, is known only when the pipeline runs: 8 does not divide it, and only the
    // last block of r is guarded; the others, unrolled, have no branch.
    Buffer<uint8_t> values(61, 5);
    values.for_each_element([&](int x, int y) { values(x, y) = uint8_t((x * 7 + y * 13) % 251); });
    ImageParam in(UInt(8), 2, "in");
    in.set(values);
    Func sums("sums");
    Var y("y");
    RDom r(0, in.dim(0).extent(), "r");
    RVar ro("ro"), ri("ri");
    sums(y) = 0;
    sums(y) += cast<int>(in(r, y));
    sums.update().split(r, ro, ri, 8, TailStrategy::GuardWithIf).unroll(ri);
    Buffer<int> out = sums.realize({5});
    for (int row = 0; row < 5; row++) {
        int expected = 0;
        for (int x = 0; x < 61; x++) expected += values(x, row);
        CHECK(out(row) == expected);
    }
    const std::string text = lowered_text(sums);
    CHECK(text.find("let sums.s1.r.x.ro.steady_end") != std::string::npos);
    // The guard appears once per unrolled step of the rest of the loop only.
    const std::string guard = "if (likely((sums.s1.r.x < ";
    size_t guards = 0;
    for (size_t at = text.find(guard); at != std::string::npos; at = text.find(guard, at + 1)) guards++;
    CHECK(guards == 8);
}

TEST_CASE(
    "tiles split with GuardWithIf compute their producers over whole tiles, without the guard's clamp") {
    // 8 does not divide the width: only the last tile is cut short. The producer computed per tile
    // reads a clamped input; in the tiles before the last, its region is the whole tile's and the
    // clamp's left side is gone from all but the first.
    Buffer<int> values(61, 9);
    values.for_each_element([&](int x, int y) { values(x, y) = (x * 7 + y * 13) % 251; });
    ImageParam in(Int(32), 2, "in");
    in.set(values);
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func f("f"), g("g");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    f(x, y) = clamped(x, y) * 3;
    g(x, y) = f(x - 1, y) + f(x + 1, y);
    g.split(x, xo, xi, 8, TailStrategy::GuardWithIf);
    f.compute_at(g, xo);
    Buffer<int> out = g.realize({61, 9});
    out.for_each_element([&](int px, int py) {
        auto at = [&](int qx) { return values(std::clamp(qx, 0, 60), py) * 3; };
        REQUIRE(out(px, py) == at(px - 1) + at(px + 1));
    });
    const std::string text = lowered_text(g);
    CHECK(text.find("let g.s0.x.xo.steady_end") != std::string::npos);
    CHECK(text.find("let f.s0.x.max = ((g.min.0 + (g.s0.x.xo * 8)) + 8)") != std::string::npos);
}

TEST_CASE("the last of the GuardWithIf tiles asks its producers' producers for no more than it needs") {
    // down_x is computed per tile of down and vectorized with its own guard; the image at the root
    // must span what the last, short tile reads, not a whole tile more (which, down a pyramid of
    // such levels, doubled at every level).
    static uint64_t largest = 0;
    largest = 0;
    tessera_set_custom_allocator(
        [](void*, uint64_t size) -> void* {
            largest = std::max(largest, size);
            return std::aligned_alloc(64, (size + 63) / 64 * 64);
        },
        [](void*, void* p) { std::free(p); });
    ImageParam in(Float(32), 2, "in");
    Buffer<float> values(1000, 500);
    values.for_each_element([&](int x, int y) { values(x, y) = float((x * 7 + y * 13) % 251); });
    in.set(values);
    Func image("image"), down_x("down_x"), down("down"), out("out");
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    image(x, y) = in(clamp(x, 0, 999), clamp(y, 0, 499)) * 2.0f;
    down_x(x, y) = image(2 * x - 1, y) + image(2 * x + 2, y);
    down(x, y) = down_x(x, 2 * y - 1) + down_x(x, 2 * y + 2);
    out(x, y) = down(x, y) + 1.0f;
    image.compute_root();
    down.compute_root()
        .split(x, xo, xi, 128, TailStrategy::GuardWithIf)
        .split(y, yo, yi, 64, TailStrategy::GuardWithIf)
        .reorder(xi, yi, xo, yo);
    down_x.compute_at(down, xo).vectorize(x, 16, TailStrategy::GuardWithIf);
    const Buffer<float> result = out.realize({300, 200});
    tessera_set_custom_allocator(nullptr, nullptr);
    result.for_each_element([&](int px, int py) {
        auto at = [&](int qx, int qy) {
            return values(std::clamp(qx, 0, 999), std::clamp(qy, 0, 499)) * 2.0f;
        };
        auto across = [&](int qy) { return at(2 * px - 1, qy) + at(2 * px + 2, qy); };
        REQUIRE(result(px, py) == across(2 * py - 1) + across(2 * py + 2) + 1.0f);
    });
    // image spans x in [-1, 600] and y in [-1, 400]: 602 by 402 floats.
    CHECK(largest == uint64_t(602) * 402 * sizeof(float));
}

TEST_CASE("a layout packed in blocks of the vector width is read with dense loads by aligned tiles") {
    const int n = 29, rows = 11;  // the last block of 8 columns is partial
    Buffer<int> b(n, rows);
    std::mt19937 rng(3);
    b.for_each_value([&](int& v) { v = int(rng() % 1000); });
    Func packed("packed"), f("f");
    Var x("x"), y("y"), i("i"), k("k"), block("block"), xo("xo"), xi("xi");
    // packed(i, k, block) is b(block * 8 + i, k): each block of 8 columns, row after row.
    packed(i, k, block) = b(min(block * 8 + i, n - 1), k);
    f(x, y) = packed(x % 8, y, x / 8) * 3 + 1;
    packed.compute_root();
    f.output_buffer().dim(0).set_min(0);
    f.split(x, xo, xi, 8, TailStrategy::GuardWithIf).vectorize(xi);
    Buffer<int> out = f.realize({n, rows});
    for (int row = 0; row < rows; row++) {
        for (int column = 0; column < n; column++)
            CHECK_MESSAGE(out(column, row) == b(column, row) * 3 + 1, "at " << column << ", " << row);
    }
    // Each vector of a tile lies in one block: its quotient is one value and its remainders 0..7.
    const std::string text = lowered_text(f);
    CHECK_MESSAGE(text.find("packed[ramp(") != std::string::npos, text);
    CHECK(text.find("/ x8(8)") == std::string::npos);
    CHECK(text.find("% x8(8)") == std::string::npos);
}

TEST_CASE("a vectorized blur over repeat_edge reads its interior with dense vectors, and gives the bits") {
    const int w = 67, h = 45;
    Buffer<uint16_t> in = random_image(w, h, 11);
    Blur blur(in);
    blur.blur_y.tile(blur.x, blur.y, blur.xi, blur.yi, 16, 8).vectorize(blur.xi, 8);
    blur.blur_x.compute_at(blur.blur_y, blur.x).vectorize(blur.x, 8);
    check_equal<uint16_t>(blur.blur_y.realize({w, h}), reference_blur(in));
    // In the steady tiles the input's column is blur_x's own, unclamped (a dense vector); the
    // clamps stay at the edges.
    const std::string text = lowered_text(blur.blur_y);
    CHECK_MESSAGE(std::regex_search(text, std::regex(R"(_im\$\d+\._0 = blur_x\.s0\.x in)")), text);
    CHECK(text.find("blur_y.s0.x.x.steady_start") != std::string::npos);
}

TEST_CASE(
    "vectorized reads through mirror_image and repeat_image are dense in the interior, and give the bits") {
    const int w = 53, h = 9;
    Buffer<uint16_t> in = random_image(w, h, 12);
    auto mirror = [](int i, int n) {
        const int p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p < n ? p : 2 * n - 1 - p;
    };
    auto wrap = [](int i, int n) { return ((i % n) + n) % n; };
    for (bool mirrored : {true, false}) {
        CAPTURE(mirrored);
        Func source = mirrored ? BoundaryConditions::mirror_image(in) : BoundaryConditions::repeat_image(in);
        Func f("f");
        Var x("x"), y("y");
        f(x, y) = source(x - 2, y) + source(x + 3, y - 1);
        f.vectorize(x, 8);
        Buffer<uint16_t> out = f.realize({w, h});
        for (int yy = 0; yy < h; yy++) {
            for (int xx = 0; xx < w; xx++) {
                auto at = [&](int i, int j) {
                    return mirrored ? in(mirror(i, w), mirror(j, h)) : in(wrap(i, w), wrap(j, h));
                };
                const uint16_t expected = uint16_t(at(xx - 2, yy) + at(xx + 3, yy - 1));
                CHECK_MESSAGE(out(xx, yy) == expected, "at " << xx << ", " << yy);
            }
        }
        const std::string text = lowered_text(f);
        // In the steady part the input's column is the remapped coordinate itself.
        CHECK_MESSAGE(
            std::regex_search(text, std::regex(R"(_im\$\d+\._0 = (mirror|repeat)_image_[\w$.]+ in)")), text);
    }
}

TEST_CASE(
    "a Func with an update computed per tile unrolls whole: both stages span the tile's constant region") {
    // The pure stage's loops cover what the update touches too, a max and a min of the two
    // regions, which are equal: a constant extent once the bounds are expanded.
    Func sums("sums"), out("out");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    RDom k(0, 10, "k");
    sums(x, y) = x - y;
    sums(x, y) += x * k + y;
    out(x, y) = sums(x, y) * 3;
    out.tile(x, y, xi, yi, 4, 3);
    sums.compute_at(out, x).unroll(x).unroll(y);
    sums.update().unroll(x).unroll(y);
    const Buffer<int> result = out.realize({10, 7});  // tiles shifted inwards at the edges
    for (int j = 0; j < 7; j++) {
        for (int i = 0; i < 10; i++) {
            int expected = i - j;
            for (int r = 0; r < 10; r++) expected += i * r + j;
            CHECK_MESSAGE(result(i, j) == expected * 3, "at " << i << ", " << j);
        }
    }
}
