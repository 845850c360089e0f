//===- BuildId.cpp - GNU build ids of opal's shared objects ---------------===//

#include "opal/Support/BuildId.h"

#include "opal/Support/ElfFile.h"
#include "opal/Support/Sha256.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <cstring>
#include <vector>

using namespace opal;

namespace {

/// The build id in a block of ELF notes, or "".
std::string buildIdInNotes(const char *at, const char *end) {
  while (at + sizeof(ElfW(Nhdr)) <= end) {
    auto *note = reinterpret_cast<const ElfW(Nhdr) *>(at);
    const char *name = at + sizeof(ElfW(Nhdr));
    const char *desc = name + ((note->n_namesz + 3) & ~3u);
    const char *next = desc + ((note->n_descsz + 3) & ~3u);
    if (next > end || next <= at)
      break;
    if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
        std::memcmp(name, "GNU", 4) == 0)
      return toHex(reinterpret_cast<const uint8_t *>(desc), note->n_descsz);
    at = next;
  }
  return "";
}

} // namespace

std::string opal::buildIdOf(const void *address) {
  struct Search {
    const void *address;
    std::string id;
  } search{address, ""};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto &search = *static_cast<Search *>(data);
        auto target = reinterpret_cast<ElfW(Addr)>(search.address);
        bool contains = false;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &header = info->dlpi_phdr[i];
          ElfW(Addr) start = info->dlpi_addr + header.p_vaddr;
          if (header.p_type == PT_LOAD && target >= start && target < start + header.p_memsz)
            contains = true;
        }
        if (!contains)
          return 0;
        for (int i = 0; i < info->dlpi_phnum && search.id.empty(); ++i) {
          const ElfW(Phdr) &header = info->dlpi_phdr[i];
          if (header.p_type != PT_NOTE)
            continue;
          auto *at = reinterpret_cast<const char *>(info->dlpi_addr + header.p_vaddr);
          search.id = buildIdInNotes(at, at + header.p_memsz);
        }
        return 1;
      },
      &search);
  return search.id.empty() ? "no-build-id" : search.id;
}

std::string opal::buildIdOfFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return "";
  std::string id;
  ElfHeaders headers;
  if (readElfHeaders(fd, headers).empty())
    for (const ElfW(Phdr) &program : headers.programs) {
      if (program.p_type != PT_NOTE || program.p_filesz > (1u << 16))
        continue;
      std::vector<char> notes(program.p_filesz);
      if (::pread(fd, notes.data(), notes.size(), static_cast<off_t>(program.p_offset)) !=
          static_cast<ssize_t>(notes.size()))
        continue;
      id = buildIdInNotes(notes.data(), notes.data() + notes.size());
      if (!id.empty())
        break;
    }
  ::close(fd);
  return id;
}
