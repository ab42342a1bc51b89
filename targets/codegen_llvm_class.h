#pragma once
// The code generator behind codegen_llvm(), shared by codegen_llvm.cpp (the function and its
// statements), codegen_llvm_expr.cpp (expressions and intrinsics), codegen_llvm_parallel.cpp
// (parallel loops) and codegen_llvm_gpu_host.cpp (launches of GPU kernels, device copies); the
// base of the GPU kernels' generator, codegen_ptx.cpp. Only for targets/.

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/node_list.h"
#include "ir/visitor.h"
#include "lowering/lowered_function.h"
#include "targets/codegen_llvm.h"
#include "targets/cpu_target.h"

namespace tessera::targets::detail {

class CodeGenLLVM : public ir::Visitor {
public:
    CodeGenLLVM(llvm::LLVMContext& context, const CpuTarget& target);
    virtual ~CodeGenLLVM() = default;
    // gpu_code: the PTX of f.kernels, which f.body launches.
    std::unique_ptr<llvm::Module> compile(const LoweredFunction& f, const std::string& gpu_code);

protected:
    // Each visit of an Expr leaves its value in value_; each visit of a Stmt emits code at the
    // builder's insertion point.
#define TESSERA_DECLARE_VISIT(T) void visit(const ir::T* op) override;
    TESSERA_FOR_EACH_EXPR(TESSERA_DECLARE_VISIT)
    TESSERA_FOR_EACH_STMT(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT

    llvm::Value* codegen(const Expr& e);
    void codegen(const ir::Stmt& s);
    // An element index of a buffer or heap allocation, as a 64-bit integer when it is a scalar:
    // its sums, differences and products are taken in 64 bits, which is exact as long as the
    // 32-bit index does not overflow (and one that does addresses nothing valid anyway). Then LLVM
    // sees the loop variables in the address directly and steps a pointer through a loop, rather
    // than sign-extending at every access.
    llvm::Value* codegen_index(const std::string& buffer, const Expr& index);
    llvm::Value* wide_index(const Expr& index);
    // The index of the lowest element of a ramp of stride -1 (where a dense, reversed access starts).
    llvm::Value* last_of_reversed(const std::string& buffer, const ir::Ramp* ramp);

    // An Allocate in Stack or Register memory.
    void stack_allocate(const ir::Allocate* op);
    // A zeroed tessera_buffer_t, read in place of a null one.
    llvm::Constant* empty_buffer();

    // The scoped symbol table: names of arguments, lets, loop variables and allocations.
    void push_symbol(const std::string& name, llvm::Value* value);
    void pop_symbol(const std::string& name);
    llvm::Value* symbol(const std::string& name) const;

    // Types: in registers a bool is i1, in memory it is a byte.
    llvm::Type* llvm_type(Type t);
    llvm::Type* memory_type(Type t);
    // An integer or float constant of type t, splat across t's lanes.
    llvm::Constant* constant(Type t, int64_t value);

    // Arithmetic with Tessera's semantics (see expr_nodes.h).
    llvm::Value* cast(llvm::Value* v, Type from, Type to);
    llvm::Value* int_div_or_mod(const Expr& a, const Expr& b, bool want_div);
    llvm::Value* float_mod(llvm::Value* a, llvm::Value* b);
    llvm::Value* shift(llvm::Value* a, llvm::Value* amount, Type t, bool left);
    llvm::Value* compare(ir::IRKind kind, llvm::Value* a, llvm::Value* b, Type t);
    virtual llvm::Value* codegen_intrinsic(const ir::Call* op);
    virtual llvm::Value* codegen_math(const ir::Call* op);
    // v, splat to `lanes` lanes if it is a scalar and lanes > 1.
    llvm::Value* splat(llvm::Value* v, int lanes);
    // The vector of type t whose lane i is f of lane i of each argument (scalars stay whole).
    llvm::Value* per_lane(Type t, const std::vector<llvm::Value*>& args,
                          const std::function<llvm::Value*(const std::vector<llvm::Value*>&)>& f);
    llvm::Value* codegen_buffer_field(const ir::Call* op);
    llvm::Value* codegen_print(const ir::Call* op);
    llvm::Value* codegen_extern(const ir::Call* op);
    // Tensor intrinsics (codegen_llvm_tensor.cpp).
    llvm::Value* codegen_buffer_view(const ir::Call* op);
    llvm::Value* codegen_dot_u8s8(const ir::Call* op);
    llvm::Value* codegen_dot_bf16(const ir::Call* op);
    // The vector of n groups: `group` (a vector of `size` lanes) repeated, or v itself if it has n
    // groups already.
    llvm::Value* repeat_group(llvm::Value* v, int size, int n);
    // Lanes first, first + step, ... of v, n of them.
    llvm::Value* strided_lanes(llvm::Value* v, int first, int step, int n);
    // A call of the LLVM intrinsic id with args bitcast to the types it takes, and its result
    // bitcast to result.
    llvm::Value* call_target_intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args,
                                       llvm::Type* result);
    void emit_print(const std::vector<Expr>& args, const std::vector<llvm::Value*>& values);

