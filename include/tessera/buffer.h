#pragma once
// Buffer<T, Dims>: a typed, multi-dimensional view of memory, spelled as Halide 14 spells it.
//
// Copies of a Buffer alias the same contents (memory, shape and name), as in Halide: writing
// through one is seen through all, and so is set_min() or crop(). A Buffer either owns its memory
// (allocated 64-byte aligned and zeroed) or wraps memory the caller keeps alive.
//
// A Buffer may also have device memory (a GPU's; see tessera/runtime.h), shared by its aliases and
// freed with the last of them. As in Halide, writing elements through operator() or data() does
// not mark the host dirty: call set_host_dirty() after host writes that the device should see.
//
// Element (x0, x1, ...) lives at data() + sum_i (xi - min(i)) * stride(i). Element access with
// integer coordinates returns a reference and is inline; access with any Expr (or Var)
// coordinate returns an Expr that reads the buffer inside a pipeline.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/error.h"
#include "tessera/expr.h"
#include "tessera/runtime.h"
#include "tessera/runtime_buffer.h"
#include "tessera/type.h"

namespace tessera {

// Halide's name for the shape of one dimension (min, extent, stride, flags), so that code wrapping
// memory with Buffer(data, dimensions, shape) ports unchanged under `using namespace tessera`. In
// the namespace, not global, so that a program may include Halide's headers too.
using halide_dimension_t = tessera_dimension_t;

// The Dims of a Buffer whose dimensionality is known only at run time.
constexpr int AnyDims = -1;

template <typename T, int Dims>
class Buffer;

namespace lang {

// What every alias of a Buffer shares. `raw.dim` points into `dims`; `allocation` owns the memory
// when the buffer does and is empty when it wraps the caller's memory. The compiler passes `raw`
// to compiled code and uses `name`, always a valid C identifier, for the buffer in generated code.
// Never copied: it lives behind a shared_ptr, since a copy would point into the other's `dims`.
// Device memory in `raw` (from a device call or a pipeline) belongs to the contents.
struct BufferContents {
    tessera_buffer_t raw{};
    std::vector<tessera_dimension_t> dims;
    std::shared_ptr<void> allocation;
    std::string name;

