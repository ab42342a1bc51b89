#pragma once
// tessera::Runtime::Buffer<T, D>: a light C++ buffer for applications that call ahead-of-time
// compiled pipelines, spelled as Halide 14 spells Halide::Runtime::Buffer.
//
// Header-only and free of the compiler: it includes tessera/runtime.h and the standard library
// only, so an application that links a generated static library and tessera_runtime needs nothing
// else. A Buffer converts to tessera_buffer_t*, so it is passed straight to a generated function:
//
//     tessera::Runtime::Buffer<uint8_t> in(640, 480), out(638, 478);
//     int err = blur(in, out);
//
// Memory: a Buffer either owns its memory (zeroed, 64-byte aligned) or wraps memory the caller
// keeps alive. Copies share the memory, which is freed when the last owning copy goes, but each
// copy has a shape of its own: cropping or translating one copy never moves another.
//
// Device memory (a GPU's, see tessera/runtime.h) works as in Halide: copy_to_device() gives the
// buffer device memory, which its copies share and the last of them frees, and each copy keeps
// its own dirty flags. Writing elements through operator() or data() does not mark the host
// dirty: call set_host_dirty() after host writes that the device should see.
//
// D is only the number of dimensions stored inside the object (more spill to the heap); any
// number of dimensions works with any D.
//
// Bad use is reported, never undefined: whatever changes or builds a shape (constructors, crop,
// set_min, translate, copy_from, conversions) is always checked and throws std::invalid_argument.
// Element access and contains() are checked only when TESSERA_RUNTIME_BUFFER_CHECKS is nonzero
// (by default, when NDEBUG is not defined, as assert is), since they sit in inner loops; a failed
// check prints what was wrong and aborts.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/runtime.h"

#ifndef TESSERA_RUNTIME_BUFFER_CHECKS
#ifdef NDEBUG
#define TESSERA_RUNTIME_BUFFER_CHECKS 0
#else
#define TESSERA_RUNTIME_BUFFER_CHECKS 1
#endif
#endif

namespace tessera::Runtime {

// One dimension of a Buffer: min, extent, stride (in elements) and max. Iterating over it gives
// the coordinates min() ... max(): for (int y : b.dim(1)) ...
class BufferDimension {
public:
    explicit BufferDimension(const tessera_dimension_t& d) : d_(&d) {}
    int min() const { return d_->min; }
    int extent() const { return d_->extent; }
    int stride() const { return d_->stride; }
    int max() const { return d_->min + d_->extent - 1; }

    class iterator {
    public:
        explicit iterator(int x) : x_(x) {}
        int operator*() const { return x_; }
        iterator& operator++() {
            x_++;
            return *this;
        }
        bool operator==(const iterator& other) const = default;

    private:
        int x_;
    };
    iterator begin() const { return iterator(min()); }
    iterator end() const { return iterator(min() + extent()); }

private:
    const tessera_dimension_t* d_;
};

template <typename T = void, int D = 4>
class Buffer;

namespace detail {

// Device memory that copies of a Buffer share: freed, when the last copy lets go of it, if a
// Buffer or a pipeline allocated it, and left alone if it came with a wrapped tessera_buffer_t.
struct DeviceAllocation {
    tessera_buffer_t raw{};  // device and device_interface only
    bool owned = true;

    DeviceAllocation(const tessera_buffer_t& b, bool owns) : owned(owns) {
        raw.device = b.device;
        raw.device_interface = b.device_interface;
    }
    DeviceAllocation(const DeviceAllocation&) = delete;
    DeviceAllocation& operator=(const DeviceAllocation&) = delete;
    // A failure was reported through the error handler; a destructor has no one else to tell.
    ~DeviceAllocation() {
        if (owned && raw.device && raw.device_interface) raw.device_interface->device_free(nullptr, &raw);
    }
};

// The type code and width of an element type T, as generated code expects in tessera_buffer_t.
template <typename T>
constexpr tessera_type_t type_of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) {
        return {tessera_type_uint, 1, 1};
    } else if constexpr (std::is_integral_v<U>) {
        return {uint8_t(std::is_signed_v<U> ? tessera_type_int : tessera_type_uint), uint8_t(8 * sizeof(U)),
                1};
    } else if constexpr (std::is_floating_point_v<U> && (sizeof(U) == 4 || sizeof(U) == 8)) {
        return {tessera_type_float, uint8_t(8 * sizeof(U)), 1};
    } else if constexpr (std::is_pointer_v<U>) {
        return {tessera_type_handle, 64, 1};
    } else {
        static_assert(std::is_pointer_v<U>,
                      "tessera::Runtime::Buffer holds integers, bool, float, double or pointers");
        return {};
    }
}

