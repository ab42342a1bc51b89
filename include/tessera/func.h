#pragma once
// Func: a function over an integer domain, defined by a pure definition and optional update
// definitions, and scheduled separately.

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/buffer.h"
#include "tessera/expr.h"
#include "tessera/operators.h"
#include "tessera/rdom.h"
#include "tessera/schedule.h"
#include "tessera/target.h"
#include "tessera/tuple.h"
#include "tessera/var.h"

namespace tessera {

class TensorIntrinsic;

namespace lang {
struct FunctionContents;
}
namespace schedule {
struct StageRef;
}

class Func;
class ImageParam;
class Realization;
class OutputImageParam;
class Pipeline;
struct Argument;

// Unscoped, as in Halide: users write tessera::HTML.
enum StmtOutputFormat { Text, HTML };

// The files ahead-of-time compilation can write (Pipeline::compile_to).
enum class OutputFileType {
    assembly,
    bitcode,
    c_header,
    llvm_assembly,
    object,
    static_library,
    stmt,
    stmt_html
};

// One definition of a Func (the pure one or an update), as returned by a definition and by
// Func::update(i), with the primitives that transform its loops. Each returns the Stage, so calls
// chain: f.update(0).split(r.x, rxo, rxi, 8).parallel(rxo).
class Stage {
public:
    Stage(std::shared_ptr<lang::FunctionContents> f, int index, std::vector<int> specialization = {})
        : function_(std::move(f)), index_(index), specialization_(std::move(specialization)) {}
    // "f.s0" for the pure definition, "f.s1" for the first update, ...
    std::string name() const;
    // The loop nest of this stage as a readable string.
    std::string dump_argument_list() const;

