// Node construction, with the type checks that keep ill-typed IR from being built at all.

#include <cmath>

#include "ir/stmt.h"
#include "util/error_stream.h"

namespace tessera {

Type Expr::type() const {
    TESSERA_INTERNAL_CHECK(node_) << "type() of an undefined Expr";
    return node_->type;
}

int Expr::node_kind() const { return int(node_->kind); }

}  // namespace tessera

namespace tessera::ir {
namespace {

int64_t wrap_signed(int64_t v, int bits) {
    if (bits >= 64) return v;
    const int shift = 64 - bits;
    return int64_t(uint64_t(v) << shift) >> shift;
}

uint64_t wrap_unsigned(uint64_t v, int bits) { return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1); }

Type bool_like(const Expr& e) { return Bool(e.type().lanes()); }

void check_same_types(const Expr& a, const Expr& b, const char* op) {
    TESSERA_INTERNAL_CHECK(a.defined() && b.defined()) << op << " of an undefined Expr";
    TESSERA_INTERNAL_CHECK(a.type() == b.type())
        << op << " of mismatched types " << type_name(a.type()) << " and " << type_name(b.type());
}

template <typename T>
std::shared_ptr<T> new_stmt() {
    return std::make_shared<T>();
}

}  // namespace

Expr IntImm::make(Type t, int64_t value) {
    TESSERA_INTERNAL_CHECK(t.is_int() && t.is_scalar()) << "IntImm of type " << type_name(t);
    return Expr(std::make_shared<IntImm>(t, wrap_signed(value, t.bits())));
}

Expr UIntImm::make(Type t, uint64_t value) {
    TESSERA_INTERNAL_CHECK(t.is_uint() && t.is_scalar()) << "UIntImm of type " << type_name(t);
    return Expr(std::make_shared<UIntImm>(t, wrap_unsigned(value, t.bits())));
}

Expr FloatImm::make(Type t, double value) {
    TESSERA_INTERNAL_CHECK(t.is_float() && t.is_scalar()) << "FloatImm of type " << type_name(t);
    if (t.bits() == 32) value = double(float(value));
    return Expr(std::make_shared<FloatImm>(t, value));
}

Expr StringImm::make(const std::string& value) { return Expr(std::make_shared<StringImm>(value)); }

Expr Cast::make(Type t, Expr value) {
    TESSERA_INTERNAL_CHECK(value.defined()) << "cast of an undefined Expr";
    TESSERA_INTERNAL_CHECK(t.lanes() == value.type().lanes())
        << "cast from " << type_name(value.type()) << " to " << type_name(t) << " changes lanes";
    return Expr(std::make_shared<Cast>(t, std::move(value)));
}

Expr Reinterpret::make(Type t, Expr value) {
    TESSERA_INTERNAL_CHECK(t.bits() * t.lanes() == value.type().bits() * value.type().lanes())
        << "reinterpret from " << type_name(value.type()) << " to " << type_name(t);
    return Expr(std::make_shared<Reinterpret>(t, std::move(value)));
}

Expr Variable::make(Type t, const std::string& name, VariableKind kind) {
    return Expr(std::make_shared<Variable>(t, name, kind));
}

Expr Variable::make_param(Type t, const std::string& name, std::shared_ptr<lang::ParameterContents> p) {
    auto v = std::make_shared<Variable>(t, name, VariableKind::Param);
    v->param = std::move(p);
    return Expr(v);
}

Expr Variable::make_rvar(const std::string& name, std::shared_ptr<lang::ReductionDomainContents> rdom) {
    auto v = std::make_shared<Variable>(Int(32), name, VariableKind::ReductionVar);
    v->rdom = std::move(rdom);
    return Expr(v);
}

template <typename T, IRKind K>
Expr BinaryNode<T, K>::make(Expr a, Expr b) {
    check_same_types(a, b, "binary operator");
    Type t = a.type();
    if constexpr (K == IRKind::EQ || K == IRKind::NE || K == IRKind::LT || K == IRKind::LE ||
                  K == IRKind::GT || K == IRKind::GE) {
        t = bool_like(a);
    }
    if constexpr (K == IRKind::And || K == IRKind::Or) {
        TESSERA_INTERNAL_CHECK(t.is_bool()) << "logical operator on " << type_name(t);
    }
    return Expr(std::make_shared<T>(t, std::move(a), std::move(b)));
}

