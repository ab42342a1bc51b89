#include "ir/printer.h"

#include <sstream>

#include "ir/visitor.h"

namespace tessera::ir {
class Printer : public Visitor {
public:
    explicit Printer(std::ostream& o) : out(o) {}
    using Visitor::include;

private:
    std::ostream& out;
    int indent = 0;

    void pad() {
        for (int i = 0; i < indent; i++) out << "  ";
    }

    void binary(const Expr& a, const char* op, const Expr& b) {
        out << '(';
        include(a);
        out << ' ' << op << ' ';
        include(b);
        out << ')';
    }

    void args(const std::vector<Expr>& list) {
        for (size_t i = 0; i < list.size(); i++) {
            if (i) out << ", ";
            include(list[i]);
        }
    }

    void visit(const IntImm* op) override {
        if (op->type == Int(32))
            out << op->value;
        else
            out << "(" << type_name(op->type) << ")" << op->value;
    }
    void visit(const UIntImm* op) override { out << "(" << type_name(op->type) << ")" << op->value; }
    void visit(const FloatImm* op) override {
        std::ostringstream s;
        s.precision(op->type.bits() == 32 ? 9 : 17);
        s << op->value;
        std::string text = s.str();
        if (text.find_first_of(".eni") == std::string::npos) text += ".0";
        out << text << (op->type.bits() == 32 ? "f" : "");
    }
    void visit(const StringImm* op) override { out << '"' << op->value << '"'; }
    void visit(const Cast* op) override {
        out << type_name(op->type) << "(";
        include(op->value);
        out << ")";
    }
    void visit(const Reinterpret* op) override {
        out << "reinterpret<" << type_name(op->type) << ">(";
        include(op->value);
        out << ")";
    }
    void visit(const Variable* op) override { out << op->name; }
    void visit(const Add* op) override { binary(op->a, "+", op->b); }
    void visit(const Sub* op) override { binary(op->a, "-", op->b); }
    void visit(const Mul* op) override { binary(op->a, "*", op->b); }
    void visit(const Div* op) override { binary(op->a, "/", op->b); }
    void visit(const Mod* op) override { binary(op->a, "%", op->b); }
    void visit(const Min* op) override {
        out << "min(";
        include(op->a);
        out << ", ";
        include(op->b);
        out << ")";
    }
    void visit(const Max* op) override {
        out << "max(";
        include(op->a);
        out << ", ";
        include(op->b);
        out << ")";
    }
    void visit(const EQ* op) override { binary(op->a, "==", op->b); }
    void visit(const NE* op) override { binary(op->a, "!=", op->b); }
    void visit(const LT* op) override { binary(op->a, "<", op->b); }
    void visit(const LE* op) override { binary(op->a, "<=", op->b); }
    void visit(const GT* op) override { binary(op->a, ">", op->b); }
    void visit(const GE* op) override { binary(op->a, ">=", op->b); }
    void visit(const And* op) override { binary(op->a, "&&", op->b); }
    void visit(const Or* op) override { binary(op->a, "||", op->b); }
    void visit(const Not* op) override {
        out << "!";
        include(op->a);
    }
    void visit(const Select* op) override {
        out << "select(";
        args({op->condition, op->true_value, op->false_value});
        out << ")";
    }
    void visit(const Load* op) override {
        out << op->name << "[";
        include(op->index);
        out << "]";
        if (op->predicate.defined()) {
            out << " if ";
            include(op->predicate);
        }
    }
    void visit(const Ramp* op) override {
        out << "ramp(";
        include(op->base);
        out << ", ";
        include(op->stride);
        out << ", " << op->lanes << ")";
    }
    void visit(const Broadcast* op) override {
        out << "x" << op->lanes << "(";
        include(op->value);
        out << ")";
    }
    void visit(const Let* op) override {
        // A chain of lets prints iteratively: "(let a = 1 in (let b = 2 in body))".
        int depth = 0;
        const Let* let = op;
        for (; let; let = let->body.as<Let>(), depth++) {
            out << "(let " << let->name << " = ";
            include(let->value);
            out << " in ";
            if (!let->body.as<Let>()) break;
        }
        include(let->body);
        out << std::string(depth + 1, ')');
    }
    void visit(const Call* op) override {
        out << op->name;
        if (op->call_type == CallType::Func && op->value_index != 0) out << "." << op->value_index;
        out << "(";
        args(op->args);
        out << ")";
    }

