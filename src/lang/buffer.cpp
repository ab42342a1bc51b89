// The non-template parts of Buffer: allocation, wrapping, views, copies and the checks that turn a
// bad shape or conversion into a RuntimeError.

#include "tessera/buffer.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <new>
#include <numeric>

#include "ir/expr_nodes.h"
#include "lang/implicit_vars.h"
#include "util/error_stream.h"

namespace tessera::lang {
namespace {

constexpr std::size_t buffer_alignment = 64;

std::string plural(std::size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

void check_element_type(Type t) {
    if (t.lanes() != 1 || t.bits() == 0 || (t.bits() % 8 != 0 && !t.is_bool()))
        throw_buffer_error("a Buffer cannot hold elements of type " + type_name(t) +
                           "; use a scalar type such as uint8 or float32");
}

void check_extents(const std::vector<int>& extents) {
    for (std::size_t i = 0; i < extents.size(); i++)
        if (extents[i] < 0)
            throw_buffer_error("a Buffer's extents must not be negative, but dimension " + std::to_string(i) +
                               " has extent " + std::to_string(extents[i]));
}

std::shared_ptr<BufferContents> make_contents(Type t, void* host, std::vector<tessera_dimension_t> dims,
                                              std::shared_ptr<void> allocation, const std::string& name) {
    auto c = std::make_shared<BufferContents>();
    c->dims = std::move(dims);
    c->allocation = std::move(allocation);
    c->name = buffer_name_from(name);
    c->raw.host = static_cast<uint8_t*>(host);
    c->raw.type = tessera_type_t{uint8_t(t.code()), uint8_t(t.bits()), uint16_t(t.lanes())};
    c->raw.dimensions = int32_t(c->dims.size());
    c->raw.dim = c->dims.data();
    return c;
}

Type type_of_contents(const BufferContents& b) {
    return Type(Type::Code(b.raw.type.code), b.raw.type.bits, b.raw.type.lanes);
}

// Zeroed, 64-byte aligned memory of at least one byte, so that even an empty buffer has a host.
std::shared_ptr<void> allocate_zeroed(std::size_t bytes) {
    const std::size_t size =
        (std::max<std::size_t>(bytes, 1) + buffer_alignment - 1) / buffer_alignment * buffer_alignment;
    void* p = ::operator new(size, std::align_val_t(buffer_alignment));
    std::memset(p, 0, size);
    return std::shared_ptr<void>(p,
                                 [](void* q) { ::operator delete(q, std::align_val_t(buffer_alignment)); });
}

// Element by element copy of equally shaped regions, with a plain loop for the common widths.
template <typename E>
void copy_rows(int dims, const tessera_dimension_t* dst_shape, uint8_t* dst,
               const tessera_dimension_t* src_shape, const uint8_t* src) {
    E* d = reinterpret_cast<E*>(dst);
    const E* s = reinterpret_cast<const E*>(src);
    detail::for_each_row<2>(dims, {dst_shape, src_shape}, [&](const auto& o, int n, const auto& st) {
        if (st[0] == 1 && st[1] == 1) {
            std::memcpy(d + o[0], s + o[1], std::size_t(n) * sizeof(E));
        } else {
            for (int i = 0; i < n; i++)
                d[o[0] + std::ptrdiff_t(i) * st[0]] = s[o[1] + std::ptrdiff_t(i) * st[1]];
        }
    });
}

}  // namespace

void throw_buffer_error(const std::string& message) { throw RuntimeError("Error: " + message); }

std::string buffer_name_from(const std::string& requested) {
    static std::atomic<int> next{0};
    if (requested.empty()) return "b" + std::to_string(next++);
    std::string name = requested;
    for (char& ch : name)
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) ch = '_';
    if (std::isdigit(static_cast<unsigned char>(name[0]))) name = "_" + name;
    return name;
}

std::shared_ptr<BufferContents> allocate_buffer(Type t, const std::vector<int>& mins,
                                                const std::vector<int>& extents,
                                                const std::vector<int>& storage_order,
                                                const std::string& name) {
    check_element_type(t);
    check_extents(extents);
    const int dims = int(extents.size());
    std::vector<int> order = storage_order;
    if (order.empty()) {
        order.resize(dims);
        std::iota(order.begin(), order.end(), 0);
    }
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < dims; i++)
        if (int(sorted.size()) != dims || sorted[i] != i)
            throw_buffer_error("a storage order must list each of the buffer's " + plural(dims, "dimension") +
                               " exactly once");
    std::vector<tessera_dimension_t> shape(dims);
    int64_t stride = 1;
    for (int d : order) {
        if (stride > std::numeric_limits<int32_t>::max())
            throw_buffer_error("a Buffer of this size is too large: its strides do not fit in 32 bits");
        shape[d] = tessera_dimension_t{mins[d], extents[d], int32_t(stride), 0};
        stride *= std::max(extents[d], 1);
    }
    if (stride > (int64_t(1) << 40))
        throw_buffer_error("a Buffer of " + std::to_string(stride) + " elements is too large");
    const uint64_t bytes = uint64_t(stride) * uint64_t(t.bytes());
    std::shared_ptr<void> allocation;
    try {
        allocation = allocate_zeroed(std::size_t(bytes));
    } catch (const std::bad_alloc&) {
        throw_buffer_error("out of memory allocating a Buffer of " + std::to_string(bytes) + " bytes");
    }
    void* host = allocation.get();
    return make_contents(t, host, std::move(shape), std::move(allocation), name);
}