    // old becomes outer * factor + inner, with inner in [0, factor).
    Stage& split(const VarOrRVar& old, const VarOrRVar& outer, const VarOrRVar& inner, const Expr& factor,
                 TailStrategy tail = TailStrategy::Auto);
    // inner and outer become one loop, fused, of the product of their extents.
    Stage& fuse(const VarOrRVar& inner, const VarOrRVar& outer, const VarOrRVar& fused);
    Stage& tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& xo, const VarOrRVar& yo,
                const VarOrRVar& xi, const VarOrRVar& yi, const Expr& xfactor, const Expr& yfactor,
                TailStrategy tail = TailStrategy::Auto);
    // The outer loops keep the names x and y.
    Stage& tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& xi, const VarOrRVar& yi,
                const Expr& xfactor, const Expr& yfactor, TailStrategy tail = TailStrategy::Auto);
    // The named loops, innermost first, take the places they had among the stage's loops.
    Stage& reorder(const std::vector<VarOrRVar>& vars);
    template <typename... Args>
    requires(std::is_convertible_v<Args, VarOrRVar>&&...) Stage& reorder(const VarOrRVar& x,
                                                                         const VarOrRVar& y, Args&&... rest) {
        return reorder(std::vector<VarOrRVar>{x, y, std::forward<Args>(rest)...});
    }
    Stage& rename(const VarOrRVar& old_name, const VarOrRVar& new_name);
    Stage& serial(const VarOrRVar& var);
    Stage& parallel(const VarOrRVar& var);
    // Runs task_size iterations of var per task: split(var, var, inner, task_size).parallel(var).
    Stage& parallel(const VarOrRVar& var, const Expr& task_size, TailStrategy tail = TailStrategy::Auto);
    // The loop's extent must be a constant; otherwise split it first, or use the form with a factor.
    Stage& vectorize(const VarOrRVar& var);
    Stage& vectorize(const VarOrRVar& var, const Expr& factor, TailStrategy tail = TailStrategy::Auto);
    Stage& unroll(const VarOrRVar& var);
    Stage& unroll(const VarOrRVar& var, const Expr& factor, TailStrategy tail = TailStrategy::Auto);
    // Replaces the loops from var inwards by the intrinsic, which must compute what they compute
    // (see tensorize.h).
    Stage& tensorize(const VarOrRVar& var, const TensorIntrinsic& intrinsic);

    // GPU schedules, as Halide spells them; the target needs the feature cuda (or GPU emulation).
    // Loops marked gpu_blocks run as the blocks of a kernel, and loops inside them marked
    // gpu_threads as the threads of each block; the innermost of each is x, the next y, then z.
    // gpu_lanes: a thread loop of at most 32 iterations, the lanes of a warp.
    Stage& gpu_blocks(const VarOrRVar& x);
    Stage& gpu_blocks(const VarOrRVar& x, const VarOrRVar& y);
    Stage& gpu_blocks(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z);
    Stage& gpu_threads(const VarOrRVar& x);
    Stage& gpu_threads(const VarOrRVar& x, const VarOrRVar& y);
    Stage& gpu_threads(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z);
    Stage& gpu_lanes(const VarOrRVar& x);
    // The whole stage as one kernel of one block of one thread.
    Stage& gpu_single_thread();
    // gpu_blocks of the first Vars and gpu_threads of the others.
    Stage& gpu(const VarOrRVar& bx, const VarOrRVar& tx);
    Stage& gpu(const VarOrRVar& bx, const VarOrRVar& by, const VarOrRVar& tx, const VarOrRVar& ty);
    Stage& gpu(const VarOrRVar& bx, const VarOrRVar& by, const VarOrRVar& bz, const VarOrRVar& tx,
               const VarOrRVar& ty, const VarOrRVar& tz);
    // Tiles of x_size (by y_size, by z_size): the loops over tiles run as blocks, those inside a
    // tile as threads. The forms without block Vars keep x (y, z) as the names of the tile loops.
    Stage& gpu_tile(const VarOrRVar& x, const VarOrRVar& bx, const VarOrRVar& tx, const Expr& x_size,
                    TailStrategy tail = TailStrategy::Auto);
    Stage& gpu_tile(const VarOrRVar& x, const VarOrRVar& tx, const Expr& x_size,
                    TailStrategy tail = TailStrategy::Auto);
    Stage& gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& bx, const VarOrRVar& by,
                    const VarOrRVar& tx, const VarOrRVar& ty, const Expr& x_size, const Expr& y_size,
                    TailStrategy tail = TailStrategy::Auto);
    Stage& gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& tx, const VarOrRVar& ty,
                    const Expr& x_size, const Expr& y_size, TailStrategy tail = TailStrategy::Auto);
    Stage& gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z, const VarOrRVar& bx,
                    const VarOrRVar& by, const VarOrRVar& bz, const VarOrRVar& tx, const VarOrRVar& ty,
                    const VarOrRVar& tz, const Expr& x_size, const Expr& y_size, const Expr& z_size,
                    TailStrategy tail = TailStrategy::Auto);
    Stage& gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z, const VarOrRVar& tx,
                    const VarOrRVar& ty, const VarOrRVar& tz, const Expr& x_size, const Expr& y_size,
                    const Expr& z_size, TailStrategy tail = TailStrategy::Auto);

    // Where condition holds, the stage runs its own copy of the definition, scheduled through the
    // Stage returned. Specializations are tried in the order given, before the general definition.
    Stage specialize(const Expr& condition);
    // Makes the general definition an error with this message: one of the specializations must hold.
    void specialize_fail(const std::string& message);

    // Splits an associative update (f(x) = f(x) op e, with op one of +, *, min, max) into an
    // intermediate Func, returned for scheduling, that reduces over the other RVars for each value
    // of the preserved RVars, kept as the given Vars (so its loops over them may run in parallel or
    // as vectors), and this update, which then reduces the intermediate over the preserved RVars.
    // Floating-point sums are reassociated, so their last bits may change.
    Func rfactor(const std::vector<std::pair<RVar, Var>>& preserved);
    Func rfactor(const RVar& r, const Var& v);

    // Makes each update of an element one indivisible read-modify-write (a compare-and-swap loop),
    // so that loops over RVars may then run in parallel even where iterations update the same
    // element, as in a histogram. The update must be f(args) = f(args) op e with op one of +, *,
    // min, max, whose order does not matter (floating-point sums aside, whose last bits may then
    // change), unless override_associativity_test promises that the order does not matter.
    // Vectorized loops of an atomic update run serially. On a pure definition, which writes each
    // element once, it changes nothing.
    Stage& atomic(bool override_associativity_test = false);

    const std::shared_ptr<lang::FunctionContents>& function() const { return function_; }
    int index() const { return index_; }

