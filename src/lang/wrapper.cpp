#include "lang/wrapper.h"

#include <algorithm>

namespace tessera::lang {

std::shared_ptr<FunctionContents> wrapper_for(const std::vector<Wrapper>& wrappers,
                                              const FunctionContents& consumer) {
    for (const Wrapper& w : wrappers) {
        if (w.function.get() == &consumer) return nullptr;
    }
    for (const Wrapper& w : wrappers) {
        for (const auto& c : w.consumers) {
            if (c.lock().get() == &consumer) return w.function;
        }
    }
    for (const Wrapper& w : wrappers) {
        if (w.consumers.empty()) return w.function;
    }
    return nullptr;
}

std::shared_ptr<FunctionContents> wrapper_made_for(
    const std::vector<Wrapper>& wrappers, const std::vector<std::shared_ptr<FunctionContents>>& consumers,
    bool is_clone) {
    auto listed_in = [](const Wrapper& w, const std::shared_ptr<FunctionContents>& f) {
        return std::any_of(w.consumers.begin(), w.consumers.end(),
                           [&](const auto& c) { return c.lock() == f; });
    };
    for (const Wrapper& w : wrappers) {
        if (w.is_clone != is_clone || w.consumers.size() != consumers.size()) continue;
        if (std::all_of(consumers.begin(), consumers.end(), [&](const auto& f) { return listed_in(w, f); }))
            return w.function;
    }
    return nullptr;
}

}  // namespace tessera::lang
