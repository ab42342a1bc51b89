#include "targets/cpu_target.h"

#include <algorithm>
#include <mutex>

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include "util/error_stream.h"

namespace tessera::targets {
namespace {

std::string join_features(const std::vector<std::string>& features) {
    std::string joined;
    for (const std::string& f : features) {
        if (!joined.empty()) joined += ',';
        joined += f;
    }
    return joined;
}

const llvm::Target& lookup_llvm_target(const std::string& triple) {
    initialize_llvm_all_targets();
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target) {
        std::string known;
        for (const llvm::Target& t : llvm::TargetRegistry::targets())
            known += (known.empty() ? "" : ", ") + std::string(t.getName());
        TESSERA_USER_ERROR << "this build of LLVM (" << LLVM_VERSION_STRING << ") cannot generate code for "
                           << triple << ": " << error << ". It has the targets: " << known << ".";
    }
    return *target;
}

CpuTarget query_host_cpu() {
    initialize_llvm_native_target();
    std::vector<std::string> features;
    for (const auto& entry : llvm::sys::getHostCPUFeatures())
        features.push_back((entry.getValue() ? "+" : "-") + entry.getKey().str());
    // Sorted, so that the feature string (and so any cache key built from it) is stable.
    std::sort(features.begin(), features.end());
    // Without the feature list, a CPU name alone could enable what a virtual machine disabled.
    std::string cpu = features.empty() ? "generic" : llvm::sys::getHostCPUName().str();
    return CpuTarget(llvm::sys::getProcessTriple(), cpu, std::move(features));
}

}  // namespace

void initialize_llvm_all_targets() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeAllTargetInfos();
        llvm::InitializeAllTargets();
        llvm::InitializeAllTargetMCs();
        llvm::InitializeAllAsmPrinters();
        llvm::InitializeAllAsmParsers();
    });
}

void initialize_llvm_native_target() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        llvm::InitializeNativeTargetAsmParser();
    });
}

CpuTarget::CpuTarget(std::string triple, std::string cpu, std::vector<std::string> features)
    : triple_(std::move(triple)), cpu_(std::move(cpu)), features_(std::move(features)) {
    feature_string_ = join_features(features_);
    data_layout_ = create_target_machine()->createDataLayout().getStringRepresentation();
}

bool CpuTarget::has_feature(std::string_view name) const {
    return std::any_of(features_.begin(), features_.end(), [&](const std::string& f) {
        return f.size() == name.size() + 1 && f[0] == '+' && std::string_view(f).substr(1) == name;
    });
}

int CpuTarget::natural_vector_bits() const {
    if (has_feature("avx512f") && has_feature("avx512bw")) return 512;
    if (has_feature("avx2")) return 256;
    return 128;
}

std::unique_ptr<llvm::TargetMachine> CpuTarget::create_target_machine() const {
    initialize_llvm_native_target();
    const llvm::Target& target = lookup_llvm_target(triple_);
    llvm::TargetOptions options;
    // IEEE semantics: no fused multiply-add unless the IR asks for it.
    options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
    // Position-independent, so that the same machine serves ahead-of-time static libraries.
    llvm::TargetMachine* machine =
        target.createTargetMachine(triple_, cpu_, feature_string_, options, llvm::Reloc::PIC_, std::nullopt,
                                   llvm::CodeGenOptLevel::Aggressive);
    TESSERA_INTERNAL_CHECK(machine) << "LLVM could not create a target machine for " << triple_ << " "
                                    << cpu_;
    return std::unique_ptr<llvm::TargetMachine>(machine);
}

void CpuTarget::optimize(llvm::Module& module, llvm::TargetMachine& machine) {
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::PassBuilder builder(&machine, tuning);

    llvm::LoopAnalysisManager loop_analyses;
    llvm::FunctionAnalysisManager function_analyses;
    llvm::CGSCCAnalysisManager cgscc_analyses;
    llvm::ModuleAnalysisManager module_analyses;
    builder.registerModuleAnalyses(module_analyses);
    builder.registerCGSCCAnalyses(cgscc_analyses);
    builder.registerFunctionAnalyses(function_analyses);
    builder.registerLoopAnalyses(loop_analyses);
    builder.crossRegisterProxies(loop_analyses, function_analyses, cgscc_analyses, module_analyses);

    llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    passes.run(module, module_analyses);
}

std::string CpuTarget::machine_code(llvm::Module& module, llvm::TargetMachine& machine, bool assembly) {
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream out(buffer);
    llvm::legacy::PassManager passes;
    const auto type = assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
    TESSERA_INTERNAL_CHECK(!machine.addPassesToEmitFile(passes, out, nullptr, type))
        << "LLVM cannot emit " << (assembly ? "assembly" : "objects") << " for "
        << machine.getTargetTriple().str();
    passes.run(module);
    return std::string(buffer.begin(), buffer.end());
}

const CpuTarget& host_cpu_target() {
    static const CpuTarget host = query_host_cpu();
    return host;
}

}  // namespace tessera::targets
