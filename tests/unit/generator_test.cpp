// Generators as a Halide 14 user writes them: GeneratorParams set from text (and the message for
// each kind of bad text), the order of the C function's arguments, Outputs assigned from Funcs, a
// generator run through the JIT against plain C++, and the generator driver writing files and
// refusing bad command lines.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <vector>
#include "tests/scratch_files.h"

namespace fs = std::filesystem;

namespace {

enum class Mode { Sum, Max };

// Every kind of GeneratorParam, with no `using namespace tessera` in sight: the names resolve
// inside the class as they do in Halide.
class AllParams : public tessera::Generator<AllParams> {
public:
    GeneratorParam<bool> flag{"flag", false};
    GeneratorParam<int8_t> small{"small", -3};
    GeneratorParam<uint8_t> byte{"byte", 7, 0, 200};
    GeneratorParam<int> radius{"radius", 1, 1, 8};
    GeneratorParam<uint64_t> big{"big", 5};
    GeneratorParam<float> scale{"scale", 0.5f, 0.0f, 2.0f};
    GeneratorParam<double> precise{"precise", 0.25};
    GeneratorParam<std::string> label{"label", "none"};
    GeneratorParam<Type> acc_type{"acc_type", UInt(32)};
    GeneratorParam<Target> other_target{"other_target", Target("x86-64-linux")};
    GeneratorParam<Mode> mode{"mode", Mode::Sum, {{"sum", Mode::Sum}, {"max", Mode::Max}}};
    Output<Buffer<int>> output{"output", 1};
    Var x{"x"};

    void generate() { output(x) = x * radius + small; }
};

// The blur of the task's example: a box of `radius` around each pixel in x, then in y, in the
// accumulator type, scaled by `gain`.
class Blur : public tessera::Generator<Blur> {
public:
    GeneratorParam<int> radius{"radius", 1, 1, 8};
    GeneratorParam<tessera::Type> acc_type{"acc_type", tessera::UInt(32)};
    Input<Buffer<uint16_t>> input{"input", 2};
    Input<float> gain{"gain", 1.0f, 0.0f, 4.0f};
    Output<Buffer<uint16_t>> output{"output", 2};
    Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"};
    Func clamped{"clamped"}, blur_x{"blur_x"}, blur_y{"blur_y"};

    void generate() {
        clamped = BoundaryConditions::repeat_edge(input);
        RDom r(-radius, 2 * radius + 1, "r");
        blur_x(x, y) = cast(acc_type, 0);
        blur_x(x, y) += cast(acc_type, clamped(x + r, y));
        blur_y(x, y) = cast(acc_type, 0);
        blur_y(x, y) += blur_x(x, y + r);
        const int taps = (2 * radius + 1) * (2 * radius + 1);
        output(x, y) = cast<uint16_t>(min(cast<float>(blur_y(x, y)) * gain / taps, 65535.0f));
    }
    void schedule() {
        // Estimates are for automatic schedulers: accepted, and they change nothing.
        input.set_estimates({{0, 1024}, {0, 768}});
        input.dim(0).set_estimate(0, 1024);
        output.set_estimates({{0, 1024}, {0, 768}});
        output.dim(1).set_estimate(0, 768);
        // Tiles one vector wide, whatever the target's vectors: a vector wider than its tile would
        // write past the tile (and, at the left edge, before the output).
        const int lanes = natural_vector_size<uint16_t>();
        output.tile(x, y, xi, yi, lanes, 8).vectorize(xi, lanes).parallel(y);
        blur_y.compute_at(output, x);
        blur_x.compute_at(output, x).vectorize(x, 8);
    }
};

// The order of the C function's arguments: Inputs as declared, then Outputs as declared, with the
// values of a Tuple-valued Output as name_0, name_1.
class Order : public tessera::Generator<Order> {
public:
    Input<float> a{"a"};
    Output<Buffer<float>> first{"first", 1};
    Input<Buffer<uint8_t, 2>> b{"b"};
    Input<int> c{"c", 3};
    Output<Func> pair{"pair", {Int(32), Float(32)}, 1};
    Input<Buffer<>> d{"d", Float(64), 3};
    Input<Func> e{"e", Int(16), 1};
    Var x{"x"};

