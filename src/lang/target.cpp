#include "tessera/target.h"

#include <array>
#include <cstdlib>
#include <map>
#include <sstream>

#include "tessera/runtime.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

struct NamedFeature {
    Target::Feature feature;
    const char* name;
};

// In the order of the enum, which is the order to_string() prints.
constexpr std::array<NamedFeature, Target::FeatureEnd> feature_names{{
    {Target::SSE41, "sse41"},
    {Target::AVX, "avx"},
    {Target::AVX2, "avx2"},
    {Target::FMA, "fma"},
    {Target::F16C, "f16c"},
    {Target::AVX512, "avx512"},
    {Target::AVX512_Skylake, "avx512_skylake"},
    {Target::AVX512_Cannonlake, "avx512_cannonlake"},
    {Target::AVX512_SapphireRapids, "avx512_sapphirerapids"},
    {Target::AVX512_VNNI, "avx512_vnni"},
    {Target::AVX512_BF16, "avx512_bf16"},
    {Target::AVXVNNI, "avxvnni"},
    {Target::ARMDotProd, "arm_dot_prod"},
    {Target::ARMFp16, "arm_fp16"},
    {Target::NoRuntime, "no_runtime"},
    {Target::CheckBounds, "check_bounds"},
    {Target::CUDA, "cuda"},
    {Target::CUDACapability75, "cuda_capability_75"},
    {Target::CUDACapability80, "cuda_capability_80"},
    {Target::CUDACapability86, "cuda_capability_86"},
    {Target::CUDACapability89, "cuda_capability_89"},
    {Target::CUDACapability90, "cuda_capability_90"},
    {Target::GPUEmulation, "gpu_emulation"},
}};

// The capability features, lowest first, with their capabilities.
constexpr std::array<std::pair<Target::Feature, int>, 5> cuda_capabilities{{
    {Target::CUDACapability75, 75},
    {Target::CUDACapability80, 80},
    {Target::CUDACapability86, 86},
    {Target::CUDACapability89, 89},
    {Target::CUDACapability90, 90},
}};

std::vector<std::string> split_on_dash(const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream stream(s);
    std::string part;
    while (std::getline(stream, part, '-')) parts.push_back(part);
    return parts;
}

std::string known_features() {
    std::string list;
    for (const NamedFeature& f : feature_names) list += (list.empty() ? "" : ", ") + std::string(f.name);
    return list;
}

bool parse_arch(const std::string& s, Target::Arch* arch) {
    static const std::map<std::string, Target::Arch> names{{"x86", Target::X86}, {"arm", Target::ARM}};
    auto it = names.find(s);
    if (it == names.end()) return false;
    *arch = it->second;
    return true;
}

bool parse_os(const std::string& s, Target::OS* os) {
    static const std::map<std::string, Target::OS> names{{"linux", Target::Linux},
                                                         {"windows", Target::Windows},
                                                         {"osx", Target::OSX},
                                                         {"android", Target::Android}};
    auto it = names.find(s);
    if (it == names.end()) return false;
    *os = it->second;
    return true;
}

const char* arch_name(Target::Arch a) {
    switch (a) {
        case Target::X86: return "x86";
        case Target::ARM: return "arm";
        default: return "unknown";
    }
}

const char* os_name(Target::OS os) {
    switch (os) {
        case Target::Linux: return "linux";
        case Target::Windows: return "windows";
        case Target::OSX: return "osx";
        case Target::Android: return "android";
        default: return "unknown";
    }
}

// The capability of this machine's GPU, for "host-cuda" without one named: the highest of the
// known capabilities the device has, when a device answers (else the default, 75, stands).
void add_device_capability(Target* target) {
    for (const auto& [feature, value] : cuda_capabilities)
        if (target->has_feature(feature)) return;
    int32_t device = 0;
    if (tessera_cuda_device_capability(&device) != 0) return;
    const Target::Feature* highest = nullptr;
    for (const auto& [feature, value] : cuda_capabilities)
        if (value <= device) highest = &feature;
    if (highest) target->set_feature(*highest);
}

