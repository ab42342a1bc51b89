#pragma once
// Which Func, stage and Var each loop of the lowered pipeline belongs to, for messages that name
// them as the user wrote them.

#include <map>
#include <string>

#include "lowering/environment.h"

namespace tessera::lowering {

struct LoopOwner {
    std::string func;
    int stage = 0;
    std::string var;  // as the user named it

    // "f" for the pure definition, "f.update(0)" for the first update.
    std::string stage_text() const;
};

class LoopOwners {
public:
    explicit LoopOwners(const Environment& env);
    // The owner of the loop named loop_name; a loop that no stage's schedule names (the outermost
    // loop of a stage, say) is reported under its own name.
    LoopOwner of(const std::string& loop_name) const;

private:
    std::map<std::string, LoopOwner> owners_;
};

}  // namespace tessera::lowering
