// Pipeline::auto_schedule with the "Tessera" automatic scheduler: estimates, errors, schedules that
// compute the bits of the default schedule at sizes other than the estimates, the user's schedules
// kept, and the schedule source that gives the same code as the call.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <functional>
#include <random>
#include <string>

using namespace tessera;

namespace {

std::string compile_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const CompileError& e) {
        return e.what();
    }
    return "(no CompileError)";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

Buffer<float> random_image(int w, int h, int c, uint32_t seed) {
    Buffer<float> b(w, h, c);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(0.0f, 1.0f);
    for (int k = 0; k < c; k++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) b(x, y, k) = value(rng);
    return b;
}

// Unsharp masking of an RGB image: gray, a separable blur, a ratio applied to every channel.
struct Unsharp {
    ImageParam input{Float(32), 3, "input"};
    Func gray{"gray"}, blur_y{"blur_y"}, blur_x{"blur_x"}, ratio{"ratio"}, output{"output"};
    Var x{"x"}, y{"y"}, c{"c"};
    Unsharp() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
        blur_y(x, y) =
            (gray(x, y - 2) + 4 * gray(x, y - 1) + 6 * gray(x, y) + 4 * gray(x, y + 1) + gray(x, y + 2)) / 16;
        blur_x(x, y) = (blur_y(x - 2, y) + 4 * blur_y(x - 1, y) + 6 * blur_y(x, y) + 4 * blur_y(x + 1, y) +
                        blur_y(x + 2, y)) /
                       16;
        ratio(x, y) = (2 * gray(x, y) - blur_x(x, y)) / (gray(x, y) + 0.01f);
        output(x, y, c) = ratio(x, y) * input(x, y, c);
    }
    void estimate(int w, int h) {
        input.set_estimates({{0, w}, {0, h}, {0, 3}});
        output.set_estimates({{0, w}, {0, h}, {0, 3}});
    }
};

void check_same(const Buffer<float>& a, const Buffer<float>& b) {
    REQUIRE(a.width() == b.width());
    int differences = 0;
    for (int k = 0; k < a.channels(); k++)
        for (int y = 0; y < a.height(); y++)
            for (int x = 0; x < a.width(); x++)
                if (a(x, y, k) != b(x, y, k) && differences++ < 5)
                    FAIL_CHECK("at (" << x << ", " << y << ", " << k << "): " << a(x, y, k) << " against "
                                      << b(x, y, k));
    CHECK(differences == 0);
}

}  // namespace

TEST_CASE("an unknown automatic scheduler is a CompileError that lists the known ones") {
    Func f("f");
    Var x("x");
    f(x) = x;
    f.set_estimate(x, 0, 100);
    const std::string message =
        compile_error_of([&] { Pipeline(f).auto_schedule("Mullapudi2016", get_host_target()); });
    CHECK_MESSAGE(contains(message, "no automatic scheduler named 'Mullapudi2016'"), message);
    CHECK_MESSAGE(contains(message, "The known ones: Tessera."), message);
}

TEST_CASE("an output without an estimate is a CompileError naming the Func and the Var") {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x + y;
    f.set_estimate(x, 0, 100);
    const std::string message =
        compile_error_of([&] { Pipeline(f).auto_schedule("Tessera", get_host_target()); });
    CHECK_MESSAGE(contains(message, "the output f has no estimate for its Var y"), message);
    CHECK_MESSAGE(contains(message, "f.set_estimate(y, min, extent)"), message);
}

TEST_CASE("estimates must be integer constants, one per dimension") {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x + y;
    Param<int> n("n");
    CHECK(contains(compile_error_of([&] { f.set_estimate(x, 0, n); }), "must be integer constants"));
    CHECK(contains(compile_error_of([&] { f.set_estimate(x, 0, 0); }), "give a positive one"));
    CHECK(contains(compile_error_of([&] { f.set_estimates({{0, 10}}); }), "1 ranges for 2 dimensions"));
    ImageParam in(UInt(8), 2, "in");
    CHECK(contains(compile_error_of([&] { in.dim(2).set_estimate(0, 4); }), "no dimension 2"));
    CHECK(contains(compile_error_of([&] { in.set_estimates({{0, 4}}); }), "1 ranges for 2 dimensions"));
}