inline bool same_type(tessera_type_t a, tessera_type_t b) {
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

// "uint8", "float32", "bool": the names an error message gives types.
inline std::string type_name(tessera_type_t t) {
    if (t.code == tessera_type_uint && t.bits == 1) return "bool";
    static const char* const codes[] = {"int", "uint", "float", "handle"};
    std::string name = t.code < 4 ? codes[t.code] : "type" + std::to_string(t.code) + "_";
    name += std::to_string(t.bits);
    if (t.lanes != 1) name += "x" + std::to_string(t.lanes);
    return name;
}

// Bytes of one element; a bool takes a byte, as in Halide.
inline int bytes_of(tessera_type_t t) { return (t.bits + 7) / 8; }

[[noreturn]] inline void throw_invalid(const std::string& message) {
    throw std::invalid_argument("tessera::Runtime::Buffer: " + message);
}

// The end of a failed debug check: such a check guards element access, where throwing would cost
// every access, so it stops the program with the reason instead.
[[noreturn]] inline void fail_check(const std::string& message) {
    std::fprintf(stderr, "tessera::Runtime::Buffer: %s\n", message.c_str());
    std::fflush(stderr);
    std::abort();
}

inline void check_dimension_index(const tessera_buffer_t& b, int d) {
    if (d < 0 || d >= b.dimensions)
        fail_check("dimension " + std::to_string(d) + " of a buffer of " + std::to_string(b.dimensions) +
                   " dimensions");
}

// The checks of an access to the element at pos (n coordinates).
inline void check_access(const tessera_buffer_t& b, const int* pos, int n) {
    if (!b.host) fail_check("element access to a buffer with no memory");
    if (n != b.dimensions)
        fail_check("element access with " + std::to_string(n) + " coordinates to a buffer of " +
                   std::to_string(b.dimensions) + " dimensions");
    for (int i = 0; i < n; i++) {
        const tessera_dimension_t& d = b.dim[i];
        if (pos[i] < d.min || std::int64_t(pos[i]) >= std::int64_t(d.min) + d.extent)
            fail_check("coordinate " + std::to_string(pos[i]) + " in dimension " + std::to_string(i) +
                       " is outside [" + std::to_string(d.min) + ", " +
                       std::to_string(std::int64_t(d.min) + d.extent - 1) + "]");
    }
}

inline std::ptrdiff_t offset_of(const tessera_buffer_t& b, const int* pos) {
    std::ptrdiff_t offset = 0;
    for (int i = 0; i < b.dimensions; i++)
        offset += (std::ptrdiff_t(pos[i]) - b.dim[i].min) * b.dim[i].stride;
    return offset;
}

inline void check_extent(int d, int extent) {
    if (extent < 0)
        throw_invalid("extent of dimension " + std::to_string(d) + " is " + std::to_string(extent) +
                      "; an extent must be zero or more");
}

// Dense strides for the extents in dims, dimension order[0] innermost, order[1] next, and so on
// (with no order, dimension 0 innermost). An empty dimension counts as one, so that strides stay
// distinct and copy() keeps their order.
inline void set_dense_strides(tessera_dimension_t* dims, int n, const int* order = nullptr) {
    std::int64_t stride = 1;
    for (int k = 0; k < n; k++) {
        const int i = order ? order[k] : k;
        tessera_dimension_t& d = dims[i];
        if (stride > INT32_MAX)
            throw_invalid("dimension " + std::to_string(i) + " would need a stride of " +
                          std::to_string(stride) + " elements, more than a tessera_buffer_t holds");
        d.stride = std::int32_t(stride);
        stride *= d.extent > 0 ? d.extent : 1;
    }
}

// The lowest and one past the highest element offset (in elements) the shape reaches; both are 0
// when it has no elements. Negative strides reach below the element at the mins.
inline std::pair<std::ptrdiff_t, std::ptrdiff_t> span_of(const tessera_buffer_t& b) {
    std::ptrdiff_t lo = 0, hi = 1;
    for (int i = 0; i < b.dimensions; i++) {
        const tessera_dimension_t& d = b.dim[i];
        if (d.extent <= 0) return {0, 0};
        std::ptrdiff_t reach = std::ptrdiff_t(d.extent - 1) * d.stride;
        (reach < 0 ? lo : hi) += reach;
    }
    return {lo, hi};
}

// New zeroed memory, 64-byte aligned, freed when the last shared_ptr to it goes. Never null: an
// empty buffer gets 64 bytes, so that having memory and having elements stay separate questions.
inline std::shared_ptr<void> allocate_zeroed(std::size_t bytes) {
    constexpr std::size_t alignment = 64;
    if (bytes > SIZE_MAX - alignment) throw std::bad_alloc();
    std::size_t rounded = bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
    void* p = ::operator new (rounded, std::align_val_t{alignment});
    std::memset(p, 0, rounded);
    return std::shared_ptr<void>(p, [](void* q) { ::operator delete (q, std::align_val_t{alignment}); });
}

// Calls visit(offsets) for every element of the shape of *bufs[0], dimension 0 fastest, where
// offsets[k] is the element's offset from bufs[k]->host in elements. The other buffers must have
// the same dimensions and extents; they are walked in lock step at the same positions relative
// to their mins, each with its own strides.
template <std::size_t N, typename Visit>
void for_each_offset(const std::array<const tessera_buffer_t*, N>& bufs, Visit&& visit) {
    const tessera_buffer_t& shape = *bufs[0];
    const int n = shape.dimensions;
    for (int i = 0; i < n; i++)
        if (shape.dim[i].extent <= 0) return;
    std::array<std::ptrdiff_t, N> base{};
    if (n == 0) {
        visit(static_cast<const std::array<std::ptrdiff_t, N>&>(base));
        return;
    }
    std::array<std::ptrdiff_t, N> inner_stride;
    for (std::size_t k = 0; k < N; k++) inner_stride[k] = bufs[k]->dim[0].stride;
    std::vector<int> count(n, 0);
    while (true) {
        std::array<std::ptrdiff_t, N> offsets = base;
        for (int x = 0; x < shape.dim[0].extent; x++) {
            visit(static_cast<const std::array<std::ptrdiff_t, N>&>(offsets));
            for (std::size_t k = 0; k < N; k++) offsets[k] += inner_stride[k];
        }
        // Odometer over dimensions 1 and up: step the first that has room, rewind those below it.
        int i = 1;
        for (; i < n; i++) {
            if (++count[i] < shape.dim[i].extent) {
                for (std::size_t k = 0; k < N; k++) base[k] += bufs[k]->dim[i].stride;
                break;
            }
            count[i] = 0;
            for (std::size_t k = 0; k < N; k++)
                base[k] -= std::ptrdiff_t(shape.dim[i].extent - 1) * bufs[k]->dim[i].stride;
        }
        if (i == n) return;
    }
}

// Calls visit(pos) with the coordinates of every element of b, dimension 0 fastest.
template <typename Visit>
void for_each_position(const tessera_buffer_t& b, Visit&& visit) {
    const int n = b.dimensions;
    for (int i = 0; i < n; i++)
        if (b.dim[i].extent <= 0) return;
    std::vector<int> pos(n > 0 ? n : 1, 0);
    const int* p = pos.data();
    if (n == 0) {
        visit(p);
        return;
    }
    for (int i = 0; i < n; i++) pos[i] = b.dim[i].min;
    while (true) {
        for (int x = 0; x < b.dim[0].extent; x++, pos[0]++) visit(p);
        pos[0] = b.dim[0].min;
        int i = 1;
        for (; i < n; i++) {
            if (std::int64_t(++pos[i]) < std::int64_t(b.dim[i].min) + b.dim[i].extent) break;
            pos[i] = b.dim[i].min;
        }
        if (i == n) return;
    }
}

// The most dimensions for_each_element passes as separate ints; past it, take a const int*.
constexpr int max_int_coordinates = 16;

template <std::size_t>
using IntArg = int;

template <typename F, std::size_t... I>
constexpr bool invocable_with_ints(std::index_sequence<I...>) {
    return std::is_invocable_v<F&, IntArg<I>...>;
}

// The fewest ints f can be called with, or -1 when no count up to max_int_coordinates works.
template <typename F, int N = 0>
constexpr int int_arity() {
    if constexpr (N > max_int_coordinates) {
        return -1;
    } else if constexpr (invocable_with_ints<F>(std::make_index_sequence<N>())) {
        return N;
    } else {
        return int_arity<F, N + 1>();
    }
}

template <typename F, std::size_t... I>
void call_with_ints(F& f, const int* pos, std::index_sequence<I...>) {
    f(pos[I]...);
}

// Calls f with one int per dimension at every element of b. The count of ints is a compile-time
// matter and the dimensionality a run-time one, so this tries each count up to the largest and
// calls f with the one that equals b's dimensions.
template <typename F, int N = 0>
void for_each_element_with_ints(const tessera_buffer_t& b, F& f) {
    if constexpr (N > max_int_coordinates) {
        constexpr int arity = int_arity<F>();
        static_assert(arity >= 0, "for_each_element takes a function of int coordinates or of const int*");
        if (b.dimensions > max_int_coordinates)
            throw_invalid("for_each_element: a buffer of " + std::to_string(b.dimensions) +
                          " dimensions needs a function taking const int*");
        throw_invalid("for_each_element: the function takes " + std::to_string(arity) +
                      " int coordinates but the buffer has " + std::to_string(b.dimensions) + " dimensions");
    } else {
        if constexpr (invocable_with_ints<F>(std::make_index_sequence<N>())) {
            if (b.dimensions == N) {
                for_each_position(
                    b, [&](const int* pos) { call_with_ints(f, pos, std::make_index_sequence<N>()); });
                return;
            }
        }
        for_each_element_with_ints<F, N + 1>(b, f);
    }
}

template <typename... Args>
constexpr bool all_ints = (std::is_integral_v<std::remove_cvref_t<Args>> && ...);

template <typename B>
struct is_typed_buffer : std::false_type {};
template <typename T, int D>
struct is_typed_buffer<Buffer<T, D>> : std::bool_constant<!std::is_void_v<T>> {};

// Whether a Buffer of From may be seen as one of To with no check: the same element type, or To
// void; never dropping const.
template <typename From, typename To>
constexpr bool same_or_to_void =
    std::is_void_v<To> || std::is_same_v<std::remove_const_t<From>, std::remove_const_t<To>>;
template <typename From, typename To>
constexpr bool keeps_const = std::is_const_v<To> || !std::is_const_v<From>;
template <typename From, typename To>
constexpr bool converts = std::conjunction_v<std::bool_constant<same_or_to_void<From, To>>,
                                             std::bool_constant<keeps_const<From, To>>>;

}  // namespace detail

