//===- ElfFile.h - Reading ELF files without loading them -------*- C++ -*-===//
//
// dlopen maps a shared library's segments as the file's program headers
// describe them; a truncated file maps pages past its end, and touching
// them raises SIGBUS inside the loader. These readers check a file against
// its own headers first.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_ELFFILE_H
#define OPAL_SUPPORT_ELFFILE_H

#include <elf.h>
#include <link.h>

#include <string>
#include <vector>

namespace opal {

/// The ELF header and program headers of an open file.
struct ElfHeaders {
  ElfW(Ehdr) header;
  std::vector<ElfW(Phdr)> programs;
  /// The file's size in bytes.
  uint64_t fileSize = 0;
};

/// Reads the headers of the ELF file open as `fd`; "" on success, else what
/// is wrong ("not an ELF file", "its program headers end at byte N, past the
/// end of the file (M bytes)").
std::string readElfHeaders(int fd, ElfHeaders &headers);

/// Why `path` cannot be a shared library for this process to dlopen ("" if
/// it can): not a regular file, not ELF, another class, byte order, machine
/// or file type, or headers and segments that reach past the end of the file
/// (a truncated copy). The message names the file.
std::string sharedLibraryProblem(const std::string &path);

} // namespace opal

#endif // OPAL_SUPPORT_ELFFILE_H