    BufferContents() = default;
    BufferContents(const BufferContents&) = delete;
    BufferContents& operator=(const BufferContents&) = delete;
    // A failure was reported through the error handler; a destructor has no one else to tell.
    ~BufferContents() {
        if (raw.device && raw.device_interface) raw.device_interface->device_free(nullptr, &raw);
    }
};

// An element of `b`, of type `t`, at the coordinates `args`, as an expression. Throws
// CompileError when the number of coordinates is not b's dimensionality or one is not an integer.
Expr buffer_access(const std::shared_ptr<BufferContents>& b, Type t, std::vector<Expr> args);

// The non-template machinery of Buffer (src/lang/buffer.cpp). Every function reports a bad shape
// or a bad conversion as a RuntimeError.

// New zeroed memory of element type t with the given mins and extents. storage_order lists the
// dimensions innermost first (empty: dimension 0 innermost); name may be empty for "b<n>".
std::shared_ptr<BufferContents> allocate_buffer(Type t, const std::vector<int>& mins,
                                                const std::vector<int>& extents,
                                                const std::vector<int>& storage_order,
                                                const std::string& name);
// New zeroed dense memory with the mins, extents and stride order of `shape`.
std::shared_ptr<BufferContents> allocate_buffer_like(Type t, int dimensions, const tessera_dimension_t* shape,
                                                     const std::string& name);
// A buffer over the caller's memory.
std::shared_ptr<BufferContents> wrap_buffer(Type t, void* host, int dimensions,
                                            const tessera_dimension_t* shape, const std::string& name);
// A buffer over the caller's memory, dense with dimension 0 innermost and mins 0.
std::shared_ptr<BufferContents> wrap_dense_buffer(Type t, void* host, const std::vector<int>& extents,
                                                  const std::string& name);
// A new buffer sharing src's memory, with another origin and shape and a fresh name.
std::shared_ptr<BufferContents> view_of_buffer(const BufferContents& src, uint8_t* host,
                                               std::vector<tessera_dimension_t> dims);
// A dense deep copy of src with the same mins and the same order of strides.
std::shared_ptr<BufferContents> copy_buffer(const BufferContents& src);
// Copies the elements of src that dst also has; the types and dimensionalities must agree.
void copy_buffer_region(BufferContents& dst, const BufferContents& src);
// Throws unless `have` may be seen as a Buffer of the given static type and dimensionality.
void check_buffer_conversion(const BufferContents& have, bool check_type, Type want_type, int want_dims);
// The buffer restricted to [min, min + extent) in dimension d (in place).
void crop_buffer(BufferContents& b, int d, int min, int extent);
// The shape with dimension d removed, keeping the element at position pos (in place).
void slice_buffer(BufferContents& b, int d, int pos);
// Dimensions d1 and d2 swapped (in place).
void transpose_buffer(BufferContents& b, int d1, int d2);
// A new dimension of extent 1 at coordinate pos inserted before dimension d (in place); its
// stride is the span of the others, as Halide's add_dimension gives.
void embed_buffer(BufferContents& b, int d, int pos);
// A valid identifier from a user's name ("b<n>" when empty).
std::string buffer_name_from(const std::string& requested);
[[noreturn]] void throw_buffer_error(const std::string& message);

namespace detail {

template <typename... Args>
constexpr bool all_integral = (std::is_integral_v<std::remove_cvref_t<Args>> && ...);

template <typename... Args>
constexpr bool all_exprs = (std::is_convertible_v<const Args&, Expr> && ...);

// Integers, optionally followed by a name: Buffer<uint8_t>(w, h, "input").
template <typename... Args>
constexpr bool ints_then_optional_name() {
    if constexpr (sizeof...(Args) == 0) {
        return true;
    } else {
        constexpr bool integral[] = {std::is_integral_v<std::remove_cvref_t<Args>>...};
        using Last = std::remove_cvref_t<std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>>;
        for (std::size_t i = 0; i + 1 < sizeof...(Args); i++)
            if (!integral[i]) return false;
        return integral[sizeof...(Args) - 1] || std::is_convertible_v<Last, std::string>;
    }
}

template <typename... Args>
void split_sizes_and_name(std::vector<int>& sizes, std::string& name, const Args&... args) {
    auto take = [&](const auto& a) {
        if constexpr (std::is_integral_v<std::remove_cvref_t<decltype(a)>>)
            sizes.push_back(int(a));
        else
            name = a;
    };
    (void)take;
    (take(args), ...);
}

template <std::size_t>
using IntArg = int;

template <typename F, std::size_t... I>
constexpr bool invocable_with_ints(std::index_sequence<I...>) {
    return std::is_invocable_v<F&, IntArg<I>...>;
}

template <typename F, std::size_t... I>
decltype(auto) call_with_coordinates(F& f, const int* pos, std::index_sequence<I...>) {
    return f(pos[I]...);
}

// Calls f(offsets, n, strides) once per row along dimension 0 of the shape of shapes[0], dimension
// 0 fastest: offsets[b] is the element offset of the row's first element in buffer b, whose
// elements follow at strides[b]. Buffers b > 0 are walked in lock step at the same relative
// positions, with their own strides.
template <std::size_t N, typename F>
void for_each_row(int dims, const std::array<const tessera_dimension_t*, N>& shapes, F&& f) {
    const tessera_dimension_t* shape = shapes[0];
    for (int i = 0; i < dims; i++)
        if (shape[i].extent <= 0) return;
    std::array<std::ptrdiff_t, N> offsets{}, strides{};
    if (dims == 0) {
        f(offsets, 1, strides);
        return;
    }
    for (std::size_t b = 0; b < N; b++) strides[b] = shapes[b][0].stride;
    std::vector<int> pos(dims, 0);
    while (true) {
        f(offsets, shape[0].extent, strides);
        int k = 1;
        for (; k < dims; k++) {
            for (std::size_t b = 0; b < N; b++) offsets[b] += shapes[b][k].stride;
            if (++pos[k] < shape[k].extent) break;
            for (std::size_t b = 0; b < N; b++)
                offsets[b] -= std::ptrdiff_t(shapes[b][k].stride) * shape[k].extent;
            pos[k] = 0;
        }
        if (k == dims) return;
    }
}

// Calls f(pos) with the absolute coordinates of every element, dimension 0 fastest.
template <typename F>
void for_each_coordinate(int dims, const tessera_dimension_t* shape, F&& f) {
    for (int i = 0; i < dims; i++)
        if (shape[i].extent <= 0) return;
    std::vector<int> pos(dims > 0 ? dims : 1, 0);
    if (dims == 0) {
        f(static_cast<const int*>(pos.data()));
        return;
    }
    for (int i = 0; i < dims; i++) pos[i] = shape[i].min;
    const int x_end = shape[0].min + shape[0].extent;
    while (true) {
        for (pos[0] = shape[0].min; pos[0] < x_end; pos[0]++) f(static_cast<const int*>(pos.data()));
        int k = 1;
        for (; k < dims; k++) {
            if (++pos[k] < shape[k].min + shape[k].extent) break;
            pos[k] = shape[k].min;
        }
        if (k == dims) return;
    }
}

// Calls f with one int per dimension (up to 8) at every element, or with a const int* of the
// coordinates when f takes that.
template <typename F, int N = 0>
void for_each_element_of(int dims, const tessera_dimension_t* shape, F& f) {
    if constexpr (std::is_invocable_v<F&, const int*>) {
        for_each_coordinate(dims, shape, f);
    } else if constexpr (N > 8) {
        throw_buffer_error(
            "for_each_element: buffers of more than 8 dimensions need a callable taking const int*");
    } else {
        if (dims != N) return for_each_element_of<F, N + 1>(dims, shape, f);
        if constexpr (invocable_with_ints<F>(std::make_index_sequence<N>())) {
            for_each_coordinate(dims, shape, [&](const int* pos) {
                call_with_coordinates(f, pos, std::make_index_sequence<N>());
            });
        } else {
            throw_buffer_error("for_each_element: the buffer has " + std::to_string(dims) +
                               " dimensions but the callable does not take " + std::to_string(dims) +
                               " int coordinates");
        }
    }
}

}  // namespace detail
}  // namespace lang

// One dimension of a Buffer: its min, extent, stride and max; iterating over it visits the
// coordinates min() ... max(). The same view as the runtime's buffer.
using BufferDimension = Runtime::BufferDimension;

template <typename T = void, int Dims = AnyDims>
class Buffer {
    static constexpr bool typed = !std::is_void_v<T>;
    // The element type for signatures that only typed buffers use.
    using Value = std::remove_const_t<std::conditional_t<typed, T, unsigned char>>;
    using Reference = std::add_lvalue_reference_t<T>;
    using ConstReference = std::add_lvalue_reference_t<const T>;