private:
    schedule::StageRef ref() const;
    std::shared_ptr<lang::FunctionContents> function_;
    int index_;
    std::vector<int> specialization_;  // the path of specializations to this definition, if any
};

class FuncRef;

// f(x, y)[i]: one value of a Tuple-valued Func, to read or to update on its own (the other values
// keep theirs).
class FuncTupleElementRef {
public:
    FuncTupleElementRef(const FuncRef& ref, int index);
    Stage operator=(const Expr& value);
    Stage operator=(const FuncTupleElementRef& value) { return *this = Expr(value); }
    Stage operator+=(const Expr& value);
    Stage operator-=(const Expr& value);
    Stage operator*=(const Expr& value);
    Stage operator/=(const Expr& value);
    operator Expr() const;
    int index() const { return index_; }

private:
    std::shared_ptr<lang::FunctionContents> function_;
    std::vector<Expr> args_;
    int index_;
};

// f(x, y): a call to f, or the left-hand side of a definition of f.
class FuncRef {
public:
    FuncRef(std::shared_ptr<lang::FunctionContents> f, std::vector<Expr> args)
        : function_(std::move(f)), args_(std::move(args)) {}

    // Definitions: a pure definition when f is undefined and every argument is a distinct Var,
    // otherwise an update.
    Stage operator=(const Expr& value);
    Stage operator=(const Tuple& values);
    Stage operator=(const FuncRef& value);
    // Updates; when f has no pure definition yet, one is made with the identity of the operator.
    Stage operator+=(const Expr& value);
    Stage operator-=(const Expr& value);
    Stage operator*=(const Expr& value);
    Stage operator/=(const Expr& value);
    Stage operator+=(const Tuple& values);
    Stage operator-=(const Tuple& values);
    Stage operator*=(const Tuple& values);
    Stage operator/=(const Tuple& values);
    Stage operator+=(const FuncRef& value) { return *this += Expr(value); }
    Stage operator-=(const FuncRef& value) { return *this -= Expr(value); }
    Stage operator*=(const FuncRef& value) { return *this *= Expr(value); }
    Stage operator/=(const FuncRef& value) { return *this /= Expr(value); }

    // The value of f at the arguments (its only value; f must not be Tuple-valued).
    operator Expr() const;
    // The i-th value of a Tuple-valued f, to read or to update alone.
    FuncTupleElementRef operator[](int i) const;
    size_t size() const;

    const std::vector<Expr>& arguments() const { return args_; }
    const std::shared_ptr<lang::FunctionContents>& function() const { return function_; }

private:
    Stage define_update(const std::vector<Expr>& values);
    Stage update_with(const Tuple& values, int identity, Expr (*combine)(Expr, Expr), const char* op);
    std::shared_ptr<lang::FunctionContents> function_;
    std::vector<Expr> args_;
};

class Func {
public:
    Func();  // a fresh, uniquely named Func
    explicit Func(const std::string& name);
    explicit Func(const char* name) : Func(std::string(name)) {}
    explicit Func(std::shared_ptr<lang::FunctionContents> contents) : contents_(std::move(contents)) {}
    // A Func that reads a buffer: f(x, y, ...) = b(x, y, ...).
    template <typename T, int Dims>
    explicit Func(const Buffer<T, Dims>& b) : Func(wrap_buffer(b.contents(), b.type())) {}
    // A Func with the value of an expression that has no free Vars (a zero-dimensional Func).
    explicit Func(const Expr& e);

