// The LLVM module of an ahead-of-time function: the lowered pipeline's code (as the JIT generates
// it) behind the two C entry points that aot.h describes, with input Buffers the caller does not
// pass compiled in as constants.

#include "targets/aot_module.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "targets/codegen_llvm.h"
#include "util/error_stream.h"

namespace tessera::targets {
namespace {

class EntryBuilder {
public:
    EntryBuilder(llvm::Module& module, const AotFunction& f)
        : module_(module), context_(module.getContext()), f_(f), builder_(context_) {}

    void build() {
        llvm::Function* body = module_.getFunction(f_.body.name);
        TESSERA_INTERNAL_CHECK(body) << "the code of " << f_.name << " is missing";
        // Only the entry points are visible outside the object, so that several libraries link
        // into one program.
        body->setLinkage(llvm::GlobalValue::InternalLinkage);
        for (size_t i = 0; i < f_.bindings.size(); i++) {
            constants_.push_back(f_.bindings[i].constant
                                     ? embed_buffer(*f_.bindings[i].constant, f_.body.args[i].name)
                                     : nullptr);
        }
        build_c_entry(body);
        build_argv_entry(body);
    }

private:
    llvm::Type* scalar_type(Type t) {
        switch (t.code()) {
            case Type::Int:
            case Type::UInt: return t.is_bool() ? builder_.getInt1Ty() : builder_.getIntNTy(t.bits());
            case Type::Float:
                return t.bits() == 16 ? builder_.getHalfTy()
                                      : (t.bits() == 32 ? builder_.getFloatTy() : builder_.getDoubleTy());
            case Type::Handle: return builder_.getPtrTy();
        }
        return nullptr;
    }

    llvm::Function* declare(const std::string& name, llvm::FunctionType* type, llvm::Function* body) {
        llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module_);
        fn->setDoesNotThrow();
        fn->addFnAttr("target-cpu", body->getFnAttribute("target-cpu").getValueAsString());
        fn->addFnAttr("target-features", body->getFnAttribute("target-features").getValueAsString());
        builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", fn));
        return fn;
    }

    // Calls body with the array of argument slots, filled by slot(i) for each of its arguments.
    void call_body(llvm::Function* body, const std::function<llvm::Value*(size_t)>& slot) {
        const size_t n = f_.body.args.size();
        llvm::ArrayType* array_type = llvm::ArrayType::get(builder_.getPtrTy(), std::max<size_t>(n, 1));
        llvm::Value* array = builder_.CreateAlloca(array_type, nullptr, "args");
        for (size_t i = 0; i < n; i++) {
            llvm::Value* value = constants_[i] ? constants_[i] : slot(i);
            builder_.CreateStore(value, builder_.CreateConstInBoundsGEP2_64(array_type, array, 0, i));
        }
        builder_.CreateRet(builder_.CreateCall(body, {array}));
    }

    // int name(tessera_buffer_t* in, float alpha, ..., tessera_buffer_t* out)
    void build_c_entry(llvm::Function* body) {
        std::vector<llvm::Type*> params;
        for (const AotArgument& a : f_.args)
            params.push_back(a.is_buffer ? builder_.getPtrTy() : scalar_type(a.type));
        llvm::Function* fn =
            declare(f_.name, llvm::FunctionType::get(builder_.getInt32Ty(), params, false), body);
        for (size_t j = 0; j < f_.args.size(); j++) {
            fn->getArg(j)->setName(f_.args[j].name);
            if (f_.args[j].type.is_bool() && !f_.args[j].is_buffer)
                fn->addParamAttr(j, llvm::Attribute::ZExt);
        }
        // Scalars reach the body through memory, as the JIT passes them; bools as a byte.
        std::vector<llvm::Value*> scalar_slots(f_.args.size(), nullptr);
        for (size_t j = 0; j < f_.args.size(); j++) {
            if (f_.args[j].is_buffer) continue;
            llvm::Value* v = fn->getArg(j);
            if (f_.args[j].type.is_bool()) v = builder_.CreateZExt(v, builder_.getInt8Ty());
            scalar_slots[j] = builder_.CreateAlloca(v->getType(), nullptr, f_.args[j].name + ".slot");
            builder_.CreateStore(v, scalar_slots[j]);
        }
        call_body(body, [&](size_t i) -> llvm::Value* {
            const int j = f_.bindings[i].argument;
            return f_.args[j].is_buffer ? static_cast<llvm::Value*>(fn->getArg(j)) : scalar_slots[j];
        });
    }

