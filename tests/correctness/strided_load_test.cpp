// Vector loads with a constant stride of 2 to 4 (a stride-2 convolution's input, a deinterleave),
// and up-sampling reads (x / k for k from 2 to 4): one dense load of the span the lanes cover and a
// shuffle, which must give every lane's element and read nothing past the last one, even where the
// buffer ends at an unmapped page.

#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tessera/tessera.h>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

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

// The host's assembly for f, a function of the one input, named name.
std::string assembly_of(const Func& f, const ImageParam& in, const std::string& name) {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("tessera_" + name + "_test.s")).string();
    Pipeline(f).compile_to_assembly(path, {in}, name, get_host_target());
    std::ifstream file(path);
    return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

template <typename T>
void check_upsampled(int factor, int lanes, int first) {
    CAPTURE(factor);
    CAPTURE(lanes);
    CAPTURE(first);
    // out covers [first, first + 37): every remainder of a vector's first lane modulo the factor
    // comes up; in ends exactly at the last element read.
    const int width = 37, last = first + width - 1, in_count = (last + factor - 1) / factor + 1;
    BeforeGuardPage<T> memory(in_count);
    for (int i = 0; i < in_count; i++) memory.data()[i] = T(i * 7 % 251);
    Buffer<T> in(memory.data(), {in_count});
    Func f("f");
    Var x("x");
    f(x) = in(x / factor) + in((x + factor - 1) / factor);
    f.vectorize(x, lanes, TailStrategy::ShiftInwards);
    Buffer<T> out(width);
    out.set_min(first);
    f.realize(out);
    for (int i = first; i <= last; i++)
        CHECK_MESSAGE(out(i) == T(memory.data()[i / factor] + memory.data()[(i + factor - 1) / factor]),
                      "at " << i);
}

}  // namespace

TEST_CASE("up-sampling vector loads give every lane's element and read nothing past the last") {
    for (int factor : {2, 3, 4}) {
        for (int lanes : {4, 8, 16}) {
            for (int first : {0, 1, 2, 3}) {
                check_upsampled<float>(factor, lanes, first);
                check_upsampled<uint8_t>(factor, lanes, first);
                check_upsampled<int16_t>(factor, lanes, first);
            }
        }
    }
    // No gather is left where the target has them.
    if (get_host_target().has_feature(Target::AVX2)) {
        ImageParam in(Float(32), 1, "in");
        Func f("f");
        Var x("x");
        f(x) = in(x / 2) * 0.75f + in((x + 1) / 2) * 0.25f;
        f.vectorize(x, 8);
        const std::string text = assembly_of(f, in, "upsampled");
        CHECK(text.find("gather") == std::string::npos);
        CHECK(text.find("upsampled") != std::string::npos);
    }
}

TEST_CASE("an up-sampling read through an inlined Func stays one dense load") {
    // The inlined Func's coordinate x / 2 is bound to a let, which vectorizing makes a vector; the
    // load must still see the division to be read densely (a graph layer's ConvTranspose reads
    // its input this way).
    if (!get_host_target().has_feature(Target::AVX2)) return;
    ImageParam in(Float(32), 1, "in");
    Func source("source"), f("f");
    Var x("x");
    source(x) = in(x);
    f(x) = source(x / 2) * 0.75f + source(x / 2 + 1) * 0.25f;
    f.vectorize(x, 8);
    const std::string text = assembly_of(f, in, "upsampled_inlined");
    CHECK(text.find("gather") == std::string::npos);
    CHECK(text.find("upsampled_inlined") != std::string::npos);
}

TEST_CASE("vector loads of stride 2 to 4 give every lane's element and read nothing past the last") {
    for (int stride : {2, 3, 4}) {
        for (int lanes : {4, 8, 16}) {
            check_strided<float>(stride, lanes);
            check_strided<uint8_t>(stride, lanes);
            check_strided<int16_t>(stride, lanes);
        }
    }
}
