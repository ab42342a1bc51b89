#pragma once
// What compiled code reports through the runtime's error handler, for tests to check.

#include <string>
#include <vector>

#include "tessera/runtime.h"

namespace tessera::test {

// Collects what compiled code reports through the error handler while it lives.
class CapturedErrors {
public:
    CapturedErrors() { previous_ = tessera_set_error_handler(&CapturedErrors::handle); }
    ~CapturedErrors() {
        tessera_set_error_handler(previous_);
        messages().clear();
    }
    static std::vector<std::string>& messages() {
        static std::vector<std::string> m;
        return m;
    }

private:
    static void handle(void*, const char* message) { messages().push_back(message); }
    tessera_error_handler_t previous_;
};

}  // namespace tessera::test
