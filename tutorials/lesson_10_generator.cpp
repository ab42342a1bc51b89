// Lesson 10, part 1: a generator, for ahead-of-time compilation.
//
// So far every pipeline was compiled by the JIT inside the program that ran it. Many programs
// never compile anything at run time: they link kernels generated when they are built, as a plain
// static library and a C header, and ship without LLVM or the Tessera compiler. A generator is
// how a pipeline gets there. It is a class that declares
//   - GeneratorParams: values fixed when the code is generated (a vector width, a radius, a type),
//     set from the build;
//   - Inputs: the arguments of the generated function, buffers (ImageParams) and scalars (Params),
//     in the order the function takes them;
//   - Outputs: the buffers it fills, after the inputs;
// and defines the algorithm in generate() and the schedule in schedule(). TESSERA_REGISTER_GENERATOR
// gives it a name. Compiled with Tessera::generator_main, this file becomes a generator program:
//
//   ./lesson_10_generator -g brighter -o <dir> -f lesson_10_brighter target=host vector_width=16
//
// writes <dir>/lesson_10_brighter.a and <dir>/lesson_10_brighter.h. In CMake, after
// find_package(Tessera), two calls do that as part of the build (see tutorials/CMakeLists.txt):
//
//   add_tessera_generator(lesson_10_generator SOURCES lesson_10_generator.cpp)
//   add_tessera_library(lesson_10_brighter FROM lesson_10_generator GENERATOR brighter
//                       PARAMS vector_width=16)
//
// and `target_link_libraries(app PRIVATE lesson_10_brighter)` gives an application the library and
// its header. Part 2, lesson_10_run_generated.cpp, is that application.

#include <tessera/tessera.h>

namespace {

class Brighter : public tessera::Generator<Brighter> {
public:
    // Fixed at generation: how many pixels each vector instruction handles.
    GeneratorParam<int> vector_width{"vector_width", 8, 1, 64};

    // The generated function's arguments, in this order:
    //   int lesson_10_brighter(tessera_buffer_t* input, uint8_t offset, tessera_buffer_t* brighter);
    Input<Buffer<uint8_t>> input{"input", 2};
    Input<uint8_t> offset{"offset"};
    Output<Buffer<uint8_t>> brighter{"brighter", 2};

    void generate() {
        // Add the offset, saturating at 255.
        brighter(x, y) =
            tessera::cast<uint8_t>(tessera::min(tessera::cast<uint16_t>(input(x, y)) + offset, 255));
    }

    void schedule() { brighter.vectorize(x, vector_width).parallel(y); }

private:
    Var x{"x"}, y{"y"};
};

}  // namespace

TESSERA_REGISTER_GENERATOR(Brighter, brighter)
