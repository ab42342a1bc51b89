#include "targets/aot.h"

#include <fstream>

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "targets/aot_module.h"
#include "targets/codegen_ptx.h"
#include "targets/cpu_target.h"
#include "targets/static_library.h"
#include "tessera/target.h"
#include "util/error_stream.h"

namespace tessera::targets {
namespace {

// A module with f for one target, optimized for it.
std::unique_ptr<llvm::Module> build_variant(const AotFunction& f, llvm::LLVMContext& context,
                                            const Target& target, const std::string& gpu_code) {
    const CpuTarget cpu = cpu_target_for(target);
    std::unique_ptr<llvm::TargetMachine> machine = cpu.create_target_machine();
    std::unique_ptr<llvm::Module> module = aot_module(f, context, cpu, gpu_code);
    CpuTarget::optimize(*module, *machine);
    return module;
}

void check_one_machine(const std::vector<Target>& targets) {
    TESSERA_INTERNAL_CHECK(!targets.empty()) << "ahead-of-time compilation for no target";
    for (const Target& t : targets) {
        bool same_switches = true;
        for (int f = Target::NoRuntime; f < Target::FeatureEnd; f++)
            same_switches &= t.has_feature(Target::Feature(f)) == targets[0].has_feature(Target::Feature(f));
        TESSERA_USER_CHECK(t.arch == targets[0].arch && t.bits == targets[0].bits && t.os == targets[0].os &&
                           same_switches)
            << "the targets " << targets[0].to_string() << " and " << t.to_string()
            << " of one library differ in architecture, word size, operating system, or a feature "
               "from no_runtime on (no_runtime, check_bounds, the GPU's); a library holds code for "
               "one kind of machine, with only its instruction-set features varying.";
    }
}

// f for each target, behind entry points that pick the first target the CPU supports.
std::unique_ptr<llvm::Module> build_multitarget(const AotFunction& f, llvm::LLVMContext& context,
                                                const std::vector<Target>& targets,
                                                const std::string& gpu_code) {
    std::unique_ptr<llvm::Module> module;
    std::vector<AotVariant> variants;
    for (size_t i = 0; i < targets.size(); i++) {
        AotFunction variant = f;
        variant.name = f.name + "_variant" + std::to_string(i);
        variant.body.name = variant.name + ".body";
        std::unique_ptr<llvm::Module> code = build_variant(variant, context, targets[i], gpu_code);
        if (!module) {
            module = std::move(code);
        } else {
            TESSERA_INTERNAL_CHECK(!llvm::Linker::linkModules(*module, std::move(code)))
                << "cannot link the code of " << f.name << " for " << targets[i].to_string();
        }
        uint64_t features = 0;
        for (int feature = 0; feature < Target::NoRuntime; feature++)
            if (targets[i].has_feature(Target::Feature(feature))) features |= uint64_t(1) << feature;
        variants.push_back({variant.name, features});
    }
    add_dispatcher(*module, f, variants);
    return module;
}

void write_file(const std::string& path, const std::string& contents) {
    std::ofstream out(path, std::ios::binary);
    out.write(contents.data(), std::streamsize(contents.size()));
    out.close();
    TESSERA_USER_CHECK(out) << "cannot write " << path
                            << ". Check that its directory exists and is writable.";
}

}  // namespace

std::string ptx_path(const std::string& assembly_path) {
    const size_t slash = assembly_path.find_last_of('/');
    const size_t dot = assembly_path.find_last_of('.');
    const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    return (has_extension ? assembly_path.substr(0, dot) : assembly_path) + ".ptx";
}

void compile_ahead_of_time(const AotFunction& f, const std::vector<Target>& targets, const AotFiles& files) {
    check_one_machine(targets);
    // The targets agree on the GPU (check_one_machine), so their variants share its code.
    const std::string gpu_code = f.body.kernels.empty() ? "" : codegen_ptx(f.body, targets[0]);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = targets.size() == 1
                                               ? build_variant(f, context, targets[0], gpu_code)
                                               : build_multitarget(f, context, targets, gpu_code);
    // Machine code comes from the last target's machine: each function carries its own target's
    // CPU and features, and the last target is the one every CPU the library runs on has.
    std::unique_ptr<llvm::TargetMachine> machine = cpu_target_for(targets.back()).create_target_machine();

    if (!files.llvm_assembly.empty()) {
        std::string text;
        llvm::raw_string_ostream out(text);
        module->print(out, nullptr);
        write_file(files.llvm_assembly, out.str());
    }
    if (!files.bitcode.empty()) {
        std::string bits;
        llvm::raw_string_ostream out(bits);
        llvm::WriteBitcodeToFile(*module, out);
        write_file(files.bitcode, out.str());
    }
    // Code generation changes the module, so objects and assembly are generated from copies.
    if (!files.assembly.empty()) {
        write_file(files.assembly,
                   CpuTarget::machine_code(*llvm::CloneModule(*module), *machine, /*assembly=*/true));
        if (!gpu_code.empty()) write_file(ptx_path(files.assembly), gpu_code);
    }
    if (!files.object.empty() || !files.static_library.empty()) {
        const std::string object = CpuTarget::machine_code(*module, *machine, /*assembly=*/false);
        if (!files.object.empty()) write_file(files.object, object);
        if (!files.static_library.empty())
            write_static_library(files.static_library, f.name + ".o", object, targets[0]);
    }
}

}  // namespace tessera::targets
