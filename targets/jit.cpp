#include "targets/jit.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "targets/codegen_llvm.h"
#include "targets/codegen_ptx.h"
#include "targets/cpu_target.h"
#include "tessera/runtime.h"
#include "tessera/target.h"
#include "util/error_stream.h"

namespace tessera::targets {

namespace {
class JitEngine;
}

struct JITModule::Resources {
    JitEngine* engine = nullptr;
    llvm::orc::JITDylib* dylib = nullptr;
};

namespace {

// One LLJIT per CPU target the process compiles for (usually only the host). Each pipeline gets a
// JITDylib of its own (so that pipelines may share a name), linked against one that holds the
// runtime's entry points and the symbols of the process (libm, libc).
class JitEngine {
public:
    static JitEngine& get(const CpuTarget& target) {
        static std::mutex mutex;
        // Never destroyed: pipelines may still run, or be released, during static destruction.
        static auto* engines = new std::map<std::string, JitEngine*>();
        std::lock_guard<std::mutex> lock(mutex);
        JitEngine*& engine = (*engines)[key(target)];
        if (!engine) engine = new JitEngine(target);
        return *engine;
    }
    static std::string key(const CpuTarget& target) {
        return target.triple() + " " + target.cpu() + " " + target.feature_string();
    }

    // Links the object file into a new JITDylib and returns the address of its function `name`.
    // The object is generated before, outside the lock, so that threads compile pipelines at once.
    JITModule::Entry load(const std::string& object, const std::string& name,
                          const std::map<std::string, const void*>& extern_symbols,
                          llvm::orc::JITDylib*& dylib) {
        std::lock_guard<std::mutex> lock(mutex_);
        llvm::Expected<llvm::orc::JITDylib&> created =
            jit_->createJITDylib("tessera pipeline " + std::to_string(next_id_++) + ": " + name);
        TESSERA_INTERNAL_CHECK(created)
            << "cannot create a JITDylib: " << llvm::toString(created.takeError());
        dylib = &*created;
        dylib->addToLinkOrder(*runtime_);
        if (!extern_symbols.empty()) {
            llvm::orc::SymbolMap symbols;
            for (const auto& [symbol, address] : extern_symbols) {
                symbols[jit_->mangleAndIntern(symbol)] = llvm::orc::ExecutorSymbolDef(
                    llvm::orc::ExecutorAddr::fromPtr(address),
                    llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
            }
            llvm::Error error = dylib->define(llvm::orc::absoluteSymbols(std::move(symbols)));
            TESSERA_INTERNAL_CHECK(!error)
                << "cannot define " << name << "'s extern symbols: " << llvm::toString(std::move(error));
        }
        if (llvm::Error error =
                jit_->addObjectFile(*dylib, llvm::MemoryBuffer::getMemBufferCopy(object, name))) {
            std::string message = llvm::toString(std::move(error));
            unload_locked(dylib);
            TESSERA_INTERNAL_ERROR << "cannot add " << name << " to the JIT: " << message;
        }
        // The lookup links the object; it fails when the code calls a function nobody defines.
        llvm::Expected<llvm::orc::ExecutorAddr> address = jit_->lookup(*dylib, name);
        if (!address) {
            std::string message = llvm::toString(address.takeError());
            unload_locked(dylib);
            TESSERA_USER_ERROR << "the pipeline " << name << " could not be compiled: " << message;
        }
        return address->toPtr<JITModule::Entry>();
    }

    void unload(llvm::orc::JITDylib* dylib) {
        std::lock_guard<std::mutex> lock(mutex_);
        unload_locked(dylib);
    }

private:
    explicit JitEngine(const CpuTarget& target) {
        initialize_llvm_native_target();
        llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(target.triple())};
        machine.setCPU(target.cpu());
        llvm::StringRef features = target.feature_string();
        llvm::SmallVector<llvm::StringRef, 64> feature_list;
        features.split(feature_list, ',', -1, /*KeepEmpty=*/false);
        for (llvm::StringRef f : feature_list) machine.getFeatures().AddFeature(f);
        machine.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);

        llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
            llvm::orc::LLJITBuilder()
                .setJITTargetMachineBuilder(std::move(machine))
                .setLinkProcessSymbolsByDefault(false)
                // Pipelines have no static constructors or destructors to run.
                .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                .create();
        TESSERA_INTERNAL_CHECK(jit) << "cannot create the JIT: " << llvm::toString(jit.takeError());
        jit_ = std::move(*jit);
        // Failed lookups come back to load() as errors, which it throws; ORC need not print them.
        jit_->getExecutionSession().setErrorReporter(
            [](llvm::Error error) { llvm::consumeError(std::move(error)); });

        runtime_ = &jit_->getExecutionSession().createBareJITDylib("tessera runtime");
        define_runtime_symbols();
        // The runtime is a static library, so dlsym might not see it; everything else (libm,
        // libc, user functions called by Extern calls) comes from the process.
        auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
            jit_->getDataLayout().getGlobalPrefix());
        TESSERA_INTERNAL_CHECK(process)
            << "cannot search this process for symbols: " << llvm::toString(process.takeError());
        runtime_->addGenerator(std::move(*process));
    }