template struct BinaryNode<Add, IRKind::Add>;
template struct BinaryNode<Sub, IRKind::Sub>;
template struct BinaryNode<Mul, IRKind::Mul>;
template struct BinaryNode<Div, IRKind::Div>;
template struct BinaryNode<Mod, IRKind::Mod>;
template struct BinaryNode<Min, IRKind::Min>;
template struct BinaryNode<Max, IRKind::Max>;
template struct BinaryNode<EQ, IRKind::EQ>;
template struct BinaryNode<NE, IRKind::NE>;
template struct BinaryNode<LT, IRKind::LT>;
template struct BinaryNode<LE, IRKind::LE>;
template struct BinaryNode<GT, IRKind::GT>;
template struct BinaryNode<GE, IRKind::GE>;
template struct BinaryNode<And, IRKind::And>;
template struct BinaryNode<Or, IRKind::Or>;

Expr Not::make(Expr a) {
    TESSERA_INTERNAL_CHECK(a.defined() && a.type().is_bool()) << "logical not of a non-bool";
    Type t = a.type();
    return Expr(std::make_shared<Not>(t, std::move(a)));
}

Expr Select::make(Expr condition, Expr true_value, Expr false_value) {
    check_same_types(true_value, false_value, "select");
    TESSERA_INTERNAL_CHECK(condition.type().is_bool())
        << "select condition of type " << type_name(condition.type());
    TESSERA_INTERNAL_CHECK(condition.type().lanes() == 1 ||
                           condition.type().lanes() == true_value.type().lanes())
        << "select condition lanes";
    Type t = true_value.type();
    return Expr(
        std::make_shared<Select>(t, std::move(condition), std::move(true_value), std::move(false_value)));
}

Expr Load::make(Type t, const std::string& name, Expr index, Expr predicate) {
    TESSERA_INTERNAL_CHECK(index.defined() && index.type().lanes() == t.lanes()) << "load of " << name;
    TESSERA_INTERNAL_CHECK(!predicate.defined() || predicate.type() == Bool(t.lanes()))
        << "predicate of the load of " << name;
    return Expr(std::make_shared<Load>(t, name, std::move(index), std::move(predicate)));
}

Expr Ramp::make(Expr base, Expr stride, int lanes) {
    check_same_types(base, stride, "ramp");
    TESSERA_INTERNAL_CHECK(base.type().is_scalar() && lanes > 1) << "ramp of " << lanes << " lanes";
    Type t = base.type().with_lanes(lanes);
    return Expr(std::make_shared<Ramp>(t, std::move(base), std::move(stride), lanes));
}

Expr Broadcast::make(Expr value, int lanes) {
    TESSERA_INTERNAL_CHECK(value.defined() && value.type().is_scalar() && lanes > 1) << "broadcast";
    Type t = value.type().with_lanes(lanes);
    return Expr(std::make_shared<Broadcast>(t, std::move(value), lanes));
}

Expr Let::make(const std::string& name, Expr value, Expr body) {
    TESSERA_INTERNAL_CHECK(value.defined() && body.defined()) << "let " << name;
    Type t = body.type();
    return Expr(std::make_shared<Let>(t, name, std::move(value), std::move(body)));
}

Expr Call::make_intrinsic(Type t, Intrinsic op, std::vector<Expr> args) {
    auto c = std::make_shared<Call>(t, intrinsic_name(op), std::move(args), CallType::Intrinsic);
    c->intrinsic = op;
    return Expr(c);
}

Expr Call::make_extern(Type t, const std::string& name, std::vector<Expr> args) {
    return Expr(std::make_shared<Call>(t, name, std::move(args), CallType::Extern));
}

Expr Call::make_image(Type t, const std::string& name, std::vector<Expr> args,
                      std::shared_ptr<lang::BufferContents> image,
                      std::shared_ptr<lang::ParameterContents> param) {
    auto c = std::make_shared<Call>(t, name, std::move(args), CallType::Image);
    c->image = std::move(image);
    c->param = std::move(param);
    return Expr(c);
}

