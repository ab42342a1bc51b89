// The checks behind evaluate<T>(): the caller's C++ type must be the expression's.

#include "tessera/evaluate.h"

#include "util/error_stream.h"

namespace tessera::lang {

void check_evaluate_type(const Expr& e, Type want) {
    TESSERA_USER_CHECK(e.defined()) << "evaluate() of an undefined Expr.";
    TESSERA_USER_CHECK(e.type() == want)
        << "evaluate<" << type_name(want) << ">() of " << e << ", which has type " << type_name(e.type())
        << ". Ask for its own type, or cast it first.";
}

void check_evaluate_size(const Tuple& t, size_t wanted) {
    TESSERA_USER_CHECK(t.size() == wanted) << "evaluate() of a Tuple of " << t.size() << " elements into "
                                           << wanted << " results; pass one pointer per element.";
}

}  // namespace tessera::lang
