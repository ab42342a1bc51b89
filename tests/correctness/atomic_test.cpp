// Stage::atomic(): updates of the same element from parallel iterations, each one indivisible,
// give the values of the serial update.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "tests/scratch_files.h"

using namespace tessera;

namespace {

Buffer<uint8_t> random_image(int width, int height, unsigned seed) {
    Buffer<uint8_t> im(width, height);
    std::mt19937 rng(seed);
    im.for_each_value([&](uint8_t& v) { v = uint8_t(rng() % 256); });
    return im;
}

// The assembly of f for the host.
std::string assembly_of(Func& f) {
    const std::filesystem::path path = scratch_files::fresh_dir("atomic_" + f.name()) / "f.s";
    f.compile_to_assembly(path.string(), {}, "f", get_host_target());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("a histogram updated atomically by parallel rows counts every pixel") {
    tessera_set_num_threads(2);
    Buffer<uint8_t> im = random_image(317, 211, 5);
    std::vector<int> expected(256, 0);
    im.for_each_value([&](uint8_t& v) { expected[v]++; });

    Func hist("hist");
    Var x("x");
    RDom r(0, im.width(), 0, im.height(), "r");
    hist(x) = 0;
    hist(cast<int>(im(r.x, r.y))) += 1;
    hist.update().atomic().parallel(r.y);
    // Repeated, so that rows of the two threads meet in the same bins many times over.
    for (int run = 0; run < 10; run++) {
        Buffer<int> counts = hist.realize({256});
        for (int bin = 0; bin < 256; bin++) REQUIRE_MESSAGE(counts(bin) == expected[bin], "bin " << bin);
    }
    // An integer sum is one atomic instruction, not a compare-and-swap loop.
    const std::string text = assembly_of(hist);
    CHECK(text.find("lock") != std::string::npos);
    CHECK(text.find("cmpxchg") == std::string::npos);
    tessera_set_num_threads(0);
}

TEST_CASE("atomic min, max and products in parallel and vectorized loops give the serial values") {
    tessera_set_num_threads(2);
    Buffer<uint8_t> im = random_image(123, 77, 6);
    Var x("x");
    RDom r(0, im.width(), 0, im.height(), "r");
    Expr bin = cast<int>(im(r.x, r.y)) % 7;
    Expr sample = cast<float>(r.x * 3 - r.y);
    Func largest("largest"), smallest("smallest"), parity("parity");
    largest(x) = -1e30f;
    largest(bin) = max(largest(bin), sample);
    smallest(x) = 1 << 30;
    smallest(bin) = min(smallest(bin), r.y * 1000 - r.x);
    parity(x) = 1;
    parity(bin) = parity(bin) * select(im(r.x, r.y) % 2 == 0, 1, -1);
    // The vectorized RVar runs serially inside each parallel row.
    largest.update().atomic().parallel(r.y).vectorize(r.x, 8);
    smallest.update().atomic().parallel(r.y);
    parity.update().atomic().parallel(r.y);

    std::vector<float> max_expected(7, -1e30f);
    std::vector<int> min_expected(7, 1 << 30), parity_expected(7, 1);
    for (int j = 0; j < im.height(); j++)
        for (int i = 0; i < im.width(); i++) {
            const int b = im(i, j) % 7;
            max_expected[b] = std::max(max_expected[b], float(i * 3 - j));
            min_expected[b] = std::min(min_expected[b], j * 1000 - i);
            parity_expected[b] *= im(i, j) % 2 == 0 ? 1 : -1;
        }
    // A floating-point max has no atomic instruction: a compare-and-swap loop.
    CHECK(assembly_of(largest).find("cmpxchg") != std::string::npos);
    Buffer<float> got_max = largest.realize({7});
    Buffer<int> got_min = smallest.realize({7}), got_parity = parity.realize({7});
    for (int b = 0; b < 7; b++) {
        CHECK(got_max(b) == max_expected[b]);
        CHECK(got_min(b) == min_expected[b]);
        CHECK(got_parity(b) == parity_expected[b]);
    }
    tessera_set_num_threads(0);
}

TEST_CASE("atomic() refuses updates whose order may matter unless told it does not") {
    Func f("f"), g("g");
    Var x("x");
    RDom r(0, 10, "r");
    f(x) = 0;
    f(r % 3) = f(r % 3) * 2 + r;
    CHECK_THROWS_WITH_AS(f.update().atomic(), doctest::Contains("so the order of its iterations may matter"),
                         CompileError);
    CHECK_NOTHROW(f.atomic());  // the pure definition: nothing to make atomic
    Func self_indexed("self_indexed");
    self_indexed(x) = 0;
    self_indexed(clamp(self_indexed(r), 0, 9)) = self_indexed(r) + 1;
    CHECK_THROWS_WITH_AS(self_indexed.update().atomic(true),
                         doctest::Contains("which reads self_indexed itself"), CompileError);
    // Promised: a sum of ones written as something the test does not recognize.
    g(x) = 0;
    g(r % 3) = 1 + g(r % 3) * 1;
    g.update().atomic(true).parallel(r);
    Buffer<int> counts = g.realize({3});
    CHECK(counts(0) == 4);
    CHECK(counts(1) == 3);
    CHECK(counts(2) == 3);
}