    const std::string& name() const;
    bool defined() const;
    int dimensions() const;
    std::vector<Var> args() const;
    // The value of the pure definition (its first value for a Tuple).
    Expr value() const;
    Tuple values() const;
    Type type() const;
    Type output_type() const { return type(); }
    const std::vector<Type>& output_types() const;
    int outputs() const;
    // The buffer this Func writes as the output of a pipeline, to read its shape or to constrain
    // it (output_buffer().dim(0).set_min(0)); output_buffers() has one per value of a Tuple.
    OutputImageParam output_buffer() const;
    std::vector<OutputImageParam> output_buffers() const;
    bool has_update_definition() const;
    int num_update_definitions() const;
    std::vector<Expr> update_args(int i = 0) const;
    Expr update_value(int i = 0) const;

    // f(x, y, ...): any mix of Vars, RVars, RDoms, Exprs and integers.
    template <typename... Args>
    requires(std::is_convertible_v<Args, Expr>&&...) FuncRef operator()(Args&&... args) const {
        return FuncRef(contents_, std::vector<Expr>{to_expr(std::forward<Args>(args))...});
    }
    FuncRef operator()(const std::vector<Expr>& args) const { return FuncRef(contents_, args); }
    FuncRef operator()(const std::vector<Var>& args) const;

    // Stages, for scheduling.
    Stage update(int i = 0) const;
    operator Stage() const { return Stage(contents_, 0); }