    template <typename T2, int D2>
    friend class Buffer;

    // Whether a Buffer<T2, D2> may become a Buffer<T, Dims>: the same element type (adding const
    // is fine) unless one side is void, which is checked at run time, and compatible Dims.
    template <typename T2, int D2>
    static constexpr bool convertible_from() {
        bool types = true;
        if constexpr (typed && !std::is_void_v<T2>)
            types = std::is_same_v<std::remove_const_t<T>, std::remove_const_t<T2>> &&
                    (std::is_const_v<T> || !std::is_const_v<T2>);
        return types && (Dims == AnyDims || D2 == AnyDims || Dims == D2);
    }

    // The constraints of the overloads below, named so that they read as one word there.
    template <typename... Args>
    static constexpr bool sizes = lang::detail::ints_then_optional_name<Args...>();
    template <typename... Args>
    static constexpr bool typed_sizes = typed&& sizes<Args...>;
    template <typename... Args>
    static constexpr bool int_coordinates = typed&& lang::detail::all_integral<Args...>;
    template <typename... Args>
    static constexpr bool expr_coordinates = !int_coordinates<Args...> && lang::detail::all_exprs<Args...>;
    template <typename V>
    static constexpr bool vector_coordinates =
        lang::detail::all_exprs<V> && !std::is_same_v<V, Expr> && !std::is_integral_v<V>;
    template <typename T2, int D2>
    static constexpr bool converts_from = convertible_from<T2, D2>() &&
                                          !(std::is_same_v<T, T2> && Dims == D2);
    template <typename T2>
    static constexpr bool copies_from = std::is_void_v<T> || std::is_void_v<T2> ||
                                        std::is_same_v<std::remove_const_t<T>, std::remove_const_t<T2>>;
    template <typename F>
    static constexpr bool element_function = typed && !std::is_convertible_v<F, Value>;

public:
    using ElemType = T;
    using Dimension = BufferDimension;

    // An undefined buffer.
    Buffer() = default;

    // New zeroed memory of the given extents, dimension 0 innermost, mins 0, with an optional name
    // last: Buffer<float>(640, 480) or Buffer<float>(640, 480, "input").
    template <typename... Args>
    requires typed_sizes<Args...>
    explicit Buffer(int first, const Args&... rest) {
        std::vector<int> sizes{first};
        std::string name;
        lang::detail::split_sizes_and_name(sizes, name, rest...);
        allocate(type_of<T>(), sizes, {}, name);
    }
    explicit Buffer(const std::vector<int>& sizes, const std::string& name = "") requires typed {
        allocate(type_of<T>(), sizes, {}, name);
    }
    // Buffer<int> b({640, 480}): without it the braced sizes could also become a Buffer(int, int)
    // to copy from, and the call would be ambiguous.
    explicit Buffer(std::initializer_list<int> sizes) requires typed {
        allocate(type_of<T>(), std::vector<int>(sizes), {}, "");
    }
    // storage_order lists the dimensions innermost first: {2, 0, 1} makes an interleaved image.
    Buffer(const std::vector<int>& sizes, const std::vector<int>& storage_order,
           const std::string& name = "") requires typed {
        allocate(type_of<T>(), sizes, storage_order, name);
    }

    // The same with the element type given at run time (which must be T's unless T is void).
    template <typename... Args>
    requires sizes<Args...> Buffer(Type t, int first, const Args&... rest) {
        std::vector<int> sizes{first};
        std::string name;
        lang::detail::split_sizes_and_name(sizes, name, rest...);
        allocate(t, sizes, {}, name);
    }
    Buffer(Type t, const std::vector<int>& sizes, const std::string& name = "") {
        allocate(t, sizes, {}, name);
    }
    Buffer(Type t, const std::vector<int>& sizes, const std::vector<int>& storage_order,
           const std::string& name = "") {
        allocate(t, sizes, storage_order, name);
    }