TEST_CASE("an RDom over an input's size needs the input's estimate") {
    ImageParam in(Float(32), 1, "in");
    Func total("total");
    RDom r(0, in.width(), "r");
    total() = 0.0f;
    total() += in(r);
    Func out("out");
    Var x("x");
    out(x) = total() * x;
    out.set_estimate(x, 0, 64);
    const std::string message =
        compile_error_of([&] { Pipeline(out).auto_schedule("Tessera", get_host_target()); });
    CHECK_MESSAGE(contains(message, "the RVar r.x of total"), message);
    CHECK_MESSAGE(contains(message, "without an estimate"), message);
    in.dim(0).set_estimate(0, 1000);
    Pipeline(out).auto_schedule("Tessera", get_host_target());
    Buffer<float> data(300);
    float sum = 0;
    for (int i = 0; i < 300; i++) sum += (data(i) = float(i % 7));
    in.set(data);
    Buffer<float> result = out.realize({10});
    for (int i = 0; i < 10; i++) CHECK(result(i) == sum * float(i));
}

TEST_CASE(
    "an autoscheduled unsharp mask gives the default schedule's bits at sizes other than its estimates") {
    Buffer<float> image = random_image(203, 117, 3, 7);
    Unsharp plain;
    plain.input.set(image);
    Buffer<float> expected = plain.output.realize({203, 117, 3});

    Unsharp scheduled;
    scheduled.estimate(1536, 2560);
    AutoSchedulerResults results = Pipeline(scheduled.output).auto_schedule("Tessera", get_host_target());
    CHECK(results.scheduler_name == "Tessera");
    CHECK(results.machine_params_string == "16,16777216,40");
    CHECK_MESSAGE(contains(results.schedule_source, "pipeline.get_func("), results.schedule_source);
    CHECK_MESSAGE(contains(results.schedule_source, ".parallel("), results.schedule_source);
    CHECK_MESSAGE(contains(results.schedule_source, ".vectorize("), results.schedule_source);
    scheduled.input.set(image);
    check_same(scheduled.output.realize({203, 117, 3}), expected);
    // And in the checked mode, where any access outside a Func's storage is an error.
    Buffer<float> checked(203, 117, 3);
    scheduled.output.realize(checked, get_host_target().with_feature(Target::CheckBounds));
    check_same(checked, expected);
    // A region smaller than a vector and a tile.
    Buffer<float> small = random_image(3, 2, 3, 8);
    plain.input.set(small);
    scheduled.input.set(small);
    check_same(scheduled.output.realize({3, 2, 3}), plain.output.realize({3, 2, 3}));
}

TEST_CASE("the schedule a user wrote is kept, and the rest scheduled around it") {
    Unsharp u;
    u.estimate(800, 600);
    Var xo("xo"), xi("xi");
    u.blur_y.compute_root().split(u.x, xo, xi, 5);
    Pipeline(u.output).auto_schedule("Tessera", get_host_target());
    const std::string nest = Pipeline(u.output).loop_nest();
    CHECK_MESSAGE(contains(nest, "blur_y"), nest);
    CHECK_MESSAGE(contains(nest, "xi"), nest);
    Buffer<float> image = random_image(61, 40, 3, 9);
    u.input.set(image);
    Unsharp plain;
    plain.input.set(image);
    check_same(u.output.realize({61, 40, 3}), plain.output.realize({61, 40, 3}));
}