const char* intrinsic_name(Intrinsic op) {
    switch (op) {
        case Intrinsic::None: return "none";
        case Intrinsic::Abs: return "abs";
        case Intrinsic::Sqrt: return "sqrt";
        case Intrinsic::Exp: return "exp";
        case Intrinsic::Log: return "log";
        case Intrinsic::Pow: return "pow";
        case Intrinsic::Fma: return "fma";
        case Intrinsic::BufferView: return "buffer_view";
        case Intrinsic::DotU8S8: return "dot4_u8s8";
        case Intrinsic::DotBF16: return "dot2_bf16";
        case Intrinsic::Sin: return "sin";
        case Intrinsic::Cos: return "cos";
        case Intrinsic::Tan: return "tan";
        case Intrinsic::Tanh: return "tanh";
        case Intrinsic::Floor: return "floor";
        case Intrinsic::Ceil: return "ceil";
        case Intrinsic::Round: return "round";
        case Intrinsic::Trunc: return "trunc";
        case Intrinsic::IsNan: return "is_nan";
        case Intrinsic::BitAnd: return "bitwise_and";
        case Intrinsic::BitOr: return "bitwise_or";
        case Intrinsic::BitXor: return "bitwise_xor";
        case Intrinsic::BitNot: return "bitwise_not";
        case Intrinsic::ShiftLeft: return "shift_left";
        case Intrinsic::ShiftRight: return "shift_right";
        case Intrinsic::Print: return "print";
        case Intrinsic::PrintWhen: return "print_when";
        case Intrinsic::BufferHost: return "buffer_host";
        case Intrinsic::BufferMin: return "buffer_min";
        case Intrinsic::BufferExtent: return "buffer_extent";
        case Intrinsic::BufferStride: return "buffer_stride";
        case Intrinsic::BufferDimensions: return "buffer_dimensions";
        case Intrinsic::BufferTypeCode: return "buffer_type_code";
        case Intrinsic::BufferTypeBits: return "buffer_type_bits";
        case Intrinsic::BufferTypeLanes: return "buffer_type_lanes";
        case Intrinsic::ErrorMessage: return "error_message";
        case Intrinsic::Likely: return "likely";
        case Intrinsic::LikelyIfInnermost: return "likely_if_innermost";
        case Intrinsic::Require: return "require";
        case Intrinsic::AllLanesTrue: return "all_lanes_true";
        case Intrinsic::ExtractLane: return "extract_lane";
        case Intrinsic::GPUBarrier: return "gpu_barrier";
        case Intrinsic::GPULaunch: return "gpu_launch";
        case Intrinsic::CopyToDevice: return "copy_to_device";
        case Intrinsic::CopyToHost: return "copy_to_host";
        case Intrinsic::SetHostDirty: return "set_host_dirty";
        case Intrinsic::SetDeviceDirty: return "set_device_dirty";
    }
    return "unknown";
}

// Unlinks the uniquely owned lets below this one before they are destroyed, so that each is
// destroyed with an empty body.
LetStmt::~LetStmt() {
    Stmt next = std::move(body);
    while (const LetStmt* let = next.as<LetStmt>()) {
        if (next.use_count() != 1) break;
        Stmt below = std::move(const_cast<LetStmt*>(let)->body);
        next = std::move(below);
    }
}

Let::~Let() {
    Expr next = std::move(body);
    while (const Let* let = next.as<Let>()) {
        if (next.node().use_count() != 1) break;
        Expr below = std::move(const_cast<Let*>(let)->body);
        next = std::move(below);
    }
}

Stmt LetStmt::make(const std::string& name, Expr value, Stmt body) {
    TESSERA_INTERNAL_CHECK(value.defined() && body.defined()) << "let " << name;
    auto n = new_stmt<LetStmt>();
    n->name = name;
    n->value = std::move(value);
    n->body = std::move(body);
    return Stmt(n);
}

Stmt AssertStmt::make(Expr condition, Expr message) {
    TESSERA_INTERNAL_CHECK(condition.defined() && condition.type().is_bool()) << "assert condition";
    auto n = new_stmt<AssertStmt>();
    n->condition = std::move(condition);
    n->message = std::move(message);
    return Stmt(n);
}

Stmt ProducerConsumer::make(const std::string& name, bool is_producer, Stmt body) {
    auto n = new_stmt<ProducerConsumer>();
    n->name = name;
    n->is_producer = is_producer;
    n->body = std::move(body);
    return Stmt(n);
}