    void visit(const LetStmt* op) override {
        const LetStmt* let = op;
        while (true) {
            pad();
            out << "let " << let->name << " = ";
            include(let->value);
            out << "\n";
            const LetStmt* next = let->body.as<LetStmt>();
            if (!next) break;
            let = next;
        }
        include(let->body);
    }
    void visit(const AssertStmt* op) override {
        pad();
        out << "assert(";
        include(op->condition);
        out << ", ";
        include(op->message);
        out << ")\n";
    }
    void visit(const Atomic* op) override {
        pad();
        out << "atomic " << op->producer << " {\n";
        indent++;
        include(op->body);
        indent--;
        pad();
        out << "}\n";
    }
    void visit(const ProducerConsumer* op) override {
        pad();
        out << (op->is_producer ? "produce " : "consume ") << op->name << " {\n";
        indent++;
        include(op->body);
        indent--;
        pad();
        out << "}\n";
    }
    void visit(const For* op) override {
        pad();
        out << for_kind_name(op->for_kind) << " (" << op->name << ", ";
        include(op->min);
        out << ", ";
        include(op->extent);
        out << ") {\n";
        indent++;
        include(op->body);
        indent--;
        pad();
        out << "}\n";
    }
    void visit(const Store* op) override {
        pad();
        out << op->name << "[";
        include(op->index);
        out << "] = ";
        include(op->value);
        if (op->predicate.defined()) {
            out << " if ";
            include(op->predicate);
        }
        out << "\n";
    }
    void visit(const Provide* op) override {
        pad();
        out << op->name << "(";
        args(op->args);
        out << ") = ";
        if (op->values.size() == 1) {
            include(op->values[0]);
        } else {
            out << "{";
            args(op->values);
            out << "}";
        }
        out << "\n";
    }
    void visit(const Allocate* op) override {
        pad();
        out << "allocate " << op->name << "[" << type_name(op->type);
        for (const Expr& e : op->extents) {
            out << " * ";
            include(e);
        }
        out << "]";
        if (op->memory_type != MemoryType::Auto) out << " in " << memory_type_name(op->memory_type);
        out << "\n";
        include(op->body);
    }
    void visit(const Free* op) override {
        pad();
        out << "free " << op->name << "\n";
    }
    void visit(const Realize* op) override {
        pad();
        out << "realize " << op->name << "(";
        for (size_t i = 0; i < op->bounds.size(); i++) {
            if (i) out << ", ";
            out << "[";
            include(op->bounds[i].min);
            out << ", ";
            include(op->bounds[i].extent);
            out << "]";
        }
        out << ") {\n";
        indent++;
        include(op->body);
        indent--;
        pad();
        out << "}\n";
    }
    void visit(const IfThenElse* op) override {
        pad();
        out << "if (";
        include(op->condition);
        out << ") {\n";
        indent++;
        include(op->then_case);
        indent--;
        if (op->else_case.defined()) {
            pad();
            out << "} else {\n";
            indent++;
            include(op->else_case);
            indent--;
        }
        pad();
        out << "}\n";
    }
    void visit(const Evaluate* op) override {
        pad();
        include(op->value);
        out << "\n";
    }
};

std::ostream& operator<<(std::ostream& out, const Stmt& s) {
    if (!s.defined()) return out << "(no-op)\n";
    Printer(out).include(s);
    return out;
}

std::string to_string(const Expr& e) {
    std::ostringstream s;
    s << e;
    return s.str();
}

std::string to_string(const Stmt& s) {
    std::ostringstream o;
    o << s;
    return o.str();
}

}  // namespace tessera::ir

namespace tessera {

std::ostream& operator<<(std::ostream& out, const Expr& e) {
    if (!e.defined()) return out << "(undefined)";
    ir::Printer(out).include(e);
    return out;
}

std::ostream& operator<<(std::ostream& out, const Type& t) { return out << type_name(t); }

}  // namespace tessera
