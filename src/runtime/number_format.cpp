// Decimal text of the numbers that error messages and print() contain.

#include <cstdio>

#include "runtime_internal.h"

namespace tessera::runtime {

void append_int(std::string& out, int64_t x) {
    char text[32];
    int n = std::snprintf(text, sizeof(text), "%lld", static_cast<long long>(x));
    out.append(text, n);
}

void append_uint(std::string& out, uint64_t x) {
    char text[32];
    int n = std::snprintf(text, sizeof(text), "%llu", static_cast<unsigned long long>(x));
    out.append(text, n);
}

void append_float(std::string& out, double x) {
    // "%f" of 1e300 needs about 310 characters; ask snprintf for the length first.
    char text[64];
    int n = std::snprintf(text, sizeof(text), "%f", x);
    if (n < int(sizeof(text))) {
        out.append(text, n);
        return;
    }
    std::string big(n + 1, '\0');
    std::snprintf(big.data(), big.size(), "%f", x);
    out.append(big.data(), n);
}

}  // namespace tessera::runtime
