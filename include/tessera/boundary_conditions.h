#pragma once
// Boundary conditions: Funcs defined everywhere from a source defined on a bounded region.

#include <vector>

#include "tessera/func.h"
#include "tessera/param.h"

namespace tessera::BoundaryConditions {

// The value outside the region is `value`.
Func constant_exterior(const Func& source, const Expr& value, const Region& bounds);
// The nearest edge value.
Func repeat_edge(const Func& source, const Region& bounds);
// The region tiled periodically.
Func repeat_image(const Func& source, const Region& bounds);
// Mirrored at the edges, repeating the edge sample (..., 1, 0, 0, 1, ...).
Func mirror_image(const Func& source, const Region& bounds);
// Mirrored about the edge samples, not repeating them (..., 2, 1, 0, 1, 2, ...).
Func mirror_interior(const Func& source, const Region& bounds);

// The same for a buffer or an image parameter, bounded by its own shape.
Region bounds_of(const ImageParam& p);
Region bounds_of(const std::shared_ptr<lang::BufferContents>& b);

template <typename T, int Dims>
Func constant_exterior(const Buffer<T, Dims>& b, const Expr& value) {
    return constant_exterior(Func(b), value, bounds_of(b.contents()));
}
template <typename T, int Dims>
Func repeat_edge(const Buffer<T, Dims>& b) {
    return repeat_edge(Func(b), bounds_of(b.contents()));
}
template <typename T, int Dims>
Func repeat_image(const Buffer<T, Dims>& b) {
    return repeat_image(Func(b), bounds_of(b.contents()));
}
template <typename T, int Dims>
Func mirror_image(const Buffer<T, Dims>& b) {
    return mirror_image(Func(b), bounds_of(b.contents()));
}
template <typename T, int Dims>
Func mirror_interior(const Buffer<T, Dims>& b) {
    return mirror_interior(Func(b), bounds_of(b.contents()));
}
// Buffers and image parameters with explicit bounds; an undefined Range leaves a dimension
// unbounded.
template <typename T, int Dims>
Func constant_exterior(const Buffer<T, Dims>& b, const Expr& value, const Region& bounds) {
    return constant_exterior(Func(b), value, bounds);
}
template <typename T, int Dims>
Func repeat_edge(const Buffer<T, Dims>& b, const Region& bounds) {
    return repeat_edge(Func(b), bounds);
}
template <typename T, int Dims>
Func repeat_image(const Buffer<T, Dims>& b, const Region& bounds) {
    return repeat_image(Func(b), bounds);
}
template <typename T, int Dims>
Func mirror_image(const Buffer<T, Dims>& b, const Region& bounds) {
    return mirror_image(Func(b), bounds);
}
template <typename T, int Dims>
Func mirror_interior(const Buffer<T, Dims>& b, const Region& bounds) {
    return mirror_interior(Func(b), bounds);
}
Func constant_exterior(const ImageParam& p, const Expr& value, const Region& bounds);
Func repeat_edge(const ImageParam& p, const Region& bounds);
Func repeat_image(const ImageParam& p, const Region& bounds);
Func mirror_image(const ImageParam& p, const Region& bounds);
Func mirror_interior(const ImageParam& p, const Region& bounds);

// Bounds as trailing (min, extent) pairs: constant_exterior(f, 0, 0, w, 0, h).
template <typename Source, typename... Bounds>
requires(sizeof...(Bounds) >= 2 && sizeof...(Bounds) % 2 == 0) Func
    constant_exterior(const Source& source, const Expr& value, const Bounds&... bounds) {
    std::vector<Expr> flat{Expr(bounds)...};
    Region region;
    for (size_t i = 0; i < flat.size(); i += 2) region.push_back({flat[i], flat[i + 1]});
    return constant_exterior(source, value, region);
}

Func constant_exterior(const ImageParam& p, const Expr& value);
Func repeat_edge(const ImageParam& p);
Func repeat_image(const ImageParam& p);
Func mirror_image(const ImageParam& p);
Func mirror_interior(const ImageParam& p);

}  // namespace tessera::BoundaryConditions