    // int name_argv(void** args): a buffer's descriptor or a scalar's address per argument.
    void build_argv_entry(llvm::Function* body) {
        llvm::Function* fn =
            declare(f_.name + "_argv",
                    llvm::FunctionType::get(builder_.getInt32Ty(), {builder_.getPtrTy()}, false), body);
        llvm::Value* argv = fn->getArg(0);
        argv->setName("argv");
        call_body(body, [&](size_t i) -> llvm::Value* {
            llvm::Value* slot =
                builder_.CreateConstInBoundsGEP1_64(builder_.getPtrTy(), argv, f_.bindings[i].argument);
            return builder_.CreateLoad(builder_.getPtrTy(), slot);
        });
    }

    // A private, constant copy of b's elements and descriptor; returns the descriptor's address.
    llvm::Constant* embed_buffer(const tessera_buffer_t& b, const std::string& name) {
        // The elements, densely, in the order of b's strides.
        int64_t count = 1;
        for (int d = 0; d < b.dimensions; d++) count *= b.dim[d].extent;
        const int element_bytes = (b.type.bits + 7) / 8;
        std::vector<uint8_t> bytes(size_t(count * element_bytes));
        std::vector<tessera_dimension_t> dims(b.dim, b.dim + b.dimensions);
        int64_t stride = 1;
        for (int d = 0; d < b.dimensions; d++) {
            dims[d].stride = int32_t(stride);
            stride *= b.dim[d].extent;
        }
        for (int64_t i = 0; i < count; i++) {
            int64_t rest = i, offset = 0;
            for (int d = 0; d < b.dimensions; d++) {
                offset += (rest % b.dim[d].extent) * b.dim[d].stride;
                rest /= b.dim[d].extent;
            }
            std::memcpy(&bytes[size_t(i * element_bytes)], b.host + offset * element_bytes, element_bytes);
        }
        auto* data_init = llvm::ConstantDataArray::get(context_, bytes);
        auto* data = new llvm::GlobalVariable(module_, data_init->getType(), true,
                                              llvm::GlobalValue::PrivateLinkage, data_init, name + ".data");
        data->setAlignment(llvm::Align(64));

        llvm::Type* i32 = builder_.getInt32Ty();
        llvm::StructType* dim_type = llvm::StructType::get(context_, {i32, i32, i32, i32});
        std::vector<llvm::Constant*> dim_values;
        for (const tessera_dimension_t& d : dims) {
            dim_values.push_back(
                llvm::ConstantStruct::get(dim_type, {builder_.getInt32(d.min), builder_.getInt32(d.extent),
                                                     builder_.getInt32(d.stride), builder_.getInt32(0)}));
        }
        auto* dims_array_type = llvm::ArrayType::get(dim_type, dim_values.size());
        auto* dims_global =
            new llvm::GlobalVariable(module_, dims_array_type, true, llvm::GlobalValue::PrivateLinkage,
                                     llvm::ConstantArray::get(dims_array_type, dim_values), name + ".dims");

        llvm::Type* ptr = builder_.getPtrTy();
        llvm::StructType* type_type = llvm::StructType::get(
            context_, {builder_.getInt8Ty(), builder_.getInt8Ty(), builder_.getInt16Ty()});
        llvm::StructType* buffer_type = llvm::StructType::get(
            context_, {builder_.getInt64Ty(), ptr, ptr, builder_.getInt64Ty(), type_type, i32, ptr, ptr});
        llvm::Constant* null = llvm::ConstantPointerNull::get(builder_.getPtrTy());
        llvm::Constant* fields[] = {builder_.getInt64(0),
                                    null,
                                    data,
                                    builder_.getInt64(0),
                                    llvm::ConstantStruct::get(type_type, {builder_.getInt8(b.type.code),
                                                                          builder_.getInt8(b.type.bits),
                                                                          builder_.getInt16(b.type.lanes)}),
                                    builder_.getInt32(b.dimensions),
                                    dims_global,
                                    null};
        // GPU kernels' copies give the descriptor device memory, which it keeps for the process.
        const bool constant = f_.body.kernels.empty();
        return new llvm::GlobalVariable(module_, buffer_type, constant, llvm::GlobalValue::PrivateLinkage,
                                        llvm::ConstantStruct::get(buffer_type, fields), name + ".buffer");
    }

