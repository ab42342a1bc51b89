// Lesson 12: staging data with cache_read, cache_write and store_in.
//
// A schedule decides not only the order of the loops but also where data waits between stages.
// Three primitives, with TVM's meaning, make that explicit:
//
//   store_in(MemoryType)            where a Func's storage lives: Heap, Stack, Register. By default
//                                   (Auto) storage of a constant size up to 16 KiB goes on the
//                                   stack and everything else on the heap.
//   cache_read(f, consumers, mem)   a new Func that copies f (a Func, a Buffer or an ImageParam)
//                                   for the consumers named; they read the copy from then on. The
//                                   copy is scheduled like any Func, and its storage layout may
//                                   differ from the source's: that is how data is packed.
//   cache_write(f, mem)             moves f's definitions to a new Func computed into local
//                                   storage; f becomes the stage that writes the result out.
//
// Halide spells a read cache in(): f.in(g) for a Func and input.in(g) for an ImageParam make the
// same kind of copy, read by g, or by every consumer when no consumer is named.
//
// The example is a small matrix product, C(j, i) = sum_k A(k, i) * B(j, k). Its inner loop walks
// down a column of B, whose elements lie a whole row apart in memory. cache_read packs B with k
// innermost, so that the walk is dense; cache_write accumulates each 8 x 4 tile of C in a small
// local buffer on the stack, and writes it to C once. Every variant gives the same bits.

#include <tessera/tessera.h>
#include <cstdio>
#include <random>

using namespace tessera;

namespace {

constexpr int kRows = 45, kColumns = 38, kDepth = 27;  // not multiples of the 8 x 4 tiles

Buffer<float> random_matrix(int columns, int rows, unsigned seed) {
    Buffer<float> m(columns, rows);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    m.for_each_value([&](float& v) { v = dist(rng); });
    return m;
}

struct Product {
    Func a, b, c{"c"};
    Var j{"j"}, i{"i"}, jo{"jo"}, io{"io"}, ji{"ji"}, ii{"ii"};
    RDom k{0, kDepth, "k"};
    Product(const Buffer<float>& a_data, const Buffer<float>& b_data) : a(a_data), b(b_data) {
        c(j, i) = 0.0f;
        c(j, i) += a(k, i) * b(j, k);
    }
};

bool same(const Buffer<float>& x, const Buffer<float>& y, const char* what) {
    int differences = 0;
    x.for_each_element([&](int p, int q) { differences += x(p, q) != y(p, q); });
    std::printf("%-48s %d of %d values differ\n", what, differences, kColumns * kRows);
    return differences == 0;
}

}  // namespace

int main() {
    Buffer<float> a = random_matrix(kDepth, kRows, 1), b = random_matrix(kColumns, kDepth, 2);

    // The plain product, for reference.
    Product plain(a, b);
    Buffer<float> expected = plain.c.realize({kColumns, kRows});

    // 1. Pack B: the copy is computed once, at the root, with k as its innermost (dense) dimension.
    Product packed(a, b);
    Func b_packed = cache_read(b, {packed.b});
    b_packed.compute_root().reorder_storage(b_packed.args()[1], b_packed.args()[0]);
    Buffer<float> packed_result = packed.c.realize({kColumns, kRows});

    // 2. Also accumulate each 8 x 4 tile of C locally, on the stack, vectorized along j. ShiftInwards
    //    keeps every tile 8 x 4 (the last ones overlap their neighbours), so the local buffer has a
    //    constant size, which the stack needs.
    Product tiled(a, b);
    Func b_tiled = cache_read(b, {tiled.b});
    b_tiled.compute_root().reorder_storage(b_tiled.args()[1], b_tiled.args()[0]);
    Func c_local = cache_write(tiled.c, MemoryType::Stack);
    tiled.c.tile(tiled.j, tiled.i, tiled.jo, tiled.io, tiled.ji, tiled.ii, 8, 4, TailStrategy::ShiftInwards);
    c_local.compute_at(tiled.c, tiled.jo);
    c_local.update().reorder(tiled.j, tiled.i, tiled.k).vectorize(tiled.j, 8);
    std::printf("The loop nest with both stages:\n%s", tiled.c.loop_nest().c_str());
    Buffer<float> tiled_result = tiled.c.realize({kColumns, kRows});

    bool ok = same(packed_result, expected, "B packed by cache_read:");
    ok = same(tiled_result, expected, "and C's tiles accumulated by cache_write:") && ok;
    std::printf(ok ? "Success!\n" : "FAILED\n");
    return ok ? 0 : 1;
}
