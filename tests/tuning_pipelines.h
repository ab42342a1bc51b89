#pragma once
// What the tuning tests tune: a blur and a sharpening of its result (a few Funcs to group, tile and
// inline), its inputs, and the bitwise comparison a schedule must pass.

#include <tessera/tessera.h>

#include <cstring>
#include <random>

namespace tuning_tests {

inline tessera::Buffer<float> random_image(int w, int h, uint32_t seed) {
    tessera::Buffer<float> b(w, h);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(0.0f, 1.0f);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = value(rng);
    return b;
}

inline bool same_bits(const tessera::Buffer<float>& a, const tessera::Buffer<float>& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); y++)
        for (int x = 0; x < a.width(); x++)
            if (std::memcmp(&a(x, y), &b(x, y), sizeof(float)) != 0) return false;
    return true;
}

// Estimated at sizes that do not divide the tiles the search tries.
struct Sharpen {
    static constexpr int width = 203, height = 131;
    tessera::ImageParam input{tessera::Float(32), 2, "input"};
    tessera::Func blur_x{"blur_x"}, blur_y{"blur_y"}, output{"output"};
    tessera::Var x{"x"}, y{"y"};
    tessera::Pipeline pipeline;
    explicit Sharpen(int estimated_width = width, int estimated_height = height) {
        tessera::Func clamped = tessera::BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = (clamped(x - 1, y) + 2 * clamped(x, y) + clamped(x + 1, y)) * 0.25f;
        blur_y(x, y) = (blur_x(x, y - 1) + 2 * blur_x(x, y) + blur_x(x, y + 1)) * 0.25f;
        output(x, y) = 2 * clamped(x, y) - blur_y(x, y);
        input.set_estimates({{0, estimated_width}, {0, estimated_height}});
        output.set_estimates({{0, estimated_width}, {0, estimated_height}});
        pipeline = tessera::Pipeline(output);
    }
    tessera::Buffer<float> run(const tessera::Buffer<float>& image) {
        input.set(image);
        tessera::Buffer<float> out(image.width(), image.height());
        pipeline.realize(out);
        return out;
    }
};

// C = A B over ImageParams, estimated at sizes that divide neither the register tile nor the
// vector: its schedules make Funcs (an accumulator, a packed copy of B).
struct MatrixProduct {
    static constexpr int width = 45, height = 27, depth = 19;
    tessera::ImageParam a{tessera::Float(32), 2, "a"}, b{tessera::Float(32), 2, "b"};
    tessera::Func c{"c"};
    tessera::Var x{"x"}, y{"y"};
    tessera::Pipeline pipeline;
    MatrixProduct() {
        tessera::RDom k(0, a.width(), "k");
        c(x, y) = 0.0f;
        c(x, y) += a(k, y) * b(x, k);
        a.set_estimates({{0, depth}, {0, height}});
        b.set_estimates({{0, width}, {0, depth}});
        c.set_estimates({{0, width}, {0, height}});
        pipeline = tessera::Pipeline(c);
    }
    tessera::Buffer<float> run(const tessera::Buffer<float>& A, const tessera::Buffer<float>& B) {
        a.set(A);
        b.set(B);
        tessera::Buffer<float> out(width, height);
        pipeline.realize(out);
        return out;
    }
};

}  // namespace tuning_tests