    void generate() {
        first(x) = a + cast<float>(b(x, 0)) + cast<float>(d(x, 0, 0)) + cast<float>(e(x));
        pair(x) = Tuple(x + c, cast<float>(x) * a);
    }
};

// An Output assigned a Func: the pipeline computes that Func; the argument keeps the Output's name.
class Assigned : public tessera::Generator<Assigned> {
public:
    GeneratorParam<int> offset{"offset", 10};
    Input<Buffer<int32_t>> input{"input", 1};
    Output<Buffer<int32_t>> result{"result", 1};
    Var x{"x"}, xo{"xo"}, xi{"xi"};
    Func doubled{"doubled"};

    void generate() {
        doubled(x) = input(x) * 2 + offset;
        result = doubled;
    }
    void schedule() { result.split(x, xo, xi, 8, TailStrategy::GuardWithIf).vectorize(xi); }
};

// An Input used as a Func and an ImageParam, wrapped with in(); Outputs with an update and with
// no dimensions.
class Histogram : public tessera::Generator<Histogram> {
public:
    Input<Buffer<uint8_t>> input{"input", 2};
    Output<Buffer<int32_t, 1>> hist{"hist"};
    Output<int32_t> total{"total"};
    Var x{"x"};
    Func wrapper;

    void generate() {
        Func as_func = input;
        ImageParam as_param = input;
        RDom r(0, as_param.width(), 0, input.height(), "r");
        hist(x) = 0;
        hist(cast<int32_t>(as_func(r.x, r.y)) / 64) += 1;
        total() = sum(cast<int32_t>(input(r.x, r.y)));
    }
    void schedule() {
        wrapper = input.in();
        wrapper.compute_root();
        hist.compute_root().update(0);
    }
};

class Undefined : public tessera::Generator<Undefined> {
public:
    Output<Buffer<float>> out{"out", 2};
    void generate() {}
};

class WrongType : public tessera::Generator<WrongType> {
public:
    Output<Buffer<float>> out{"out", 1};
    Var x{"x"};
    void generate() { out(x) = x; }
};

class WrongDims : public tessera::Generator<WrongDims> {
public:
    Output<Func> out{"out", tessera::Int(32), 2};
    Var x{"x"};
    void generate() { out(x) = x; }
};

class DuplicateNames : public tessera::Generator<DuplicateNames> {
public:
    GeneratorParam<int> size{"size", 1};
    Input<int> other{"size"};
    Output<Buffer<int>> out{"out", 1};
    void generate() {}
};

class BadName : public tessera::Generator<BadName> {
public:
    Input<int> dashed{"not-an-identifier"};
    Output<Buffer<int>> out{"out", 1};
    void generate() {}
};

class Counting : public tessera::Generator<Counting> {
public:
    Output<Buffer<int>> out{"out", 1};
    tessera::Var x{"x"};
    int generated = 0, scheduled = 0;
    void generate() {
        generated++;
        out(x) = x;
    }
    void schedule() { scheduled++; }
};

template <typename G>
std::unique_ptr<G> make() {
    return G::create(tessera::GeneratorContext(tessera::get_host_target()));
}

// The message of the CompileError fn throws ("" if none).
template <typename Fn>
std::string error_of(Fn&& fn) {
    try {
        fn();
    } catch (const tessera::CompileError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TESSERA_REGISTER_GENERATOR(Blur, blur)
TESSERA_REGISTER_GENERATOR(Order, order)
TESSERA_REGISTER_GENERATOR(Assigned, assigned)

using namespace tessera;

TEST_CASE("GeneratorParams of every kind take values from text") {
    auto g = make<AllParams>();
    CHECK(g->flag == false);
    CHECK(int(g->small) == -3);
    CHECK(g->label.value() == "none");
    g->set_generator_param_values({{"flag", "true"},
                                   {"small", "-128"},
                                   {"byte", "200"},
                                   {"radius", "8"},
                                   {"big", "18446744073709551615"},
                                   {"scale", "1.75"},
                                   {"precise", "-1e-3"},
                                   {"label", "hello world"},
                                   {"acc_type", "float64"},
                                   {"other_target", "arm-64-linux"},
                                   {"mode", "max"},
                                   {"machine_params", "32,16777216,40"}});
    CHECK(g->flag.value());
    CHECK(g->small.value() == -128);
    CHECK(g->byte.value() == 200);
    CHECK(g->radius.value() == 8);
    CHECK(g->big.value() == UINT64_MAX);
    CHECK(g->scale.value() == 1.75f);
    CHECK(g->precise.value() == -1e-3);
    CHECK(std::string(g->label) == "hello world");
    CHECK(Type(g->acc_type) == Float(64));
    CHECK(Target(g->other_target).arch == Target::ARM);
    CHECK(g->mode.value() == Mode::Max);
    // Numbers read as their values in C++ and in Exprs.
    CHECK(g->radius * 2 == 16);
    CHECK(g->radius + g->small == -120);
    CHECK(min(g->radius, 3) == 3);
    Expr e = g->radius;
    CHECK(e.type() == Int(32));
    // The current values as text, built-ins included.
    auto values = g->generator_param_values();
    std::map<std::string, std::string> by_name(values.begin(), values.end());
    CHECK(by_name["mode"] == "max");
    CHECK(by_name["acc_type"] == "float64");
    CHECK(by_name["scale"] == "1.75");
    CHECK(by_name["auto_schedule"] == "false");
    CHECK(by_name.count("target") == 1);
    CHECK(by_name.count("machine_params") == 1);
    CHECK(by_name["autoscheduler"] == "");
    CHECK(values.front().first == "flag");
    CHECK(values.back().first == "autoscheduler");

    Buffer<int> out = g->build_pipeline().realize({5});
    for (int i = 0; i < 5; i++) CHECK(out(i) == i * 8 - 128);
}

TEST_CASE("an unknown GeneratorParam is an error that lists the known ones") {
    auto g = GeneratorRegistry::create("blur", GeneratorContext(get_host_target()));
    std::string message = error_of([&] { g->set_generator_param_values({{"raduis", "2"}}); });
    CHECK(contains(message, "Generator 'blur' has no GeneratorParam 'raduis'"));
    CHECK(contains(
        message,
        "Its GeneratorParams: radius, acc_type, target, auto_schedule, machine_params, autoscheduler."));
}

TEST_CASE("a value that does not parse names the parameter and the type") {
    auto g = make<AllParams>();
    auto message = [&](const std::string& name, const std::string& value) {
        return error_of([&] { g->set_generator_param(name, value); });
    };
    CHECK(contains(message("radius", "two"), "GeneratorParam 'radius': cannot parse \"two\" as int32"));
    CHECK(contains(message("radius", "2.5"), "as int32"));
    CHECK(contains(message("radius", ""), "cannot parse \"\" as int32"));
    CHECK(contains(message("flag", "yes"),
                   "GeneratorParam 'flag': cannot parse \"yes\" as bool (true or false)"));
    CHECK(contains(message("scale", "1.0x"), "cannot parse \"1.0x\" as float32"));
    CHECK(contains(message("scale", "nan"), "as float32"));
    CHECK(contains(message("acc_type", "uint7"), "cannot parse \"uint7\" as Type (bool, int8"));
    CHECK(contains(message("mode", "min"), "cannot parse \"min\" as one of max, sum"));
    CHECK(contains(message("other_target", "x86-65-linux"),
                   "GeneratorParam 'other_target': \"x86-65-linux\" is not a target"));
    CHECK(contains(message("target", "host-avx9000"), "\"host-avx9000\" is not a target"));
    // The parameters keep their values after a failure.
    CHECK(g->radius.value() == 1);
    CHECK(g->flag.value() == false);
}

TEST_CASE("a value out of range names the range") {
    auto g = make<AllParams>();
    auto message = [&](const std::string& name, const std::string& value) {
        return error_of([&] { g->set_generator_param(name, value); });
    };
    CHECK(
        contains(message("radius", "9"), "GeneratorParam 'radius': 9 is out of range: it must be in [1, 8]"));
    CHECK(contains(message("radius", "0"), "[1, 8]"));
    CHECK(contains(message("byte", "201"), "[0, 200]"));
    CHECK(contains(message("byte", "300"), "the range of uint8, [0, 255]"));
    CHECK(contains(message("byte", "-1"), "the range of uint8"));
    CHECK(contains(message("small", "128"), "the range of int8, [-128, 127]"));
    CHECK(contains(message("big", "18446744073709551616"), "the range of uint64"));
    CHECK(contains(message("scale", "2.5"), "2.5 is out of range: it must be in [0, 2]"));
    CHECK(contains(message("radius", "99999999999999999999"), "the range of int32"));
    CHECK(g->radius.value() == 1);
}

TEST_CASE("auto_schedule=true or autoscheduler=<name> turn the automatic scheduler on") {
    auto g = make<Blur>();
    CHECK_FALSE(g->using_autoscheduler());
    g->set_generator_param("auto_schedule", "true");
    CHECK(g->using_autoscheduler());
    auto h = make<Blur>();
    h->set_generator_param("autoscheduler", "Tessera");
    CHECK(h->using_autoscheduler());
    std::string message = error_of([&] { h->set_generator_param("machine_params", "16;1M"); });
    CHECK(contains(message, "expected \"parallelism,last_level_cache_size,balance\""));
    auto c = Blur::create(GeneratorContext(get_host_target(), true, MachineParams(4, 1 << 20, 20)));
    CHECK(c->using_autoscheduler());
    CHECK(c->context().machine_params().to_string() == "4,1048576,20");
}

TEST_CASE("the target comes from the context and is a GeneratorParam") {
    const Target arm("arm-64-linux");
    auto g = Blur::create(GeneratorContext(arm));
    CHECK(g->get_target() == arm);
    CHECK(g->natural_vector_size<uint16_t>() == 8);
    CHECK(g->context().target() == arm);
    g->set_generator_param("target", "x86-64-linux-avx2");
    CHECK(g->get_target().has_feature(Target::AVX2));
    CHECK(g->natural_vector_size<float>() == 8);
    CHECK(make<Blur>()->get_target() == get_host_target());
}

TEST_CASE("GeneratorParams cannot change once the generator is built") {
    auto g = make<AllParams>();
    g->build();
    std::string message = error_of([&] { g->set_generator_param("radius", "2"); });
    CHECK(contains(message, "GeneratorParam 'radius' cannot change once the generator is built"));
}

TEST_CASE("build() runs generate() and schedule() once") {
    auto g = make<Counting>();
    g->build();
    g->build();
    Pipeline p = g->build_pipeline();
    CHECK(g->generated == 1);
    CHECK(g->scheduled == 1);
    CHECK(p.outputs().size() == 1);
}

TEST_CASE("the C function takes the Inputs in declaration order, then the Outputs") {
    auto g = GeneratorRegistry::create("order", GeneratorContext(get_host_target()));
    CHECK(g->generator_name() == "order");
    std::vector<Argument> args = g->input_arguments();
    REQUIRE(args.size() == 5);
    CHECK(args[0].name == "a");
    CHECK_FALSE(args[0].is_buffer);
    CHECK(args[0].type == Float(32));
    CHECK(args[1].name == "b");
    CHECK(args[1].is_buffer);
    CHECK(args[1].type == UInt(8));
    CHECK(args[1].dimensions == 2);
    CHECK(args[2].name == "c");
    CHECK(args[2].type == Int(32));
    CHECK(args[3].name == "d");
    CHECK(args[3].type == Float(64));
    CHECK(args[3].dimensions == 3);
    CHECK(args[4].name == "e");
    CHECK(args[4].type == Int(16));
    CHECK(args[4].dimensions == 1);
    CHECK(g->output_argument_names() == std::vector<std::string>{"first", "pair_0", "pair_1"});
    std::vector<Func> outputs = g->build_pipeline().outputs();
    REQUIRE(outputs.size() == 2);
    CHECK(outputs[0].name() == "first");
    CHECK(outputs[1].outputs() == 2);
}

TEST_CASE("an Output assigned a Func computes that Func and keeps its own name") {
    auto g = make<Assigned>();
    g->set_generator_param_values({{"offset", "-5"}});
    Pipeline p = g->build_pipeline();
    CHECK(g->output_funcs()[0].name() == "doubled");
    CHECK(g->output_argument_names() == std::vector<std::string>{"result"});
    CHECK(g->result.name() == "result");
    CHECK(g->result.type() == Int(32));
    Buffer<int32_t> in(37);
    for (int i = 0; i < 37; i++) in(i) = i * i - 100;
    g->input.set(in);
    Buffer<int32_t> out = p.realize({37});
    for (int i = 0; i < 37; i++) CHECK_MESSAGE(out(i) == (i * i - 100) * 2 - 5, "at x = " << i);
    // The generator realizes its own Pipeline too, the one build_pipeline() returned.
    Buffer<int32_t> again = g->realize({37});
    for (int i = 0; i < 37; i++) CHECK(again(i) == out(i));
}

TEST_CASE("a generator runs through the JIT and matches plain C++") {
    const int width = 53, height = 29;  // neither divides the tiles (16 or 32 x 8)
    std::mt19937 rng(7);
    Buffer<uint16_t> in(width, height);
    in.for_each_value([&](uint16_t& v) { v = uint16_t(rng() % 4096); });

    for (int radius : {1, 2}) {
        auto g = make<Blur>();
        g->set_generator_param_values({{"radius", std::to_string(radius)}, {"acc_type", "uint32"}});
        Pipeline p = g->build_pipeline();
        g->input.set(in);
        g->gain.set(1.5f);
        Buffer<uint16_t> out = p.realize({width, height});

        const int taps = (2 * radius + 1) * (2 * radius + 1);
        auto at = [&](int x, int y) {
            return uint32_t(in(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1)));
        };
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                uint32_t sum = 0;
                for (int dy = -radius; dy <= radius; dy++)
                    for (int dx = -radius; dx <= radius; dx++) sum += at(x + dx, y + dy);
                const uint16_t expected = uint16_t(std::min(float(sum) * 1.5f / float(taps), 65535.0f));
                CHECK_MESSAGE(out(x, y) == expected, "radius " << radius << " at (" << x << ", " << y << ")");
            }
        }
    }
}