    // Loop transformations of the pure definition (see Stage).
    Func& split(const VarOrRVar& old, const VarOrRVar& outer, const VarOrRVar& inner, const Expr& factor,
                TailStrategy tail = TailStrategy::Auto);
    Func& fuse(const VarOrRVar& inner, const VarOrRVar& outer, const VarOrRVar& fused);
    Func& tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& xo, const VarOrRVar& yo,
               const VarOrRVar& xi, const VarOrRVar& yi, const Expr& xfactor, const Expr& yfactor,
               TailStrategy tail = TailStrategy::Auto);
    Func& tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& xi, const VarOrRVar& yi,
               const Expr& xfactor, const Expr& yfactor, TailStrategy tail = TailStrategy::Auto);
    Func& reorder(const std::vector<VarOrRVar>& vars);
    template <typename... Args>
    requires(std::is_convertible_v<Args, VarOrRVar>&&...) Func& reorder(const VarOrRVar& x,
                                                                        const VarOrRVar& y, Args&&... rest) {
        return reorder(std::vector<VarOrRVar>{x, y, std::forward<Args>(rest)...});
    }
    Func& rename(const VarOrRVar& old_name, const VarOrRVar& new_name);
    Func& serial(const VarOrRVar& var);
    Func& parallel(const VarOrRVar& var);
    Func& parallel(const VarOrRVar& var, const Expr& task_size, TailStrategy tail = TailStrategy::Auto);
    Func& vectorize(const VarOrRVar& var);
    Func& vectorize(const VarOrRVar& var, const Expr& factor, TailStrategy tail = TailStrategy::Auto);
    Func& unroll(const VarOrRVar& var);
    Func& tensorize(const VarOrRVar& var, const TensorIntrinsic& intrinsic);
    // See Stage::atomic; the pure definition writes each element once, so there it changes nothing.
    Func& atomic(bool override_associativity_test = false);
    Func& unroll(const VarOrRVar& var, const Expr& factor, TailStrategy tail = TailStrategy::Auto);
    // GPU schedules of the pure definition (see Stage).
    Func& gpu_blocks(const VarOrRVar& x);
    Func& gpu_blocks(const VarOrRVar& x, const VarOrRVar& y);
    Func& gpu_blocks(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z);
    Func& gpu_threads(const VarOrRVar& x);
    Func& gpu_threads(const VarOrRVar& x, const VarOrRVar& y);
    Func& gpu_threads(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z);
    Func& gpu_lanes(const VarOrRVar& x);
    Func& gpu_single_thread();
    Func& gpu(const VarOrRVar& bx, const VarOrRVar& tx);
    Func& gpu(const VarOrRVar& bx, const VarOrRVar& by, const VarOrRVar& tx, const VarOrRVar& ty);
    Func& gpu(const VarOrRVar& bx, const VarOrRVar& by, const VarOrRVar& bz, const VarOrRVar& tx,
              const VarOrRVar& ty, const VarOrRVar& tz);
    Func& gpu_tile(const VarOrRVar& x, const VarOrRVar& bx, const VarOrRVar& tx, const Expr& x_size,
                   TailStrategy tail = TailStrategy::Auto);
    Func& gpu_tile(const VarOrRVar& x, const VarOrRVar& tx, const Expr& x_size,
                   TailStrategy tail = TailStrategy::Auto);
    Func& gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& bx, const VarOrRVar& by,
                   const VarOrRVar& tx, const VarOrRVar& ty, const Expr& x_size, const Expr& y_size,
                   TailStrategy tail = TailStrategy::Auto);
    Func& gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& tx, const VarOrRVar& ty,
                   const Expr& x_size, const Expr& y_size, TailStrategy tail = TailStrategy::Auto);
    Func& gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z, const VarOrRVar& bx,
                   const VarOrRVar& by, const VarOrRVar& bz, const VarOrRVar& tx, const VarOrRVar& ty,
                   const VarOrRVar& tz, const Expr& x_size, const Expr& y_size, const Expr& z_size,
                   TailStrategy tail = TailStrategy::Auto);
    Func& gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z, const VarOrRVar& tx,
                   const VarOrRVar& ty, const VarOrRVar& tz, const Expr& x_size, const Expr& y_size,
                   const Expr& z_size, TailStrategy tail = TailStrategy::Auto);
    // Computes exactly [min, min + extent) of var, whatever the consumers need (a run-time error if
    // they need more).
    Func& bound(const Var& var, const Expr& min, const Expr& extent);
    // Computes extent values of var from where the consumers need it to start (a run-time error if
    // they need more): a constant extent makes the loop unrollable and the storage constant-size
    // even where the min moves, as in a Func computed per tile.
    Func& bound_extent(const Var& var, const Expr& extent);
    // Widens the region computed of var so that it starts at a value congruent to remainder modulo
    // modulus and spans a multiple of modulus; it always holds the region the consumers need.
    Func& align_bounds(const Var& var, const Expr& modulus, const Expr& remainder = 0);
    // Pads the storage of var's dimension to a multiple of alignment elements, so that the strides
    // of the dimensions stored outside it are multiples of alignment too (rows that start aligned).
    Func& align_storage(const Var& var, const Expr& alignment);
    // The region of var an automatic scheduler assumes is computed (Pipeline::auto_schedule): on
    // outputs, what a run typically asks for. It changes no code. Integer constants.
    Func& set_estimate(const Var& var, const Expr& min, const Expr& extent);
    // set_estimate for every pure Var, in order.
    Func& set_estimates(const Region& estimates);
    // The storage layout: the Vars innermost first (by default, the order of the arguments).
    Func& reorder_storage(const std::vector<Var>& dims);
    template <typename... Args>
    requires(std::is_convertible_v<Args, Var>&&...) Func& reorder_storage(const Var& x, const Var& y,
                                                                          Args&&... rest) {
        return reorder_storage(std::vector<Var>{x, y, std::forward<Args>(rest)...});
    }

    // A wrapper: a Func that reads this one and that the given consumer (or consumers, or, without
    // arguments, every consumer) calls instead, to be scheduled on its own. Asking again for the
    // same consumers returns the same wrapper.
    Func in(const Func& consumer);
    Func in(const std::vector<Func>& consumers);
    Func in();
    // A clone: a copy of this Func's definitions and schedule (as they are now) that the given
    // consumers call instead, so that they can have it computed elsewhere than the others do.
    // Asking again for the same consumers returns the same clone.
    Func clone_in(const Func& consumer);
    Func clone_in(const std::vector<Func>& consumers);

    // Specializations of the pure definition (see Stage::specialize).
    Stage specialize(const Expr& condition);
    void specialize_fail(const std::string& message);

    // Placement: where the Func is computed and where its storage lives.
    Func& compute_at(const Func& f, const Var& var);
    Func& compute_at(const Func& f, const RVar& var);
    Func& compute_at(LoopLevel level);
    Func& store_at(const Func& f, const Var& var);
    Func& store_at(const Func& f, const RVar& var);
    Func& store_at(LoopLevel level);
    Func& compute_root();
    Func& compute_inline();
    Func& store_root();
    // Where the storage lives: the heap, the stack, registers (see MemoryType).
    Func& store_in(MemoryType memory_type);

    // Debugging: print "Store f(x, y) = value" for every value this Func stores.
    Func& trace_stores();

    // Compiling and running. realize() JIT-compiles on the first call and reuses the code while
    // the pipeline's definitions and schedules do not change.
    Realization realize(std::vector<int32_t> sizes = {}, const Target& target = Target());
    void realize(Realization outputs, const Target& target = Target());
    template <typename T, int Dims>
    void realize(Buffer<T, Dims> output, const Target& target = Target());
    void compile_jit(const Target& target = Target());

    // The loop nest the schedule produces, as text; print_loop_nest() writes it to stdout.
    std::string loop_nest() const;
    void print_loop_nest() const;
    // Writes the lowered statement (the IR handed to code generation) to a file.
    void compile_to_lowered_stmt(const std::string& filename, const std::vector<Argument>& args,
                                 StmtOutputFormat format = StmtOutputFormat::Text,
                                 const Target& target = Target());

    // Ahead-of-time compilation into files for target (see Pipeline for the details). args are the
    // inputs the C function takes, in order; the outputs follow. fn_name defaults to the Func's name.
    void compile_to_static_library(const std::string& filename_prefix, const std::vector<Argument>& args,
                                   const std::string& fn_name = "",
                                   const Target& target = get_target_from_environment());
    void compile_to_object(const std::string& filename, const std::vector<Argument>& args,
                           const std::string& fn_name = "",
                           const Target& target = get_target_from_environment());
    void compile_to_header(const std::string& filename, const std::vector<Argument>& args,
                           const std::string& fn_name = "",
                           const Target& target = get_target_from_environment());
    void compile_to_assembly(const std::string& filename, const std::vector<Argument>& args,
                             const std::string& fn_name = "",
                             const Target& target = get_target_from_environment());
    void compile_to_llvm_assembly(const std::string& filename, const std::vector<Argument>& args,
                                  const std::string& fn_name = "",
                                  const Target& target = get_target_from_environment());
    void compile_to_bitcode(const std::string& filename, const std::vector<Argument>& args,
                            const std::string& fn_name = "",
                            const Target& target = get_target_from_environment());
    void compile_to_file(const std::string& filename_prefix, const std::vector<Argument>& args,
                         const std::string& fn_name = "",
                         const Target& target = get_target_from_environment());

    const std::shared_ptr<lang::FunctionContents>& function() const { return contents_; }
    Pipeline pipeline() const;

