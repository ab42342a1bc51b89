#pragma once
// Wrappers made by in(): Funcs that read a Func or an ImageParam in place of it, for some of its
// consumers or for all of them, so that the copy can be scheduled on its own.

#include <memory>
#include <vector>

namespace tessera::lang {

struct FunctionContents;

struct Wrapper {
    std::vector<std::weak_ptr<FunctionContents>> consumers;  // none: every consumer
    std::shared_ptr<FunctionContents> function;
    bool is_clone = false;  // a copy of the Func's definitions (clone_in), not a read of it (in)
};

// The wrapper that a call from `consumer` reads: the one made for that consumer, else the one made
// for every consumer. Null where the call reads the original: no wrapper applies, or the consumer
// is itself one of the wrappers.
std::shared_ptr<FunctionContents> wrapper_for(const std::vector<Wrapper>& wrappers,
                                              const FunctionContents& consumer);

// The wrapper (or clone) made for exactly these consumers, in any order, or null.
std::shared_ptr<FunctionContents> wrapper_made_for(
    const std::vector<Wrapper>& wrappers, const std::vector<std::shared_ptr<FunctionContents>>& consumers,
    bool is_clone = false);

}  // namespace tessera::lang
