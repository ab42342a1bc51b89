#include "targets/static_library.h"

#include <llvm/Object/Archive.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/MemoryBuffer.h>

#include "tessera/target.h"
#include "util/error_stream.h"

namespace tessera::targets {
namespace {

llvm::object::Archive::Kind archive_kind(const Target& target) {
    switch (target.os) {
        case Target::OSX: return llvm::object::Archive::K_DARWIN;
        case Target::Windows: return llvm::object::Archive::K_COFF;
        default: return llvm::object::Archive::K_GNU;
    }
}

// The runtime was compiled for the machine Tessera was built on; it serves targets of that
// architecture and operating system, whatever their instruction-set features.
void check_runtime_fits(const Target& target) {
    const Target host = get_host_target();
    TESSERA_USER_CHECK(target.arch == host.arch && target.bits == host.bits && target.os == host.os)
        << "compile_to_static_library for " << target.to_string()
        << ": the runtime inside Tessera was built for " << host.to_string()
        << " and cannot go into a library for another machine. Add the feature no_runtime (e.g. \""
        << target.with_feature(Target::NoRuntime).to_string()
        << "\") and link a runtime built for that machine, or use compile_to_object.";
}

// Appends the runtime's objects, as they are in its own archive, to members.
void add_runtime_members(std::vector<llvm::NewArchiveMember>& members) {
    const std::string_view bytes = embedded_runtime_archive();
    llvm::MemoryBufferRef buffer(llvm::StringRef(bytes.data(), bytes.size()), "libtessera_runtime.a");
    llvm::Expected<std::unique_ptr<llvm::object::Archive>> archive = llvm::object::Archive::create(buffer);
    TESSERA_INTERNAL_CHECK(archive) << "the runtime inside Tessera is not an archive: "
                                    << llvm::toString(archive.takeError());
    llvm::Error error = llvm::Error::success();
    for (const llvm::object::Archive::Child& child : (*archive)->children(error)) {
        llvm::Expected<llvm::NewArchiveMember> member =
            llvm::NewArchiveMember::getOldMember(child, /*Deterministic=*/true);
        TESSERA_INTERNAL_CHECK(member)
            << "cannot read the runtime's objects: " << llvm::toString(member.takeError());
        members.push_back(std::move(*member));
    }
    TESSERA_INTERNAL_CHECK(!error) << "cannot read the runtime's objects: "
                                   << llvm::toString(std::move(error));
}

}  // namespace

void write_static_library(const std::string& path, const std::string& object_name, const std::string& object,
                          const Target& target) {
    const bool with_runtime = !target.has_feature(Target::NoRuntime);
    if (with_runtime) check_runtime_fits(target);
    std::vector<llvm::NewArchiveMember> members;
    // The member keeps a pointer to its name, which must outlive the write.
    llvm::NewArchiveMember pipeline(llvm::MemoryBufferRef(object, object_name));
    members.push_back(std::move(pipeline));
    if (with_runtime) add_runtime_members(members);
    llvm::Error error =
        llvm::writeArchive(path, members, llvm::SymtabWritingMode::NormalSymtab, archive_kind(target),
                           /*Deterministic=*/true, /*Thin=*/false);
    if (error) {
        TESSERA_USER_ERROR << "cannot write the static library " << path << ": "
                           << llvm::toString(std::move(error))
                           << ". Check that its directory exists and is writable.";
    }
}

}  // namespace tessera::targets