template <typename T, int D>
class Buffer {
    static_assert(D >= 0, "D is the number of dimensions stored in the object, zero or more");
    static constexpr bool typed = !std::is_void_v<T>;
    // Stands in for T in signatures that only typed buffers use, so that Buffer<void> compiles.
    using Elem = std::conditional_t<typed, T, unsigned char>;
    using Value = std::remove_const_t<Elem>;

    template <typename, int>
    friend class Buffer;

    // The constraints of the overloads below, named so that each reads as one word there.
    static constexpr bool untyped = !typed;
    static constexpr bool writable = typed && !std::is_const_v<T>;
    template <typename... Args>
    static constexpr bool typed_ints = typed&& detail::all_ints<Args...>;
    template <typename... Args>
    static constexpr bool untyped_ints = untyped&& detail::all_ints<Args...>;
    template <typename... Others>
    static constexpr bool typed_buffers = typed &&
                                          (detail::is_typed_buffer<std::remove_cvref_t<Others>>::value &&
                                           ...);
    // Another Buffer type this one converts from (its own type is the copy constructor's).
    template <typename U, int D2>
    static constexpr bool converts_from = detail::converts<U, T> && !(std::is_same_v<U, T> && D2 == D);

public:
    using Dimension = BufferDimension;

    // An empty buffer: no memory, no dimensions; defined() is false.
    Buffer() {
        if constexpr (typed) buf_.type = detail::type_of<T>();
    }

    // New zeroed memory of the given extents, dimension 0 innermost, mins 0: Buffer<float>(640, 480).
    template <typename... Args>
    explicit Buffer(int first, Args... rest) requires typed_ints<Args...> {
        init_dense(detail::type_of<T>(), {first, int(rest)...}, nullptr);
    }
    explicit Buffer(const std::vector<int>& sizes) requires typed {
        init_dense(detail::type_of<T>(), sizes, nullptr);
    }
    // Buffer<float> b({640, 480}): without it the braced sizes could also make a Buffer(int, int) to
    // copy from, and the call would be ambiguous.
    explicit Buffer(std::initializer_list<int> sizes) requires typed {
        init_dense(detail::type_of<T>(), std::vector<int>(sizes), nullptr);
    }

    // The same, for a Buffer<void> whose element type is known only at run time.
    template <typename... Args>
    explicit Buffer(tessera_type_t t, int first, Args... rest) requires untyped_ints<Args...> {
        init_dense(t, {first, int(rest)...}, nullptr);
    }
    Buffer(tessera_type_t t, const std::vector<int>& sizes) requires untyped {
        init_dense(t, sizes, nullptr);
    }

    // Wraps the caller's memory, dense with dimension 0 innermost and mins 0. The caller keeps the
    // memory alive as long as any copy of the buffer uses it.
    template <typename... Args>
    Buffer(T* data, int first, Args... rest) requires typed_ints<Args...> {
        init_wrapped_dense(detail::type_of<T>(), host_of(data), {first, int(rest)...});
    }
    Buffer(T* data, const std::vector<int>& sizes) requires typed {
        init_wrapped_dense(detail::type_of<T>(), host_of(data), sizes);
    }
    // Wraps the caller's memory with any shape: dimensions entries of min, extent and stride.
    Buffer(T* data, int dimensions, const tessera_dimension_t* shape) requires typed {
        init_wrapped(detail::type_of<T>(), host_of(data), dimensions, shape);
    }

    template <typename... Args>
    Buffer(tessera_type_t t, T* data, int first, Args... rest) requires untyped_ints<Args...> {
        init_wrapped_dense(t, host_of(data), {first, int(rest)...});
    }
    Buffer(tessera_type_t t, T* data, const std::vector<int>& sizes) requires untyped {
        init_wrapped_dense(t, host_of(data), sizes);
    }
    Buffer(tessera_type_t t, T* data, int dimensions, const tessera_dimension_t* shape) requires untyped {
        init_wrapped(t, host_of(data), dimensions, shape);
    }