const char* for_kind_name(ForKind k) {
    switch (k) {
        case ForKind::Serial: return "for";
        case ForKind::Parallel: return "parallel";
        case ForKind::Vectorized: return "vectorized";
        case ForKind::Unrolled: return "unrolled";
        case ForKind::Tensorized: return "tensorized";
        case ForKind::GPUBlock: return "gpu_block";
        case ForKind::GPUThread: return "gpu_thread";
        case ForKind::GPULane: return "gpu_lane";
    }
    return "for";
}

Stmt For::make(const std::string& name, Expr min, Expr extent, ForKind kind, Stmt body) {
    TESSERA_INTERNAL_CHECK(min.defined() && extent.defined() && body.defined()) << "loop " << name;
    TESSERA_INTERNAL_CHECK(min.type() == Int(32) && extent.type() == Int(32)) << "loop bounds of " << name;
    auto n = new_stmt<For>();
    n->name = name;
    n->min = std::move(min);
    n->extent = std::move(extent);
    n->for_kind = kind;
    n->body = std::move(body);
    return Stmt(n);
}

Stmt Store::make(const std::string& name, Expr value, Expr index, Expr predicate) {
    TESSERA_INTERNAL_CHECK(value.defined() && index.defined()) << "store to " << name;
    TESSERA_INTERNAL_CHECK(!predicate.defined() || predicate.type() == Bool(value.type().lanes()))
        << "predicate of the store to " << name;
    auto n = new_stmt<Store>();
    n->name = name;
    n->value = std::move(value);
    n->index = std::move(index);
    n->predicate = std::move(predicate);
    return Stmt(n);
}

Stmt Provide::make(const std::string& name, std::vector<Expr> values, std::vector<Expr> args) {
    auto n = new_stmt<Provide>();
    n->name = name;
    n->values = std::move(values);
    n->args = std::move(args);
    return Stmt(n);
}

Stmt Allocate::make(const std::string& name, Type type, std::vector<Expr> extents, Stmt body,
                    MemoryType memory_type) {
    auto n = new_stmt<Allocate>();
    n->name = name;
    n->type = type;
    n->extents = std::move(extents);
    n->memory_type = memory_type;
    n->body = std::move(body);
    return Stmt(n);
}

Stmt Free::make(const std::string& name) {
    auto n = new_stmt<Free>();
    n->name = name;
    return Stmt(n);
}

Stmt Realize::make(const std::string& name, std::vector<Type> types, Region bounds, Stmt body) {
    auto n = new_stmt<Realize>();
    n->name = name;
    n->types = std::move(types);
    n->bounds = std::move(bounds);
    n->body = std::move(body);
    return Stmt(n);
}

Stmt Block::make(std::vector<Stmt> stmts) {
    std::vector<Stmt> flat;
    for (Stmt& s : stmts) {
        if (!s.defined()) continue;
        if (const Block* b = s.as<Block>()) {
            flat.insert(flat.end(), b->stmts.begin(), b->stmts.end());
        } else {
            flat.push_back(std::move(s));
        }
    }
    if (flat.empty()) return Stmt();
    if (flat.size() == 1) return flat[0];
    auto n = new_stmt<Block>();
    n->stmts = std::move(flat);
    return Stmt(n);
}

Stmt Block::make(Stmt first, Stmt rest) { return make(std::vector<Stmt>{std::move(first), std::move(rest)}); }

Stmt IfThenElse::make(Expr condition, Stmt then_case, Stmt else_case) {
    TESSERA_INTERNAL_CHECK(condition.defined() && condition.type().is_bool() && then_case.defined()) << "if";
    auto n = new_stmt<IfThenElse>();
    n->condition = std::move(condition);
    n->then_case = std::move(then_case);
    n->else_case = std::move(else_case);
    return Stmt(n);
}

Stmt Atomic::make(const std::string& producer, Stmt body) {
    TESSERA_INTERNAL_CHECK(body.defined()) << "atomic";
    auto n = new_stmt<Atomic>();
    n->producer = producer;
    n->body = std::move(body);
    return Stmt(n);
}

Stmt Evaluate::make(Expr value) {
    TESSERA_INTERNAL_CHECK(value.defined()) << "evaluate";
    auto n = new_stmt<Evaluate>();
    n->value = std::move(value);
    return Stmt(n);
}

}  // namespace tessera::ir