    // Views of the caller's memory, which must outlive every alias: dense, mins 0.
    template <typename... Args>
    requires typed_sizes<Args...> Buffer(T* data, int first, const Args&... rest) {
        std::vector<int> sizes{first};
        std::string name;
        lang::detail::split_sizes_and_name(sizes, name, rest...);
        wrap_dense(type_of<T>(), data, sizes, name);
    }
    Buffer(T* data, const std::vector<int>& sizes, const std::string& name = "") requires typed {
        wrap_dense(type_of<T>(), data, sizes, name);
    }
    template <typename... Args>
    requires sizes<Args...> Buffer(Type t, void* data, int first, const Args&... rest) {
        std::vector<int> sizes{first};
        std::string name;
        lang::detail::split_sizes_and_name(sizes, name, rest...);
        wrap_dense(t, data, sizes, name);
    }
    Buffer(Type t, void* data, const std::vector<int>& sizes, const std::string& name = "") {
        wrap_dense(t, data, sizes, name);
    }
    // A view of the caller's memory with any mins and strides.
    Buffer(T* data, int dimensions, const tessera_dimension_t* shape,
           const std::string& name = "") requires typed {
        wrap(type_of<T>(), (void*)data, dimensions, shape, name);
    }
    Buffer(Type t, void* data, int dimensions, const tessera_dimension_t* shape,
           const std::string& name = "") {
        wrap(t, data, dimensions, shape, name);
    }
    // A view of the memory a tessera_buffer_t describes (its host memory; devices are not followed).
    explicit Buffer(const tessera_buffer_t& raw, const std::string& name = "") {
        wrap(Type(Type::Code(raw.type.code), raw.type.bits, raw.type.lanes), raw.host, raw.dimensions,
             raw.dim, name);
    }

    // A view of the memory of a Runtime::Buffer (the light buffer of applications), which it keeps
    // alive: Halide::Buffer(Halide::Runtime::Buffer) ports unchanged.
    template <typename T2, int D2>
    explicit Buffer(const Runtime::Buffer<T2, D2>& b, const std::string& name = "") {
        if (!b.defined()) return;
        const tessera_buffer_t& raw = *b.raw_buffer();
        wrap(Type(Type::Code(raw.type.code), raw.type.bits, raw.type.lanes), raw.host, raw.dimensions,
             raw.dim, name);
        contents_->allocation = std::make_shared<Runtime::Buffer<T2, D2>>(b);
    }

    // A view of a C array, whose last index is dimension 0: int a[3][4] is a 4 x 3 buffer.
    template <typename Array, std::size_t N>
    requires(typed&& std::is_same_v<std::remove_all_extents_t<Array>,
                                    std::remove_const_t<T>>) explicit Buffer(Array (&vals)[N],
                                                                             const std::string& name = "") {
        std::vector<int> sizes{int(N)};
        array_extents<Array>(sizes);
        std::reverse(sizes.begin(), sizes.end());
        wrap_dense(type_of<Value>(), const_cast<Value*>(reinterpret_cast<const Value*>(vals)), sizes, name);
    }

    // An alias of existing contents (for the compiler), checked against T and Dims.
    explicit Buffer(std::shared_ptr<lang::BufferContents> contents)
        : contents_(checked(std::move(contents))) {}

    // Another view of the same contents; checked at run time where a side is void or AnyDims, and
    // a mismatch throws RuntimeError naming both types.
    template <typename T2, int D2>
    requires converts_from<T2, D2> Buffer(const Buffer<T2, D2>& other)
        : contents_(checked(other.contents_)) {}
    template <typename T2, int D2>
    requires converts_from<T2, D2> Buffer(Buffer<T2, D2>&& other)
        : contents_(checked(std::move(other.contents_))) {}

    Buffer(const Buffer&) = default;
    Buffer(Buffer&&) noexcept = default;
    Buffer& operator=(const Buffer&) = default;
    Buffer& operator=(Buffer&&) noexcept = default;

    // A zero-dimensional buffer holding one element.
    static Buffer make_scalar(const std::string& name = "") requires typed {
        return Buffer(std::vector<int>{}, name);
    }
    static Buffer make_scalar(Type t, const std::string& name = "") {
        return Buffer(t, std::vector<int>{}, name);
    }
    static Buffer make_scalar(T* data, const std::string& name = "") requires typed {
        return Buffer(data, std::vector<int>{}, name);
    }
    // A width x height x channels image with the channels of a pixel adjacent in memory.
    static Buffer make_interleaved(int width, int height, int channels,
                                   const std::string& name = "") requires typed {
        return Buffer(std::vector<int>{width, height, channels}, {2, 0, 1}, name);
    }
    static Buffer make_interleaved(Type t, int width, int height, int channels,
                                   const std::string& name = "") {
        return Buffer(t, std::vector<int>{width, height, channels}, {2, 0, 1}, name);
    }
    static Buffer make_interleaved(T* data, int width, int height, int channels,
                                   const std::string& name = "") requires typed {
        const tessera_dimension_t shape[3] = {
            {0, width, channels, 0}, {0, height, width * channels, 0}, {0, channels, 1, 0}};
        return Buffer(data, 3, shape, name);
    }
    // New zeroed memory with the mins, extents and stride order of src.
    template <typename T2, int D2>
    static Buffer make_with_shape_of(const Buffer<T2, D2>& src, const std::string& name = "") requires typed {
        Buffer b;
        src.check_defined("make_with_shape_of");
        b.contents_ = b.checked(
            lang::allocate_buffer_like(type_of<T>(), src.dimensions(), src.raw_buffer()->dim, name));
        return b;
    }

