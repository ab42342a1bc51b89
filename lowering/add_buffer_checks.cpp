#include "lowering/add_buffer_checks.h"

#include <set>

#include "ir/ir_util.h"
#include "lang/parameter.h"
#include "lowering/names.h"
#include "tessera/runtime.h"

namespace tessera::lowering {
namespace {

using ir::Expr;
using ir::Stmt;

Expr i32(int64_t v) { return ir::make_const(Int(32), v); }

Expr field(ir::Intrinsic op, const std::string& buffer, int dim = -1) {
    std::vector<Expr> args{ir::Variable::make(Handle(), buffer_struct(buffer))};
    if (dim >= 0) args.push_back(i32(dim));
    return ir::Call::make_intrinsic(Int(32), op, args);
}

Expr message(int code, std::vector<Expr> parts) {
    parts.insert(parts.begin(), i32(code));
    return ir::Call::make_intrinsic(Int(32), ir::Intrinsic::ErrorMessage, std::move(parts));
}

std::string role(const PipelineArgument& a) {
    return a.kind == PipelineArgument::Kind::OutputBuffer ? "Output" : "Input";
}

// Type, dimensionality and host pointer: checked before any shape field is read.
std::vector<Stmt> structural_checks(const PipelineArgument& a) {
    const std::string who = role(a) + " buffer " + a.name;
    const Type t = a.type;
    Expr code = field(ir::Intrinsic::BufferTypeCode, a.name),
         bits = field(ir::Intrinsic::BufferTypeBits, a.name);
    Expr type_ok = ir::And::make(ir::EQ::make(code, i32(t.code())), ir::EQ::make(bits, i32(t.bits())));
    Expr dims = field(ir::Intrinsic::BufferDimensions, a.name);
    Expr host = ir::Call::make_intrinsic(Handle(), ir::Intrinsic::BufferHost,
                                         {ir::Variable::make(Handle(), buffer_struct(a.name))});
    Expr host_bits = ir::Reinterpret::make(UInt(64), host);
    Expr stride0 = field(ir::Intrinsic::BufferStride, a.name, 0);
    Expr descriptor = ir::Reinterpret::make(UInt(64), ir::Variable::make(Handle(), buffer_struct(a.name)));
    std::vector<Stmt> checks{
        ir::AssertStmt::make(
            ir::NE::make(descriptor, ir::make_zero(UInt(64))),
            message(tessera_error_null_buffer,
                    {Expr(who + " is a null pointer. Pass a tessera_buffer_t* that describes "
                                "the buffer.")})),
        ir::AssertStmt::make(
            type_ok, message(tessera_error_bad_type,
                             {Expr(who + " has element type code "), code, Expr(" with "), bits,
                              Expr(" bits, but the pipeline uses it as " + type_name(t) + " (type code " +
                                   std::to_string(int(t.code())) + ", " + std::to_string(t.bits()) +
                                   " bits). Pass a buffer of " + type_name(t) + ".")})),
        ir::AssertStmt::make(
            ir::EQ::make(dims, i32(a.dimensions)),
            message(tessera_error_bad_dimensions,
                    {Expr(who + " has "), dims,
                     Expr(" dimensions, but the pipeline uses it with " + std::to_string(a.dimensions) +
                          ". Pass a buffer with " + std::to_string(a.dimensions) + " dimensions.")})),
        ir::AssertStmt::make(
            ir::NE::make(host_bits, ir::make_zero(UInt(64))),
            message(tessera_error_null_host, {Expr(who + " has no memory (a null host pointer).")})),
    };
    // Compiled code reads and writes dimension 0 as adjacent elements (vectors load them at once),
    // as Halide's buffers require by default.
    if (a.dense_dimension_0) {
        checks.push_back(ir::AssertStmt::make(
            ir::EQ::make(stride0, i32(1)),
            message(tessera_error_bad_argument,
                    {Expr(who + " has stride "), stride0,
                     Expr(" in dimension 0, but the pipeline needs its elements adjacent there (stride 1). "
                          "Pass a buffer that is dense in dimension 0, e.g. a copy.")})));
    }
    return checks;
}

// Every dimension of the required region lies inside the buffer.
std::vector<Stmt> coverage_checks(const PipelineArgument& a, const std::set<std::string>& defined) {
    std::vector<Stmt> checks;
    const std::string who = role(a) + " buffer " + a.name;
    const char* verb = a.kind == PipelineArgument::Kind::OutputBuffer ? " is written at " : " is read at ";
    for (int d = 0; d < a.dimensions; d++) {
        const std::string lo_name =
            required_min(a.kind == PipelineArgument::Kind::OutputBuffer ? a.func : a.name, d);
        const std::string hi_name =
            required_max(a.kind == PipelineArgument::Kind::OutputBuffer ? a.func : a.name, d);
        if (!defined.count(lo_name)) continue;  // nothing reads (or writes beyond) this buffer
        Expr lo = ir::int_var(lo_name), hi = ir::int_var(hi_name);
        Expr min = ir::int_var(buffer_min(a.name, d));
        Expr max = ir::Sub::make(ir::Add::make(min, ir::int_var(buffer_extent(a.name, d))), i32(1));
        const std::string dim = " in dimension " + std::to_string(d);
        checks.push_back(ir::AssertStmt::make(
            ir::LE::make(min, lo), message(tessera_error_buffer_too_small,
                                           {Expr(who + verb), lo, Expr(dim + ", before its min of "), min,
                                            Expr(". Give the buffer a region that covers " +
                                                 std::string(a.kind == PipelineArgument::Kind::OutputBuffer
                                                                 ? "everything written"
                                                                 : "everything the pipeline reads") +
                                                 " (or add a boundary condition).")})));
        checks.push_back(ir::AssertStmt::make(
            ir::LE::make(hi, max), message(tessera_error_buffer_too_small,
                                           {Expr(who + verb), hi, Expr(dim + ", beyond its max of "), max,
                                            Expr(". Give the buffer a region that covers " +
                                                 std::string(a.kind == PipelineArgument::Kind::OutputBuffer
                                                                 ? "everything written"
                                                                 : "everything the pipeline reads") +
                                                 " (or add a boundary condition).")})));
    }
    return checks;
}

// The requirements set on a buffer's dimensions (ParamDimension::set_min and the like), as
// (field, dimension, required value); the stride 1 of a dense dimension 0 is checked apart.
struct Requirement {
    ir::Intrinsic field;
    int dim;
    Expr value;
};

std::vector<Requirement> requirements(const PipelineArgument& a) {
    std::vector<Requirement> result;
    if (!a.param || a.buffer) return result;
    for (int d = 0; d < a.dimensions && d < int(a.param->constraints.size()); d++) {
        const lang::BufferConstraint& c = a.param->constraints[size_t(d)];
        if (c.min.defined()) result.push_back({ir::Intrinsic::BufferMin, d, c.min});
        if (c.extent.defined()) result.push_back({ir::Intrinsic::BufferExtent, d, c.extent});
        if (c.stride.defined() && !(d == 0 && a.dense_dimension_0))
            result.push_back({ir::Intrinsic::BufferStride, d, c.stride});
    }
    return result;
}

std::string lowered_name(const Requirement& r, const std::string& buffer) {
    return r.field == ir::Intrinsic::BufferMin      ? buffer_min(buffer, r.dim)
           : r.field == ir::Intrinsic::BufferExtent ? buffer_extent(buffer, r.dim)
                                                    : buffer_stride(buffer, r.dim);
}

// The buffer's field equals what was required of it.
Stmt requirement_check(const PipelineArgument& a, const Requirement& r) {
    const char* what = r.field == ir::Intrinsic::BufferMin      ? "min"
                       : r.field == ir::Intrinsic::BufferExtent ? "extent"
                                                                : "stride";
    Expr actual = field(r.field, a.name, r.dim);
    const std::string setter = std::string("dim(") + std::to_string(r.dim) + ").set_" + what;
    return ir::AssertStmt::make(
        ir::EQ::make(actual, ir::int_var(lowered_name(r, a.name))),
        message(tessera_error_bad_argument,
                {Expr(role(a) + " buffer " + a.name + " has " + what + " "), actual,
                 Expr(" in dimension " + std::to_string(r.dim) + ", but the pipeline requires "),
                 ir::int_var(lowered_name(r, a.name)),
                 Expr(" (" + setter + "). Pass a buffer with that " + what + ", or compile without the " +
                      "requirement.")}));
}

}  // namespace

ir::Stmt add_buffer_checks(const ir::Stmt& s, const std::vector<PipelineArgument>& args) {
    // The coverage checks go inside the chain of lets bounds inference put around the pipeline,
    // where the required regions are defined.
    std::vector<std::pair<std::string, Expr>> lets;
    std::set<std::string> defined;
    Stmt body = s;
    while (const ir::LetStmt* let = body.as<ir::LetStmt>()) {
        lets.emplace_back(let->name, let->value);
        defined.insert(let->name);
        body = let->body;
    }
    std::vector<Stmt> checks;
    for (const PipelineArgument& a : args) {
        if (!a.is_buffer()) continue;
        for (Stmt& c : coverage_checks(a, defined)) checks.push_back(c);
    }
    checks.push_back(body);
    Stmt result = ir::Block::make(std::move(checks));
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
        result = ir::LetStmt::make(it->first, it->second, result);
    // Required fields take the required values, inside the fields read from the buffers (which
    // the requirements may mention), each checked against the buffer's own.
    std::set<std::string> required;
    std::vector<Stmt> requirement_checks;
    std::vector<std::pair<std::string, Expr>> required_lets;
    for (const PipelineArgument& a : args) {
        if (!a.is_buffer()) continue;
        for (const Requirement& r : requirements(a)) {
            required.insert(lowered_name(r, a.name));
            required_lets.emplace_back(lowered_name(r, a.name), r.value);
            requirement_checks.push_back(requirement_check(a, r));
        }
    }
    if (!requirement_checks.empty()) {
        requirement_checks.push_back(result);
        result = ir::Block::make(std::move(requirement_checks));
    }
    for (auto it = required_lets.rbegin(); it != required_lets.rend(); ++it)
        result = ir::LetStmt::make(it->first, it->second, result);
    // Shape fields, read once the structure is known to be right.
    for (auto a = args.rbegin(); a != args.rend(); ++a) {
        if (!a->is_buffer()) continue;
        for (int d = a->dimensions - 1; d >= 0; d--) {
            Expr stride =
                d == 0 && a->dense_dimension_0 ? i32(1) : field(ir::Intrinsic::BufferStride, a->name, d);
            auto let_field = [&](const std::string& name, const Expr& value) {
                if (!required.count(name)) result = ir::LetStmt::make(name, value, result);
            };
            let_field(buffer_stride(a->name, d), stride);
            let_field(buffer_extent(a->name, d), field(ir::Intrinsic::BufferExtent, a->name, d));
            let_field(buffer_min(a->name, d), field(ir::Intrinsic::BufferMin, a->name, d));
        }
    }
    std::vector<Stmt> structure;
    for (const PipelineArgument& a : args) {
        if (!a.is_buffer()) continue;
        for (Stmt& c : structural_checks(a)) structure.push_back(c);
    }
    structure.push_back(result);
    return ir::Block::make(std::move(structure));
}

}  // namespace tessera::lowering