    // Wraps the memory and shape a tessera_buffer_t describes; later changes to raw are not seen.
    // A typed buffer checks that raw holds its element type.
    explicit Buffer(const tessera_buffer_t& raw) {
        if constexpr (typed) check_type(raw.type, "wrap a tessera_buffer_t");
        init_wrapped(raw.type, raw.host, raw.dimensions, raw.dim);
        buf_.device = raw.device;
        buf_.device_interface = raw.device_interface;
        buf_.flags = raw.flags;
        // Its device memory, like its host memory, belongs to whoever made raw.
        if (raw.device) device_alloc_ = std::make_shared<detail::DeviceAllocation>(raw, false);
    }

    // A zeroed image of width x height x channels with the channels of a pixel adjacent: strides
    // channels, width * channels and 1.
    static Buffer make_interleaved(int width, int height, int channels) requires typed {
        return make_interleaved_of(detail::type_of<T>(), width, height, channels);
    }
    static Buffer make_interleaved(tessera_type_t t, int width, int height, int channels) requires untyped {
        return make_interleaved_of(t, width, height, channels);
    }
    // A zeroed buffer of no dimensions and one element.
    static Buffer make_scalar() requires typed { return Buffer(std::vector<int>{}); }
    static Buffer make_scalar(tessera_type_t t) requires untyped { return Buffer(t, std::vector<int>{}); }

    // Copies share the memory and copy the shape.
    Buffer(const Buffer& other) { share_with(other); }
    Buffer(Buffer&& other) noexcept { take(std::move(other)); }
    Buffer& operator=(const Buffer& other) {
        if (this != &other) *this = Buffer(other);
        return *this;
    }
    Buffer& operator=(Buffer&& other) noexcept {
        if (this != &other) take(std::move(other));
        return *this;
    }
    // A Buffer<T> from a Buffer<T> of another D, a Buffer<void> from any buffer, and a Buffer<const
    // T> from a Buffer<T>. A Buffer<void> becomes a typed one through as<T>(), which checks.
    template <typename U, int D2>
    Buffer(const Buffer<U, D2>& other) requires converts_from<U, D2> {
        share_with(other);
    }

    // This buffer as a Buffer<U>, sharing its memory, with a copy of its shape. Throws when the
    // element type is not U (only a Buffer<void> can get that far).
    template <typename U, int D2 = D>
    Buffer<U, D2> as() const {
        static_assert(std::is_void_v<T> || detail::converts<T, U>,
                      "as<U>(): a Buffer<T> is seen only as a Buffer<T>, Buffer<const T> or Buffer<void>");
        static_assert(std::is_const_v<U> || !std::is_const_v<T>, "as<U>() cannot drop const");
        if constexpr (!std::is_void_v<U>) {
            if (!detail::same_type(buf_.type, detail::type_of<U>()))
                detail::throw_invalid("as<" + detail::type_name(detail::type_of<U>()) +
                                      ">() of a buffer of " + detail::type_name(buf_.type));
        }
        Buffer<U, D2> result;
        result.share_with(*this);
        return result;
    }

    // Frees the device memory a pipeline gave this buffer, if no copy shares it.
    ~Buffer() { adopt_device_allocation(); }

    // Whether the buffer has memory: false when default-constructed, after deallocate(), and
    // when wrapping a null pointer.
    bool defined() const { return buf_.host != nullptr; }
    // Whether the memory was allocated by a Buffer (and is freed with its last copy), rather than
    // wrapped.
    bool owns_host_memory() const { return alloc_ != nullptr; }

    // What a generated function takes.
    tessera_buffer_t* raw_buffer() { return &buf_; }
    const tessera_buffer_t* raw_buffer() const { return &buf_; }
    operator tessera_buffer_t*() { return &buf_; }

    // The element at the mins.
    T* data() { return reinterpret_cast<T*>(buf_.host); }
    const T* data() const { return reinterpret_cast<const T*>(buf_.host); }

    tessera_type_t type() const { return buf_.type; }
    int dimensions() const { return buf_.dimensions; }
    Dimension dim(int i) const {
        if constexpr (TESSERA_RUNTIME_BUFFER_CHECKS) detail::check_dimension_index(buf_, i);
        return Dimension(buf_.dim[i]);
    }
    int min(int i) const { return dim(i).min(); }
    int extent(int i) const { return dim(i).extent(); }
    int stride(int i) const { return dim(i).stride(); }

    // Dimensions 0, 1 and 2 by their image names; an absent dimension has extent 1 and min 0.
    int width() const { return dimensions() > 0 ? buf_.dim[0].extent : 1; }
    int height() const { return dimensions() > 1 ? buf_.dim[1].extent : 1; }
    int channels() const { return dimensions() > 2 ? buf_.dim[2].extent : 1; }
    int left() const { return dimensions() > 0 ? buf_.dim[0].min : 0; }
    int right() const { return dimensions() > 0 ? buf_.dim[0].min + buf_.dim[0].extent - 1 : 0; }
    int top() const { return dimensions() > 1 ? buf_.dim[1].min : 0; }
    int bottom() const { return dimensions() > 1 ? buf_.dim[1].min + buf_.dim[1].extent - 1 : 0; }

    // The product of the extents.
    std::size_t number_of_elements() const {
        std::size_t n = 1;
        for (int i = 0; i < dimensions(); i++)
            n *= std::size_t(buf_.dim[i].extent > 0 ? buf_.dim[i].extent : 0);
        return n;
    }
    // The bytes spanned from the lowest to the highest element address, as in Halide: for a
    // dense buffer, number_of_elements() times the element size.
    std::size_t size_in_bytes() const {
        auto [lo, hi] = detail::span_of(buf_);
        return std::size_t(hi - lo) * std::size_t(detail::bytes_of(buf_.type));
    }

    // The element at (x, y, ...): one coordinate per dimension, each inside the buffer.
    template <typename... Args>
    Elem& operator()(Args... coords) requires typed_ints<Args...> {
        return data()[offset_of_coordinates(coords...)];
    }
    template <typename... Args>
    const Elem& operator()(Args... coords) const requires typed_ints<Args...> {
        return data()[offset_of_coordinates(coords...)];
    }
    // The element at pos[0], pos[1], ..., one coordinate per dimension.
    Elem& operator()(const int* pos) requires typed { return data()[offset_of_position(pos)]; }
    const Elem& operator()(const int* pos) const requires typed { return data()[offset_of_position(pos)]; }

