#include "tessera/rdom.h"

#include "ir/expr_nodes.h"
#include "ir/mutator.h"
#include "lang/function.h"
#include "tessera/operators.h"
#include "tessera/param.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

const char* const kDimensionNames[] = {"x", "y", "z", "w"};

Expr int32_bound(const Expr& e, const char* what, int dim) {
    TESSERA_USER_CHECK(e.defined()) << "RDom dimension " << dim << " has an undefined " << what << ".";
    TESSERA_USER_CHECK(e.type().is_int_or_uint() && e.type().is_scalar())
        << "RDom dimension " << dim << " has a " << what << " of type " << type_name(e.type())
        << "; RDom bounds must be integers.";
    return cast(Int(32), e);
}

}  // namespace

RVar::RVar(const std::string& name) : free_name_(name) {}

const std::string& RVar::name() const { return domain_ ? domain_->vars[index_].name : free_name_; }
Expr RVar::min() const { return domain_->vars[index_].min; }
Expr RVar::extent() const { return domain_->vars[index_].extent; }
RVar::operator Expr() const {
    TESSERA_USER_CHECK(domain_) << "RVar " << free_name_ << " belongs to no RDom and has no value.";
    return ir::Variable::make_rvar(name(), domain_);
}

RDom::RDom(const Region& region, const std::string& name) { init(region, name); }
RDom::RDom(const std::shared_ptr<lang::BufferContents>& b) {
    Region region;
    const tessera_buffer_t& raw = b->raw;
    for (int d = 0; d < raw.dimensions; d++)
        region.push_back({Expr(raw.dim[d].min), Expr(raw.dim[d].extent)});
    init(region, "");
}

RDom::RDom(const ImageParam& p) {
    Region region;
    for (int d = 0; d < p.dimensions(); d++) region.push_back({p.dim(d).min(), p.dim(d).extent()});
    init(region, "");
}

void RDom::init(const Region& region, const std::string& name) {
    TESSERA_USER_CHECK(!region.empty()) << "an RDom needs at least one dimension.";
    contents_ = std::make_shared<lang::ReductionDomainContents>();
    contents_->name = name.empty() ? lang::unique_name("r") : name;
    for (size_t i = 0; i < region.size(); i++) {
        std::string var_name = contents_->name + "." + (i < 4 ? kDimensionNames[i] : "d" + std::to_string(i));
        contents_->vars.push_back({var_name, int32_bound(region[i].min, "min", int(i)),
                                   int32_bound(region[i].extent, "extent", int(i))});
    }
    RVar* members[] = {&x, &y, &z, &w};
    for (size_t i = 0; i < region.size() && i < 4; i++) *members[i] = RVar(contents_, int(i));
}

int RDom::dimensions() const { return contents_ ? int(contents_->vars.size()) : 0; }
const std::string& RDom::name() const { return contents_->name; }

RVar RDom::operator[](int i) const {
    TESSERA_USER_CHECK(contents_ && i >= 0 && i < dimensions())
        << "RDom " << (contents_ ? contents_->name : std::string("(undefined)")) << " has " << dimensions()
        << " dimensions; there is no dimension " << i << ".";
    return RVar(contents_, i);
}

RDom::operator RVar() const {
    TESSERA_USER_CHECK(dimensions() == 1)
        << "RDom " << name() << " has " << dimensions()
        << " dimensions; only a one-dimensional RDom stands for a single RVar. "
           "Use its members (.x, .y, ...) instead.";
    return x;
}

RDom::operator Expr() const { return Expr(RVar(*this)); }

namespace {

// The RVars of `domain` in e, rebuilt to refer to it weakly: the predicate is stored in the domain.
class WeakenOwnRVars : public ir::Mutator {
public:
    explicit WeakenOwnRVars(const std::shared_ptr<lang::ReductionDomainContents>& d) : domain(d) {}

private:
    const std::shared_ptr<lang::ReductionDomainContents>& domain;
    Expr visit(const ir::Variable* op) override {
        if (op->var_kind != ir::VariableKind::ReductionVar || op->rdom != domain) return ir::handle_of(op);
        auto weak = std::make_shared<ir::Variable>(*op);
        weak->rdom = nullptr;
        weak->weak_rdom = domain;
        return Expr(std::shared_ptr<const ir::ExprNode>(std::move(weak)));
    }
};

Expr weaken_own_rvars(const Expr& e, const std::shared_ptr<lang::ReductionDomainContents>& domain) {
    return WeakenOwnRVars(domain).mutate(e);
}

}  // namespace

RDom& RDom::where(Expr predicate) {
    TESSERA_USER_CHECK(contents_) << "where() on an undefined RDom.";
    TESSERA_USER_CHECK(predicate.defined()) << "RDom " << name() << ".where() needs a condition.";
    Expr p = weaken_own_rvars(predicate.type().is_bool() ? predicate : predicate != 0, contents_);
    contents_->predicate = contents_->predicate.defined() ? (contents_->predicate && p) : p;
    return *this;
}

}  // namespace tessera
