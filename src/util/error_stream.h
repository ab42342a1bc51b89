#pragma once
// Stream-style construction of errors:
//   TESSERA_USER_ERROR << "f(x) is defined twice; ...";              throws CompileError
//   TESSERA_INTERNAL_CHECK(extent) << "loop " << name << " has no extent";  throws InternalError

#include <sstream>

#include "tessera/error.h"

namespace tessera::util {

template <typename Error>
class ErrorStream {
public:
    explicit ErrorStream(const char* prefix) { out_ << prefix; }
    ErrorStream(const ErrorStream&) = delete;
    ~ErrorStream() noexcept(false) { throw Error(out_.str()); }
    template <typename T>
    ErrorStream& operator<<(const T& x) {
        out_ << x;
        return *this;
    }

private:
    std::ostringstream out_;
};

}  // namespace tessera::util

#define TESSERA_USER_ERROR ::tessera::util::ErrorStream<::tessera::CompileError>("Error: ")
#define TESSERA_RUNTIME_ERROR ::tessera::util::ErrorStream<::tessera::RuntimeError>("Error: ")
#define TESSERA_INTERNAL_ERROR \
    ::tessera::util::ErrorStream<::tessera::InternalError>("Internal error at " __FILE__ ": ")
#define TESSERA_INTERNAL_CHECK(cond) \
    if (cond) {                      \
    } else                           \
        TESSERA_INTERNAL_ERROR << "check failed: " #cond ": "
#define TESSERA_USER_CHECK(cond) \
    if (cond) {                  \
    } else                       \
        TESSERA_USER_ERROR