    // Memory accesses of a named allocation or buffer, tagged so that LLVM knows accesses to
    // differently named memory never alias.
    llvm::Value* element_address(const std::string& name, Type element, llvm::Value* index);
    llvm::Instruction* tag_access(llvm::Instruction* access, const std::string& name);
    llvm::Value* load_vector(const ir::Load* op);
    // The alignment that a vector of type t at consecutive elements of buffer from index `first`
    // may assume: its element's, unless a target knows its memory and indices better (CodeGenPTX,
    // whose vector loads and stores of 16 bytes need it).
    virtual llvm::Align dense_alignment(const std::string& buffer, Type t, const Expr& first) const;
    // Vectors of type t at consecutive elements from first_index, in pieces of power-of-two lanes
    // (codegen_llvm_dense.cpp), the first aligned to `align`.
    llvm::Value* dense_load(const std::string& buffer, Type t, llvm::Value* first_index, llvm::Align align);
    // Vectors of type t at first_index + i * stride, for a small constant stride.
    llvm::Value* strided_load(const std::string& buffer, Type t, llvm::Value* first_index, int stride);
    // Vectors at ramp(b, 1, n) / k + offset for a small constant k, or null for any other index
    // (codegen_llvm_upsampled.cpp).
    llvm::Value* upsampled_load(const ir::Load* op);
    void dense_store(const std::string& buffer, llvm::Value* value, Type t, llvm::Value* first_index,
                     llvm::Align align);
    llvm::Value* predicated_load(const ir::Load* op);
    void store_vector(const ir::Store* op, llvm::Value* value);
    // A store of an atomic update (inside ir::Atomic), as a compare-and-swap loop
    // (codegen_llvm_atomic.cpp).
    bool is_atomic_store(const ir::Store* op) const;
    void atomic_store(const ir::Store* op);

    // GPU kernels seen from the host (codegen_llvm_gpu_host.cpp): launches, copies between host
    // and device, and allocations with device memory, whose descriptors are freed on every exit.
    llvm::Value* codegen_gpu_launch(const ir::Call* op);
    llvm::Value* codegen_device_copy(const ir::Call* op);
    void device_allocate(const ir::Allocate* op);
    // Exits with the code a runtime call returned (having reported its error) unless it is 0.
    void exit_unless_zero(llvm::Value* code);
    llvm::Value* cuda_interface();
    std::string gpu_code_;  // the PTX of the kernels
    llvm::GlobalVariable* gpu_code_global_ = nullptr;
    llvm::GlobalVariable* gpu_module_state_ = nullptr;
    std::map<std::string, bool> device_allocations_;  // see LoweredFunction

    // Calls into the C runtime.
    llvm::FunctionCallee runtime_function(const char* name, llvm::Type* result,
                                          std::vector<llvm::Type*> params);
    llvm::Value* null_user_context();
    // Appends one value to the message being built ("tessera_error" or "tessera_print"): strings as
    // they are, numbers in decimal, vectors as <a, b, ...>.
    void append_to_message(const char* prefix, const Expr& e, llvm::Value* v);
    void append_scalar(const char* prefix, Type t, llvm::Value* v);
    void append_string(const char* prefix, const std::string& s);
    // Frees every live allocation and returns tessera_error_end(code) from the pipeline, at the
    // builder's insertion point, which ends its block.
    void return_error(llvm::Value* code);
    // Fails the pipeline with the message (an error_message(code, parts...)) where the condition
    // does not hold in every lane; the builder continues where it does. AssertStmt and require().
    virtual void check(const Expr& condition, const Expr& message);
    // Builds an if (condition) around the code that emit_then emits; leaves the builder after it.
    template <typename EmitThen>
    void emit_if(llvm::Value* condition, EmitThen emit_then);