    bool defined() const { return contents_ != nullptr; }
    void reset() { contents_.reset(); }
    // Whether the two are aliases of the same contents.
    template <typename T2, int D2>
    bool same_as(const Buffer<T2, D2>& other) const {
        return contents_ == other.contents_;
    }

    Type type() const {
        if constexpr (typed) {
            return type_of<T>();
        } else {
            if (!contents_) return Type();
            const tessera_type_t& t = contents_->raw.type;
            return Type(Type::Code(t.code), t.bits, t.lanes);
        }
    }
    int dimensions() const { return contents_ ? contents_->raw.dimensions : 0; }
    Dimension dim(int i) const {
        if (i < 0 || i >= dimensions()) bad_dimension("dim", i);
        return Dimension(contents_->raw.dim[i]);
    }
    int min(int i) const { return dim(i).min(); }
    int extent(int i) const { return dim(i).extent(); }
    int stride(int i) const { return dim(i).stride(); }
    // The extents of dimensions 0, 1 and 2, or 1 where the buffer has no such dimension.
    int width() const { return dimensions() > 0 ? contents_->raw.dim[0].extent : 1; }
    int height() const { return dimensions() > 1 ? contents_->raw.dim[1].extent : 1; }
    int channels() const { return dimensions() > 2 ? contents_->raw.dim[2].extent : 1; }
    // The first and last coordinates of dimensions 0 (left, right) and 1 (top, bottom).
    int left() const { return dimensions() > 0 ? contents_->raw.dim[0].min : 0; }
    int right() const {
        return dimensions() > 0 ? contents_->raw.dim[0].min + contents_->raw.dim[0].extent - 1 : 0;
    }
    int top() const { return dimensions() > 1 ? contents_->raw.dim[1].min : 0; }
    int bottom() const {
        return dimensions() > 1 ? contents_->raw.dim[1].min + contents_->raw.dim[1].extent - 1 : 0;
    }

    // The element at the mins.
    T* data() const { return contents_ ? reinterpret_cast<T*>(contents_->raw.host) : nullptr; }
    // The product of the extents.
    std::size_t number_of_elements() const {
        std::size_t n = 1;
        for (int i = 0; i < dimensions(); i++) n *= std::size_t(std::max(contents_->raw.dim[i].extent, 0));
        return n;
    }
    // The bytes spanned from the lowest to the highest element address.
    std::size_t size_in_bytes() const {
        if (!contents_ || number_of_elements() == 0) return 0;
        std::size_t span = 1;
        for (int i = 0; i < dimensions(); i++) {
            const tessera_dimension_t& d = contents_->raw.dim[i];
            span +=
                std::size_t(d.extent - 1) * std::size_t(d.stride < 0 ? -std::int64_t(d.stride) : d.stride);
        }
        return span * std::size_t(type().bytes());
    }
    // The lowest element address, and one past the highest (negative strides included).
    T* begin() const {
        std::ptrdiff_t offset = 0;
        for (int i = 0; i < dimensions(); i++) {
            const tessera_dimension_t& d = contents_->raw.dim[i];
            if (d.stride < 0 && d.extent > 0) offset += std::ptrdiff_t(d.extent - 1) * d.stride;
        }
        return data() + offset;
    }
    T* end() const {
        std::ptrdiff_t offset = 1;
        for (int i = 0; i < dimensions(); i++) {
            const tessera_dimension_t& d = contents_->raw.dim[i];
            if (d.extent <= 0) return begin();
            if (d.stride > 0) offset += std::ptrdiff_t(d.extent - 1) * d.stride;
        }
        return data() + offset;
    }
    // Device memory, shared by every alias (see the top of this file). Each call returns 0 or
    // throws RuntimeError with the message the runtime reported. A view made by crop, slice,
    // translated and the like has no device memory: copy_to_host() before making one.

    // Gives the buffer device memory from iface unless it has some; copies the host memory there
    // if the host is dirty or the memory is new; clears host_dirty().
    int copy_to_device(const tessera_device_interface_t* iface = tessera_cuda_device_interface()) const {
        check_defined("copy_to_device");
        return checked_device_call(tessera_copy_to_device(nullptr, &contents_->raw, iface));
    }
    // Copies the device memory to the host if the device is dirty, and clears device_dirty(). Does
    // nothing (and succeeds) otherwise, so code that calls it after realize() ports unchanged.
    int copy_to_host() const {
        return contents_ ? checked_device_call(tessera_copy_to_host(nullptr, &contents_->raw)) : 0;
    }
    // Gives the buffer device memory from iface unless it has some; copies nothing.
    int device_malloc(const tessera_device_interface_t* iface = tessera_cuda_device_interface()) const {
        check_defined("device_malloc");
        return checked_device_call(tessera_device_malloc(nullptr, &contents_->raw, iface));
    }
    // Frees the device memory of every alias, dropping what only the device held.
    int device_free() const {
        return contents_ ? checked_device_call(tessera_device_free(nullptr, &contents_->raw)) : 0;
    }
    // Waits for the device's work on the buffer.
    int device_sync() const {
        return contents_ ? checked_device_call(tessera_device_sync(nullptr, &contents_->raw)) : 0;
    }
    bool has_device_allocation() const { return contents_ && contents_->raw.device != 0; }
    bool host_dirty() const { return contents_ && (contents_->raw.flags & TESSERA_BUFFER_HOST_DIRTY) != 0; }
    bool device_dirty() const {
        return contents_ && (contents_->raw.flags & TESSERA_BUFFER_DEVICE_DIRTY) != 0;
    }
    void set_host_dirty(bool dirty = true) { set_flag(TESSERA_BUFFER_HOST_DIRTY, dirty); }
    void set_device_dirty(bool dirty = true) { set_flag(TESSERA_BUFFER_DEVICE_DIRTY, dirty); }
    static constexpr int static_dimensions() { return Dims; }

