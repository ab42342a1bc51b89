// Targets: parsing and printing, the host query, the CPU each target maps to in LLVM, and the
// errors for what Tessera or LLVM does not know.

#include <doctest/doctest.h>

#include "targets/cpu_target.h"
#include "tessera/tessera.h"

using namespace tessera;

TEST_CASE("a target string parses and prints back canonically") {
    Target t("x86-64-linux-fma-avx2-sse41");
    CHECK(t.arch == Target::X86);
    CHECK(t.bits == 64);
    CHECK(t.os == Target::Linux);
    CHECK(t.has_feature(Target::AVX2));
    CHECK(t.has_feature(Target::FMA));
    CHECK(t.has_feature(Target::SSE41));
    CHECK_FALSE(t.has_feature(Target::AVX512));
    // Features print in one order whatever order they were given in.
    CHECK(t.to_string() == "x86-64-linux-sse41-avx2-fma");
    CHECK(Target(t.to_string()) == t);

    Target arm("arm-64-linux-arm_dot_prod");
    CHECK(arm.arch == Target::ARM);
    CHECK(arm.has_feature(Target::ARMDotProd));
    CHECK(arm.to_string() == "arm-64-linux-arm_dot_prod");

    for (const char* s :
         {"x86-64-linux-avx512-avx512_vnni-avx512_bf16", "x86-64-windows", "x86-32-linux-sse41", "arm-64-osx",
          "arm-32-android", "x86-64-linux-avx512_sapphirerapids-no_runtime"}) {
        CAPTURE(s);
        CHECK(Target::validate_target_string(s));
        CHECK(Target(s).to_string() == s);
    }
}

TEST_CASE("features are set, cleared and queried as a set") {
    Target t(Target::Linux, Target::X86, 64, {Target::AVX, Target::AVX2});
    CHECK(t.features_all_of({Target::AVX, Target::AVX2}));
    CHECK_FALSE(t.features_all_of({Target::AVX, Target::FMA}));
    CHECK(t.features_any_of({Target::FMA, Target::AVX2}));
    Target u = t.with_feature(Target::FMA).without_feature(Target::AVX);
    CHECK(u.to_string() == "x86-64-linux-avx2-fma");
    CHECK(t.to_string() == "x86-64-linux-avx-avx2");
    CHECK(u != t);
    CHECK_FALSE(Target().defined());
    CHECK(u.defined());
}

TEST_CASE("the natural vector size follows the widest registers of the target") {
    CHECK(Target("x86-64-linux-sse41").natural_vector_size<float>() == 4);
    CHECK(Target("x86-64-linux-avx2").natural_vector_size<uint16_t>() == 16);
    CHECK(Target("x86-64-linux-avx-avx2-avx512-avx512_skylake").natural_vector_size<int32_t>() == 16);
    CHECK(Target("arm-64-linux").natural_vector_size<uint8_t>() == 16);
}

TEST_CASE("host is this machine, with the features LLVM reports for its CPU") {
    const Target host = get_host_target();
    CHECK(host.defined());
    CHECK(Target("host") == host);
    CHECK(Target("host-no_runtime") == host.with_feature(Target::NoRuntime));
    const targets::CpuTarget& cpu = targets::host_cpu_target();
    CHECK(host.has_feature(Target::AVX2) == cpu.has_feature("avx2"));
    CHECK(host.has_feature(Target::FMA) == cpu.has_feature("fma"));
    CHECK(host.has_feature(Target::SSE41) == cpu.has_feature("sse4.1"));
    MESSAGE("host target: " << host.to_string());
}

TEST_CASE("code for the host target is generated for exactly the CPU the JIT uses") {
    const targets::CpuTarget& jit = targets::host_cpu_target();
    for (const Target& t :
         {get_host_target(), Target("host-no_runtime"), Target(get_host_target().to_string())}) {
        CAPTURE(t.to_string());
        const targets::CpuTarget aot = targets::cpu_target_for(t);
        CHECK(aot.triple() == jit.triple());
        CHECK(aot.cpu() == jit.cpu());
        CHECK(aot.feature_string() == jit.feature_string());
    }
}

TEST_CASE("other targets map to a generic CPU of their architecture with exactly their features") {
    const targets::CpuTarget arm = targets::cpu_target_for(Target("arm-64-linux-arm_dot_prod"));
    CHECK(arm.triple() == "aarch64-unknown-linux-gnu");
    CHECK(arm.has_feature("neon"));
    CHECK(arm.has_feature("dotprod"));
    const targets::CpuTarget x86 =
        targets::cpu_target_for(Target("x86-64-linux-sse41-avx-avx2-fma-avx512_skylake"));
    CHECK(x86.triple() == "x86_64-unknown-linux-gnu");
    CHECK(x86.cpu() == "x86-64");
    CHECK(x86.has_feature("avx512bw"));
    CHECK(x86.has_feature("fma"));
    CHECK_FALSE(x86.has_feature("avx512vnni"));
    CHECK(x86.natural_vector_bits() == 512);
    CHECK(targets::cpu_target_for(Target("x86-64-windows")).triple() == "x86_64-pc-windows-msvc");
}

TEST_CASE("an unknown feature, architecture or os is an error that names it") {
    CHECK_THROWS_WITH_AS(Target("x86-64-linux-avx3"), doctest::Contains("unknown feature \"avx3\""),
                         CompileError);
    CHECK_THROWS_WITH_AS(Target("x86-64-linux-avx3"), doctest::Contains("avx512_vnni"), CompileError);
    CHECK_THROWS_WITH_AS(Target("mips-64-linux"), doctest::Contains("unknown architecture \"mips\""),
                         CompileError);
    CHECK_THROWS_WITH_AS(Target("x86-48-linux"), doctest::Contains("unknown word size \"48\""), CompileError);
    CHECK_THROWS_WITH_AS(Target("x86-64-plan9"), doctest::Contains("unknown operating system \"plan9\""),
                         CompileError);
    CHECK_THROWS_WITH_AS(Target("host-fast"), doctest::Contains("unknown feature \"fast\""), CompileError);
    CHECK_FALSE(Target::validate_target_string("x86-64"));
    CHECK_FALSE(Target::validate_target_string(""));
}

TEST_CASE("a feature of another architecture is an error when code is generated") {
    CHECK_THROWS_WITH_AS(targets::cpu_target_for(Target("arm-64-linux-avx2")),
                         doctest::Contains("the feature avx2, which belongs to x86"), CompileError);
}

TEST_CASE("a target this build of LLVM lacks is an error that lists the targets it has") {
    CHECK_THROWS_WITH_AS(targets::CpuTarget("nonexistent-unknown-linux-gnu", "generic", {}),
                         doctest::Contains("cannot generate code for nonexistent-unknown-linux-gnu"),
                         CompileError);
    CHECK_THROWS_WITH_AS(targets::CpuTarget("nonexistent-unknown-linux-gnu", "generic", {}),
                         doctest::Contains("x86-64"), CompileError);
}

TEST_CASE("the JIT refuses a target this machine cannot run") {
    Func f("f");
    Var x("x");
    f(x) = x;
    CHECK_THROWS_WITH_AS(f.realize({4}, Target("arm-64-linux")), doctest::Contains("cannot JIT-compile"),
                         CompileError);
    if (!get_host_target().has_feature(Target::AVX512_Skylake)) {
        CHECK_THROWS_WITH_AS(f.realize({4}, get_host_target().with_feature(Target::AVX512_Skylake)),
                             doctest::Contains("without avx512_skylake"), CompileError);
    }
    Buffer<int> out = f.realize({4}, get_host_target());
    CHECK(out(3) == 3);
}