TEST_CASE(
    "an autoscheduled matrix product accumulates register tiles of packed panels, with the default's bits") {
    // Sizes that divide neither the tile nor the vector.
    const int width = 83, height = 45, depth = 37;
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Func product("product");
    Var x("x"), y("y");
    RDom k(0, a.width(), "k");
    product(x, y) = 0.0f;
    product(x, y) += a(k, y) * b(x, k);
    product.set_estimates({{0, width}, {0, height}});
    a.set_estimates({{0, depth}, {0, height}});
    b.set_estimates({{0, width}, {0, depth}});
    Buffer<float> A = random_image(depth, height, 1, 1).sliced(2, 0),
                  B = random_image(width, depth, 1, 2).sliced(2, 0);
    a.set(A);
    b.set(B);
    Buffer<float> expected = product.realize({width, height});
    Pipeline pipeline(product);
    const AutoSchedulerResults results = pipeline.auto_schedule("Tessera", get_host_target());
    CHECK_MESSAGE(contains(results.schedule_source, "cache_write(product"), results.schedule_source);
    CHECK_MESSAGE(contains(results.schedule_source, "cache_read(pipeline.get_image_param(\"b\")"),
                  results.schedule_source);
    Buffer<float> actual = product.realize({width, height});
    Buffer<float> checked(width, height);
    product.realize(checked, get_host_target().with_feature(Target::CheckBounds));
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            CHECK_MESSAGE(actual(i, j) == expected(i, j), "at (" << i << ", " << j << ")");
            CHECK_MESSAGE(checked(i, j) == expected(i, j), "checked, at (" << i << ", " << j << ")");
        }
    }
}

TEST_CASE(
    "an autoscheduled matrix product run smaller than its estimates and its register tile keeps the "
    "default's bits") {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Func product("product");
    Var x("x"), y("y");
    RDom k(0, a.width(), "k");
    product(x, y) = 0.0f;
    product(x, y) += a(k, y) * b(x, k);
    product.set_estimates({{0, 512}, {0, 512}});
    a.set_estimates({{0, 512}, {0, 512}});
    b.set_estimates({{0, 512}, {0, 512}});
    Pipeline pipeline(product);
    const AutoSchedulerResults results = pipeline.auto_schedule("Tessera", get_host_target());
    // Register tiles for outputs at least a tile in size; guarded loops for the others.
    CHECK_MESSAGE(contains(results.schedule_source, "product.specialize(product.output_buffer()"),
                  results.schedule_source);
    Func plain("plain");
    plain(x, y) = 0.0f;
    plain(x, y) += a(k, y) * b(x, k);
    for (const auto& [width, height] : {std::pair{5, 3}, std::pair{29, 45}, std::pair{70, 6}}) {
        CAPTURE(width);
        CAPTURE(height);
        a.set(random_image(11, height, 1, 1).sliced(2, 0));
        b.set(random_image(width, 11, 1, 2).sliced(2, 0));
        Buffer<float> expected = plain.realize({width, height});
        Buffer<float> actual = product.realize({width, height});
        Buffer<float> checked(width, height);
        product.realize(checked, get_host_target().with_feature(Target::CheckBounds));
        for (int j = 0; j < height; j++) {
            for (int i = 0; i < width; i++) {
                REQUIRE(actual(i, j) == expected(i, j));
                REQUIRE(checked(i, j) == expected(i, j));
            }
        }
    }
}

