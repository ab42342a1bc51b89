// Between Tessera's Target (architecture, OS, bits, features) and LLVM's description of a CPU
// (triple, CPU name, feature string), in both directions: the host query and code generation.

#include <algorithm>

#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include "targets/cpu_target.h"
#include "tessera/runtime.h"
#include "tessera/target.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

using Feature = Target::Feature;

// A multi-target library asks the runtime about features by their Target numbers.
static_assert(int(Target::SSE41) == tessera_feature_sse41 && int(Target::AVX2) == tessera_feature_avx2 &&
              int(Target::AVX512_Skylake) == tessera_feature_avx512_skylake &&
              int(Target::AVXVNNI) == tessera_feature_avxvnni);

// The LLVM features each x86 target feature turns on.
std::vector<std::string> x86_llvm_features(Feature f) {
    switch (f) {
        case Target::SSE41: return {"+sse4.1"};
        case Target::AVX: return {"+avx"};
        case Target::AVX2: return {"+avx2"};
        case Target::FMA: return {"+fma"};
        case Target::F16C: return {"+f16c"};
        case Target::AVX512: return {"+avx512f", "+avx512cd"};
        case Target::AVX512_Skylake: return {"+avx512f", "+avx512cd", "+avx512vl", "+avx512bw", "+avx512dq"};
        case Target::AVX512_Cannonlake:
            return {"+avx512f",  "+avx512cd",   "+avx512vl",  "+avx512bw",
                    "+avx512dq", "+avx512ifma", "+avx512vbmi"};
        case Target::AVX512_SapphireRapids:
            return {"+avx512f",    "+avx512cd",   "+avx512vl",   "+avx512bw",   "+avx512dq",
                    "+avx512ifma", "+avx512vbmi", "+avx512vnni", "+avx512bf16", "+avxvnni"};
        case Target::AVX512_VNNI: return {"+avx512f", "+avx512vnni"};
        case Target::AVX512_BF16: return {"+avx512f", "+avx512bf16"};
        case Target::AVXVNNI: return {"+avxvnni"};
        default: return {};
    }
}

std::vector<std::string> arm_llvm_features(Feature f) {
    switch (f) {
        case Target::ARMDotProd: return {"+dotprod"};
        case Target::ARMFp16: return {"+fullfp16"};
        default: return {};
    }
}

// The features from no_runtime on say what the code contains, or what GPU it drives; the ones
// before it, what the CPU has.
bool is_instruction_set_feature(Feature f) { return f < Target::NoRuntime; }

// What the target says about the CPU, without the switches of what code contains.
Target machine_of(const Target& t) {
    Target machine = t;
    for (int f = Target::NoRuntime; f < Target::FeatureEnd; f++) machine.set_feature(Feature(f), false);
    return machine;
}

void check_feature_fits_arch(const Target& t, Feature f) {
    const bool x86 = !x86_llvm_features(f).empty(), arm = !arm_llvm_features(f).empty();
    TESSERA_USER_CHECK((!x86 || t.arch == Target::X86) && (!arm || t.arch == Target::ARM))
        << "the target " << t.to_string() << " has the feature " << Target::feature_name(f)
        << ", which belongs to " << (x86 ? "x86" : "ARM") << " and not to its architecture. Remove it.";
}

Target query_host_target() {
    const llvm::Triple triple(llvm::sys::getProcessTriple());
    Target t;
    t.bits = triple.isArch64Bit() ? 64 : 32;
    if (triple.isX86())
        t.arch = Target::X86;
    else if (triple.isAArch64() || triple.isARM())
        t.arch = Target::ARM;
    if (triple.isOSLinux())
        t.os = triple.isAndroid() ? Target::Android : Target::Linux;
    else if (triple.isOSWindows())
        t.os = Target::Windows;
    else if (triple.isMacOSX())
        t.os = Target::OSX;
    TESSERA_USER_CHECK(t.defined())
        << "Tessera does not know this machine's kind, " << triple.str()
        << ": it generates code for x86 and ARM on Linux, Windows, macOS and Android.";

    const targets::CpuTarget& host = targets::host_cpu_target();
    // A feature is the host's when the CPU has every LLVM feature it stands for.
    for (int i = 0; i < Target::FeatureEnd; i++) {
        const Feature f = Feature(i);
        if (!is_instruction_set_feature(f)) continue;
        std::vector<std::string> llvm_features =
            t.arch == Target::X86 ? x86_llvm_features(f) : arm_llvm_features(f);
        if (llvm_features.empty()) continue;
        bool all = true;
        for (const std::string& name : llvm_features) all = all && host.has_feature(name.substr(1));
        if (all) t.set_feature(f);
    }
    return t;
}

}  // namespace

Target get_host_target() {
    static const Target host = query_host_target();
    return host;
}

namespace targets {

std::string llvm_triple(const Target& t) {
    TESSERA_USER_CHECK(t.defined())
        << "code generation for an undefined Target; name one, e.g. Target(\"host\").";
    if (t.arch == Target::X86) {
        const std::string cpu = t.bits == 64 ? "x86_64" : "i386";
        switch (t.os) {
            case Target::Linux: return cpu + "-unknown-linux-gnu";
            case Target::Android: return cpu + "-linux-android";
            case Target::Windows: return cpu + "-pc-windows-msvc";
            case Target::OSX: return cpu + "-apple-macosx10.15.0";
            default: break;
        }
    } else {
        const std::string cpu = t.bits == 64 ? (t.os == Target::OSX ? "arm64" : "aarch64") : "armv7a";
        switch (t.os) {
            case Target::Linux:
                return cpu + (t.bits == 64 ? "-unknown-linux-gnu" : "-unknown-linux-gnueabihf");
            case Target::Android: return cpu + (t.bits == 64 ? "-linux-android" : "-linux-androideabi");
            case Target::Windows: return cpu + "-pc-windows-msvc";
            case Target::OSX: return cpu + "-apple-macosx11.0.0";
            default: break;
        }
    }
    TESSERA_INTERNAL_ERROR << "no LLVM triple for " << t.to_string();
    return "";
}

CpuTarget cpu_target_for(const Target& target) {
    const Target machine = machine_of(target);
    if (machine == get_host_target()) return host_cpu_target();

    std::vector<std::string> features;
    for (int i = 0; i < Target::FeatureEnd; i++) {
        const Feature f = Feature(i);
        if (!machine.has_feature(f)) continue;
        check_feature_fits_arch(machine, f);
        for (const std::string& name :
             target.arch == Target::X86 ? x86_llvm_features(f) : arm_llvm_features(f))
            features.push_back(name);
    }
    std::string cpu;
    if (target.arch == Target::X86) {
        cpu = target.bits == 64 ? "x86-64" : "pentium4";
    } else {
        cpu = target.bits == 64 ? "generic" : "cortex-a9";
        features.push_back("+neon");
    }
    std::sort(features.begin(), features.end());
    features.erase(std::unique(features.begin(), features.end()), features.end());
    return CpuTarget(llvm_triple(target), cpu, std::move(features));
}

}  // namespace targets
}  // namespace tessera
