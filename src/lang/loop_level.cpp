// LoopLevel: a place in a pipeline's loop nest, named by a Func and one of its Vars.

#include "tessera/func.h"
#include "tessera/schedule.h"

namespace tessera {

LoopLevel::LoopLevel(const Func& f, const VarOrRVar& v, int stage_index)
    : kind_(Kind::At), function_(f.function()), func_(f.name()), var_(v.name()), stage_(stage_index) {}

LoopLevel LoopLevel::inlined() {
    LoopLevel l;
    l.kind_ = Kind::Inline;
    return l;
}

LoopLevel LoopLevel::root() {
    LoopLevel l;
    l.kind_ = Kind::Root;
    return l;
}

std::string LoopLevel::to_string() const {
    switch (kind_) {
        case Kind::Inherited: return "inherited";
        case Kind::Inline: return "inlined";
        case Kind::Root: return "root";
        case Kind::At: break;
    }
    return func_ + (stage_ >= 0 ? ".s" + std::to_string(stage_) : "") + "." + var_;
}

}  // namespace tessera
