#pragma once
// The register tile of the matrix-product schedules: the block of C that one step of k updates,
// kept in vector registers across the whole reduction.

#include <tessera/tessera.h>

#include <optional>
#include <string>

namespace tessera_apps {

struct RegisterTile {
    int columns = 0;  // a multiple of the vector width
    int rows = 0;
    std::string to_string() const { return std::to_string(columns) + "x" + std::to_string(rows); }
};

// Two vectors of 32-bit lanes wide, so that one step of k is two vector loads of B per broadcast of
// A. AVX2 has sixteen registers: 16 x 6 holds twelve accumulators, enough independent FMAs to hide
// their latency on two ports, with two vectors of B and a broadcast beside them. AVX-512 has
// thirty-two: 32 x 8 holds sixteen. On a Sapphire Rapids Xeon, 32 x 8 was the fastest of 32 x 6,
// 8, 12 and 14 and 16 x 12 on one thread, for f32 FMA and the u8 x s8 and bf16 dot products alike;
// 16 x 6 there leaves six chains and half the FMA throughput unused.
inline RegisterTile default_register_tile(const tessera::Target& target) {
    const int lanes = target.natural_vector_size<float>();
    return {2 * lanes, lanes >= 16 ? 8 : 6};
}

// "32x6" as a tile; nothing for text of another form.
inline std::optional<RegisterTile> parse_register_tile(const std::string& text) {
    auto positive = [](const std::string& digits) {
        const bool all_digits = !digits.empty() && digits.size() < 5 &&
                                digits.find_first_not_of("0123456789") == std::string::npos;
        return all_digits && std::stoi(digits) > 0 ? std::stoi(digits) : 0;
    };
    const size_t x = text.find('x');
    if (x == std::string::npos) return std::nullopt;
    const RegisterTile tile{positive(text.substr(0, x)), positive(text.substr(x + 1))};
    if (tile.columns == 0 || tile.rows == 0) return std::nullopt;
    return tile;
}

}  // namespace tessera_apps
