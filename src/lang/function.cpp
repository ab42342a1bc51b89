#include "lang/function.h"

#include <atomic>

namespace tessera::lang {

void FunctionContents::touch() {
    static std::atomic<uint64_t> counter{0};
    version = ++counter;
}

std::shared_ptr<FunctionContents> make_function(const std::string& name) {
    auto f = std::make_shared<FunctionContents>();
    f->name = name;
    f->touch();
    return f;
}

std::string unique_name(const std::string& prefix) {
    static std::atomic<int> counter{0};
    return prefix + "$" + std::to_string(counter++);
}

std::shared_ptr<FunctionContents> FunctionContents::called_from(
    const FunctionContents& consumer, const std::shared_ptr<FunctionContents>& self) const {
    std::shared_ptr<FunctionContents> wrapper = wrapper_for(wrappers, consumer);
    return wrapper ? wrapper : self;
}

}  // namespace tessera::lang

namespace tessera::ir {

Expr Call::make_func(std::shared_ptr<lang::FunctionContents> f, std::vector<Expr> args, int value_index) {
    Type t = f->output_types.at(value_index);
    auto c = std::make_shared<Call>(t, f->name, std::move(args), CallType::Func);
    c->func = std::move(f);
    c->value_index = value_index;
    return Expr(c);
}

}  // namespace tessera::ir
