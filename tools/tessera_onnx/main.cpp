// tessera-onnx: runs ONNX models with Tessera's graph layer, tests them against ONNX's test data,
// and shows how it compiles them.

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.h"
#include "tessera/error.h"

namespace {

const char* usage =
    "usage:\n"
    "  tessera-onnx run MODEL.onnx --input NAME=FILE.pb ... [--shape NAME=1x3x640x640] [--output-dir DIR]\n"
    "                   [--time N] [--keep NAME]... [--records FILE]\n"
    "      writes every output (and every kept value) to DIR/NAME.pb as an ONNX TensorProto;\n"
    "      --time N runs the model N more times and prints the compile time and the median run time;\n"
    "      with --profile also every fused group's share of it.\n"
    "  tessera-onnx test DIR...\n"
    "      runs test cases in the layout of ONNX's backend tests (DIR/model.onnx,\n"
    "      DIR/test_data_set_*/input_*.pb, output_*.pb), or every such case inside DIR, and compares\n"
    "      with rtol 1e-3 and atol 1e-4 for floats and exactly for integers and bools.\n"
    "  tessera-onnx info MODEL.onnx [--shape NAME=1x3x640x640] [--records FILE]\n"
    "      prints the optimized graph, its fusion groups and its memory plan.\n"
    "  tessera-onnx tune MODEL.onnx --records FILE [--shape NAME=1x3x640x640] [--input NAME=FILE.pb]...\n"
    "                    [--trials N] [--time-budget 30m] [--curve FILE.csv]\n"
    "      tunes every distinct fused group (N trials each, 100 by default, counting the records\n"
    "      FILE has already: an interrupted run resumes) and appends each measurement to FILE;\n"
    "      run and info apply the records with --records FILE.\n"
    "  tessera-onnx compare A.pb B.pb [--rtol 1e-3] [--atol 1e-4]\n"
    "      prints the largest absolute difference of two tensors, and whether they match within\n"
    "      atol + rtol * |B| everywhere.\n"
    "  --verbose prints the time of every graph pass and group compilation.\n";

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string command = argv[1];
    try {
        const tessera_onnx::Options options = tessera_onnx::parse_options(argc, argv, 2);
        if (command == "run") return tessera_onnx::run_command(options);
        if (command == "test") return tessera_onnx::test_command(options);
        if (command == "info") return tessera_onnx::info_command(options);
        if (command == "compare") return tessera_onnx::compare_command(options);
        if (command == "tune") return tessera_onnx::tune_command(options);
        std::fprintf(stderr, "tessera-onnx: unknown command %s\n%s", command.c_str(), usage);
        return 2;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "tessera-onnx: %s\n%s", e.what(), usage);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tessera-onnx: %s\n", e.what());
        return 1;
    }
}