    // Whether the elements fill [data(), data() + number_of_elements()) with no gaps.
    bool is_dense() const { return size_in_bytes() == number_of_elements() * std::size_t(type().bytes()); }

    const std::string& name() const {
        static const std::string none;
        return contents_ ? contents_->name : none;
    }
    // Renames every alias. Characters that cannot appear in an identifier become '_'.
    void set_name(const std::string& name) {
        check_defined("set_name");
        contents_->name = lang::buffer_name_from(name);
    }
    tessera_buffer_t* raw_buffer() const { return contents_ ? &contents_->raw : nullptr; }
    // The shared contents, for the compiler.
    const std::shared_ptr<lang::BufferContents>& contents() const { return contents_; }

    // Moves the origin of every alias: set_min(10, 20) makes (10, 20) the first element.
    template <typename... Args>
    requires lang::detail::all_integral<Args...>
    void set_min(Args... mins) { set_min(std::vector<int>{int(mins)...}); }
    void set_min(const std::vector<int>& mins) {
        check_defined("set_min");
        if (int(mins.size()) > dimensions()) bad_dimension("set_min", int(mins.size()) - 1);
        for (std::size_t i = 0; i < mins.size(); i++) contents_->dims[i].min = mins[i];
    }
    // Adds delta to the min of dimension d (as Halide's translate(d, delta)).
    void translate(int d, int delta) {
        if (d < 0 || d >= dimensions()) bad_dimension("translate", d);
        contents_->dims[d].min += delta;
    }
    void translate(const std::vector<int>& deltas) {
        for (std::size_t i = 0; i < deltas.size(); i++) translate(int(i), deltas[i]);
    }
    Buffer translated(int d, int delta) const {
        Buffer b = view();
        b.translate(d, delta);
        return b;
    }
    Buffer translated(const std::vector<int>& deltas) const {
        Buffer b = view();
        b.translate(deltas);
        return b;
    }
    // Restricts every alias to [min, min + extent) in dimension d; the range must lie inside.
    void crop(int d, int min, int extent) {
        check_defined("crop");
        lang::crop_buffer(*contents_, d, min, extent);
    }
    void crop(const std::vector<std::pair<int, int>>& region) {
        for (std::size_t i = 0; i < region.size(); i++) crop(int(i), region[i].first, region[i].second);
    }
    // A new view of the same memory restricted to a region.
    Buffer cropped(int d, int min, int extent) const {
        Buffer b = view();
        b.crop(d, min, extent);
        return b;
    }
    Buffer cropped(const std::vector<std::pair<int, int>>& region) const {
        Buffer b = view();
        b.crop(region);
        return b;
    }
    // Removes dimension d in place, keeping the elements at coordinate pos of it.
    void slice(int d, int pos) requires(Dims == AnyDims) {
        check_defined("slice");
        lang::slice_buffer(*contents_, d, pos);
    }
    void slice(int d) requires(Dims == AnyDims) { slice(d, min(d)); }
    auto sliced(int d, int pos) const {
        Buffer<T, Dims == AnyDims ? AnyDims : Dims - 1> b;
        b.contents_ = view().contents_;
        lang::slice_buffer(*b.contents_, d, pos);
        return b;
    }
    auto sliced(int d) const { return sliced(d, min(d)); }
    // Swaps two dimensions of every alias (or of a new view).
    void transpose(int d1, int d2) {
        check_defined("transpose");
        lang::transpose_buffer(*contents_, d1, d2);
    }
    Buffer transposed(int d1, int d2) const {
        Buffer b = view();
        b.transpose(d1, d2);
        return b;
    }
    // Inserts a dimension of extent 1 at coordinate pos before dimension d (in place), or appends
    // one at coordinate 0.
    void embed(int d, int pos = 0) requires(Dims == AnyDims) {
        check_defined("embed");
        lang::embed_buffer(*contents_, d, pos);
    }
    void add_dimension() requires(Dims == AnyDims) { embed(dimensions(), 0); }
    auto embedded(int d, int pos = 0) const {
        Buffer<T, Dims == AnyDims ? AnyDims : Dims + 1> b;
        b.contents_ = view().contents_;
        lang::embed_buffer(*b.contents_, d, pos);
        return b;
    }

