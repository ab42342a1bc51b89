// tessera::generator_main: the command line of a generator program, which compiles one registered
// generator ahead of time into the files the build asks for.

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "lang/ahead_of_time.h"
#include "tessera/generator.h"
#include "util/c_identifier.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

const char* const usage_text =
    "Usage: %s -g <generator> -o <output directory> [-f <function name>] [-n <file base name>]\n"
    "       [-e <file kinds>] [target=<target>] [<param>=<value> ...]\n"
    "       %s -l | -h\n"
    "\n"
    "  -g  the registered generator to compile (may be left out when the program has just one)\n"
    "  -o  the directory the files are written to (required; made if missing)\n"
    "  -f  the name of the C function (default: the generator's name)\n"
    "  -n  the base name of the files (default: the function's name)\n"
    "  -e  comma-separated: static_library, h (or c_header), o (or object), assembly, llvm_assembly,\n"
    "      bitcode, stmt, stmt_html (default: static_library,h)\n"
    "  -l  list the registered generators\n"
    "  -h  this help\n"
    "  target=<target>  e.g. host, x86-64-linux-avx2-fma (default: host); several, comma-separated\n"
    "                   and most capable first, make one library that picks the first the CPU has\n"
    "  <param>=<value>  sets a GeneratorParam of the generator\n";

struct FileKind {
    const char* name;
    const char* alias;
    OutputFileType type;
    const char* suffix;
};

const FileKind file_kinds[] = {
    {"static_library", nullptr, OutputFileType::static_library, ".a"},
    {"h", "c_header", OutputFileType::c_header, ".h"},
    {"o", "object", OutputFileType::object, ".o"},
    {"assembly", nullptr, OutputFileType::assembly, ".s"},
    {"llvm_assembly", nullptr, OutputFileType::llvm_assembly, ".ll"},
    {"bitcode", nullptr, OutputFileType::bitcode, ".bc"},
    {"stmt", nullptr, OutputFileType::stmt, ".stmt"},
    {"stmt_html", nullptr, OutputFileType::stmt_html, ".stmt.html"},
};

struct CommandLine {
    std::string generator, output_dir, function_name, file_base;
    std::string emit = "static_library,h";
    bool list = false, help = false;
    std::map<std::string, std::string> params;  // target= included
};

std::string usage(const char* program) {
    char buffer[2048];
    std::snprintf(buffer, sizeof(buffer), usage_text, program, program);
    return buffer;
}

CommandLine parse_command_line(int argc, char** argv) {
    CommandLine cl;
    const std::map<std::string, std::string*> options = {{"-g", &cl.generator},
                                                         {"-o", &cl.output_dir},
                                                         {"-f", &cl.function_name},
                                                         {"-n", &cl.file_base},
                                                         {"-e", &cl.emit}};
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "-l") {
            cl.list = true;
        } else if (arg == "-h" || arg == "--help") {
            cl.help = true;
        } else if (auto it = options.find(arg); it != options.end()) {
            TESSERA_USER_CHECK(i + 1 < argc) << "the option " << arg << " needs a value.";
            *it->second = argv[++i];
        } else if (size_t eq = arg.find('='); eq != std::string::npos && eq > 0 && arg[0] != '-') {
            const std::string name = arg.substr(0, eq);
            TESSERA_USER_CHECK(!cl.params.count(name)) << "the parameter " << name << " is given twice.";
            cl.params[name] = arg.substr(eq + 1);
        } else {
            TESSERA_USER_ERROR << "unexpected argument '" << arg << "'. Run with -h for the usage.";
        }
    }
    return cl;
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        size_t comma = s.find(',', start);
        parts.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) return parts;
        start = comma + 1;
    }
}

