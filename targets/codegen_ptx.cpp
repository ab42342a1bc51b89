// The kernels' code generator: CodeGenLLVM's expressions and statements, with GPU loops bound to
// the block and thread indices, shared memory in address space 3, barriers, and math functions
// from libdevice; then NVPTX's PTX.

#include "targets/codegen_ptx.h"

#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <set>

#include "ir/ir_util.h"
#include "ir/modulus_remainder.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "lowering/names.h"
#include "lowering/place_gpu_storage.h"
#include "targets/codegen_llvm_class.h"
#include "tessera/target.h"
#include "util/error_stream.h"

namespace tessera::targets {
namespace {

using lowering::GpuKernel;
using lowering::KernelArgument;

// NVVM's address space of a block's shared memory.
constexpr unsigned kSharedAddressSpace = 3;

class CodeGenPTX : public detail::CodeGenLLVM {
public:
    using CodeGenLLVM::CodeGenLLVM;
    using CodeGenLLVM::visit;

    // A module of f's kernels, verified, with libdevice linked in when they need it.
    std::unique_ptr<llvm::Module> compile_kernels(const lowering::LoweredFunction& f) {
        module_ = std::make_unique<llvm::Module>(f.name + ".kernels", context_);
        module_->setTargetTriple(target_.triple());
        module_->setDataLayout(target_.data_layout());
        for (const GpuKernel& k : f.kernels) compile_kernel(k);
        std::string problems;
        llvm::raw_string_ostream out(problems);
        TESSERA_INTERNAL_CHECK(!llvm::verifyModule(*module_, &out))
            << "invalid LLVM IR for the kernels of " << f.name << ":\n"
            << out.str();
        if (!libdevice_functions_.empty()) link_libdevice();
        return std::move(module_);
    }

private:
    void compile_kernel(const GpuKernel& k) {
        std::vector<llvm::Type*> params;
        for (const KernelArgument& a : k.args)
            params.push_back(a.is_buffer ? builder_.getPtrTy() : memory_type(a.type));
        llvm::FunctionType* type = llvm::FunctionType::get(builder_.getVoidTy(), params, false);
        function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, k.name, module_.get());
        kernels_.insert(k.name);
        function_->setDoesNotThrow();
        function_->addFnAttr("target-cpu", target_.cpu());
        function_->addFnAttr("target-features", target_.feature_string());
        annotate_kernel(k);
        use_dynamic_shared_memory(k);
        builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", function_));
        for (size_t i = 0; i < k.args.size(); i++) {
            const KernelArgument& a = k.args[i];
            llvm::Value* v = function_->getArg(i);
            v->setName(a.name);
            // Distinct buffers of a pipeline never overlap; read-only ones then load through the
            // non-coherent cache. Device memory comes from the runtime's allocator (cuMemAlloc's,
            // aligned to 256 bytes): where a thread's accesses are consecutive and their indices
            // multiples of 4 (as shared memory's are too), LLVM merges them into vector loads and
            // stores of 16 bytes.
            if (a.is_buffer) {
                function_->addParamAttr(i, llvm::Attribute::NoAlias);
                function_->addParamAttr(i, llvm::Attribute::getWithAlignment(context_, llvm::Align(16)));
            }
            if (!a.is_buffer && a.type.is_bool()) v = builder_.CreateTrunc(v, llvm_type(a.type));
            push_symbol(a.name, v);
            if (a.is_buffer) aligned_memory_.insert(a.name);
        }
        codegen(k.body);
        builder_.CreateRetVoid();
        for (const KernelArgument& a : k.args) pop_symbol(a.name);
    }