    // Whether (x, y, ...), one coordinate per dimension, is inside the buffer.
    template <typename... Args>
    bool contains(Args... coords) const requires detail::all_ints<Args...> {
        const int pos[sizeof...(Args) + 1] = {int(coords)..., 0};
        return contains_position(pos, int(sizeof...(Args)));
    }
    bool contains(const std::vector<int>& pos) const {
        return contains_position(pos.data(), int(pos.size()));
    }

    // Calls f at every element, dimension 0 fastest, with its coordinates: either all of them at
    // once, f(const int* pos), or one int per dimension, f(x, y, ...). As in Halide, the pointer
    // form is tried first, so a variadic generic lambda ([](auto... xs)) is given a pointer.
    template <typename F>
    void for_each_element(F&& f) const {
        if constexpr (std::is_invocable_v<F&, const int*>) {
            detail::for_each_position(buf_, f);
        } else {
            detail::for_each_element_with_ints(buf_, f);
        }
    }

    // Calls f(value) with a reference to every element, or f(value, other_value, ...) with the
    // elements of other buffers of the same extents at the same positions relative to their mins.
    template <typename F, typename... Others>
    void for_each_value(F&& f, Others&&... others) requires typed_buffers<Others...> {
        for_each_value_of(*this, f, others...);
    }
    template <typename F, typename... Others>
    void for_each_value(F&& f, Others&&... others) const requires typed_buffers<Others...> {
        for_each_value_of(*this, f, others...);
    }

    // Sets every element to value, or to f(x, y, ...) (or f(pos), with a const int*) of its
    // coordinates.
    Buffer& fill(Value value) requires writable {
        for_each_value([&](Value& v) { v = value; });
        return *this;
    }
    template <typename F>
    Buffer& fill(F&& f) requires(writable && !std::is_convertible_v<F, Value>) {
        if constexpr (std::is_invocable_v<F&, const int*>) {
            detail::for_each_position(buf_, [&](const int* pos) { (*this)(pos) = f(pos); });
        } else {
            // Constrained, so that asking whether it takes N ints does not instantiate its body.
            auto write = [&]<typename... P>(P... pos) -> void requires std::is_invocable_v<F&, P...> {
                (*this)(pos...) = f(pos...);
            };
            detail::for_each_element_with_ints(buf_, write);
        }
        return *this;
    }

    // Moves the buffer in its coordinate space: dimension i's min becomes mins[i], for the first
    // mins.size() dimensions. The memory stays where it is.
    template <typename... Args>
    void set_min(Args... mins) requires detail::all_ints<Args...> {
        set_min(std::vector<int>{int(mins)...});
    }
    void set_min(const std::vector<int>& mins) {
        check_count(int(mins.size()), "set_min");
        for (std::size_t i = 0; i < mins.size(); i++) buf_.dim[i].min = mins[i];
    }
    // Adds delta to the min of dimension d, or deltas[i] to that of each dimension i.
    void translate(int d, int delta) {
        check_dimension(d, "translate");
        buf_.dim[d].min = checked_min(d, std::int64_t(buf_.dim[d].min) + delta);
    }
    void translate(const std::vector<int>& deltas) {
        check_count(int(deltas.size()), "translate");
        for (std::size_t i = 0; i < deltas.size(); i++) translate(int(i), deltas[i]);
    }
    Buffer translated(int d, int delta) const {
        return changed([&](Buffer& b) { b.translate(d, delta); });
    }
    Buffer translated(const std::vector<int>& deltas) const {
        return changed([&](Buffer& b) { b.translate(deltas); });
    }

    // Restricts dimension d to [min, min + extent), which must lie inside it; the coordinates of
    // the elements kept do not change.
    void crop(int d, int min, int extent) {
        check_dimension(d, "crop");
        tessera_dimension_t& shape = buf_.dim[d];
        if (extent < 0 || min < shape.min ||
            std::int64_t(min) + extent > std::int64_t(shape.min) + shape.extent)
            detail::throw_invalid("crop of dimension " + std::to_string(d) + " to [" + std::to_string(min) +
                                  ", " + std::to_string(std::int64_t(min) + extent - 1) + "], outside [" +
                                  std::to_string(shape.min) + ", " +
                                  std::to_string(std::int64_t(shape.min) + shape.extent - 1) + "]");
        move_origin((std::ptrdiff_t(min) - shape.min) * shape.stride * detail::bytes_of(buf_.type));
        shape.min = min;
        shape.extent = extent;
    }
    // Crops dimension i to [rect[i].first, rect[i].first + rect[i].second) for each entry.
    void crop(const std::vector<std::pair<int, int>>& rect) {
        check_count(int(rect.size()), "crop");
        for (std::size_t i = 0; i < rect.size(); i++) crop(int(i), rect[i].first, rect[i].second);
    }
    Buffer cropped(int d, int min, int extent) const {
        return changed([&](Buffer& b) { b.crop(d, min, extent); });
    }
    Buffer cropped(const std::vector<std::pair<int, int>>& rect) const {
        return changed([&](Buffer& b) { b.crop(rect); });
    }

    // Removes dimension d, keeping the elements at coordinate pos there (its min without pos): a
    // buffer of one dimension fewer over the same memory.
    void slice(int d, int pos) {
        check_dimension(d, "slice");
        const tessera_dimension_t& shape = buf_.dim[d];
        if (pos < shape.min || std::int64_t(pos) >= std::int64_t(shape.min) + shape.extent)
            detail::throw_invalid("slice of dimension " + std::to_string(d) + " at " + std::to_string(pos) +
                                  ", outside [" + std::to_string(shape.min) + ", " +
                                  std::to_string(std::int64_t(shape.min) + shape.extent - 1) + "]");
        move_origin((std::ptrdiff_t(pos) - shape.min) * shape.stride * detail::bytes_of(buf_.type));
        std::vector<tessera_dimension_t> kept(buf_.dim, buf_.dim + dimensions());
        kept.erase(kept.begin() + d);
        set_shape(kept);
    }
    void slice(int d) { slice(d, dim(d).min()); }
    Buffer sliced(int d, int pos) const {
        return changed([&](Buffer& b) { b.slice(d, pos); });
    }
    Buffer sliced(int d) const { return sliced(d, dim(d).min()); }