TEST_CASE("Input<float> keeps its range: a value outside it is refused when the pipeline runs") {
    auto g = make<Blur>();
    Pipeline p = g->build_pipeline();
    Buffer<uint16_t> in(8, 8);
    g->input.set(in);
    g->gain.set(5.0f);
    CHECK_THROWS_AS(p.realize({8, 8}), RuntimeError);
}

TEST_CASE("an Input reads as a Func and an ImageParam; Outputs may have updates or no dimensions") {
    auto g = make<Histogram>();
    CHECK(g->input.dimensions() == 2);
    CHECK(g->input.type() == UInt(8));
    CHECK(g->total.dimensions() == 0);
    CHECK(g->hist.type() == Int(32));
    Pipeline p = g->build_pipeline();
    Buffer<uint8_t> in(23, 11);
    std::mt19937 rng(5);
    in.for_each_value([&](uint8_t& v) { v = uint8_t(rng()); });
    g->input.set(in);
    Buffer<int32_t> hist(4);
    Buffer<int32_t> total = Buffer<int32_t>::make_scalar();
    p.realize(Realization(hist, total));
    int expected_hist[4] = {0, 0, 0, 0}, expected_total = 0;
    in.for_each_value([&](uint8_t v) {
        expected_hist[v / 64]++;
        expected_total += v;
    });
    for (int i = 0; i < 4; i++) CHECK_MESSAGE(hist(i) == expected_hist[i], "bin " << i);
    CHECK(total() == expected_total);
    CHECK(g->output_argument_names() == std::vector<std::string>{"hist", "total"});
}

