// Vector loads with a constant stride of 2 to 4 (a stride-2 convolution's input, a deinterleave):
// one dense load of the span the lanes cover and a shuffle, which must give every lane's element
// and read nothing past the last one, even where the buffer ends at an unmapped page.

#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tessera/tessera.h>
#include <cstdint>

using namespace tessera;

namespace {

// count elements of T ending exactly where an unmapped page begins: a read past the last element
// faults.
template <typename T>
class BeforeGuardPage {
public:
    explicit BeforeGuardPage(int count) : count_(count) {
        page_ = size_t(sysconf(_SC_PAGESIZE));
        const size_t bytes = size_t(count) * sizeof(T);
        data_pages_ = (bytes + page_ - 1) / page_;
        base_ = mmap(nullptr, (data_pages_ + 1) * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
        REQUIRE(base_ != MAP_FAILED);
        REQUIRE(mprotect(static_cast<char*>(base_) + data_pages_ * page_, page_, PROT_NONE) == 0);
    }
    ~BeforeGuardPage() { munmap(base_, (data_pages_ + 1) * page_); }
    T* data() const {
        return reinterpret_cast<T*>(static_cast<char*>(base_) + data_pages_ * page_ -
                                    size_t(count_) * sizeof(T));
    }

private:
    int count_;
    size_t page_, data_pages_;
    void* base_;
};

template <typename T>
void check_strided(int stride, int lanes) {
    CAPTURE(stride);
    CAPTURE(lanes);
    // out has 37 elements (no multiple of the lanes); in has exactly the elements they read.
    const int width = 37, in_count = stride * width;
    BeforeGuardPage<T> memory(in_count);
    for (int i = 0; i < in_count; i++) memory.data()[i] = T(i * 7 % 251);
    Buffer<T> in(memory.data(), {in_count});
    Func f("f");
    Var x("x");
    f(x) = in(x * stride) + in(x * stride + stride - 1);
    f.vectorize(x, lanes, TailStrategy::ShiftInwards);
    Buffer<T> out = f.realize({width});
    for (int i = 0; i < width; i++)
        CHECK_MESSAGE(out(i) == T(memory.data()[i * stride] + memory.data()[i * stride + stride - 1]),
                      "at " << i);
}

}  // namespace

TEST_CASE("vector loads of stride 2 to 4 give every lane's element and read nothing past the last") {
    for (int stride : {2, 3, 4}) {
        for (int lanes : {4, 8, 16}) {
            check_strided<float>(stride, lanes);
            check_strided<uint8_t>(stride, lanes);
            check_strided<int16_t>(stride, lanes);
        }
    }
}