    // Adds a last dimension of extent 1 and min 0, its stride past every element of the others.
    void add_dimension() {
        std::vector<tessera_dimension_t> shape(buf_.dim, buf_.dim + dimensions());
        std::int64_t stride = 1;
        for (const tessera_dimension_t& d : shape)
            stride = std::max(stride,
                              std::int64_t(d.extent) * (d.stride < 0 ? -std::int64_t(d.stride) : d.stride));
        shape.push_back({0, 1, int(stride), 0});
        set_shape(shape);
    }
    // Inserts a dimension of extent 1 at index d whose one coordinate is pos: the inverse of slice.
    void embed(int d, int pos = 0) {
        if (d < 0 || d > dimensions())
            detail::throw_invalid("embed at dimension " + std::to_string(d) + " of a buffer of " +
                                  std::to_string(dimensions()) + " dimensions");
        add_dimension();
        translate(dimensions() - 1, pos);
        for (int i = dimensions() - 1; i > d; i--) transpose(i, i - 1);
    }
    Buffer embedded(int d, int pos = 0) const {
        return changed([&](Buffer& b) { b.embed(d, pos); });
    }

    // Swaps dimensions d1 and d2, or orders the dimensions as order lists them (order[i] is the
    // current dimension that becomes dimension i). The memory stays where it is.
    void transpose(int d1, int d2) {
        check_dimension(d1, "transpose");
        check_dimension(d2, "transpose");
        std::swap(buf_.dim[d1], buf_.dim[d2]);
    }
    void transpose(const std::vector<int>& order) {
        std::vector<bool> seen(std::size_t(dimensions()), false);
        bool valid = int(order.size()) == dimensions();
        for (int d : order) {
            valid = valid && d >= 0 && d < dimensions() && !seen[std::size_t(d)];
            if (valid) seen[std::size_t(d)] = true;
        }
        if (!valid)
            detail::throw_invalid("transpose with an order that is not a permutation of the " +
                                  std::to_string(dimensions()) + " dimensions");
        std::vector<tessera_dimension_t> shape;
        for (int d : order) shape.push_back(buf_.dim[d]);
        set_shape(shape);
    }
    Buffer transposed(int d1, int d2) const {
        return changed([&](Buffer& b) { b.transpose(d1, d2); });
    }
    Buffer transposed(const std::vector<int>& order) const {
        return changed([&](Buffer& b) { b.transpose(order); });
    }

    // Whether every element equals value.
    bool all_equal(Value value) const requires typed {
        bool equal = true;
        for_each_value([&](const T& v) { equal = equal && v == value; });
        return equal;
    }

    // New zeroed memory of other's extents and mins, its dimensions nested in the order of other's
    // strides (an interleaved image gives an interleaved one), of this buffer's element type.
    template <typename U, int D2>
    static Buffer make_with_shape_of(const Buffer<U, D2>& other) requires typed {
        Buffer b;
        b.shape_like(detail::type_of<T>(), *other.raw_buffer());
        b.allocate_for_shape();
        return b;
    }

    // A deep copy in new memory, dense, with the same mins and the same order of strides (an
    // interleaved image stays interleaved). A buffer with no memory copies to one with the same
    // shape and no memory.
    Buffer<std::remove_const_t<T>, D> copy() const {
        Buffer<std::remove_const_t<T>, D> result;
        result.shape_like(buf_.type, buf_);
        if (defined()) {
            result.allocate_for_shape();
            result.copy_from(*this);
        }
        return result;
    }

    // Copies the elements of src that this buffer also has (the intersection of their boxes) and
    // leaves the others alone. The element types and dimensionalities must agree. If src and this
    // share memory, the two regions must not overlap in it unless they are the same elements.
    template <typename U, int D2>
    void copy_from(const Buffer<U, D2>& src) {
        static_assert(!std::is_const_v<T>, "copy_from into a Buffer<const T>");
        if (!detail::same_type(type(), src.type()))
            detail::throw_invalid("copy_from a buffer of " + detail::type_name(src.type()) + " into one of " +
                                  detail::type_name(type()));
        if (src.dimensions() != dimensions())
            detail::throw_invalid("copy_from a buffer of " + std::to_string(src.dimensions()) +
                                  " dimensions into one of " + std::to_string(dimensions()));
        Buffer<const void> from = src, to = *this;
        for (int i = 0; i < dimensions(); i++) {
            const int lo = std::max(from.min(i), to.min(i));
            const std::int64_t hi =
                std::min(std::int64_t(from.min(i)) + from.extent(i), std::int64_t(to.min(i)) + to.extent(i));
            if (hi <= lo) return;
            from.crop(i, lo, int(hi - lo));
            to.crop(i, lo, int(hi - lo));
        }
        if ((!from.defined() || !to.defined()) && to.number_of_elements() > 0)
            detail::throw_invalid("copy_from with a buffer that has no memory");
        // The raw host pointer of a Buffer<const void> is writable; `to` views this buffer's memory.
        uint8_t* dst = to.buf_.host;
        const uint8_t* from_host = from.buf_.host;
        const std::size_t bytes = std::size_t(detail::bytes_of(type()));
        detail::for_each_offset<2>({&to.buf_, &from.buf_}, [&](const std::array<std::ptrdiff_t, 2>& off) {
            std::memcpy(dst + off[0] * std::ptrdiff_t(bytes), from_host + off[1] * std::ptrdiff_t(bytes),
                        bytes);
        });
    }

    // New zeroed memory for the current shape, replacing (and sharing no more) any memory the
    // buffer had. A shape whose strides are all zero, as a bounds query may leave it, is given
    // dense strides first, dimension 0 innermost.
    void allocate() {
        bool strideless = true;
        for (int i = 0; i < dimensions(); i++) strideless = strideless && buf_.dim[i].stride == 0;
        if (strideless) detail::set_dense_strides(buf_.dim, dimensions());
        allocate_for_shape();
    }
    // Lets go of the memory, freeing it if this was its last owner; the shape stays.
    void deallocate() {
        alloc_.reset();
        buf_.host = nullptr;
    }

    // Device memory, as Halide's Runtime::Buffer spells it (see the top of this file). Each call
    // returns 0, or the code of the error it has reported through the error handler.