TEST_CASE("Outputs must be defined with their declared type and dimensions") {
    CHECK(contains(
        error_of([] { make<Undefined>()->build(); }),
        "Output 'out' is not defined: generate() must define it (out(x, y) = ...) or assign a Func"));
    CHECK(contains(error_of([] { make<WrongType>()->build(); }),
                   "Output 'out' is declared as float32, but it computes int32"));
    CHECK(contains(error_of([] { make<WrongDims>()->build(); }),
                   "Output 'out' is declared with 2 dimensions, but it has 1"));
    // A failed build stays failed.
    auto g = make<Undefined>();
    CHECK_THROWS_AS(g->build(), CompileError);
    CHECK(contains(error_of([&] { g->build_pipeline(); }), "failed to build earlier"));
}

TEST_CASE("members need distinct C identifiers as names, inside a Generator") {
    CHECK(contains(error_of([] { make<DuplicateNames>(); }),
                   "Input 'size' has the name of another member of its generator"));
    CHECK(contains(
        error_of([] { make<BadName>(); }),
        "Input 'not-an-identifier': the name of a GeneratorParam, Input or Output must be a C identifier"));
    CHECK(contains(error_of([] { GeneratorParam<int> loose("loose", 1); }),
                   "GeneratorParam 'loose' is not a member of a Generator"));
    CHECK(contains(error_of([] { GeneratorInput<float> loose("loose"); }), "Input 'loose' is not a member"));
    // A failed construction leaves nothing behind: the next generator is built as usual.
    CHECK(make<Counting>() != nullptr);
}