std::map<OutputFileType, std::string> output_files(const CommandLine& cl, const std::string& file_base) {
    std::map<OutputFileType, std::string> files;
    const std::filesystem::path dir(cl.output_dir);
    for (const std::string& kind : split_commas(cl.emit)) {
        const FileKind* found = nullptr;
        for (const FileKind& k : file_kinds)
            if (kind == k.name || (k.alias && kind == k.alias)) found = &k;
        if (!found) {
            std::string known;
            for (const FileKind& k : file_kinds) known += (known.empty() ? "" : ", ") + std::string(k.name);
            TESSERA_USER_ERROR << "-e: unknown kind of file '" << kind << "'; the kinds are " << known << ".";
        }
        files[found->type] = (dir / (file_base + found->suffix)).string();
    }
    return files;
}

// The generator to run: -g, or the only one registered.
std::string chosen_generator(const CommandLine& cl) {
    if (!cl.generator.empty()) return cl.generator;
    const std::vector<std::string> names = GeneratorRegistry::enumerate();
    TESSERA_USER_CHECK(!names.empty())
        << "this program registers no generators (use TESSERA_REGISTER_GENERATOR).";
    if (names.size() > 1) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        TESSERA_USER_ERROR << "-g <generator> is required: this program registers " << names.size()
                           << " generators: " << list << ".";
    }
    return names[0];
}

// target=a,b,...: the targets of one library, most capable first (see AheadOfTimeRequest); host
// when there is no target=.
std::vector<Target> chosen_targets(std::map<std::string, std::string>& params) {
    auto it = params.find("target");
    if (it == params.end()) return {get_host_target()};
    const std::string text = it->second;
    params.erase(it);
    std::vector<Target> targets;
    for (const std::string& part : split_commas(text))
        targets.push_back(lang::parse_generator_target("target", part));
    return targets;
}

void run(const CommandLine& cl) {
    TESSERA_USER_CHECK(!cl.output_dir.empty())
        << "-o <output directory> is required. Run with -h for the usage.";
    const std::string generator_name = chosen_generator(cl);
    std::map<std::string, std::string> params = cl.params;
    const std::vector<Target> targets = chosen_targets(params);

    lang::AheadOfTimeRequest request;
    request.function_name = cl.function_name.empty() ? generator_name : cl.function_name;
    TESSERA_USER_CHECK(util::is_c_identifier(request.function_name))
        << "-f " << request.function_name
        << ": the function name must be a C identifier (letters, digits and _, not starting with a digit).";
    request.files = output_files(cl, cl.file_base.empty() ? request.function_name : cl.file_base);
    request.targets = targets;

    // The pipeline is lowered once for all the targets, so the generator is built once, for the
    // first (the most capable): get_target() and natural_vector_size() answer for it.
    std::unique_ptr<GeneratorBase> generator =
        GeneratorRegistry::create(generator_name, GeneratorContext(targets.front()));
    generator->set_generator_param_values(params);
    Pipeline pipeline = generator->build_pipeline();
    request.inputs = generator->input_arguments();
    request.output_names = generator->output_argument_names();

    std::error_code ec;
    std::filesystem::create_directories(cl.output_dir, ec);
    TESSERA_USER_CHECK(!ec) << "-o " << cl.output_dir << ": cannot make the directory: " << ec.message()
                            << ".";
    lang::compile_ahead_of_time(pipeline, request);
}

}  // namespace

int generator_main(int argc, char** argv) {
    const char* program = argc > 0 ? argv[0] : "generator";
    try {
        if (argc <= 1) {
            std::cerr << usage(program);
            return 1;
        }
        const CommandLine cl = parse_command_line(argc, argv);
        if (cl.help) {
            std::cout << usage(program);
            return 0;
        }
        for (const std::string& e : GeneratorRegistry::registration_errors()) throw CompileError(e);
        if (cl.list) {
            for (const std::string& name : GeneratorRegistry::enumerate()) std::cout << name << "\n";
            return 0;
        }
        run(cl);
        return 0;
    } catch (const Error& e) {
        std::cerr << e.what() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "Error: " << e.what() << "\n";
    } catch (...) {
        std::cerr << "Error: an unknown exception ended the generator.\n";
    }
    return 1;
}

}  // namespace tessera