    // Gives the buffer device memory from iface unless it has some; copies the host memory there
    // if the host is dirty or the memory is new; clears host_dirty().
    int copy_to_device(const tessera_device_interface_t* iface = tessera_cuda_device_interface(),
                       void* user_context = nullptr) {
        const int error = tessera_copy_to_device(user_context, &buf_, iface);
        adopt_device_allocation();  // the memory may be new even when the copy failed
        return error;
    }
    // Copies the device memory to the host if the device is dirty, and clears device_dirty().
    int copy_to_host(void* user_context = nullptr) { return tessera_copy_to_host(user_context, &buf_); }
    // Gives the buffer device memory from iface unless it has some; copies nothing.
    int device_malloc(const tessera_device_interface_t* iface = tessera_cuda_device_interface(),
                      void* user_context = nullptr) {
        const int error = tessera_device_malloc(user_context, &buf_, iface);
        adopt_device_allocation();
        return error;
    }
    // Lets go of the device memory, which is freed when no copy uses it any more, and drops what
    // only the device held (device_dirty() becomes false).
    int device_free(void* user_context = nullptr) {
        int error = 0;
        if (buf_.device && !device_alloc_) error = tessera_device_free(user_context, &buf_);
        device_alloc_.reset();
        buf_.device = 0;
        buf_.device_interface = nullptr;
        set_device_dirty(false);
        return error;
    }
    // Waits for the device's work on the buffer.
    int device_sync(void* user_context = nullptr) { return tessera_device_sync(user_context, &buf_); }
    void set_host_dirty(bool dirty = true) { set_flag(TESSERA_BUFFER_HOST_DIRTY, dirty); }
    void set_device_dirty(bool dirty = true) { set_flag(TESSERA_BUFFER_DEVICE_DIRTY, dirty); }
    bool host_dirty() const { return (buf_.flags & TESSERA_BUFFER_HOST_DIRTY) != 0; }
    bool device_dirty() const { return (buf_.flags & TESSERA_BUFFER_DEVICE_DIRTY) != 0; }
    bool has_device_allocation() const { return buf_.device != 0; }

private:
    // The shape of a typed or untyped buffer, as generated code reads it. buf_.dim points into
    // inline_shape_, or into heap_shape_ when there are more than D dimensions.
    tessera_buffer_t buf_{};
    std::array<tessera_dimension_t, D> inline_shape_{};
    std::unique_ptr<tessera_dimension_t[]> heap_shape_;
    // The memory when a Buffer allocated it, shared by every copy; empty when wrapping.
    std::shared_ptr<void> alloc_;
    // The device memory buf_.device points into, shared by every copy that has it. Mutable because
    // memory a pipeline allocated is adopted when a Buffer is first copied, const or not.
    mutable std::shared_ptr<detail::DeviceAllocation> device_alloc_;

    // Makes device memory that a pipeline (or tessera_* call) put in buf_ this buffer's, to be
    // freed with its last copy.
    void adopt_device_allocation() const {
        if (buf_.device && !device_alloc_)
            device_alloc_ = std::make_shared<detail::DeviceAllocation>(buf_, true);
    }

    void set_flag(unsigned flag, bool on) {
        if (on) {
            buf_.flags |= flag;
        } else {
            buf_.flags &= ~std::uint64_t(flag);
        }
    }

    // Moves the element at the mins by `bytes`, in host and device memory alike (the device memory
    // has the host memory's layout).
    void move_origin(std::ptrdiff_t bytes) {
        if (buf_.host) buf_.host += bytes;
        if (buf_.device) buf_.device += std::uint64_t(bytes);
    }

    static uint8_t* host_of(T* data) {
        return static_cast<uint8_t*>(const_cast<void*>(static_cast<const void*>(data)));
    }

    // The element type t and other's extents and mins, with dense strides nesting the dimensions
    // in the order of other's strides (innermost first by magnitude, index breaking ties); no memory.
    void shape_like(tessera_type_t t, const tessera_buffer_t& other) {
        buf_.type = t;
        set_dimensions(other.dimensions);
        auto magnitude = [&](int i) {
            const std::int64_t stride = other.dim[i].stride;
            return stride < 0 ? -stride : stride;
        };
        std::vector<int> order(std::size_t(other.dimensions));
        for (int i = 0; i < other.dimensions; i++) {
            buf_.dim[i] = {other.dim[i].min, other.dim[i].extent, 0, 0};
            int k = i;
            for (; k > 0 && magnitude(order[k - 1]) > magnitude(i); k--) order[k] = order[k - 1];
            order[k] = i;
        }
        detail::set_dense_strides(buf_.dim, dimensions(), order.data());
    }

    // The shape becomes these dimensions; the memory stays.
    void set_shape(const std::vector<tessera_dimension_t>& shape) {
        set_dimensions(int(shape.size()));
        if (!shape.empty()) std::memcpy(buf_.dim, shape.data(), sizeof(tessera_dimension_t) * shape.size());
    }

    // A copy of this buffer (the same memory) with its shape changed by change(copy): what the
    // past-tense views (translated, cropped, sliced...) return.
    template <typename Change>
    Buffer changed(Change&& change) const {
        Buffer b = *this;
        change(b);
        return b;
    }

    // Room for n zeroed dimensions, pointed to by buf_.dim.
    void set_dimensions(int n) {
        if (n < 0) throw_invalid_dimensions(n, "");
        if (n > D) {
            heap_shape_.reset(new tessera_dimension_t[n]());
            buf_.dim = heap_shape_.get();
        } else {
            heap_shape_.reset();
            inline_shape_ = {};
            buf_.dim = inline_shape_.data();
        }
        buf_.dimensions = n;
    }

    [[noreturn]] static void throw_invalid_dimensions(int n, const std::string& why) {
        detail::throw_invalid("a buffer of " + std::to_string(n) + " dimensions" +
                              (why.empty() ? "" : " " + why));
    }

    // Copies other's fields and shape and shares its host and device memory.
    template <typename U, int D2>
    void share_with(const Buffer<U, D2>& other) {
        other.adopt_device_allocation();
        share(other.buf_, other.alloc_);
        device_alloc_ = other.device_alloc_;
    }

    // Copies raw's fields and shape and shares alloc.
    void share(const tessera_buffer_t& raw, const std::shared_ptr<void>& alloc) {
        set_dimensions(raw.dimensions);
        tessera_dimension_t* dims = buf_.dim;
        buf_ = raw;
        buf_.dim = dims;
        if (raw.dimensions > 0)
            std::memcpy(dims, raw.dim, sizeof(tessera_dimension_t) * std::size_t(raw.dimensions));
        alloc_ = alloc;
    }