    void define_runtime_symbols() {
        llvm::orc::SymbolMap symbols;
        auto define = [&](const char* name, auto* function) {
            symbols[jit_->mangleAndIntern(name)] =
                llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr::fromPtr(function),
                                             llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
        };
        define("tessera_malloc", &tessera_malloc);
        define("tessera_free", &tessera_free);
        define("tessera_error_begin", &tessera_error_begin);
        define("tessera_error_append_string", &tessera_error_append_string);
        define("tessera_error_append_int", &tessera_error_append_int);
        define("tessera_error_append_uint", &tessera_error_append_uint);
        define("tessera_error_append_float", &tessera_error_append_float);
        define("tessera_error_end", &tessera_error_end);
        define("tessera_print_begin", &tessera_print_begin);
        define("tessera_print_append_string", &tessera_print_append_string);
        define("tessera_print_append_int", &tessera_print_append_int);
        define("tessera_print_append_uint", &tessera_print_append_uint);
        define("tessera_print_append_float", &tessera_print_append_float);
        define("tessera_print_end", &tessera_print_end);
        define("tessera_do_par_for", &tessera_do_par_for);
        define("tessera_set_error_handler", &tessera_set_error_handler);
        define("tessera_set_custom_allocator", &tessera_set_custom_allocator);
        define("tessera_set_num_threads", &tessera_set_num_threads);
        define("tessera_can_use_target_features", &tessera_can_use_target_features);
        define("tessera_cuda_device_interface", &tessera_cuda_device_interface);
        define("tessera_cuda_initialize_kernels", &tessera_cuda_initialize_kernels);
        define("tessera_cuda_run", &tessera_cuda_run);
        define("tessera_device_malloc", &tessera_device_malloc);
        define("tessera_device_free", &tessera_device_free);
        define("tessera_copy_to_device", &tessera_copy_to_device);
        define("tessera_copy_to_host", &tessera_copy_to_host);
        llvm::Error error = runtime_->define(llvm::orc::absoluteSymbols(std::move(symbols)));
        TESSERA_INTERNAL_CHECK(!error)
            << "cannot define the runtime's symbols: " << llvm::toString(std::move(error));
    }

    void unload_locked(llvm::orc::JITDylib* dylib) {
        if (llvm::Error error = jit_->getExecutionSession().removeJITDylib(*dylib))
            llvm::consumeError(std::move(error));
    }

    std::mutex mutex_;
    std::unique_ptr<llvm::orc::LLJIT> jit_;
    llvm::orc::JITDylib* runtime_ = nullptr;
    uint64_t next_id_ = 0;
};

bool dump_requested() {
    const char* value = std::getenv("TESSERA_DUMP_LLVM");
    return value && std::strcmp(value, "1") == 0;
}

// A TargetMachine caches subtargets without locking, so each thread optimizes with its own.
llvm::TargetMachine& thread_target_machine(const CpuTarget& target) {
    thread_local std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
    std::unique_ptr<llvm::TargetMachine>& machine = machines[JitEngine::key(target)];
    if (!machine) machine = target.create_target_machine();
    return *machine;
}

// Code for target runs here only when it asks for nothing this CPU lacks.
void check_runs_here(const Target& target) {
    const Target host = get_host_target();
    bool fits = target.arch == host.arch && target.bits == host.bits && target.os == host.os;
    std::string missing;
    for (int i = 0; i < Target::FeatureEnd; i++) {
        const auto f = Target::Feature(i);
        // Switches of what the code contains and GPU features say nothing of the CPU (the GPU's
        // runtime checks the device when a kernel first runs).
        if (f >= Target::NoRuntime) continue;
        if (target.has_feature(f) && !host.has_feature(f)) missing += " " + Target::feature_name(f);
    }
    TESSERA_USER_CHECK(fits && missing.empty())
        << "cannot JIT-compile for the target " << target.to_string() << ": this machine is "
        << host.to_string() << (missing.empty() ? "" : ", without" + missing)
        << ". Compile code for other machines ahead of time (compile_to_static_library, compile_to_object).";
}

}  // namespace

JITModule::JITModule(Entry entry, std::string llvm_ir, double compile_seconds,
                     std::unique_ptr<Resources> resources)
    : entry_(entry),
      llvm_ir_(std::move(llvm_ir)),
      compile_seconds_(compile_seconds),
      resources_(std::move(resources)) {}

JITModule::~JITModule() {
    if (resources_ && resources_->dylib) resources_->engine->unload(resources_->dylib);
}

std::shared_ptr<JITModule> jit_compile(const LoweredFunction& f, const Target& target) {
    auto start = std::chrono::steady_clock::now();
    check_runs_here(target);
    initialize_llvm_native_target();
    const CpuTarget cpu = cpu_target_for(target);
    auto context = std::make_unique<llvm::LLVMContext>();
    const std::string gpu_code = f.kernels.empty() ? "" : codegen_ptx(f, target);
    std::unique_ptr<llvm::Module> module = codegen_llvm(f, *context, cpu, gpu_code);
    CpuTarget::optimize(*module, thread_target_machine(cpu));

    // The optimized IR is kept as text only when asked for: printing it costs as much as a
    // pass over a large pipeline.
    std::string ir;
    if (dump_requested()) {
        llvm::raw_string_ostream ir_stream(ir);
        module->print(ir_stream, nullptr);
        ir_stream.flush();
        std::fprintf(stderr, "%s\n", ir.c_str());
    }

    auto resources = std::make_unique<JITModule::Resources>();
    resources->engine = &JitEngine::get(cpu);
    const std::string object =
        CpuTarget::machine_code(*module, thread_target_machine(cpu), /*assembly=*/false);
    JITModule::Entry entry = JitEngine::get(cpu).load(object, f.name, f.extern_symbols, resources->dylib);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::make_shared<JITModule>(entry, std::move(ir), seconds, std::move(resources));
}

}  // namespace tessera::targets