    llvm::LLVMContext& context_;
    const CpuTarget& target_;
    std::unique_ptr<llvm::Module> module_;
    llvm::IRBuilder<> builder_;
    llvm::Function* function_ = nullptr;
    llvm::StructType* buffer_type_ = nullptr;     // tessera_buffer_t
    llvm::StructType* dimension_type_ = nullptr;  // tessera_dimension_t
    llvm::GlobalVariable* empty_buffer_ = nullptr;

    llvm::Value* value_ = nullptr;
    std::unordered_map<std::string, std::vector<llvm::Value*>> symbols_;
    // The producers of the ir::Atomic statements around the code being generated.
    std::vector<std::string> atomic_producers_;
    // Allocations enclosing the insertion point, outermost first: freed on an error exit. Each
    // has a block (made when first needed) that frees it and goes on to free the one enclosing
    // it, so that every error exit shares one chain of frees instead of repeating them.
    struct LiveAllocation {
        llvm::Value* memory;                   // null for an allocation with device memory only
        llvm::Value* device_buffer = nullptr;  // the descriptor of its device memory, if any
        llvm::BasicBlock* unwind = nullptr;
    };
    std::vector<LiveAllocation> live_allocations_;
    llvm::AllocaInst* error_code_ = nullptr;    // the code an error exit returns
    llvm::BasicBlock* error_return_ = nullptr;  // returns error_code_
    llvm::BasicBlock* unwind_block(size_t depth);
    // Frees every live allocation and returns code, already reported, from the function being
    // emitted, at the builder's insertion point, which ends its block.
    void exit_with_error(llvm::Value* code);

    // Parallel loops (codegen_llvm_parallel.cpp). The body of a parallel loop becomes a task
    // function of its own, which the runtime's tessera_do_par_for calls once per iteration, with
    // the values the body uses from the enclosing function packed in a closure.
    struct Closure {
        std::vector<std::string> names;    // the symbols the body uses from outside, first use first
        std::vector<llvm::Value*> values;  // their values in the enclosing function
        llvm::StructType* type = nullptr;  // one field per value that is not a constant
    };
    // What the generator knows of the function it emits into; set aside while it emits another.
    struct FunctionState {
        llvm::Function* function;
        llvm::IRBuilderBase::InsertPoint insert_point;
        std::unordered_map<std::string, std::vector<llvm::Value*>> symbols;
        std::vector<LiveAllocation> live_allocations;
        llvm::AllocaInst* error_code;
        llvm::BasicBlock* error_return;
    };
    void codegen_parallel_for(const ir::For* op);
    Closure make_closure(const ir::For* op);
    llvm::Function* emit_task(const ir::For* op, const Closure& closure);
    llvm::Value* pack_closure(const Closure& closure);
    void unpack_closure(const Closure& closure, llvm::Value* memory);
    FunctionState enter_function(llvm::Function* f);
    void leave_function(FunctionState saved);
    std::unordered_map<std::string, llvm::MDNode*> tbaa_tags_;
    llvm::MDNode* tbaa_root_ = nullptr;
    std::unordered_map<std::string, llvm::Constant*> strings_;
};

template <typename EmitThen>
void CodeGenLLVM::emit_if(llvm::Value* condition, EmitThen emit_then) {
    llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "then", function_);
    llvm::BasicBlock* after = llvm::BasicBlock::Create(context_, "after", function_);
    builder_.CreateCondBr(condition, then_block, after);
    builder_.SetInsertPoint(then_block);
    emit_then();
    if (!builder_.GetInsertBlock()->getTerminator()) builder_.CreateBr(after);
    builder_.SetInsertPoint(after);
}

}  // namespace tessera::targets::detail