    void take(Buffer&& other) {
        adopt_device_allocation();
        alloc_ = std::move(other.alloc_);
        device_alloc_ = std::move(other.device_alloc_);
        heap_shape_ = std::move(other.heap_shape_);
        inline_shape_ = other.inline_shape_;
        buf_ = other.buf_;
        buf_.dim = heap_shape_ ? heap_shape_.get() : inline_shape_.data();
        other.buf_.host = nullptr;
        other.buf_.device = 0;
        other.buf_.device_interface = nullptr;
        other.buf_.flags = 0;
        other.set_dimensions(0);
    }

    void init_shape(tessera_type_t t, const std::vector<int>& sizes) {
        buf_.type = t;
        for (std::size_t i = 0; i < sizes.size(); i++) detail::check_extent(int(i), sizes[i]);
        set_dimensions(int(sizes.size()));
        for (std::size_t i = 0; i < sizes.size(); i++) buf_.dim[i] = {0, sizes[i], 0, 0};
    }

    // New zeroed memory of the given extents, order[k] the k-th innermost dimension (null: 0, 1, ...).
    void init_dense(tessera_type_t t, const std::vector<int>& sizes, const int* order) {
        init_shape(t, sizes);
        detail::set_dense_strides(buf_.dim, dimensions(), order);
        allocate_for_shape();
    }

    void init_wrapped_dense(tessera_type_t t, uint8_t* host, const std::vector<int>& sizes) {
        init_shape(t, sizes);
        detail::set_dense_strides(buf_.dim, dimensions());
        buf_.host = host;
    }

    void init_wrapped(tessera_type_t t, uint8_t* host, int n, const tessera_dimension_t* shape) {
        buf_.type = t;
        if (n > 0 && !shape) throw_invalid_dimensions(n, "with a null shape");
        for (int i = 0; i < n; i++) detail::check_extent(i, shape[i].extent);
        set_dimensions(n);
        if (n > 0) std::memcpy(buf_.dim, shape, sizeof(tessera_dimension_t) * std::size_t(n));
        buf_.host = host;
    }

    static Buffer make_interleaved_of(tessera_type_t t, int width, int height, int channels) {
        Buffer b;
        const int order[] = {2, 0, 1};
        b.init_dense(t, {width, height, channels}, order);
        return b;
    }

    // Zeroed memory for the shape as its strides lay it out; the element at the mins sits where
    // negative strides leave room below it.
    void allocate_for_shape() {
        auto [lo, hi] = detail::span_of(buf_);
        const std::size_t bytes = std::size_t(detail::bytes_of(buf_.type));
        alloc_ = detail::allocate_zeroed(std::size_t(hi - lo) * bytes);
        buf_.host = static_cast<uint8_t*>(alloc_.get()) + std::size_t(-lo) * bytes;
    }

    void check_type(tessera_type_t t, const char* what) const {
        if (!detail::same_type(t, detail::type_of<T>()))
            detail::throw_invalid(std::string("a Buffer<") + detail::type_name(detail::type_of<T>()) +
                                  "> cannot " + what + " of " + detail::type_name(t));
    }
    void check_dimension(int d, const char* what) const {
        if (d < 0 || d >= dimensions())
            detail::throw_invalid(std::string(what) + " of dimension " + std::to_string(d) +
                                  " of a buffer of " + std::to_string(dimensions()) + " dimensions");
    }
    void check_count(int n, const char* what) const {
        if (n > dimensions())
            detail::throw_invalid(std::string(what) + " with " + std::to_string(n) +
                                  " values for a buffer of " + std::to_string(dimensions()) + " dimensions");
    }
    static int checked_min(int d, std::int64_t min) {
        if (min < INT32_MIN || min > INT32_MAX)
            detail::throw_invalid("the min of dimension " + std::to_string(d) + " would be " +
                                  std::to_string(min) + ", outside the range of int32");
        return int(min);
    }

    template <typename... Args>
    std::ptrdiff_t offset_of_coordinates(Args... coords) const {
        if constexpr (TESSERA_RUNTIME_BUFFER_CHECKS) {
            const int pos[sizeof...(Args) + 1] = {int(coords)..., 0};
            detail::check_access(buf_, pos, int(sizeof...(Args)));
        }
        std::ptrdiff_t offset = 0;
        [[maybe_unused]] int i = 0;
        ((offset += (std::ptrdiff_t(coords) - buf_.dim[i].min) * buf_.dim[i].stride, i++), ...);
        return offset;
    }
    std::ptrdiff_t offset_of_position(const int* pos) const {
        if constexpr (TESSERA_RUNTIME_BUFFER_CHECKS) detail::check_access(buf_, pos, dimensions());
        return detail::offset_of(buf_, pos);
    }
    bool contains_position(const int* pos, int n) const {
        if constexpr (TESSERA_RUNTIME_BUFFER_CHECKS) {
            if (n != dimensions())
                detail::fail_check("contains() with " + std::to_string(n) + " coordinates for a buffer of " +
                                   std::to_string(dimensions()) + " dimensions");
        }
        for (int i = 0; i < n && i < dimensions(); i++)
            if (pos[i] < buf_.dim[i].min ||
                std::int64_t(pos[i]) >= std::int64_t(buf_.dim[i].min) + buf_.dim[i].extent)
                return false;
        return true;
    }

    // The body of both for_each_value overloads; self is *this, const or not, so that the values
    // passed are const exactly when the buffer is.
    template <typename Self, typename F, typename... Others>
    static void for_each_value_of(Self& self, F& f, Others&... others) {
        int k = 1;
        [[maybe_unused]] auto check_extents = [&](const auto& other) {
            bool same = other.dimensions() == self.dimensions();
            for (int i = 0; same && i < self.dimensions(); i++) same = other.extent(i) == self.extent(i);
            if (!same)
                detail::throw_invalid("for_each_value over buffers of different extents (buffer " +
                                      std::to_string(k) + " differs from the first)");
            k++;
        };
        (check_extents(others), ...);
        if (!self.defined() || (!others.defined() || ...)) {
            if (self.number_of_elements() == 0) return;
            detail::throw_invalid("for_each_value over a buffer with no memory");
        }
        auto bases = std::make_tuple(self.data(), others.data()...);
        constexpr std::size_t n = 1 + sizeof...(Others);
        detail::for_each_offset<n>({self.raw_buffer(), others.raw_buffer()...},
                                   [&](const std::array<std::ptrdiff_t, n>& off) {
                                       [&]<std::size_t... I>(std::index_sequence<I...>) {
                                           f(std::get<I>(bases)[off[I]]...);
                                       }
                                       (std::make_index_sequence<n>());
                                   });
    }
};

}  // namespace tessera::Runtime
