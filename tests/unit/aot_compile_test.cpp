// Ahead-of-time compilation to files: what each compile_to_* writes, and the errors for arguments
// that do not match the pipeline. The libraries themselves are linked and run by tests/aot.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessera/tessera.h"
#include "tests/scratch_files.h"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

using scratch_files::read_file;

fs::path scratch_dir(const std::string& name) { return scratch_files::fresh_dir("aot_compile_" + name); }

struct Brighten {
    ImageParam input{UInt(16), 2, "input"};
    Param<float> gain{"gain"};
    Func f{"brighten"};
    Var x{"x"}, y{"y"};
    Brighten() { f(x, y) = cast<uint16_t>(min(input(x, y) * gain, 65535.0f)); }
};

uint16_t elf_machine(const std::string& object) {
    REQUIRE(object.size() > 20);
    REQUIRE(object.substr(0, 4) ==
            "\x7f"
            "ELF");
    return uint16_t(uint8_t(object[18]) | (uint8_t(object[19]) << 8));
}

}  // namespace

TEST_CASE("compile_to_static_library writes an archive with the runtime and a C header") {
    const fs::path dir = scratch_dir("library");
    Brighten b;
    b.f.compile_to_static_library((dir / "brighten").string(), {b.input, b.gain}, "brighten");
    const std::string header = read_file(dir / "brighten.h");
    CHECK(header.find("#include <tessera/runtime.h>") != std::string::npos);
    CHECK(header.find("int brighten(tessera_buffer_t* input, float gain, tessera_buffer_t* brighten);") !=
          std::string::npos);
    CHECK(header.find("int brighten_argv(void** args);") != std::string::npos);
    CHECK(header.find("extern \"C\"") != std::string::npos);
    const std::string archive = read_file(dir / "brighten.a");
    CHECK(archive.substr(0, 8) == "!<arch>\n");
    CHECK(archive.find("brighten.o") != std::string::npos);
    CHECK(archive.find("thread_pool") != std::string::npos);
}

TEST_CASE("a static library for no_runtime leaves the runtime out") {
    const fs::path dir = scratch_dir("no_runtime");
    Brighten b;
    b.f.compile_to_static_library((dir / "brighten").string(), {b.input, b.gain}, "brighten",
                                  get_host_target().with_feature(Target::NoRuntime));
    const std::string archive = read_file(dir / "brighten.a");
    CHECK(archive.find("brighten.o") != std::string::npos);
    CHECK(archive.find("thread_pool") == std::string::npos);
}

TEST_CASE("objects, assembly and LLVM IR are written for the host and for other machines") {
    const fs::path dir = scratch_dir("files");
    Brighten b;
    b.f.compile_to_object((dir / "host.o").string(), {b.input, b.gain}, "brighten_host", get_host_target());
    CHECK(elf_machine(read_file(dir / "host.o")) == 62);  // EM_X86_64
    b.f.compile_to_object((dir / "arm.o").string(), {b.input, b.gain}, "brighten_arm",
                          Target("arm-64-linux"));
    CHECK(elf_machine(read_file(dir / "arm.o")) == 183);  // EM_AARCH64
    b.f.compile_to_assembly((dir / "brighten.s").string(), {b.input, b.gain}, "brighten", get_host_target());
    CHECK(read_file(dir / "brighten.s").find("brighten:") != std::string::npos);
    b.f.compile_to_llvm_assembly((dir / "brighten.ll").string(), {b.input, b.gain}, "brighten",
                                 get_host_target());
    CHECK(read_file(dir / "brighten.ll").find("define i32 @brighten(ptr") != std::string::npos);
    b.f.compile_to_bitcode((dir / "brighten.bc").string(), {b.input, b.gain}, "brighten", get_host_target());
    CHECK(read_file(dir / "brighten.bc").substr(0, 2) == "BC");
    b.f.compile_to_file((dir / "both").string(), {b.input, b.gain}, "brighten", get_host_target());
    CHECK(fs::exists(dir / "both.o"));
    CHECK(fs::exists(dir / "both.h"));
}

TEST_CASE("every output of a pipeline and every Tuple element is a buffer argument after the inputs") {
    const fs::path dir = scratch_dir("outputs");
    ImageParam in(Float(32), 1, "in");
    Param<int8_t> bias("bias");
    Param<bool> negate("negate");
    Param<double> scale("scale");
    Func pair("pair"), single("single");
    Var x("x");
    pair(x) = Tuple(in(x)*cast<float>(scale), cast<int32_t>(in(x)) + bias);
    single(x) = select(negate, -in(x), in(x));
    Pipeline({pair, single})
        .compile_to_header((dir / "p.h").string(), {scale, in, bias, negate}, "two_outputs");
    CHECK(read_file(dir / "p.h")
              .find("int two_outputs(double scale, tessera_buffer_t* in, int8_t bias, bool negate, "
                    "tessera_buffer_t* pair_0, tessera_buffer_t* pair_1, "
                    "tessera_buffer_t* single);") != std::string::npos);
}