    // Whether the coordinates are inside the buffer.
    template <typename... Args>
    requires lang::detail::all_integral<Args...>
    bool contains(Args... pos) const {
        if (!contents_ || int(sizeof...(Args)) != dimensions()) return false;
        const tessera_dimension_t* d = contents_->raw.dim;
        int i = 0;
        return ((int(pos) >= d[i].min && int(pos) < d[i].min + d[i].extent && (++i, true)) && ...);
    }

    // Element access with integer coordinates: inline, unchecked, as in Halide.
    template <typename... Args>
    requires int_coordinates<Args...> Reference operator()(Args... pos) {
        static_assert(Dims == AnyDims || int(sizeof...(Args)) <= Dims, "more coordinates than dimensions");
        return *address_of(pos...);
    }
    template <typename... Args>
    requires int_coordinates<Args...> ConstReference operator()(Args... pos) const {
        static_assert(Dims == AnyDims || int(sizeof...(Args)) <= Dims, "more coordinates than dimensions");
        return *address_of(pos...);
    }
    Reference operator()(const int* pos) requires typed { return *address_of(pos); }
    ConstReference operator()(const int* pos) const requires typed { return *address_of(pos); }

    // Element access with Expr or Var coordinates (ints allowed among them): an Expr reading the
    // buffer, for use in a definition.
    template <typename... Args>
    requires expr_coordinates<Args...> Expr operator()(const Args&... pos) const {
        return lang::buffer_access(contents_, type(), std::vector<Expr>{Expr(pos)...});
    }
    Expr operator()(const std::vector<Expr>& pos) const {
        return lang::buffer_access(contents_, type(), pos);
    }
    template <typename V>
    requires vector_coordinates<V> Expr operator()(const std::vector<V>& pos) const {
        return lang::buffer_access(contents_, type(), std::vector<Expr>(pos.begin(), pos.end()));
    }

    // Sets every element to value, or to f(x, y, ...) at each element.
    Buffer& fill(Value value) requires typed {
        check_defined("fill");
        T* base = data();
        lang::detail::for_each_row<1>(dimensions(), {contents_->raw.dim},
                                      [&](const auto& o, int n, const auto& s) {
                                          T* p = base + o[0];
                                          if (s[0] == 1) {
                                              for (int i = 0; i < n; i++) p[i] = value;
                                          } else {
                                              for (int i = 0; i < n; i++) p[std::ptrdiff_t(i) * s[0]] = value;
                                          }
                                      });
        return *this;
    }
    template <typename F>
    requires element_function<F> Buffer& fill(F&& f) {
        check_defined("fill");
        // Constrained, so that asking whether it takes N ints does not instantiate its body.
        auto write = [&]<typename... P>(P... pos) -> void requires std::is_invocable_v<F&, P...> {
            (*this)(pos...) = f(pos...);
        };
        if constexpr (std::is_invocable_v<F&, const int*>) {
            lang::detail::for_each_coordinate(dimensions(), contents_->raw.dim,
                                              [&](const int* pos) { (*this)(pos) = f(pos); });
        } else {
            lang::detail::for_each_element_of(dimensions(), contents_->raw.dim, write);
        }
        return *this;
    }
    // Whether every element equals value.
    bool all_equal(Value value) const requires typed {
        bool equal = true;
        for_each_value([&](const Value& v) { equal = equal && v == value; });
        return equal;
    }

    // Calls f with a reference to every element, and to the element at the same relative position
    // of each other buffer, which must have the same dimensionality and at least the same extents.
    template <typename F, typename... Others>
    const Buffer& for_each_value(F&& f, const Others&... others) const {
        check_defined("for_each_value");
        (check_lock_step(others), ...);
        constexpr std::size_t n = 1 + sizeof...(Others);
        std::array<const tessera_dimension_t*, n> shapes{contents_->raw.dim, others.raw_buffer()->dim...};
        auto bases = std::make_tuple(data(), others.data()...);
        auto walk = [&]<std::size_t... I>(std::index_sequence<I...>) {
            lang::detail::for_each_row<n>(dimensions(), shapes, [&](const auto& o, int count, const auto& s) {
                for (int i = 0; i < count; i++) f(std::get<I>(bases)[o[I] + std::ptrdiff_t(i) * s[I]]...);
            });
        };
        walk(std::make_index_sequence<n>());
        return *this;
    }
    template <typename F, typename... Others>
    Buffer& for_each_value(F&& f, const Others&... others) {
        std::as_const(*this).for_each_value(std::forward<F>(f), others...);
        return *this;
    }
    // Calls f(x, y, ...) with the coordinates of every element, dimension 0 fastest; f may
    // instead take a const int* of the coordinates.
    template <typename F>
    const Buffer& for_each_element(F&& f) const {
        check_defined("for_each_element");
        lang::detail::for_each_element_of(dimensions(), contents_->raw.dim, f);
        return *this;
    }

