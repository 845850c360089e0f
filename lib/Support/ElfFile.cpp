//===- ElfFile.cpp - Reading ELF files without loading them ---------------===//

#include "opal/Support/ElfFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using namespace opal;

namespace {

/// Reads `count` bytes at `offset`; false on a short read.
bool readAt(int fd, void *into, size_t count, uint64_t offset) {
  return ::pread(fd, into, count, static_cast<off_t>(offset)) == static_cast<ssize_t>(count);
}

/// Whether [offset, offset + size) lies inside a file of `fileSize` bytes,
/// without overflowing.
bool inside(uint64_t offset, uint64_t size, uint64_t fileSize) {
  return offset <= fileSize && size <= fileSize - offset;
}

std::string bytes(uint64_t count) { return std::to_string(count) + " bytes"; }

#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#else
constexpr int kMachine = -1; // not checked
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kByteOrder = ELFDATA2LSB;
#else
constexpr unsigned char kByteOrder = ELFDATA2MSB;
#endif

const char *segmentName(uint32_t type) {
  switch (type) {
  case PT_LOAD:
    return "loadable segment";
  case PT_DYNAMIC:
    return "dynamic section";
  case PT_INTERP:
    return "interpreter name";
  case PT_NOTE:
    return "notes";
  default:
    return "segment";
  }
}

} // namespace

std::string opal::readElfHeaders(int fd, ElfHeaders &headers) {
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return std::strerror(errno);
  if (!S_ISREG(info.st_mode))
    return S_ISDIR(info.st_mode) ? "it is a directory" : "it is not a regular file";
  headers.fileSize = static_cast<uint64_t>(info.st_size);
  ElfW(Ehdr) &header = headers.header;
  if (headers.fileSize < sizeof header || !readAt(fd, &header, sizeof header, 0) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return "not an ELF file";
  if (header.e_phentsize != sizeof(ElfW(Phdr)))
    return "its program headers have " + std::to_string(header.e_phentsize) +
           " bytes each, not " + std::to_string(sizeof(ElfW(Phdr)));
  uint64_t tableSize = uint64_t(header.e_phnum) * sizeof(ElfW(Phdr));
  if (!inside(header.e_phoff, tableSize, headers.fileSize))
    return "its program headers end past the end of the file (" + bytes(headers.fileSize) +
           "; truncated?)";
  headers.programs.resize(header.e_phnum);
  if (!readAt(fd, headers.programs.data(), tableSize, header.e_phoff))
    return "its program headers cannot be read";
  return "";
}

std::string opal::sharedLibraryProblem(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return path + ": " + std::strerror(errno);
  ElfHeaders headers;
  std::string problem = readElfHeaders(fd, headers);
  ::close(fd);
  auto fail = [&](const std::string &why) { return path + " is not a shared library: " + why; };
  if (!problem.empty())
    return fail(problem);
  const ElfW(Ehdr) &header = headers.header;
  if (header.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
    return fail(std::string("it is a ") + (sizeof(void *) == 8 ? "32" : "64") +
                "-bit ELF file");
  if (header.e_ident[EI_DATA] != kByteOrder)
    return fail("its byte order is not this machine's");
  if (kMachine >= 0 && header.e_machine != kMachine)
    return fail("it is for another machine (ELF machine " + std::to_string(header.e_machine) +
                ")");
  if (header.e_type != ET_DYN)
    return fail(header.e_type == ET_EXEC ? "it is an executable"
                : header.e_type == ET_REL ? "it is an object file (link it with -shared)"
                                          : "its ELF file type is " +
                                                std::to_string(header.e_type));
  bool loadable = false;
  for (size_t i = 0; i < headers.programs.size(); ++i) {
    const ElfW(Phdr) &program = headers.programs[i];
    if (program.p_type != PT_LOAD && program.p_type != PT_DYNAMIC &&
        program.p_type != PT_INTERP && program.p_type != PT_NOTE)
      continue;
    loadable |= program.p_type == PT_LOAD;
    if (program.p_type == PT_LOAD && program.p_filesz > program.p_memsz)
      return fail("its loadable segment " + std::to_string(i) + " has more bytes in the file "
                  "than in memory");
    if (!inside(program.p_offset, program.p_filesz, headers.fileSize)) {
      uint64_t end = program.p_offset + program.p_filesz;
      return fail(std::string("its ") + segmentName(program.p_type) + " (program header " +
                  std::to_string(i) + ") ends at byte " +
                  (end < program.p_offset ? std::string("past 2^64") : std::to_string(end)) +
                  ", past the end of the file (" + bytes(headers.fileSize) + "; truncated?)");
    }
  }
  if (!loadable)
    return fail("it has no loadable segment");
  if (header.e_shnum &&
      !inside(header.e_shoff, uint64_t(header.e_shnum) * header.e_shentsize, headers.fileSize))
    return fail("its section headers end past the end of the file (" +
                bytes(headers.fileSize) + "; truncated?)");
  return "";
}
