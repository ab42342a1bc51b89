#pragma once
// The compiler's view of a Param or an ImageParam.

#include <cstdint>
#include <memory>
#include <string>

#include "tessera/buffer.h"
#include "tessera/expr.h"

namespace tessera::lang {

struct ParameterContents {
    std::string name;
    Type type;  // of the scalar, or of the buffer's elements
    bool is_buffer = false;
    int dimensions = 0;
    // A scalar's current value, as bytes; compiled code reads it through a pointer.
    alignas(8) uint8_t scalar[8] = {};
    Expr min_value, max_value;
    // An ImageParam's bound buffer (null until set()).
    std::shared_ptr<BufferContents> buffer;
};

}  // namespace tessera::lang