std::shared_ptr<BufferContents> allocate_buffer_like(Type t, int dimensions, const tessera_dimension_t* shape,
                                                     const std::string& name) {
    std::vector<int> mins, extents, order(dimensions);
    for (int i = 0; i < dimensions; i++) {
        mins.push_back(shape[i].min);
        extents.push_back(shape[i].extent);
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return std::abs(int64_t(shape[a].stride)) < std::abs(int64_t(shape[b].stride));
    });
    return allocate_buffer(t, mins, extents, order, name);
}

std::shared_ptr<BufferContents> wrap_buffer(Type t, void* host, int dimensions,
                                            const tessera_dimension_t* shape, const std::string& name) {
    check_element_type(t);
    if (dimensions < 0)
        throw_buffer_error("a Buffer cannot have " + std::to_string(dimensions) + " dimensions");
    std::vector<tessera_dimension_t> dims(shape, shape + dimensions);
    std::vector<int> extents;
    for (const tessera_dimension_t& d : dims) extents.push_back(d.extent);
    check_extents(extents);
    return make_contents(t, host, std::move(dims), nullptr, name);
}

std::shared_ptr<BufferContents> wrap_dense_buffer(Type t, void* host, const std::vector<int>& extents,
                                                  const std::string& name) {
    check_extents(extents);
    std::vector<tessera_dimension_t> dims;
    int64_t stride = 1;
    for (int e : extents) {
        if (stride > std::numeric_limits<int32_t>::max())
            throw_buffer_error("a Buffer of this size is too large: its strides do not fit in 32 bits");
        dims.push_back(tessera_dimension_t{0, e, int32_t(stride), 0});
        stride *= std::max(e, 1);
    }
    return wrap_buffer(t, host, int(dims.size()), dims.data(), name);
}

std::shared_ptr<BufferContents> view_of_buffer(const BufferContents& src, uint8_t* host,
                                               std::vector<tessera_dimension_t> dims) {
    return make_contents(type_of_contents(src), host, std::move(dims), src.allocation, "");
}

std::shared_ptr<BufferContents> copy_buffer(const BufferContents& src) {
    auto copy = allocate_buffer_like(type_of_contents(src), src.raw.dimensions, src.raw.dim, "");
    copy_buffer_region(*copy, src);
    return copy;
}

void copy_buffer_region(BufferContents& dst, const BufferContents& src) {
    const Type t = type_of_contents(dst);
    if (type_of_contents(src) != t)
        throw_buffer_error("copy_from: cannot copy buffer " + src.name + " of type " +
                           type_name(type_of_contents(src)) + " into buffer " + dst.name + " of type " +
                           type_name(t));
    const int dims = dst.raw.dimensions;
    if (src.raw.dimensions != dims)
        throw_buffer_error("copy_from: buffer " + src.name + " has " +
                           plural(src.raw.dimensions, "dimension") + " but buffer " + dst.name + " has " +
                           std::to_string(dims));
    // The intersection, and each buffer's shape restricted to it with its own strides.
    std::vector<tessera_dimension_t> dst_region(dims), src_region(dims);
    uint8_t* d = dst.raw.host;
    const uint8_t* s = src.raw.host;
    for (int i = 0; i < dims; i++) {
        const tessera_dimension_t &a = dst.raw.dim[i], &b = src.raw.dim[i];
        const int lo = std::max(a.min, b.min);
        const int hi = std::min(int64_t(a.min) + a.extent, int64_t(b.min) + b.extent);
        if (hi <= lo) return;
        dst_region[i] = tessera_dimension_t{lo, hi - lo, a.stride, 0};
        src_region[i] = tessera_dimension_t{lo, hi - lo, b.stride, 0};
        d += std::ptrdiff_t(lo - a.min) * a.stride * t.bytes();
        s += std::ptrdiff_t(lo - b.min) * b.stride * t.bytes();
    }
    switch (t.bytes()) {
        case 1: copy_rows<uint8_t>(dims, dst_region.data(), d, src_region.data(), s); break;
        case 2: copy_rows<uint16_t>(dims, dst_region.data(), d, src_region.data(), s); break;
        case 4: copy_rows<uint32_t>(dims, dst_region.data(), d, src_region.data(), s); break;
        case 8: copy_rows<uint64_t>(dims, dst_region.data(), d, src_region.data(), s); break;
        default: {
            const std::ptrdiff_t bytes = t.bytes();
            detail::for_each_row<2>(
                dims, {dst_region.data(), src_region.data()}, [&](const auto& o, int n, const auto& st) {
                    for (int i = 0; i < n; i++)
                        std::memcpy(d + (o[0] + std::ptrdiff_t(i) * st[0]) * bytes,
                                    s + (o[1] + std::ptrdiff_t(i) * st[1]) * bytes, std::size_t(bytes));
                });
        }
    }
}