    // A dense deep copy with the same mins and the same order of strides.
    Buffer copy() const {
        check_defined("copy");
        Buffer b;
        b.contents_ = lang::copy_buffer(*contents_);
        return b;
    }
    // Deep copies with the channels (dimension 2) innermost, or outermost.
    Buffer copy_to_interleaved() const { return copy_with_order({2, 0, 1}); }
    Buffer copy_to_planar() const { return copy_with_order({0, 1, 2}); }
    // Copies the elements of src that lie inside this buffer too.
    template <typename T2, int D2>
    requires copies_from<T2> Buffer& copy_from(const Buffer<T2, D2>& src) {
        check_defined("copy_from");
        src.check_defined("copy_from");
        lang::copy_buffer_region(*contents_, *src.contents_);
        return *this;
    }
    // The same contents seen as another Buffer type (checked as the converting constructor).
    template <typename T2, int D2 = Dims>
    Buffer<T2, D2> as() const {
        return Buffer<T2, D2>(*this);
    }

private:
    // Appends the extents of an array type's dimensions, outermost first.
    template <typename A>
    static void array_extents(std::vector<int>& sizes) {
        if constexpr (std::is_array_v<A>) {
            sizes.push_back(int(std::extent_v<A>));
            array_extents<std::remove_extent_t<A>>(sizes);
        }
    }
    void allocate(Type t, const std::vector<int>& sizes, const std::vector<int>& storage_order,
                  const std::string& name) {
        contents_ =
            checked(lang::allocate_buffer(t, std::vector<int>(sizes.size(), 0), sizes, storage_order, name));
    }
    void wrap_dense(Type t, void* data, const std::vector<int>& sizes, const std::string& name) {
        contents_ = checked(lang::wrap_dense_buffer(t, data, sizes, name));
    }
    void wrap(Type t, void* data, int dimensions, const tessera_dimension_t* shape, const std::string& name) {
        contents_ = checked(lang::wrap_buffer(t, data, dimensions, shape, name));
    }
    static std::shared_ptr<lang::BufferContents> checked(std::shared_ptr<lang::BufferContents> c) {
        if (c) lang::check_buffer_conversion(*c, typed, typed ? type_of<Value>() : Type(), Dims);
        return c;
    }
    Buffer view() const {
        check_defined("view");
        Buffer b;
        b.contents_ = lang::view_of_buffer(*contents_, contents_->raw.host, contents_->dims);
        return b;
    }
    Buffer copy_with_order(const std::vector<int>& order) const {
        check_defined("copy");
        if (dimensions() != 3)
            lang::throw_buffer_error("copy_to_interleaved/copy_to_planar need a 3-D buffer");
        std::vector<int> mins, extents;
        for (int i = 0; i < 3; i++) {
            mins.push_back(min(i));
            extents.push_back(extent(i));
        }
        Buffer b;
        b.contents_ = lang::allocate_buffer(type(), mins, extents, order, "");
        lang::copy_buffer_region(*b.contents_, *contents_);
        return b;
    }
    // The code of a successful device call; otherwise throws what the runtime reported.
    static int checked_device_call(int32_t code) {
        if (code == 0) return 0;
        const std::string message = tessera_error_last_message();
        throw RuntimeError("Error: " + (message.empty()
                                            ? "a device call failed with code " + std::to_string(code)
                                            : message));
    }
    void set_flag(unsigned flag, bool on) {
        check_defined(on ? "set_host_dirty/set_device_dirty" : "set_host_dirty/set_device_dirty(false)");
        if (on) {
            contents_->raw.flags |= flag;
        } else {
            contents_->raw.flags &= ~std::uint64_t(flag);
        }
    }
    void check_defined(const char* what) const {
        if (!contents_) lang::throw_buffer_error(std::string(what) + " of an undefined Buffer");
    }
    [[noreturn]] void bad_dimension(const char* what, int i) const {
        lang::throw_buffer_error(std::string(what) + ": dimension " + std::to_string(i) + " of buffer " +
                                 name() + ", which has " + std::to_string(dimensions()) + " dimensions");
    }
    template <typename Other>
    void check_lock_step(const Other& other) const {
        other.check_defined("for_each_value");
        bool ok = other.dimensions() == dimensions();
        for (int i = 0; ok && i < dimensions(); i++) ok = other.extent(i) >= extent(i);
        if (!ok)
            lang::throw_buffer_error("for_each_value: buffer " + other.name() + " is smaller than buffer " +
                                     name() + " or has another number of dimensions");
    }

    template <typename... Args>
    T* address_of(Args... pos) const {
        const tessera_dimension_t* d = contents_->raw.dim;
        const int dims = contents_->raw.dimensions;
        std::ptrdiff_t offset = 0;
        int i = 0;
        // Coordinates past the last dimension are ignored, as in Halide, where such a dimension
        // has stride 0: a zero-dimensional result reads fine as r(0).
        ((offset += i < dims ? std::ptrdiff_t(int(pos) - d[i].min) * d[i].stride : 0, i++), ...);
        return reinterpret_cast<T*>(contents_->raw.host) + offset;
    }
    T* address_of(const int* pos) const {
        const tessera_buffer_t& b = contents_->raw;
        std::ptrdiff_t offset = 0;
        for (int i = 0; i < b.dimensions; i++)
            offset += std::ptrdiff_t(pos[i] - b.dim[i].min) * b.dim[i].stride;
        return reinterpret_cast<T*>(b.host) + offset;
    }

    std::shared_ptr<lang::BufferContents> contents_;
};

}  // namespace tessera
