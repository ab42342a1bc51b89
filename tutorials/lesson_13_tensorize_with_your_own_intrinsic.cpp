// Lesson 13: tensorize, with an intrinsic of your own and with the built-in ones.
//
// Some loop nests are best left to a hand-written micro-kernel or to one special instruction.
// tensorize(var, intrinsic) replaces the loops from var inwards by such an implementation, after
// checking that they compute exactly what the intrinsic declares.
//
// An intrinsic is declared by a small Tessera definition over fixed extents, here a 4 x 4 tile of a
// matrix product accumulated over any depth:
//
//     c(i, j) = fma(a(k, j), b(i, k), c(i, j))   for k < depth, then j < 4, then i < 4
//
// and implemented by a C function that receives a view (a tessera_buffer_t) of each operand: the
// element at the tile's origin and the strides of the memory the loops touch. The compiler matches
// the schedule's loops against the declaration (their number and extents, the statement, the way
// each operand is indexed), passes the views, and keeps the original loops for tiles that the
// sizes cut short. A mismatch is a compile error that prints both loop nests.
//
// Then the same product uses intrinsics::fma_f32, a built-in register-blocked kernel that becomes
// AVX-512 (or AVX2) FMA instructions. All variants give the same bits as the plain schedule.

#include <tessera/tessera.h>
#include <chrono>
#include <cstdio>
#include <random>

using namespace tessera;

namespace {

constexpr int kWidth = 203, kHeight = 97, kDepth = 131;  // not multiples of any tile below

int tiles_computed = 0;

// The micro-kernel: what the declaration says, in the same order, so the bits are the same.
extern "C" int tile_4x4(tessera_buffer_t* a, tessera_buffer_t* b, tessera_buffer_t* c, int32_t depth) {
    tiles_computed++;
    auto at = [](tessera_buffer_t* view, int x, int y) {
        return reinterpret_cast<float*>(view->host) + x * view->dim[0].stride + y * view->dim[1].stride;
    };
    for (int k = 0; k < depth; k++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++) *at(c, i, j) = std::fma(*at(a, k, j), *at(b, i, k), *at(c, i, j));
    return 0;
}

TensorIntrinsic declare_tile_4x4() {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Param<int> depth("depth");
    Func c("c");
    Var i("i"), j("j");
    RDom k(0, depth, "k");
    c(i, j) = 0.0f;
    c(i, j) = fma(a(k, j), b(i, k), c(i, j));
    c.bound(i, 0, 4).bound(j, 0, 4);  // the tile
    c.update().reorder(i, j, k);      // the loops it replaces: k outermost, i innermost
    return TensorIntrinsic::extern_function("tile_4x4", c, {a, b}, reinterpret_cast<const void*>(&tile_4x4),
                                            {depth});
}

Buffer<float> random_matrix(int columns, int rows, unsigned seed) {
    Buffer<float> m(columns, rows);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    m.for_each_value([&](float& v) { v = dist(rng); });
    return m;
}

struct Product {
    Func a, b, c{"c"};
    Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"};
    RDom k{0, kDepth, "k"};
    Product(const Buffer<float>& a_data, const Buffer<float>& b_data) : a(a_data), b(b_data) {
        c(x, y) = 0.0f;
        c(x, y) = fma(a(k, y), b(x, k), c(x, y));
    }
};

double milliseconds(Func f, Buffer<float>& out) {
    f.realize(out);  // compiles
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 5; i++) f.realize(out);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / 5;
}

bool same(const Buffer<float>& x, const Buffer<float>& y, const char* what) {
    int differences = 0;
    for (int j = 0; j < x.height(); j++)
        for (int i = 0; i < x.width(); i++) differences += x(i, j) != y(i, j);
    std::printf("%-40s %s\n", what, differences ? "DIFFERS" : "same bits as the plain schedule");
    return differences == 0;
}

}  // namespace

int main() {
    const Buffer<float> a = random_matrix(kDepth, kHeight, 1), b = random_matrix(kWidth, kDepth, 2);
    Buffer<float> plain_out(kWidth, kHeight), own_out(kWidth, kHeight), built_in_out(kWidth, kHeight);

    Product plain(a, b);
    const double plain_ms = milliseconds(plain.c, plain_out);

    // Tiles of 4 x 4, k outside them: exactly the declaration's loops from k inwards.
    Product own(a, b);
    own.c.update().tile(own.x, own.y, own.xi, own.yi, 4, 4).reorder(own.xi, own.yi, own.k, own.x, own.y);
    own.c.update().tensorize(own.k, declare_tile_4x4());
    own.c.realize(own_out);

    // A schedule that does not match is refused, with both loop nests in the message.
    Product wrong(a, b);
    wrong.c.update()
        .tile(wrong.x, wrong.y, wrong.xi, wrong.yi, 4, 2)
        .reorder(wrong.xi, wrong.yi, wrong.k, wrong.x, wrong.y);
    wrong.c.update().tensorize(wrong.k, declare_tile_4x4());
    try {
        wrong.c.realize(own_out);
        std::printf("a 4 x 2 tile was accepted for a 4 x 4 intrinsic\n");
        return 1;
    } catch (const CompileError& e) {
        std::printf("A 4 x 2 tile is refused:\n%s\n\n", e.what());
    }

    // The built-in kernel: a 16 x 6 tile of C held in vector registers across k.
    Product built_in(a, b);
    built_in.c.update()
        .tile(built_in.x, built_in.y, built_in.xi, built_in.yi, 16, 6)
        .reorder(built_in.xi, built_in.yi, built_in.k, built_in.x, built_in.y)
        .tensorize(built_in.k, intrinsics::fma_f32(16, 6));
    const double built_in_ms = milliseconds(built_in.c, built_in_out);

    tiles_computed = 0;
    own.c.realize(own_out);
    // The whole tiles go to tile_4x4; the loops compute the rest.
    std::printf("tile_4x4 computed %d tiles of %d\n", tiles_computed, (kWidth / 4) * (kHeight / 4));
    bool ok = tiles_computed == (kWidth / 4) * (kHeight / 4);
    ok &= same(own_out, plain_out, "your own 4 x 4 intrinsic:");
    ok &= same(built_in_out, plain_out, "intrinsics::fma_f32(16, 6):");
    std::printf("plain schedule %.2f ms, fma_f32(16, 6) %.2f ms (%dx%dx%d)\n", plain_ms, built_in_ms, kWidth,
                kHeight, kDepth);
    return ok ? 0 : 1;
}
