#pragma once
// A random pipeline (random_pipeline.h) built as Tessera Funcs, and printed as the C++ that builds
// it.

#include "random_pipeline.h"

namespace random_schedule {

inline std::string stage_name(int i) { return i < 0 ? "in" : "s" + std::to_string(i); }
inline std::string rdom_name(int stage, int update) {
    return "r" + std::to_string(stage) + "_" + std::to_string(update);
}

struct BuiltPipeline {
    Func input;  // the boundary condition over the input buffer
    std::vector<Func> stages;
    std::vector<std::vector<RDom>> rdoms;  // per stage, per update (undefined when none)
    Var x{"x"}, y{"y"};
    Func output() const { return stages.back(); }
};

class PipelineBuilder {
public:
    PipelineBuilder(const PipelineDef& p, BuiltPipeline& b) : p(p), b(b) {}

    Expr expr(const Node& n, const RDom& r) const {
        auto arg = [&](int i) { return expr(n.args[size_t(i)], r); };
        switch (n.op) {
            case Node::Op::Const: return Expr(n.value);
            case Node::Op::Read: {
                std::vector<Expr> c{coordinate(n.coords[0], r), coordinate(n.coords[1], r)};
                const Func& f = n.source < 0 ? b.input : b.stages[size_t(n.source)];
                ValueType t = n.source < 0 ? p.input_type : p.stages[size_t(n.source)].type;
                Expr v = f(c);
                if (t == ValueType::Float32) return cast<int32_t>(v * 4.0f);
                if (t == ValueType::Int32) return n.raw ? v : (v & 0xffff);
                return cast<int32_t>(v);
            }
            case Node::Op::Coordinate: return coordinate(n.coords[0], r);
            case Node::Op::Add: return arg(0) + arg(1);
            case Node::Op::Sub: return arg(0) - arg(1);
            case Node::Op::MulConst: return arg(0) * n.value;
            case Node::Op::DivConst: return arg(0) / n.value;
            case Node::Op::ModConst: return arg(0) % n.value;
            case Node::Op::Min: return min(arg(0), arg(1));
            case Node::Op::Max: return max(arg(0), arg(1));
            case Node::Op::Xor: return arg(0) ^ arg(1);
            case Node::Op::Select: return select(arg(0) < arg(1), arg(2), arg(3));
            case Node::Op::Mask: return arg(0) & n.value;
        }
        return Expr();
    }

    Expr coordinate(const Coord& c, const RDom& r) const {
        Expr e;
        if (c.var >= 0) e = c.var == 0 ? Expr(b.x) : Expr(b.y);
        if (c.rvar >= 0) {
            Expr rv = r[c.rvar];
            e = e.defined() ? e + rv : rv;
        }
        if (!e.defined()) return Expr(c.offset);
        return c.offset ? e + c.offset : e;
    }

    void build(const Buffer<>& input) {
        switch (p.boundary) {
            case PipelineDef::Boundary::RepeatEdge: b.input = BoundaryConditions::repeat_edge(input); break;
            case PipelineDef::Boundary::ConstantExterior:
                b.input =
                    BoundaryConditions::constant_exterior(input, cast(type_of(p.input_type), p.exterior));
                break;
            case PipelineDef::Boundary::RepeatImage: b.input = BoundaryConditions::repeat_image(input); break;
            case PipelineDef::Boundary::MirrorImage: b.input = BoundaryConditions::mirror_image(input); break;
            case PipelineDef::Boundary::MirrorInterior:
                b.input = BoundaryConditions::mirror_interior(input);
                break;
        }
        for (int i = 0; i <= p.output(); i++) {
            const StageDef& s = p.stages[size_t(i)];
            Func f(stage_name(i));
            b.stages.push_back(f);
            b.rdoms.emplace_back();
            if (s.type == ValueType::Float32) {
                f(b.x, b.y) = cast<float>(expr(s.value.args[0], RDom()) & 0xfff) * 0.25f +
                              cast<float>(expr(s.value.args[1], RDom()) & 0xff);
            } else {
                f(b.x, b.y) = cast(type_of(s.type), expr(s.value, RDom()));
            }
            for (size_t k = 0; k < s.updates.size(); k++) {
                const UpdateDef& u = s.updates[k];
                RDom r;
                if (!u.rdom.empty()) {
                    Region region;
                    for (const auto& [min, extent] : u.rdom) region.emplace_back(Expr(min), Expr(extent));
                    r = RDom(region, rdom_name(i, int(k)));
                    if (u.predicate_modulus > 0) {
                        Expr sum = u.rdom.size() > 1 ? Expr(r.x) + r.y : Expr(r.x);
                        r.where(sum % u.predicate_modulus != 0);
                    }
                }
                b.rdoms.back().push_back(r);
                f(coordinate(u.lhs[0], r), coordinate(u.lhs[1], r)) = cast(type_of(s.type), expr(u.value, r));
            }
        }
    }

private:
    const PipelineDef& p;
    BuiltPipeline& b;
};

inline BuiltPipeline build_pipeline(const PipelineDef& p, const Buffer<>& input) {
    BuiltPipeline b;
    PipelineBuilder(p, b).build(input);
    return b;
}

// The C++ that builds the pipeline, for failure messages.
class PipelinePrinter {
public:
    explicit PipelinePrinter(const PipelineDef& p) : p(p) {}

