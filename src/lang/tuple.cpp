#include "tessera/tuple.h"

#include "tessera/func.h"

namespace tessera {

// A call of a Tuple-valued (or single-valued) Func as the Tuple of its values there.
Tuple::Tuple(const FuncRef& ref) {
    for (size_t i = 0; i < ref.size(); i++) values_.push_back(ref[int(i)]);
}

}  // namespace tessera