TEST_CASE("the registry creates generators by name and lists them") {
    std::vector<std::string> names = GeneratorRegistry::enumerate();
    CHECK(std::count(names.begin(), names.end(), "blur") == 1);
    CHECK(std::count(names.begin(), names.end(), "order") == 1);
    CHECK(std::is_sorted(names.begin(), names.end()));
    std::string message =
        error_of([] { GeneratorRegistry::create("blurr", GeneratorContext(get_host_target())); });
    CHECK(contains(message, "there is no generator 'blurr'"));
    CHECK(contains(message, "assigned, blur"));
    CHECK(
        contains(error_of([] { GeneratorRegistry::register_factory("blur", nullptr); }), "registered twice"));
    CHECK(contains(error_of([] { GeneratorRegistry::register_factory("two words", nullptr); }),
                   "must be a C identifier"));
}

namespace {

using scratch_files::read_file;

struct DriverResult {
    int status;
    std::string out, err;
};

// Runs generator_main in this process with the given arguments, capturing what it prints.
DriverResult run_driver(std::vector<std::string> args) {
    args.insert(args.begin(), "generator_test");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
    std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
    int status = generator_main(int(argv.size()), argv.data());
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    return {status, out.str(), err.str()};
}

fs::path scratch_dir(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("tessera_generator_test_" + name);
    fs::remove_all(dir);
    return dir;
}

}  // namespace