TEST_CASE("an input Buffer not among the arguments is compiled into the code") {
    const fs::path dir = scratch_dir("constant");
    Buffer<uint8_t> lut(256, "lut");
    for (int i = 0; i < 256; i++) lut(i) = uint8_t(255 - i);
    ImageParam in(UInt(8), 1, "in");
    Func f("apply_lut");
    Var x("x");
    f(x) = lut(cast<int32_t>(in(x)));
    f.compile_to_header((dir / "lut.h").string(), {in}, "apply_lut");
    CHECK(
        read_file(dir / "lut.h").find("int apply_lut(tessera_buffer_t* in, tessera_buffer_t* apply_lut);") !=
        std::string::npos);
    f.compile_to_llvm_assembly((dir / "lut.ll").string(), {in}, "apply_lut", get_host_target());
    // The table's bytes are in the module: 255, 254, ... as the start of an i8 array.
    CHECK(read_file(dir / "lut.ll").find("lut.data") != std::string::npos);
}

TEST_CASE("arguments that do not match the pipeline are errors that name them") {
    const fs::path dir = scratch_dir("errors");
    Brighten b;
    const std::string prefix = (dir / "brighten").string();
    CHECK_THROWS_WITH_AS(b.f.compile_to_static_library(prefix, {b.input}, "brighten"),
                         doctest::Contains("reads Param gain (float32), which is not among its arguments"),
                         CompileError);
    CHECK_THROWS_WITH_AS(b.f.compile_to_static_library(prefix, {b.gain}, "brighten"),
                         doctest::Contains("ImageParam input (uint16, 2 dimensions), which is not among"),
                         CompileError);
    Param<int> wrong_gain("gain");
    CHECK_THROWS_WITH_AS(b.f.compile_to_static_library(prefix, {b.input, wrong_gain}, "brighten"),
                         doctest::Contains("the argument gain of brighten is a scalar int32"), CompileError);
    ImageParam wrong_input(UInt(16), 3, "input");
    CHECK_THROWS_WITH_AS(b.f.compile_to_static_library(prefix, {wrong_input, b.gain}, "brighten"),
                         doctest::Contains("3 dimensions"), CompileError);
    CHECK_THROWS_WITH_AS(b.f.compile_to_static_library(prefix, {b.input, b.gain}, "3d-brighten"),
                         doctest::Contains("\"3d-brighten\" is not a C identifier"), CompileError);
    CHECK_THROWS_WITH_AS(b.f.compile_to_static_library(prefix, {b.input, b.gain, b.gain}, "brighten"),
                         doctest::Contains("two arguments of brighten are named gain"), CompileError);
    CHECK_THROWS_WITH_AS(b.f.compile_to_static_library((dir / "missing" / "brighten").string(),
                                                       {b.input, b.gain}, "brighten", get_host_target()),
                         doctest::Contains("cannot write"), CompileError);
}

TEST_CASE("a static library for another machine needs no_runtime, since the runtime is built for this one") {
    const fs::path dir = scratch_dir("cross");
    Brighten b;
    CHECK_THROWS_WITH_AS(b.f.compile_to_static_library((dir / "arm").string(), {b.input, b.gain}, "brighten",
                                                       Target("arm-64-linux")),
                         doctest::Contains("arm-64-linux-no_runtime"), CompileError);
    b.f.compile_to_static_library((dir / "arm").string(), {b.input, b.gain}, "brighten",
                                  Target("arm-64-linux-no_runtime"));
    CHECK(fs::exists(dir / "arm.a"));
}

TEST_CASE("the targets of one library must be one kind of machine") {
    const fs::path dir = scratch_dir("multitarget");
    Brighten b;
    CHECK_THROWS_WITH_AS(Pipeline(b.f).compile_to_multitarget_static_library(
                             (dir / "brighten").string(), {b.input, b.gain},
                             {Target("arm-64-linux-no_runtime"), Target("x86-64-linux-no_runtime")}),
                         doctest::Contains("differ in architecture"), CompileError);
    Pipeline(b.f).compile_to_multitarget_static_library(
        (dir / "brighten").string(), {b.input, b.gain},
        {Target("x86-64-linux-avx2"), Target("x86-64-linux")});
    CHECK(read_file(dir / "brighten.h").find("int brighten(tessera_buffer_t* input, float gain") !=
          std::string::npos);
}

TEST_CASE("the runtime's CPU query agrees with the host target") {
    const Target host = get_host_target();
    for (int f = 0; f < Target::NoRuntime; f++) {
        CAPTURE(Target::feature_name(Target::Feature(f)));
        if (host.arch == Target::X86)
            CHECK(tessera_can_use_target_features(uint64_t(1) << f) ==
                  int(host.has_feature(Target::Feature(f))));
    }
}
