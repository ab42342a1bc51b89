// Lesson 11: cross-compilation.
//
// Ahead-of-time compilation is not tied to the machine that runs the compiler. A Target names the
// machine the code is for: an architecture, a word size, an operating system and the instruction
// set features code may use, as text ("arm-64-linux", "x86-64-linux-avx2-fma") or as fields. The
// same pipeline and schedule compile for each; only the machine code differs.
//
// This lesson writes one pipeline as an object file for this machine, for 64-bit ARM Linux, for
// x86-64 Windows and for an x86-64 CPU with AVX-512, and checks each file's header to see that it
// is what was asked for. The tutorial's test then disassembles the ARM object with llvm-objdump.
//
// A static library also carries the runtime, which is built for the machine Tessera runs on; for
// another machine, compile with the feature no_runtime and link a runtime built there, or use
// objects as here.

#include <tessera/tessera.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

using namespace tessera;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

uint16_t little_endian_16(const std::string& bytes, size_t at) {
    return uint16_t(uint8_t(bytes[at]) | (uint8_t(bytes[at + 1]) << 8));
}

// ELF files start with 0x7f 'E' 'L' 'F'; the 16-bit machine field is at byte 18. COFF objects
// (Windows) start with the 16-bit machine field itself.
bool check_elf(const std::string& path, uint16_t machine, const char* what) {
    const std::string bytes = read_file(path);
    const bool ok = bytes.size() > 20 &&
                    bytes.compare(0, 4,
                                  "\x7f"
                                  "ELF") == 0 &&
                    little_endian_16(bytes, 18) == machine;
    std::printf("%s: %s object for %s\n", path.c_str(), ok ? "an ELF" : "NOT the expected", what);
    return ok;
}

bool check_coff(const std::string& path, uint16_t machine, const char* what) {
    const std::string bytes = read_file(path);
    const bool ok = bytes.size() > 2 && little_endian_16(bytes, 0) == machine;
    std::printf("%s: %s object for %s\n", path.c_str(), ok ? "a COFF" : "NOT the expected", what);
    return ok;
}

// The pipeline: brighten an 8-bit image by a scalar factor, in vectors as wide as the target's
// registers (16 bytes with SSE and NEON, 32 with AVX2, 64 with AVX-512).
struct Brighter {
    ImageParam input{UInt(8), 2, "input"};
    Param<uint8_t> factor{"factor"};
    Func f{"brighter"};
    Var x{"x"}, y{"y"};
    explicit Brighter(const Target& target) {
        f(x, y) = cast<uint8_t>(min(cast<uint16_t>(input(x, y)) * factor / 16, 255));
        f.vectorize(x, target.natural_vector_size<uint8_t>()).parallel(y);
    }
    void compile_to_object(const std::string& path, const Target& target) {
        f.compile_to_object(path, {input, factor}, "brighter", target);
    }
};

}  // namespace

int main() {
    const char* dir_variable = std::getenv("TESSERA_OUTPUT_DIR");
    const std::string dir = dir_variable ? dir_variable : ".";

    // For the machine this runs on: Target("host"), the default of get_target_from_environment().
    Brighter(get_host_target()).compile_to_object(dir + "/lesson_11_host.o", get_host_target());
    std::printf("host target: %s\n", get_host_target().to_string().c_str());

    // For 64-bit ARM Linux, from text.
    const Target arm("arm-64-linux");
    Brighter(arm).compile_to_object(dir + "/lesson_11_arm_64_linux.o", arm);

    // For x86-64 Windows, from fields.
    Target windows;
    windows.os = Target::Windows;
    windows.arch = Target::X86;
    windows.bits = 64;
    windows.set_features({Target::SSE41, Target::AVX, Target::AVX2});
    Brighter(windows).compile_to_object(dir + "/lesson_11_x86_64_windows.obj", windows);

    // For an x86-64 Linux CPU with AVX-512, whether or not this one has it: its code uses 512-bit
    // registers, which the assembly shows.
    const Target avx512("x86-64-linux-sse41-avx-avx2-fma-avx512-avx512_skylake");
    Brighter avx512_brighter(avx512);
    avx512_brighter.f.compile_to_assembly(
        dir + "/lesson_11_avx512.s", {avx512_brighter.input, avx512_brighter.factor}, "brighter", avx512);
    const bool uses_zmm = read_file(dir + "/lesson_11_avx512.s").find("zmm") != std::string::npos;
    std::printf("%s/lesson_11_avx512.s: %s 512-bit registers\n", dir.c_str(),
                uses_zmm ? "uses" : "does NOT use");

    bool ok = uses_zmm;
    ok = check_elf(dir + "/lesson_11_host.o", 62, "x86-64") && ok;            // EM_X86_64
    ok = check_elf(dir + "/lesson_11_arm_64_linux.o", 183, "AArch64") && ok;  // EM_AARCH64
    ok = check_coff(dir + "/lesson_11_x86_64_windows.obj", 0x8664, "x86-64 Windows") && ok;

    // Asking for a feature Tessera does not know is an error that lists the ones it does.
    try {
        Target unknown("arm-64-linux-sve9");
        ok = false;
    } catch (const CompileError& e) {
        std::printf("as expected: %s\n", e.what());
    }

    std::printf(ok ? "Success!\n" : "FAILED\n");
    return ok ? 0 : 1;
}