TEST_CASE("a convolution read by its activation is computed per register tile, with the default's bits") {
    // Channels innermost; the sizes divide neither the vector nor the tile's rows.
    const int channels = 5, filters = 21, width = 13, height = 11, batch = 2;
    ImageParam input(Float(32), 4, "input"), filter(Float(32), 4, "filter");
    Func conv("conv"), relu("relu");
    Var c("c"), x("x"), y("y"), n("n");
    RDom r(0, channels, 0, 3, 0, 3, "r");
    conv(c, x, y, n) = 0.0f;
    conv(c, x, y, n) += filter(r.x, r.y, r.z, c) * input(r.x, x + r.y, y + r.z, n);
    relu(c, x, y, n) = max(0.0f, conv(c, x, y, n));
    relu.set_estimates({{0, filters}, {0, width}, {0, height}, {0, batch}});
    input.set_estimates({{0, channels}, {0, width + 2}, {0, height + 2}, {0, batch}});
    filter.set_estimates({{0, channels}, {0, 3}, {0, 3}, {0, filters}});
    Buffer<float> in(channels, width + 2, height + 2, batch), w(channels, 3, 3, filters);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    in.for_each_value([&](float& v) { v = value(rng); });
    w.for_each_value([&](float& v) { v = value(rng); });
    input.set(in);
    filter.set(w);
    Buffer<float> expected = relu.realize({filters, width, height, batch});
    const AutoSchedulerResults results = Pipeline(relu).auto_schedule("Tessera", get_host_target());
    CHECK_MESSAGE(contains(results.schedule_source, "conv.compute_at(relu"), results.schedule_source);
    // The weights packed with the filters innermost, as the tile's vectors read them.
    CHECK_MESSAGE(contains(results.schedule_source, "cache_read(pipeline.get_image_param(\"filter\")"),
                  results.schedule_source);
    CHECK_MESSAGE(contains(results.schedule_source, ".reorder_storage(v3, v0, v1, v2)"),
                  results.schedule_source);
    CHECK_MESSAGE(contains(results.schedule_source, ".unroll("), results.schedule_source);
    // The channels summed innermost, 5 steps, unrolled in the tile.
    CHECK_MESSAGE(contains(results.schedule_source, ".unroll(r_x)"), results.schedule_source);
    Buffer<float> actual = relu.realize({filters, width, height, batch});
    actual.for_each_element(
        [&](int i, int j, int k, int b) { REQUIRE(actual(i, j, k, b) == expected(i, j, k, b)); });
    Buffer<float> checked(filters, width, height, batch);
    relu.realize(checked, get_host_target().with_feature(Target::CheckBounds));
    checked.for_each_element(
        [&](int i, int j, int k, int b) { REQUIRE(checked(i, j, k, b) == expected(i, j, k, b)); });
}

TEST_CASE("a contraction's zero-padded input is computed once, not inlined into the reduction") {
    // A 3x3 convolution, x innermost, of an input padded by a boundary condition; the sizes divide
    // neither the vector nor the tile.
    const int width = 19, height = 7, channels = 8, filters = 10;
    ImageParam input(Float(32), 3, "input"), weights(Float(32), 4, "weights");
    Func padded =
        BoundaryConditions::constant_exterior(input, 0.0f, {{0, width}, {0, height}, {0, channels}});
    Func conv("conv");
    Var x("x"), y("y"), co("co");
    RDom r(0, 3, 0, 3, 0, channels, "r");
    conv(x, y, co) = 0.0f;
    conv(x, y, co) = fma(weights(r.x, r.y, r.z, co), padded(x + r.x - 1, y + r.y - 1, r.z), conv(x, y, co));
    input.set_estimates({{0, width}, {0, height}, {0, channels}});
    weights.set_estimates({{0, 3}, {0, 3}, {0, channels}, {0, filters}});
    conv.set_estimates({{0, width}, {0, height}, {0, filters}});
    Buffer<float> in = random_image(width, height, channels, 7), w(3, 3, channels, filters);
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    w.for_each_value([&](float& v) { v = value(rng); });
    input.set(in);
    weights.set(w);
    Buffer<float> expected = conv.realize({width, height, filters});
    const AutoSchedulerResults results = Pipeline(conv).auto_schedule("Tessera", get_host_target());
    // The boundary condition's line: its Func is named for it.
    const size_t line = results.schedule_source.find("\n    constant_exterior");
    REQUIRE_MESSAGE(line != std::string::npos, results.schedule_source);
    const std::string statement =
        results.schedule_source.substr(line, results.schedule_source.find(';', line) - line);
    CHECK_MESSAGE(contains(statement, ".compute_root()"), results.schedule_source);
    CHECK_MESSAGE(contains(results.schedule_source, "cache_write(conv"), results.schedule_source);
    check_same(conv.realize({width, height, filters}), expected);
    Buffer<float> checked(width, height, filters);
    conv.realize(checked, get_host_target().with_feature(Target::CheckBounds));
    check_same(checked, expected);
}

