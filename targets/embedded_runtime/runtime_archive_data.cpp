// The runtime's static library, built with Tessera, kept inside it as bytes: ahead-of-time
// libraries carry the runtime so that an application links them and nothing else. The archive's
// path comes from the build (TESSERA_RUNTIME_ARCHIVE_PATH). This file is compiled without ccache,
// which cannot see that the object depends on the archive.

#include <string_view>

#ifndef TESSERA_RUNTIME_ARCHIVE_PATH
#error "TESSERA_RUNTIME_ARCHIVE_PATH must name the runtime's static library"
#endif

asm(".pushsection .rodata\n"
    ".balign 16\n"
    ".hidden tessera_runtime_archive_begin\n"
    ".globl tessera_runtime_archive_begin\n"
    "tessera_runtime_archive_begin:\n"
    ".incbin \"" TESSERA_RUNTIME_ARCHIVE_PATH
    "\"\n"
    ".hidden tessera_runtime_archive_end\n"
    ".globl tessera_runtime_archive_end\n"
    "tessera_runtime_archive_end:\n"
    ".popsection\n");

extern "C" const char tessera_runtime_archive_begin[];
extern "C" const char tessera_runtime_archive_end[];

namespace tessera::targets {

std::string_view embedded_runtime_archive() {
    return std::string_view(tessera_runtime_archive_begin,
                            size_t(tessera_runtime_archive_end - tessera_runtime_archive_begin));
}

}  // namespace tessera::targets
