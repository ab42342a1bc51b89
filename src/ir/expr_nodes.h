#pragma once
// The expression nodes of the IR. Nodes are immutable; build them with the static make()
// functions, which check types, and share them freely.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/expr.h"
#include "tessera/type.h"

namespace tessera::lang {
struct FunctionContents;
struct ReductionDomainContents;
struct BufferContents;
struct ParameterContents;
}  // namespace tessera::lang

namespace tessera::ir {

using tessera::Expr;

enum class IRKind : uint8_t {
    // Expressions
    IntImm,
    UIntImm,
    FloatImm,
    StringImm,
    Cast,
    Reinterpret,
    Variable,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Min,
    Max,
    EQ,
    NE,
    LT,
    LE,
    GT,
    GE,
    And,
    Or,
    Not,
    Select,
    Load,
    Ramp,
    Broadcast,
    Let,
    Call,
    // Statements
    LetStmt,
    AssertStmt,
    ProducerConsumer,
    For,
    Store,
    Provide,
    Allocate,
    Free,
    Realize,
    Block,
    IfThenElse,
    Evaluate,
    Atomic,
};

struct ExprNode : std::enable_shared_from_this<ExprNode> {
    ExprNode(IRKind k, Type t) : kind(k), type(t) {}
    virtual ~ExprNode() = default;
    const IRKind kind;
    const Type type;
};

// The shared handle of a node, e.g. to return it unchanged from a mutator.
inline Expr handle_of(const ExprNode* node) { return Expr(node->shared_from_this()); }

template <typename T, IRKind K>
struct ExprNodeOf : ExprNode {
    static constexpr int static_kind = int(K);
    explicit ExprNodeOf(Type t) : ExprNode(K, t) {}
};

struct IntImm : ExprNodeOf<IntImm, IRKind::IntImm> {
    int64_t value;
    IntImm(Type t, int64_t v) : ExprNodeOf(t), value(v) {}
    static Expr make(Type t, int64_t value);  // wraps value to t's width
};

struct UIntImm : ExprNodeOf<UIntImm, IRKind::UIntImm> {
    uint64_t value;
    UIntImm(Type t, uint64_t v) : ExprNodeOf(t), value(v) {}
    static Expr make(Type t, uint64_t value);
};

struct FloatImm : ExprNodeOf<FloatImm, IRKind::FloatImm> {
    double value;
    FloatImm(Type t, double v) : ExprNodeOf(t), value(v) {}
    static Expr make(Type t, double value);  // rounds to float for Float(32)
};

struct StringImm : ExprNodeOf<StringImm, IRKind::StringImm> {
    std::string value;
    StringImm(std::string v) : ExprNodeOf(Handle()), value(std::move(v)) {}
    static Expr make(const std::string& value);
};

// A numeric conversion with C semantics for widening, wrapping for narrowing integers, and
// saturation-free truncation toward zero for float to int.
struct Cast : ExprNodeOf<Cast, IRKind::Cast> {
    Expr value;
    Cast(Type t, Expr v) : ExprNodeOf(t), value(std::move(v)) {}
    static Expr make(Type t, Expr value);
};

// The same bits seen as another type of the same width.
struct Reinterpret : ExprNodeOf<Reinterpret, IRKind::Reinterpret> {
    Expr value;
    Reinterpret(Type t, Expr v) : ExprNodeOf(t), value(std::move(v)) {}
    static Expr make(Type t, Expr value);
};

// What a Variable stands for. Loop variables, let-bound names and buffer fields are Plain; Vars
// and RVars of a definition stay symbolic until lowering substitutes them.
enum class VariableKind : uint8_t { Plain, PureVar, ReductionVar, Param };

struct Variable : ExprNodeOf<Variable, IRKind::Variable> {
    std::string name;
    VariableKind var_kind;
    // For a Param, the parameter it reads.
    std::shared_ptr<lang::ParameterContents> param;
    // For a ReductionVar, the RDom it belongs to. Held weakly inside the RDom's own where()
    // predicate, so that an RDom does not own itself.
    std::shared_ptr<lang::ReductionDomainContents> rdom;
    std::weak_ptr<lang::ReductionDomainContents> weak_rdom;
    std::shared_ptr<lang::ReductionDomainContents> domain() const { return rdom ? rdom : weak_rdom.lock(); }
    Variable(Type t, std::string n, VariableKind k) : ExprNodeOf(t), name(std::move(n)), var_kind(k) {}
    static Expr make(Type t, const std::string& name, VariableKind kind = VariableKind::Plain);
    static Expr make_param(Type t, const std::string& name, std::shared_ptr<lang::ParameterContents> p);
    static Expr make_rvar(const std::string& name, std::shared_ptr<lang::ReductionDomainContents> rdom);
};

template <typename T, IRKind K>
struct BinaryNode : ExprNodeOf<T, K> {
    Expr a, b;
    BinaryNode(Type t, Expr a_, Expr b_) : ExprNodeOf<T, K>(t), a(std::move(a_)), b(std::move(b_)) {}
    // Both operands must already have the same type; the front end's operators coerce them.
    static Expr make(Expr a, Expr b);
};

struct Add : BinaryNode<Add, IRKind::Add> {
    using BinaryNode::BinaryNode;
};
struct Sub : BinaryNode<Sub, IRKind::Sub> {
    using BinaryNode::BinaryNode;
};
struct Mul : BinaryNode<Mul, IRKind::Mul> {
    using BinaryNode::BinaryNode;
};
// Integer division and modulo are Euclidean (the remainder is never negative) and total: by
// zero they give zero. Float division and modulo are IEEE (modulo as a - b * floor(a / b)).
struct Div : BinaryNode<Div, IRKind::Div> {
    using BinaryNode::BinaryNode;
};
struct Mod : BinaryNode<Mod, IRKind::Mod> {
    using BinaryNode::BinaryNode;
};
struct Min : BinaryNode<Min, IRKind::Min> {
    using BinaryNode::BinaryNode;
};
struct Max : BinaryNode<Max, IRKind::Max> {
    using BinaryNode::BinaryNode;
};
// Comparisons produce Bool with the operands' lanes.
struct EQ : BinaryNode<EQ, IRKind::EQ> {
    using BinaryNode::BinaryNode;
};
struct NE : BinaryNode<NE, IRKind::NE> {
    using BinaryNode::BinaryNode;
};
struct LT : BinaryNode<LT, IRKind::LT> {
    using BinaryNode::BinaryNode;
};
struct LE : BinaryNode<LE, IRKind::LE> {
    using BinaryNode::BinaryNode;
};
struct GT : BinaryNode<GT, IRKind::GT> {
    using BinaryNode::BinaryNode;
};
struct GE : BinaryNode<GE, IRKind::GE> {
    using BinaryNode::BinaryNode;
};
struct And : BinaryNode<And, IRKind::And> {
    using BinaryNode::BinaryNode;
};
struct Or : BinaryNode<Or, IRKind::Or> {
    using BinaryNode::BinaryNode;
};

struct Not : ExprNodeOf<Not, IRKind::Not> {
    Expr a;
    Not(Type t, Expr a_) : ExprNodeOf(t), a(std::move(a_)) {}
    static Expr make(Expr a);
};

struct Select : ExprNodeOf<Select, IRKind::Select> {
    Expr condition, true_value, false_value;
    Select(Type t, Expr c, Expr tv, Expr fv)
        : ExprNodeOf(t), condition(std::move(c)), true_value(std::move(tv)), false_value(std::move(fv)) {}
    static Expr make(Expr condition, Expr true_value, Expr false_value);
};

// A load from a flat allocation or buffer. `name` is the allocation's name (for a buffer
// argument, the buffer's name); `index` counts elements. Vector loads have a vector index.
struct Load : ExprNodeOf<Load, IRKind::Load> {
    std::string name;
    Expr index;
    // Of a vector load, when defined: a vector of bools with one lane per element. Only the lanes
    // where it is true read memory (the others read as zero), so that a guarded vector may reach
    // past the end of a buffer. Undefined: every lane reads.
    Expr predicate;
    Load(Type t, std::string n, Expr i, Expr p)
        : ExprNodeOf(t), name(std::move(n)), index(std::move(i)), predicate(std::move(p)) {}
    static Expr make(Type t, const std::string& name, Expr index, Expr predicate = Expr());
};

// The vector base, base + stride, ..., base + (lanes - 1) * stride.
struct Ramp : ExprNodeOf<Ramp, IRKind::Ramp> {
    Expr base, stride;
    int lanes;
    Ramp(Type t, Expr b, Expr s, int l) : ExprNodeOf(t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
    static Expr make(Expr base, Expr stride, int lanes);
};

struct Broadcast : ExprNodeOf<Broadcast, IRKind::Broadcast> {
    Expr value;
    int lanes;
    Broadcast(Type t, Expr v, int l) : ExprNodeOf(t), value(std::move(v)), lanes(l) {}
    static Expr make(Expr value, int lanes);
};

struct Let : ExprNodeOf<Let, IRKind::Let> {
    std::string name;
    Expr value, body;
    Let(Type t, std::string n, Expr v, Expr b)
        : ExprNodeOf(t), name(std::move(n)), value(std::move(v)), body(std::move(b)) {}
    static Expr make(const std::string& name, Expr value, Expr body);
    // Frees a chain of lets iteratively, not one stack frame per let.
    ~Let() override;
};

// What a Call calls.
enum class CallType : uint8_t {
    Func,       // a value of a Tessera Func at a multi-dimensional site (before flattening)
    Image,      // an element of an input Buffer or ImageParam (before flattening)
    Intrinsic,  // an operation with its own code generation (see Intrinsic below)
    Extern,     // a pure C math function of the runtime or libm, by name
};

enum class Intrinsic : uint8_t {
    None,
    Abs,  // |x|, unsigned result for signed integers as in Halide
    Sqrt,
    Exp,
    Log,
    Pow,
    Fma,  // fma(a, b, c): a * b + c rounded once
    Sin,
    Cos,
    Tan,
    Tanh,
    Floor,
    Ceil,
    Round,
    Trunc,
    IsNan,
    BitAnd,
    BitOr,
    BitXor,
    BitNot,
    ShiftLeft,
    ShiftRight,
    Print,         // print(args...) and return the first argument
    PrintWhen,     // print_when(cond, value, args...)
    BufferHost,    // buffer_host(buffer_var): the host pointer of a tessera_buffer_t*
    BufferMin,     // buffer_min(buffer_var, dim)
    BufferExtent,  // buffer_extent(buffer_var, dim)
    BufferStride,  // buffer_stride(buffer_var, dim)
    BufferDimensions,
    BufferTypeCode,
    BufferTypeBits,
    BufferTypeLanes,
    ErrorMessage,  // error_message(parts...): the text of a failed AssertStmt
    Likely,
    LikelyIfInnermost,  // a weaker likely(): partitions a loop only with other tests, or innermost
    // Produced by vectorization, with no spelling in the language:
    // require(condition, value, error_message(...)): value where the condition holds (in every
    // lane); elsewhere the pipeline fails with the message, as a failed AssertStmt does.
    Require,
    AllLanesTrue,  // all_lanes_true(bools): whether every lane of a vector of bools is true
    ExtractLane,   // extract_lane(vector, i): lane i (an Int(32) in [0, lanes)) of the vector
    // Produced by tensorization:
    // buffer_view(name, index, type code, bits, extent0, stride0, ...): a tessera_buffer_t* (a
    // Handle) viewing the named memory from element `index`, with those dimensions.
    BufferView,
    // dot4_u8s8(acc, a, b): acc (int32 x n) plus, in lane i, the sum over q < 4 of lane 4i + q of a
    // (uint8 x 4n, or uint8 x 4 for the same four values in every lane) times that of b (int8 x 4n).
    DotU8S8,
    // dot2_bf16(acc, a, b): acc (float32 x n), in lane i plus the product of lanes 2i + 1 of a and
    // b, then plus that of lanes 2i, read as bfloat16 bits (uint16 x 2n, or x 2 for every lane).
    DotBF16,
    // Produced by GPU lowering: gpu_barrier() waits until every thread of the block has reached
    // it, and makes the memory writes of each visible to all.
    GPUBarrier,
    // gpu_launch(kernel, blocks x, y, z, threads x, y, z, shared bytes, arguments...): runs the
    // outlined kernel of that name (a StringImm) and waits for it; a scalar argument passes its
    // value, a buffer's descriptor (a Handle) its device memory.
    GPULaunch,
    // Host and device copies of a buffer, through its descriptor (a Handle), driven by its dirty
    // flags as the runtime's functions of the same names are. copy_to_device(buffer, reads) with
    // reads false (for a kernel that only writes the buffer) gives it device memory and copies
    // only a dirty host's memory there, never that of a new allocation.
    CopyToDevice,
    CopyToHost,
    SetHostDirty,
    SetDeviceDirty,
};

struct Call : ExprNodeOf<Call, IRKind::Call> {
    std::string name;
    std::vector<Expr> args;
    CallType call_type;
    Intrinsic intrinsic = Intrinsic::None;
    // For CallType::Func: the Function called and which of its Tuple values is read. A Func's
    // calls to itself (in its updates) hold it weakly, so that it does not own itself.
    std::shared_ptr<lang::FunctionContents> func;
    std::weak_ptr<lang::FunctionContents> weak_func;
    int value_index = 0;
    std::shared_ptr<lang::FunctionContents> function() const { return func ? func : weak_func.lock(); }
    // For CallType::Image: the Buffer (or the ImageParam's parameter) read. The read in a wrapper
    // of an ImageParam (ImageParam::in) holds the parameter weakly, as the parameter owns it.
    std::shared_ptr<lang::BufferContents> image;
    std::shared_ptr<lang::ParameterContents> param;
    std::weak_ptr<lang::ParameterContents> weak_param;
    std::shared_ptr<lang::ParameterContents> parameter() const { return param ? param : weak_param.lock(); }

    Call(Type t, std::string n, std::vector<Expr> a, CallType ct)
        : ExprNodeOf(t), name(std::move(n)), args(std::move(a)), call_type(ct) {}
    static Expr make_intrinsic(Type t, Intrinsic op, std::vector<Expr> args);
    static Expr make_extern(Type t, const std::string& name, std::vector<Expr> args);
    static Expr make_func(std::shared_ptr<lang::FunctionContents> f, std::vector<Expr> args, int value_index);
    static Expr make_image(Type t, const std::string& name, std::vector<Expr> args,
                           std::shared_ptr<lang::BufferContents> image,
                           std::shared_ptr<lang::ParameterContents> param);
};

const char* intrinsic_name(Intrinsic op);

}  // namespace tessera::ir
