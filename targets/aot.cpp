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
#include "targets/cpu_target.h"
#include "targets/static_library.h"
#include "tessera/target.h"
#include "util/error_stream.h"

namespace tessera::targets {
namespace {

// Every function in one module, optimized for the target.
std::unique_ptr<llvm::Module> build_module(const std::vector<AotFunction>& functions, llvm::LLVMContext& context,
                                           const CpuTarget& cpu, llvm::TargetMachine& machine) {
    TESSERA_INTERNAL_CHECK(!functions.empty()) << "ahead-of-time compilation of no function";
    std::unique_ptr<llvm::Module> module = aot_module(functions[0], context, cpu);
    for (size_t i = 1; i < functions.size(); i++) {
        TESSERA_INTERNAL_CHECK(!llvm::Linker::linkModules(*module, aot_module(functions[i], context, cpu)))
            << "cannot link the code of " << functions[i].name << " with " << functions[0].name;
    }
    CpuTarget::optimize(*module, machine);
    return module;
}

std::string machine_code(llvm::Module& module, llvm::TargetMachine& machine, llvm::CodeGenFileType type) {
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream out(buffer);
    llvm::legacy::PassManager passes;
    TESSERA_INTERNAL_CHECK(!machine.addPassesToEmitFile(passes, out, nullptr, type))
        << "LLVM cannot emit " << (type == llvm::CodeGenFileType::ObjectFile ? "objects" : "assembly") << " for "
        << machine.getTargetTriple().str();
    passes.run(module);
    return std::string(buffer.begin(), buffer.end());
}

void write_file(const std::string& path, const std::string& contents) {
    std::ofstream out(path, std::ios::binary);
    out.write(contents.data(), std::streamsize(contents.size()));
    out.close();
    TESSERA_USER_CHECK(out) << "cannot write " << path << ". Check that its directory exists and is writable.";
}

}  // namespace

void compile_ahead_of_time(const std::vector<AotFunction>& functions, const Target& target, const AotFiles& files) {
    const CpuTarget cpu = cpu_target_for(target);
    std::unique_ptr<llvm::TargetMachine> machine = cpu.create_target_machine();
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = build_module(functions, context, cpu, *machine);

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
    // Each code generation consumes the module's machine functions, so objects and assembly are
    // generated from copies.
    if (!files.assembly.empty())
        write_file(files.assembly, machine_code(*llvm::CloneModule(*module), *machine, llvm::CodeGenFileType::AssemblyFile));
    if (!files.object.empty() || !files.static_library.empty()) {
        const std::string object = machine_code(*module, *machine, llvm::CodeGenFileType::ObjectFile);
        if (!files.object.empty()) write_file(files.object, object);
        if (!files.static_library.empty())
            write_static_library(files.static_library, functions[0].name + ".o", object, target);
    }
}

}  // namespace tessera::targets
