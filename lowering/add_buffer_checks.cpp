#include "lowering/add_buffer_checks.h"

#include <set>

#include "ir/ir_util.h"
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
    // Shape fields, read once the structure is known to be right.
    for (auto a = args.rbegin(); a != args.rend(); ++a) {
        if (!a->is_buffer()) continue;
        for (int d = a->dimensions - 1; d >= 0; d--) {
            Expr stride =
                d == 0 && a->dense_dimension_0 ? i32(1) : field(ir::Intrinsic::BufferStride, a->name, d);
            result = ir::LetStmt::make(buffer_stride(a->name, d), stride, result);
            result = ir::LetStmt::make(buffer_extent(a->name, d),
                                       field(ir::Intrinsic::BufferExtent, a->name, d), result);
            result = ir::LetStmt::make(buffer_min(a->name, d), field(ir::Intrinsic::BufferMin, a->name, d),
                                       result);
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
