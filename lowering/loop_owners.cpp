#include "lowering/loop_owners.h"

#include "lowering/names.h"
#include "lowering/stage_loop_nest.h"

namespace tessera::lowering {

std::string LoopOwner::stage_text() const {
    return stage == 0 ? func : func + ".update(" + std::to_string(stage - 1) + ")";
}

LoopOwners::LoopOwners(const Environment& env) {
    for (const auto& [name, f] : env.functions) {
        for (int k = 0; k <= int(f.updates.size()); k++) {
            for (const schedule::Dim& d : stage_dims(f, k))
                owners_[loop_var(name, k, d.var)] = {name, k, d.name};
        }
    }
}

LoopOwner LoopOwners::of(const std::string& loop_name) const {
    auto it = owners_.find(loop_name);
    return it != owners_.end() ? it->second : LoopOwner{loop_name, 0, loop_name};
}

}  // namespace tessera::lowering
