#include "tessera/boundary_conditions.h"

#include "lang/function.h"
#include "util/error_stream.h"

namespace tessera::BoundaryConditions {
namespace {

std::vector<Expr> implicit_vars(int n) {
    std::vector<Expr> vars;
    for (int i = 0; i < n; i++) vars.push_back(Var::implicit(i));
    return vars;
}

void check_source(const Func& source, const Region& bounds, const char* condition) {
    TESSERA_USER_CHECK(source.defined()) << "BoundaryConditions::" << condition << " of Func "
                                         << source.name() << ", which has no definition.";
    TESSERA_USER_CHECK(int(bounds.size()) <= source.dimensions())
        << "BoundaryConditions::" << condition << " with " << bounds.size() << " bounds for Func "
        << source.name() << ", which has " << source.dimensions() << " dimensions.";
}

// A Func reading the source at coordinates remapped into the bounds, dimension by dimension;
// dimensions with an undefined range pass through. A remapping that is not the identity inside
// the bounds is passed over there: loop partitioning then leaves it out of the interior, as it
// does the clamps, where vector reads become dense.
Func remap(const Func& source, const Region& bounds, const char* condition,
           Expr (*coordinate)(const Expr& x, const Expr& min, const Expr& extent), bool identity_inside) {
    check_source(source, bounds, condition);
    std::vector<Expr> vars = implicit_vars(source.dimensions()), coords = vars;
    for (size_t d = 0; d < bounds.size(); d++) {
        if (!bounds[d].min.defined() || !bounds[d].extent.defined()) continue;
        // The clamps change no value of a remapped coordinate; they tell bounds inference the
        // exact range read. Each is likely to pass its coordinate through.
        const Expr &x = vars[d], &min = bounds[d].min, &extent = bounds[d].extent, max = min + extent - 1;
        const Expr remapped = clamp(likely(coordinate(x, min, extent)), min, max);
        coords[d] = identity_inside
                        ? remapped
                        : select(likely(x >= min && x <= max), clamp(likely(x), min, max), remapped);
    }
    Func f(lang::unique_name(std::string(condition) + "_" + source.name()));
    if (source.outputs() == 1) {
        f(vars) = source(coords);
    } else {
        std::vector<Expr> values;
        for (int i = 0; i < source.outputs(); i++) values.push_back(source(coords)[i]);
        f(vars) = Tuple(values);
    }
    return f;
}

}  // namespace

Func constant_exterior(const Func& source, const Expr& value, const Region& bounds) {
    check_source(source, bounds, "constant_exterior");
    std::vector<Expr> vars = implicit_vars(source.dimensions());
    Expr inside;
    for (size_t d = 0; d < bounds.size(); d++) {
        if (!bounds[d].min.defined() || !bounds[d].extent.defined()) continue;
        Expr in_range = vars[d] >= bounds[d].min && vars[d] < bounds[d].min + bounds[d].extent;
        inside = inside.defined() ? (inside && in_range) : in_range;
    }
    // Read the source at clamped coordinates, so that the read itself stays in bounds.
    Func clamped = repeat_edge(source, bounds);
    Func f(lang::unique_name("constant_exterior_" + source.name()));
    Expr v = cast(source.type(), value);
    f(vars) = inside.defined() ? select(likely(inside), Expr(clamped(vars)), v) : Expr(clamped(vars));
    return f;
}

Func repeat_edge(const Func& source, const Region& bounds) {
    return remap(
        source, bounds, "repeat_edge", [](const Expr& x, const Expr&, const Expr&) { return x; }, true);
}

Func repeat_image(const Func& source, const Region& bounds) {
    return remap(
        source, bounds, "repeat_image",
        [](const Expr& x, const Expr& min, const Expr& extent) { return (x - min) % extent + min; }, false);
}

Func mirror_image(const Func& source, const Region& bounds) {
    return remap(
        source, bounds, "mirror_image",
        [](const Expr& x, const Expr& min, const Expr& extent) {
            // Period 2 * extent: ..., 1, 0, | 0, 1, ..., n-1, | n-1, ...
            Expr t = (x - min) % (2 * extent);
            return select(t < extent, t, 2 * extent - 1 - t) + min;
        },
        false);
}

Func mirror_interior(const Func& source, const Region& bounds) {
    return remap(
        source, bounds, "mirror_interior",
        [](const Expr& x, const Expr& min, const Expr& extent) {
            // Period 2 * (extent - 1): ..., 2, 1, | 0, 1, ..., n-1, | n-2, ...; a single sample repeats.
            Expr period = max(2 * (extent - 1), 1);
            Expr t = (x - min) % period;
            return clamp(select(t < extent, t, period - t), 0, extent - 1) + min;
        },
        false);
}

Region bounds_of(const ImageParam& p) {
    Region r;
    for (int d = 0; d < p.dimensions(); d++) r.push_back({p.dim(d).min(), p.dim(d).extent()});
    return r;
}

Region bounds_of(const std::shared_ptr<lang::BufferContents>& b) {
    Region r;
    for (int d = 0; d < b->raw.dimensions; d++)
        r.push_back({Expr(b->raw.dim[d].min), Expr(b->raw.dim[d].extent)});
    return r;
}

Func constant_exterior(const ImageParam& p, const Expr& value, const Region& bounds) {
    return constant_exterior(Func(p), value, bounds);
}
Func repeat_edge(const ImageParam& p, const Region& bounds) { return repeat_edge(Func(p), bounds); }
Func repeat_image(const ImageParam& p, const Region& bounds) { return repeat_image(Func(p), bounds); }
Func mirror_image(const ImageParam& p, const Region& bounds) { return mirror_image(Func(p), bounds); }
Func mirror_interior(const ImageParam& p, const Region& bounds) { return mirror_interior(Func(p), bounds); }

Func constant_exterior(const ImageParam& p, const Expr& value) {
    return constant_exterior(Func(p), value, bounds_of(p));
}
Func repeat_edge(const ImageParam& p) { return repeat_edge(Func(p), bounds_of(p)); }
Func repeat_image(const ImageParam& p) { return repeat_image(Func(p), bounds_of(p)); }
Func mirror_image(const ImageParam& p) { return mirror_image(Func(p), bounds_of(p)); }
Func mirror_interior(const ImageParam& p) { return mirror_interior(Func(p), bounds_of(p)); }

}  // namespace tessera::BoundaryConditions