    llvm::Module& module_;
    llvm::LLVMContext& context_;
    const AotFunction& f_;
    llvm::IRBuilder<> builder_;
    std::vector<llvm::Constant*> constants_;
};

// Builds `name` (and name_argv) to forward its arguments to the first variant the CPU supports.
void build_dispatch(llvm::Module& module, const std::string& name, const std::vector<AotVariant>& variants,
                    const std::string& variant_suffix) {
    llvm::LLVMContext& context = module.getContext();
    llvm::IRBuilder<> builder(context);
    llvm::Function* fallback = module.getFunction(variants.back().name + variant_suffix);
    TESSERA_INTERNAL_CHECK(fallback) << "the variant " << variants.back().name << variant_suffix
                                     << " is missing";
    llvm::Function* fn =
        llvm::Function::Create(fallback->getFunctionType(), llvm::Function::ExternalLinkage, name, module);
    fn->copyAttributesFrom(fallback);
    fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
    std::vector<llvm::Value*> args;
    for (llvm::Argument& a : fn->args()) args.push_back(&a);
    llvm::FunctionCallee can_use = module.getOrInsertFunction("tessera_can_use_target_features",
                                                              builder.getInt32Ty(), builder.getInt64Ty());

    builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));
    for (size_t i = 0; i < variants.size(); i++) {
        llvm::Function* variant = module.getFunction(variants[i].name + variant_suffix);
        TESSERA_INTERNAL_CHECK(variant)
            << "the variant " << variants[i].name << variant_suffix << " is missing";
        variant->setLinkage(llvm::GlobalValue::InternalLinkage);
        const bool last = i + 1 == variants.size();
        llvm::BasicBlock* next =
            last ? nullptr : llvm::BasicBlock::Create(context, "not_" + variants[i].name, fn);
        if (!last) {
            llvm::BasicBlock* run = llvm::BasicBlock::Create(context, "run_" + variants[i].name, fn);
            llvm::Value* ok = builder.CreateCall(can_use, {builder.getInt64(variants[i].features)});
            builder.CreateCondBr(builder.CreateICmpNE(ok, builder.getInt32(0)), run, next);
            builder.SetInsertPoint(run);
        }
        builder.CreateRet(builder.CreateCall(variant, args));
        if (next) builder.SetInsertPoint(next);
    }
}

}  // namespace

void add_dispatcher(llvm::Module& module, const AotFunction& f, const std::vector<AotVariant>& variants) {
    TESSERA_INTERNAL_CHECK(!variants.empty()) << "a multi-target function without variants";
    build_dispatch(module, f.name, variants, "");
    build_dispatch(module, f.name + "_argv", variants, "_argv");
    std::string problems;
    llvm::raw_string_ostream out(problems);
    TESSERA_INTERNAL_CHECK(!llvm::verifyModule(module, &out))
        << "invalid dispatch code for " << f.name << ":\n"
        << out.str();
}

std::unique_ptr<llvm::Module> aot_module(const AotFunction& f, llvm::LLVMContext& context,
                                         const CpuTarget& target, const std::string& gpu_code) {
    TESSERA_INTERNAL_CHECK(f.bindings.size() == f.body.args.size())
        << "every argument of " << f.name << "'s code needs a binding";
    std::unique_ptr<llvm::Module> module = codegen_llvm(f.body, context, target, gpu_code);
    module->setModuleIdentifier(f.name);
    EntryBuilder(*module, f).build();
    std::string problems;
    llvm::raw_string_ostream out(problems);
    TESSERA_INTERNAL_CHECK(!llvm::verifyModule(*module, &out))
        << "invalid LLVM IR for the entry points of " << f.name << ":\n"
        << out.str();
    return module;
}

}  // namespace tessera::targets
