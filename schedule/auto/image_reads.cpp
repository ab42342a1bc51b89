#include "schedule/auto/image_reads.h"

#include "ir/visitor.h"
#include "tessera/param.h"

namespace tessera::autoschedule {
namespace {

class FindImageReads : public ir::Visitor {
public:
    explicit FindImageReads(const std::string& image) : image_(image) {}
    std::vector<const ir::Call*> found;

private:
    using ir::Visitor::visit;
    void visit(const ir::Call* c) override {
        if (c->call_type == ir::CallType::Image && c->name == image_) found.push_back(c);
        ir::Visitor::visit(c);
    }
    const std::string& image_;
};

}  // namespace

std::vector<const ir::Call*> image_reads(const lang::Definition& d, const std::string& image) {
    FindImageReads find(image);
    for (const Expr& a : d.args) find.include(a);
    for (const Expr& v : d.values) find.include(v);
    return find.found;
}

std::vector<const ir::Call*> image_reads(const lang::FunctionContents& f, const std::string& image) {
    std::vector<const ir::Call*> reads = image_reads(f.pure, image);
    for (const lang::Definition& u : f.updates) {
        const std::vector<const ir::Call*> more = image_reads(u, image);
        reads.insert(reads.end(), more.begin(), more.end());
    }
    return reads;
}

}  // namespace tessera::autoschedule