// Parses description into target, or returns why it cannot.
std::string parse_target(const std::string& description, Target* target) {
    const std::string syntax =
        " A target is \"host\", \"host-<features>\" or \"<arch>-<bits>-<os>[-<feature>...]\", e.g. "
        "\"x86-64-linux-avx2-fma\" or \"arm-64-linux\".";
    std::vector<std::string> parts = split_on_dash(description);
    if (parts.empty() || parts[0].empty()) return "empty target." + syntax;
    size_t next = 0;
    if (parts[0] == "host") {
        *target = get_host_target();
        next = 1;
    } else {
        if (parts.size() < 3) return "\"" + description + "\" names no architecture, bits and os." + syntax;
        if (!parse_arch(parts[0], &target->arch))
            return "unknown architecture \"" + parts[0] + "\" (known: x86, arm)." + syntax;
        if (parts[1] != "32" && parts[1] != "64")
            return "unknown word size \"" + parts[1] + "\" (known: 32, 64)." + syntax;
        target->bits = std::atoi(parts[1].c_str());
        if (!parse_os(parts[2], &target->os))
            return "unknown operating system \"" + parts[2] + "\" (known: linux, windows, osx, android)." +
                   syntax;
        next = 3;
    }
    for (; next < parts.size(); next++) {
        Target::Feature f;
        if (!Target::feature_from_name(parts[next], &f))
            return "unknown feature \"" + parts[next] + "\". Known features: " + known_features() + ".";
        target->set_feature(f);
    }
    if (parts[0] == "host" && target->has_feature(Target::CUDA)) add_device_capability(target);
    return "";
}

Target target_from_variable(const char* variable) {
    const char* value = std::getenv(variable);
    if (!value || !*value) return get_host_target();
    Target t;
    std::string error = parse_target(value, &t);
    TESSERA_USER_CHECK(error.empty()) << "the environment variable " << variable << " holds \"" << value
                                      << "\", which is not a target: " << error;
    return t;
}

}  // namespace

Target::Target(OS os_, Arch arch_, int bits_, const std::vector<Feature>& features)
    : os(os_), arch(arch_), bits(bits_) {
    set_features(features);
}

Target::Target(const std::string& description) {
    std::string error = parse_target(description, this);
    TESSERA_USER_CHECK(error.empty()) << "cannot parse the target \"" << description << "\": " << error;
}

bool Target::features_all_of(const std::vector<Feature>& fs) const {
    for (Feature f : fs)
        if (!has_feature(f)) return false;
    return true;
}

bool Target::features_any_of(const std::vector<Feature>& fs) const {
    for (Feature f : fs)
        if (has_feature(f)) return true;
    return false;
}

void Target::set_feature(Feature f, bool value) {
    TESSERA_USER_CHECK(f >= 0 && f < FeatureEnd)
        << "Target::set_feature of an unknown feature " << int(f) << ".";
    const uint64_t bit = uint64_t(1) << f;
    features_ = value ? features_ | bit : features_ & ~bit;
}

void Target::set_features(const std::vector<Feature>& fs, bool value) {
    for (Feature f : fs) set_feature(f, value);
}

Target Target::with_feature(Feature f) const {
    Target t = *this;
    t.set_feature(f);
    return t;
}

Target Target::without_feature(Feature f) const {
    Target t = *this;
    t.set_feature(f, false);
    return t;
}

std::string Target::to_string() const {
    std::string s = std::string(arch_name(arch)) + "-" + std::to_string(bits) + "-" + os_name(os);
    for (const NamedFeature& f : feature_names)
        if (has_feature(f.feature)) s += "-" + std::string(f.name);
    return s;
}

bool Target::validate_target_string(const std::string& s) {
    Target t;
    return parse_target(s, &t).empty();
}

std::string Target::feature_name(Feature f) {
    return f >= 0 && f < FeatureEnd ? feature_names[f].name : "unknown";
}

bool Target::feature_from_name(const std::string& s, Feature* f) {
    for (const NamedFeature& named : feature_names) {
        if (s == named.name) {
            *f = named.feature;
            return true;
        }
    }
    return false;
}

int Target::cuda_capability() const {
    int capability = 75;
    for (const auto& [feature, value] : cuda_capabilities)
        if (has_feature(feature)) capability = value;
    return capability;
}

int Target::natural_vector_size(const Type& t) const {
    const int element_bytes = t.bytes();
    int vector_bytes = 16;
    if (arch == X86) {
        if (has_feature(AVX512_Skylake) || (t.is_float() && has_feature(AVX512)))
            vector_bytes = 64;
        else if (has_feature(AVX2) || (t.is_float() && has_feature(AVX)))
            vector_bytes = 32;
    }
    return element_bytes > 0 ? vector_bytes / element_bytes : 1;
}

Target get_target_from_environment() { return target_from_variable("TESSERA_TARGET"); }

Target get_jit_target_from_environment() { return target_from_variable("TESSERA_JIT_TARGET"); }

}  // namespace tessera