private:
    static std::shared_ptr<lang::FunctionContents> wrap_buffer(const std::shared_ptr<lang::BufferContents>& b,
                                                               Type t);
    static Expr to_expr(const Expr& e) { return e; }
    static Expr to_expr(const Var& v) { return v; }
    static Expr to_expr(const RVar& v) { return v; }
    static Expr to_expr(const RDom& r) { return r; }
    static Expr to_expr(const FuncRef& r) { return r; }
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<std::decay_t<T>>>>
    static Expr to_expr(T x) {
        return Expr(x);
    }
    std::shared_ptr<lang::FunctionContents> contents_;
};

// Halide's inline reductions: the reduction of an expression over the RDom it uses, as a new Func
// evaluated at the expression's free Vars.
Expr sum(Expr e, const std::string& name = "sum");
Expr product(Expr e, const std::string& name = "product");
Expr maximum(Expr e, const std::string& name = "maximum");
Expr minimum(Expr e, const std::string& name = "minimum");
// The coordinates of the maximum (minimum) over the RDom, then the value: a Tuple with one
// element per RDom dimension plus the value. The first occurrence wins ties.
Tuple argmax(Expr e, const std::string& name = "argmax");
Tuple argmin(Expr e, const std::string& name = "argmin");

}  // namespace tessera