void check_buffer_conversion(const BufferContents& have, bool check_type, Type want_type, int want_dims) {
    const Type t = type_of_contents(have);
    if (check_type && t != want_type)
        throw_buffer_error("a Buffer<" + type_name(want_type) + "> cannot hold buffer " + have.name +
                           " of type " + type_name(t));
    if (want_dims != AnyDims && have.raw.dimensions != want_dims)
        throw_buffer_error("a Buffer with " + plural(want_dims, "dimension") + " cannot hold buffer " +
                           have.name + ", which has " + std::to_string(have.raw.dimensions));
}

void crop_buffer(BufferContents& b, int d, int min, int extent) {
    if (d < 0 || d >= b.raw.dimensions)
        throw_buffer_error("crop: buffer " + b.name + " has no dimension " + std::to_string(d));
    tessera_dimension_t& dim = b.dims[d];
    if (extent < 0 || min < dim.min || int64_t(min) + extent > int64_t(dim.min) + dim.extent)
        throw_buffer_error("crop: [" + std::to_string(min) + ", " + std::to_string(int64_t(min) + extent) +
                           ") is not inside dimension " + std::to_string(d) + " of buffer " + b.name + ", [" +
                           std::to_string(dim.min) + ", " + std::to_string(int64_t(dim.min) + dim.extent) +
                           ")");
    b.raw.host += std::ptrdiff_t(min - dim.min) * dim.stride * type_of_contents(b).bytes();
    dim.min = min;
    dim.extent = extent;
}

void slice_buffer(BufferContents& b, int d, int pos) {
    if (d < 0 || d >= b.raw.dimensions)
        throw_buffer_error("slice: buffer " + b.name + " has no dimension " + std::to_string(d));
    const tessera_dimension_t dim = b.dims[d];
    if (pos < dim.min || pos >= dim.min + dim.extent)
        throw_buffer_error("slice: " + std::to_string(pos) + " is not inside dimension " + std::to_string(d) +
                           " of buffer " + b.name + ", [" + std::to_string(dim.min) + ", " +
                           std::to_string(int64_t(dim.min) + dim.extent) + ")");
    b.raw.host += std::ptrdiff_t(pos - dim.min) * dim.stride * type_of_contents(b).bytes();
    b.dims.erase(b.dims.begin() + d);
    b.raw.dim = b.dims.data();
    b.raw.dimensions--;
}

void embed_buffer(BufferContents& b, int d, int pos) {
    if (d < 0 || d > b.raw.dimensions)
        throw_buffer_error("embed: buffer " + b.name + " has " + plural(b.raw.dimensions, "dimension") +
                           "; a new one cannot go before dimension " + std::to_string(d));
    int64_t span = 1;
    for (const tessera_dimension_t& dim : b.dims)
        span = std::max(span, int64_t(std::abs(int64_t(dim.stride))) * std::max(dim.extent, 1));
    if (span > std::numeric_limits<int32_t>::max())
        throw_buffer_error("embed: buffer " + b.name + " is too large for another dimension");
    // Coordinate pos is the element at the host pointer, which stays where it is.
    b.dims.insert(b.dims.begin() + d, tessera_dimension_t{pos, 1, int32_t(span), 0});
    b.raw.dim = b.dims.data();
    b.raw.dimensions++;
}

void transpose_buffer(BufferContents& b, int d1, int d2) {
    for (int d : {d1, d2})
        if (d < 0 || d >= b.raw.dimensions)
            throw_buffer_error("transpose: buffer " + b.name + " has no dimension " + std::to_string(d));
    std::swap(b.dims[d1], b.dims[d2]);
}

Expr buffer_access(const std::shared_ptr<BufferContents>& b, Type t, std::vector<Expr> args) {
    TESSERA_USER_CHECK(b) << "an undefined Buffer is read in a definition; give it a size or an image first";
    expand_placeholder(args, b->raw.dimensions);
    TESSERA_USER_CHECK(int(args.size()) == b->raw.dimensions)
        << "buffer " << b->name << " has " << plural(b->raw.dimensions, "dimension")
        << " but is accessed with " << plural(args.size(), "coordinate");
    for (std::size_t i = 0; i < args.size(); i++) {
        TESSERA_USER_CHECK(args[i].defined())
            << "coordinate " << i << " of an access to buffer " << b->name << " is an undefined Expr";
        const Type at = args[i].type();
        TESSERA_USER_CHECK(at.is_int_or_uint())
            << "coordinate " << i << " of an access to buffer " << b->name << " has type " << type_name(at)
            << "; coordinates must be integers: use an explicit cast, such as cast<int>(...)";
        if (at.element_of() != Int(32)) args[i] = ir::Cast::make(Int(32, at.lanes()), args[i]);
    }
    return ir::Call::make_image(t, b->name, std::move(args), b, nullptr);
}

}  // namespace tessera::lang