// A first-order recursive filter down the columns of f, forward then back, then transposed.
Func iir_columns_transposed(const Func& f, int height, const std::string& name) {
    Var x("x"), y("y"), c("c");
    Func blur(name), transposed(name + "_transposed");
    blur(x, y, c) = f(x, y, c);
    RDom down(1, height - 1, name + "_down");
    blur(x, down, c) = 0.75f * blur(x, down - 1, c) + 0.25f * f(x, down, c);
    RDom up(1, height - 1, name + "_up");
    const Expr row = height - 1 - up;
    blur(x, row, c) = 0.75f * blur(x, row + 1, c) + 0.25f * blur(x, row, c);
    transposed(x, y, c) = blur(y, x, c);
    return transposed;
}

TEST_CASE("a scan is computed per strip of the Func that transposes it, with the default's bits") {
    // Whole columns per strip: the scan runs once per column, and the strip stays in the cache.
    const int width = 600, height = 390;  // the height not a multiple of the vector width
    ImageParam input(Float(32), 3, "input");
    Var x("x"), y("y"), c("c");
    Func columns = iir_columns_transposed(input, height, "columns");
    Func rows = iir_columns_transposed(columns, width, "rows");
    Func output("output");
    output(x, y, c) = rows(x, y, c);
    output.set_estimates({{0, width}, {0, height}, {0, 3}});
    input.set_estimates({{0, width}, {0, height}, {0, 3}});
    Buffer<float> in(width, height, 3);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(0.0f, 1.0f);
    in.for_each_value([&](float& v) { v = value(rng); });
    input.set(in);
    Buffer<float> expected = output.realize({width, height, 3});
    const AutoSchedulerResults results = Pipeline(output).auto_schedule("Tessera", get_host_target());
    CHECK_MESSAGE(contains(results.schedule_source, "rows.compute_at(output"), results.schedule_source);
    Buffer<float> actual = output.realize({width, height, 3});
    actual.for_each_element([&](int i, int j, int k) { REQUIRE(actual(i, j, k) == expected(i, j, k)); });
    Buffer<float> checked(width, height, 3);
    output.realize(checked, get_host_target().with_feature(Target::CheckBounds));
    checked.for_each_element([&](int i, int j, int k) { REQUIRE(checked(i, j, k) == expected(i, j, k)); });
}

TEST_CASE("get_func names the pipeline's Funcs producers first") {
    Unsharp u;
    Pipeline p(u.output);
    std::string names;
    for (size_t i = 0; i < 7; i++) names += p.get_func(i).name() + " ";
    CHECK_MESSAGE(contains(names, "gray blur_y blur_x ratio output "), names);
    CHECK(contains(compile_error_of([&] { p.get_func(7); }), "the pipeline has 7 Funcs"));
}

TEST_CASE("get_image_param finds the ImageParam the pipeline reads by its name") {
    Unsharp u;
    Pipeline p(u.output);
    ImageParam found = p.get_image_param(u.input.name());
    CHECK(found.contents() == u.input.contents());
    const std::string error = compile_error_of([&] { p.get_image_param("nothing"); });
    CHECK_MESSAGE(contains(error, "no Func of the pipeline reads an ImageParam named nothing"), error);
}

TEST_CASE("MachineParams print and parse as Halide's do") {
    CHECK(MachineParams::generic().to_string() == "16,16777216,40");
    MachineParams m("4,1048576,20");
    CHECK(m.parallelism == 4);
    CHECK(m.last_level_cache_size == 1048576u);
    CHECK(m.balance == 20.0f);
    CHECK(contains(compile_error_of([] { MachineParams("4;1"); }),
                   "parallelism,last_level_cache_size,balance"));
    CHECK(MachineParams::host().parallelism >= 1);
}