TEST_CASE("the driver writes the files asked for, with the generator's C signature") {
    const fs::path dir = scratch_dir("blur");
    DriverResult r = run_driver({"-g", "blur", "-o", dir.string(), "-e", "h,o,static_library", "-f",
                                 "blur_2x", "target=host", "radius=2", "acc_type=uint32"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    CHECK(fs::exists(dir / "blur_2x.o"));
    CHECK(read_file(dir / "blur_2x.a").substr(0, 8) == "!<arch>\n");
    const std::string header = read_file(dir / "blur_2x.h");
    CHECK(contains(header, "int blur_2x(tessera_buffer_t* input, float gain, tessera_buffer_t* output);"));
    CHECK_FALSE(fs::exists(dir / "blur_2x.s"));
}

TEST_CASE("the driver writes one library for several targets, built for the first") {
    const fs::path dir = scratch_dir("multitarget");
    DriverResult r =
        run_driver({"-g", "blur", "-o", dir.string(), "-e", "static_library,h",
                    "target=x86-64-linux-avx512-avx512_skylake,x86-64-linux-avx2-fma,x86-64-linux"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(read_file(dir / "blur.a").substr(0, 8) == "!<arch>\n");
    CHECK(contains(read_file(dir / "blur.h"),
                   "int blur(tessera_buffer_t* input, float gain, tessera_buffer_t* output);"));
}

TEST_CASE("the driver names files after -n and writes every kind of file") {
    const fs::path dir = scratch_dir("kinds");
    DriverResult r = run_driver({"-g", "order", "-o", dir.string(), "-n", "base", "-e",
                                 "c_header,object,assembly,llvm_assembly,bitcode,stmt,stmt_html"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    for (const char* file :
         {"base.h", "base.o", "base.s", "base.ll", "base.bc", "base.stmt", "base.stmt.html"})
        CHECK_MESSAGE(fs::exists(dir / file), file);
    // The function is named after the generator, its arguments in declaration order.
    CHECK(contains(
        read_file(dir / "base.h"),
        "int order(float a, tessera_buffer_t* b, int32_t c, tessera_buffer_t* d, tessera_buffer_t* e, "
        "tessera_buffer_t* first, tessera_buffer_t* pair_0, tessera_buffer_t* pair_1);"));
}

TEST_CASE("an Output assigned a Func keeps its name in the C signature") {
    const fs::path dir = scratch_dir("assigned");
    DriverResult r = run_driver({"-g", "assigned", "-o", dir.string(), "-e", "h"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(read_file(dir / "assigned.h"),
                   "int assigned(tessera_buffer_t* input, tessera_buffer_t* result);"));
}

TEST_CASE("the driver lists the generators and prints its usage") {
    DriverResult r = run_driver({"-l"});
    CHECK(r.status == 0);
    CHECK(r.out == "assigned\nblur\norder\n");
    r = run_driver({"-h"});
    CHECK(r.status == 0);
    CHECK(contains(r.out, "Usage:"));
    r = run_driver({});
    CHECK(r.status == 1);
    CHECK(contains(r.err, "Usage:"));
}

TEST_CASE("the driver refuses bad command lines with one message and status 1") {
    const std::string dir = scratch_dir("errors").string();
    auto refused = [&](std::vector<std::string> args, const std::string& message) {
        DriverResult r = run_driver(args);
        CHECK(r.status == 1);
        CHECK_MESSAGE(contains(r.err, message), r.err);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.err.rfind("Error: ", 0) == 0);
    };
    refused({"-g", "blurr", "-o", dir},
            "there is no generator 'blurr': the registered generators are: assigned, "
            "blur, order.");
    refused({"-o", dir},
            "-g <generator> is required: this program registers 3 generators: assigned, blur, order.");
    refused({"-g", "blur"}, "-o <output directory> is required");
    refused({"-g", "blur", "-o", dir, "raduis=3"}, "Generator 'blur' has no GeneratorParam 'raduis'");
    refused({"-g", "blur", "-o", dir, "radius=30"}, "30 is out of range: it must be in [1, 8]");
    refused({"-g", "blur", "-o", dir, "radius=three"}, "cannot parse \"three\" as int32");
    refused({"-g", "blur", "-o", dir, "machine_params=lots"},
            "expected \"parallelism,last_level_cache_size,balance\"");
    // (compile_ahead_of_time writes the header before it compares the targets: another directory.)
    refused(
        {"-g", "blur", "-o", scratch_dir("mixed_targets").string(), "target=x86-64-linux-avx2,arm-64-linux"},
        "differ in architecture, word size, operating system, or a feature from no_runtime on");
    refused({"-g", "blur", "-o", dir, "target=sparc-64-linux"}, "\"sparc-64-linux\" is not a target");
    refused({"-g", "blur", "-o", dir, "-e", "h,cpp_stub"}, "-e: unknown kind of file 'cpp_stub'");
    refused({"-g", "blur", "-o", dir, "-f", "not-a-name"},
            "-f not-a-name: the function name must be a C identifier");
    refused({"-g", "blur", "-o", dir, "--verbose"}, "unexpected argument '--verbose'");
    refused({"-g", "blur", "-o"}, "the option -o needs a value");
    refused({"-g", "blur", "-o", dir, "radius=2", "radius=3"}, "the parameter radius is given twice");
    CHECK_FALSE(fs::exists(fs::path(dir) / "blur.h"));
}