    std::string coordinate(const Coord& c, const std::string& r) const {
        std::string s;
        if (c.var >= 0) s = c.var == 0 ? "x" : "y";
        if (c.rvar >= 0) s += (s.empty() ? "" : " + ") + r + (c.rvar == 0 ? ".x" : ".y");
        if (s.empty()) return std::to_string(c.offset);
        if (c.offset > 0) s += " + " + std::to_string(c.offset);
        if (c.offset < 0) s += " - " + std::to_string(-c.offset);
        return s;
    }

    std::string expr(const Node& n, const std::string& r) const {
        auto arg = [&](int i) { return expr(n.args[size_t(i)], r); };
        switch (n.op) {
            case Node::Op::Const:
                return n.value < 0 ? "(" + std::to_string(n.value) + ")" : std::to_string(n.value);
            case Node::Op::Read: {
                std::string call = stage_name(n.source) + "(" + coordinate(n.coords[0], r) + ", " +
                                   coordinate(n.coords[1], r) + ")";
                ValueType t = n.source < 0 ? p.input_type : p.stages[size_t(n.source)].type;
                if (t == ValueType::Float32) return "cast<int32_t>(" + call + " * 4.0f)";
                if (t == ValueType::Int32) return n.raw ? call : "(" + call + " & 0xffff)";
                return "cast<int32_t>(" + call + ")";
            }
            case Node::Op::Coordinate: return "(" + coordinate(n.coords[0], r) + ")";
            case Node::Op::Add: return "(" + arg(0) + " + " + arg(1) + ")";
            case Node::Op::Sub: return "(" + arg(0) + " - " + arg(1) + ")";
            case Node::Op::MulConst: return "(" + arg(0) + " * " + std::to_string(n.value) + ")";
            case Node::Op::DivConst: return "(" + arg(0) + " / " + std::to_string(n.value) + ")";
            case Node::Op::ModConst: return "(" + arg(0) + " % " + std::to_string(n.value) + ")";
            case Node::Op::Min: return "min(" + arg(0) + ", " + arg(1) + ")";
            case Node::Op::Max: return "max(" + arg(0) + ", " + arg(1) + ")";
            case Node::Op::Xor: return "(" + arg(0) + " ^ " + arg(1) + ")";
            case Node::Op::Select:
                return "select(" + arg(0) + " < " + arg(1) + ", " + arg(2) + ", " + arg(3) + ")";
            case Node::Op::Mask: {
                std::ostringstream m;
                m << "(" << arg(0) << " & 0x" << std::hex << n.value << ")";
                return m.str();
            }
        }
        return "";
    }

    std::string print() const {
        static const char* boundaries[] = {"repeat_edge(input)", "constant_exterior(input, cast<%T>(%E))",
                                           "repeat_image(input)", "mirror_image(input)",
                                           "mirror_interior(input)"};
        std::ostringstream out;
        out << "Buffer<" << cpp_type(p.input_type) << "> input(" << p.input_extent[0] << ", "
            << p.input_extent[1] << ");  // values from std::mt19937(" << p.input_seed
            << "), see input_values()\n";
        out << "input.set_min(" << p.input_min[0] << ", " << p.input_min[1] << ");\n";
        std::string boundary = boundaries[int(p.boundary)];
        if (p.boundary == PipelineDef::Boundary::ConstantExterior) {
            boundary.replace(boundary.find("%T"), 2, cpp_type(p.input_type));
            boundary.replace(boundary.find("%E"), 2, std::to_string(p.exterior));
        }
        out << "Func in = BoundaryConditions::" << boundary << ";\n";
        out << "Var x(\"x\"), y(\"y\");\n";
        for (int i = 0; i <= p.output(); i++) {
            const StageDef& s = p.stages[size_t(i)];
            const std::string f = stage_name(i);
            out << "Func " << f << "(\"" << f << "\");\n";
            if (s.type == ValueType::Float32) {
                out << f << "(x, y) = cast<float>(" << expr(s.value.args[0], "")
                    << " & 0xfff) * 0.25f + cast<float>(" << expr(s.value.args[1], "") << " & 0xff);\n";
            } else {
                out << f << "(x, y) = cast<" << cpp_type(s.type) << ">(" << expr(s.value, "") << ");\n";
            }
            for (size_t k = 0; k < s.updates.size(); k++) {
                const UpdateDef& u = s.updates[k];
                const std::string r = rdom_name(i, int(k));
                if (!u.rdom.empty()) {
                    out << "RDom " << r << "(";
                    for (const auto& [min, extent] : u.rdom) out << min << ", " << extent << ", ";
                    out << "\"" << r << "\");\n";
                    if (u.predicate_modulus > 0) {
                        out << r << ".where((" << r << ".x" << (u.rdom.size() > 1 ? " + " + r + ".y" : "")
                            << ") % " << u.predicate_modulus << " != 0);\n";
                    }
                }
                out << f << "(" << coordinate(u.lhs[0], r) << ", " << coordinate(u.lhs[1], r) << ") = cast<"
                    << cpp_type(s.type) << ">(" << expr(u.value, r) << ");\n";
            }
        }
        out << "// realized over [" << p.output_min[0] << ", " << p.output_min[0] + p.output_extent[0]
            << ") x [" << p.output_min[1] << ", " << p.output_min[1] + p.output_extent[1] << ")\n";
        return out.str();
    }

private:
    const PipelineDef& p;
};

}  // namespace random_schedule