    // The kernels' dynamic shared memory, where a kernel has more shared memory than static
    // allows: PTX's one unsized .extern .shared array, sized by the launch.
    void use_dynamic_shared_memory(const GpuKernel& k) {
        dynamic_shared_bytes_ = k.dynamic_shared_bytes;
        dynamic_shared_used_ = 0;
        if (k.dynamic_shared_bytes == 0) {
            dynamic_shared_ = nullptr;
            return;
        }
        const char* name = "tessera_dynamic_shared_memory";
        dynamic_shared_ = module_->getNamedGlobal(name);
        if (dynamic_shared_) return;
        llvm::ArrayType* type = llvm::ArrayType::get(builder_.getInt8Ty(), 0);
        auto* global =
            new llvm::GlobalVariable(*module_, type, false, llvm::GlobalValue::ExternalLinkage, nullptr, name,
                                     nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
        global->setAlignment(llvm::Align(16));
        dynamic_shared_ = global;
    }
    llvm::GlobalVariable* dynamic_shared_ = nullptr;
    int64_t dynamic_shared_bytes_ = 0, dynamic_shared_used_ = 0;

    // Marks the function a kernel entry point, with its block's thread counts as the most it is
    // launched with (so that registers are allocated for that many threads).
    void annotate_kernel(const GpuKernel& k) {
        llvm::NamedMDNode* annotations = module_->getOrInsertNamedMetadata("nvvm.annotations");
        auto annotate = [&](const char* key, int value) {
            llvm::Metadata* parts[] = {llvm::ValueAsMetadata::get(function_),
                                       llvm::MDString::get(context_, key),
                                       llvm::ValueAsMetadata::get(builder_.getInt32(value))};
            annotations->addOperand(llvm::MDNode::get(context_, parts));
        };
        annotate("kernel", 1);
        annotate("maxntidx", k.threads[0]);
        annotate("maxntidy", k.threads[1]);
        annotate("maxntidz", k.threads[2]);
    }

    // Memory whose start is aligned to 16 bytes: the kernels' buffers (the runtime's device
    // allocations) and shared memory.
    std::set<std::string> aligned_memory_;
    // Each let's value, in terms of what no let names, for the alignment of vector accesses.
    std::map<std::string, Expr> let_values_;

    void visit(const ir::LetStmt* op) override {
        std::vector<std::pair<std::string, std::optional<Expr>>> shadowed;
        for (const ir::LetStmt* let = op; let; let = let->body.as<ir::LetStmt>()) {
            auto it = let_values_.find(let->name);
            shadowed.emplace_back(let->name,
                                  it == let_values_.end() ? std::nullopt : std::optional(it->second));
            let_values_[let->name] = ir::substitute(let_values_, let->value);
        }
        CodeGenLLVM::visit(op);
        for (auto it = shadowed.rbegin(); it != shadowed.rend(); ++it) {
            if (it->second)
                let_values_[it->first] = *it->second;
            else
                let_values_.erase(it->first);
        }
    }

    // A vector from a 16-byte aligned start, at an index that is a multiple of 4 floats (as a
    // thread's tile of a shared tile), is loaded or stored as one vector of 16 bytes.
    llvm::Align dense_alignment(const std::string& buffer, Type t, const Expr& first) const override {
        const int64_t element = t.element_of().bytes();
        if (!aligned_memory_.count(buffer)) return llvm::Align(uint64_t(element));
        const Expr index = ir::simplify(ir::substitute(let_values_, first));
        const ir::ModulusRemainder m = ir::modulus_remainder(index);
        // Every value the index takes is a multiple of gcd(modulus, remainder) (of anything, for 0).
        const int64_t multiple = std::gcd(m.modulus, m.remainder);
        const int64_t bytes = multiple == 0 ? 16 : std::min<int64_t>(16, multiple * element);
        return llvm::Align(std::max<uint64_t>(uint64_t(element), uint64_t(bytes & -bytes)));
    }

    // Which of x, y, z the GPU loop `name` runs over.
    static int gpu_dimension(const std::string& name, bool block) {
        for (int d = 0; d < 3; d++) {
            if (name == (block ? lowering::gpu_block_id(d) : lowering::gpu_thread_id(d))) return d;
        }
        TESSERA_INTERNAL_ERROR << "the GPU loop " << name << " is not over a block or thread index";
        return 0;
    }

    void visit(const ir::For* op) override {
        // The loop's variable hides a let of its name (for the alignment of vector accesses).
        const auto hidden = let_values_.extract(op->name);
        visit_loop(op);
        if (hidden) let_values_.insert({hidden.key(), hidden.mapped()});
    }

    void visit_loop(const ir::For* op) {
        if (!ir::is_gpu_loop(op->for_kind)) {
            TESSERA_INTERNAL_CHECK(op->for_kind != ir::ForKind::Parallel)
                << "a parallel loop " << op->name << " inside a GPU kernel";
            CodeGenLLVM::visit(op);
            return;
        }
        // Each block and thread runs one iteration: the one its index names.
        const bool block = op->for_kind == ir::ForKind::GPUBlock;
        static const llvm::Intrinsic::ID blocks[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                                     llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                                     llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
        static const llvm::Intrinsic::ID threads[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
                                                      llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
                                                      llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z};
        const int d = gpu_dimension(op->name, block);
        llvm::Value* index = builder_.CreateIntrinsic(block ? blocks[d] : threads[d], {}, {});
        llvm::Value* var = builder_.CreateNSWAdd(codegen(op->min), index, op->name);
        push_symbol(op->name, var);
        codegen(op->body);
        pop_symbol(op->name);
    }

    void visit(const ir::Allocate* op) override {
        if (op->memory_type == MemoryType::GPUShared) {
            aligned_memory_.insert(op->name);
            shared_allocate(op);
            return;
        }
        TESSERA_USER_CHECK(op->memory_type == MemoryType::Stack || op->memory_type == MemoryType::Register ||
                           op->memory_type == MemoryType::GPULocal)
            << op->name
            << " would be allocated on the heap inside a GPU kernel, which has none: compute it at "
            << "a GPU block or thread loop of the kernel (its storage is then shared or per-thread memory), "
               "or "
            << "compute_root() it outside.";
        stack_allocate(op);
    }

    // Shared memory: a global of the module in NVVM's shared address space, as large as the
    // allocation's constant size; or, in a kernel with more than static shared memory allows, the
    // next stretch of the dynamic shared memory.
    void shared_allocate(const ir::Allocate* op) {
        const int64_t bytes = lowering::aligned_shared_bytes(*op);
        llvm::Constant* memory = nullptr;
        if (dynamic_shared_) {
            TESSERA_INTERNAL_CHECK(dynamic_shared_used_ + bytes <= dynamic_shared_bytes_)
                << "shared allocation " << op->name << " beyond the kernel's dynamic shared memory";
            memory = llvm::ConstantExpr::getInBoundsGetElementPtr(builder_.getInt8Ty(), dynamic_shared_,
                                                                  builder_.getInt64(dynamic_shared_used_));
            dynamic_shared_used_ += bytes;
        } else {
            llvm::ArrayType* type = llvm::ArrayType::get(builder_.getInt8Ty(), std::max<int64_t>(bytes, 1));
            auto* global = new llvm::GlobalVariable(*module_, type, false, llvm::GlobalValue::InternalLinkage,
                                                    llvm::UndefValue::get(type), op->name, nullptr,
                                                    llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
            global->setAlignment(llvm::Align(16));
            memory = global;
        }
        // Accessed through a generic pointer, which LLVM's address space inference turns back into
        // shared loads and stores.
        push_symbol(op->name, llvm::ConstantExpr::getAddrSpaceCast(memory, builder_.getPtrTy()));
        codegen(op->body);
        pop_symbol(op->name);
    }

    llvm::Value* codegen_intrinsic(const ir::Call* op) override {
        switch (op->intrinsic) {
            case ir::Intrinsic::GPUBarrier:
                builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
                return builder_.getInt32(0);
            case ir::Intrinsic::Print:
            case ir::Intrinsic::PrintWhen:
                TESSERA_USER_ERROR
                    << "print() inside a GPU kernel is not supported: print the values of a Func "
                       "computed on the host, or run the schedule with gpu_emulation.";
            case ir::Intrinsic::BufferView:
            case ir::Intrinsic::DotU8S8:
            case ir::Intrinsic::DotBF16:
                TESSERA_USER_ERROR << "the tensor intrinsic " << op->name
                                   << " is for CPUs: tensorize loops outside GPU kernels.";
            case ir::Intrinsic::GPULaunch:
            case ir::Intrinsic::CopyToDevice:
            case ir::Intrinsic::CopyToHost:
            case ir::Intrinsic::SetHostDirty:
            case ir::Intrinsic::SetDeviceDirty: TESSERA_INTERNAL_ERROR << op->name << " inside a GPU kernel";
            default: return CodeGenLLVM::codegen_intrinsic(op);
        }
        return nullptr;
    }

    // A failed check inside a kernel cannot report a message: the kernel traps, and its launch
    // fails with an error naming the kernel.
    void check(const Expr& condition_expr, const Expr&) override {
        llvm::Value* condition = codegen(condition_expr);
        if (condition_expr.type().is_vector()) condition = builder_.CreateAndReduce(condition);
        llvm::BasicBlock* ok = llvm::BasicBlock::Create(context_, "check_ok", function_);
        llvm::BasicBlock* failed = llvm::BasicBlock::Create(context_, "check_failed", function_);
        builder_.CreateCondBr(condition, ok, failed, llvm::MDBuilder(context_).createLikelyBranchWeights());
        builder_.SetInsertPoint(failed);
        builder_.CreateIntrinsic(llvm::Intrinsic::trap, {}, {});
        builder_.CreateUnreachable();
        builder_.SetInsertPoint(ok);
    }

    // Transcendental functions come from libdevice (__nv_expf and the like); the rest are
    // instructions of the GPU.
    llvm::Value* codegen_math(const ir::Call* op) override {
        const char* name = nullptr;
        switch (op->intrinsic) {
            case ir::Intrinsic::Exp: name = "exp"; break;
            case ir::Intrinsic::Log: name = "log"; break;
            case ir::Intrinsic::Pow: name = "pow"; break;
            case ir::Intrinsic::Sin: name = "sin"; break;
            case ir::Intrinsic::Cos: name = "cos"; break;
            case ir::Intrinsic::Tan: name = "tan"; break;
            case ir::Intrinsic::Tanh: name = "tanh"; break;
            default: return CodeGenLLVM::codegen_math(op);
        }
        const Type element = op->type.element_of();
        // libdevice has float and double versions; half precision is computed in float.
        const Type computed = element.bits() == 64 ? Float(64) : Float(32);
        const std::string function = std::string("__nv_") + name + (computed.bits() == 32 ? "f" : "");
        libdevice_functions_.insert(function);
        llvm::Type* t = llvm_type(computed);
        std::vector<llvm::Type*> params(op->args.size(), t);
        llvm::FunctionCallee callee =
            module_->getOrInsertFunction(function, llvm::FunctionType::get(t, params, false));
        std::vector<llvm::Value*> args;
        for (const Expr& a : op->args) args.push_back(splat(codegen(a), op->type.lanes()));
        auto call = [&](const std::vector<llvm::Value*>& lane_args) {
            std::vector<llvm::Value*> converted;
            for (llvm::Value* a : lane_args) converted.push_back(cast(a, element, computed));
            return cast(builder_.CreateCall(callee, converted), computed, element);
        };
        return op->type.is_scalar() ? call(args) : per_lane(op->type, args, call);
    }

    void link_libdevice() {
        const std::string path = libdevice_path();
        TESSERA_USER_CHECK(!path.empty())
            << "the GPU kernels call " << *libdevice_functions_.begin()
            << ", which comes from CUDA's libdevice, and this build found none: install the CUDA toolkit and "
               "reconfigure, or set TESSERA_LIBDEVICE to the path of nvvm/libdevice/libdevice.10.bc.";
        llvm::SMDiagnostic error;
        std::unique_ptr<llvm::Module> libdevice = llvm::parseIRFile(path, error, context_);
        TESSERA_USER_CHECK(libdevice)
            << "cannot read CUDA's libdevice from " << path << ": " << error.getMessage().str()
            << ". Set TESSERA_LIBDEVICE to the path of nvvm/libdevice/libdevice.10.bc.";
        libdevice->setTargetTriple(module_->getTargetTriple());
        libdevice->setDataLayout(module_->getDataLayout());
        TESSERA_INTERNAL_CHECK(
            !llvm::Linker::linkModules(*module_, std::move(libdevice), llvm::Linker::Flags::LinkOnlyNeeded))
            << "linking libdevice into the kernels failed";
        // Only the kernels are entry points: the rest is inlined or dropped. libdevice asks
        // (through __nvvm_reflect) whether denormals flush to zero; they do not.
        for (llvm::Function& fn : *module_) {
            if (!fn.isDeclaration() && !kernels_.count(fn.getName().str()))
                fn.setLinkage(llvm::GlobalValue::InternalLinkage);
        }
        module_->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
    }

    std::set<std::string> kernels_, libdevice_functions_;
};

// The lowest PTX ISA version that knows the GPU.
std::string ptx_version(int capability) {
    if (capability >= 89) return "+ptx78";
    if (capability >= 86) return "+ptx71";
    if (capability >= 80) return "+ptx70";
    return "+ptx63";
}

}  // namespace

std::string libdevice_path() {
    if (const char* path = std::getenv("TESSERA_LIBDEVICE"); path && *path) return path;
#ifdef TESSERA_LIBDEVICE_PATH
    if (std::ifstream(TESSERA_LIBDEVICE_PATH).good()) return TESSERA_LIBDEVICE_PATH;
#endif
    return "";
}

std::string codegen_ptx(const lowering::LoweredFunction& f, const Target& target) {
    const int capability = target.cuda_capability();
    const CpuTarget gpu("nvptx64-nvidia-cuda", "sm_" + std::to_string(capability), {ptx_version(capability)});
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = CodeGenPTX(context, gpu).compile_kernels(f);
    std::unique_ptr<llvm::TargetMachine> machine = gpu.create_target_machine();
    CpuTarget::optimize(*module, *machine);
    return CpuTarget::machine_code(*module, *machine, /*assembly=*/true);
}

}  // namespace tessera::targets
