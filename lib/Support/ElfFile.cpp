//===- ElfFile.cpp - Reading ELF files without loading them ---------------===//

#include "opal/Support/ElfFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>
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

/// The loadable segment whose memory holds [address, address + size), or
/// null; `inFile`: within the part of it the file holds.
const ElfW(Phdr) *segmentHolding(const ElfHeaders &headers, uint64_t address, uint64_t size,
                                 bool inFile) {
  for (const ElfW(Phdr) &program : headers.programs) {
    if (program.p_type != PT_LOAD || address < program.p_vaddr)
      continue;
    uint64_t extent = inFile ? program.p_filesz : program.p_memsz;
    if (inside(address - program.p_vaddr, size, extent))
      return &program;
  }
  return nullptr;
}

/// Whether [address, address + 8) is inside a writable loadable segment.
bool isWritable(const ElfHeaders &headers, uint64_t address) {
  for (const ElfW(Phdr) &program : headers.programs)
    if (program.p_type == PT_LOAD && (program.p_flags & PF_W) && address >= program.p_vaddr &&
        inside(address - program.p_vaddr, sizeof(uint64_t), program.p_memsz))
      return true;
  return false;
}

/// Whether `address` is inside an executable loadable segment.
bool isCode(const ElfHeaders &headers, uint64_t address) {
  for (const ElfW(Phdr) &program : headers.programs)
    if (program.p_type == PT_LOAD && (program.p_flags & PF_X) && address >= program.p_vaddr &&
        address - program.p_vaddr < program.p_memsz)
      return true;
  return false;
}

/// The file offset of `address`, which segmentHolding(..., inFile) found.
uint64_t fileOffsetOf(const ElfW(Phdr) &segment, uint64_t address) {
  return segment.p_offset + (address - segment.p_vaddr);
}

const char *dynamicTagName(int64_t tag) {
  switch (tag) {
  case DT_STRTAB: return "DT_STRTAB";
  case DT_SYMTAB: return "DT_SYMTAB";
  case DT_RELA: return "DT_RELA";
  case DT_REL: return "DT_REL";
  case DT_JMPREL: return "DT_JMPREL";
  case DT_HASH: return "DT_HASH";
  case DT_GNU_HASH: return "DT_GNU_HASH";
  case DT_VERSYM: return "DT_VERSYM";
  case DT_VERNEED: return "DT_VERNEED";
  case DT_VERDEF: return "DT_VERDEF";
  case DT_INIT: return "DT_INIT";
  case DT_FINI: return "DT_FINI";
  case DT_INIT_ARRAY: return "DT_INIT_ARRAY";
  case DT_FINI_ARRAY: return "DT_FINI_ARRAY";
  case DT_PREINIT_ARRAY: return "DT_PREINIT_ARRAY";
  default: return nullptr;
  }
}

/// Whether the loader knows relocation `type` (x86-64's dynamic ones; any
/// elsewhere).
bool knownRelocation(uint32_t type) {
#if defined(__x86_64__)
  switch (type) {
  case R_X86_64_NONE: case R_X86_64_64: case R_X86_64_PC32: case R_X86_64_COPY:
  case R_X86_64_GLOB_DAT: case R_X86_64_JUMP_SLOT: case R_X86_64_RELATIVE:
  case R_X86_64_DTPMOD64: case R_X86_64_DTPOFF64: case R_X86_64_TPOFF64:
  case R_X86_64_IRELATIVE: case R_X86_64_32: case R_X86_64_32S:
    return true;
  default:
    return false;
  }
#else
  (void)type;
  return true;
#endif
}

/// The start addresses of the functions the file's symbol table (.symtab,
/// found through the section headers) names; nothing when it has none (a
/// stripped file) or it cannot be read.
std::optional<std::set<uint64_t>> functionStarts(int fd, const ElfHeaders &headers) {
  const ElfW(Ehdr) &header = headers.header;
  if (!header.e_shnum || header.e_shentsize != sizeof(ElfW(Shdr)) ||
      !inside(header.e_shoff, uint64_t(header.e_shnum) * sizeof(ElfW(Shdr)), headers.fileSize))
    return std::nullopt;
  std::vector<ElfW(Shdr)> sections(header.e_shnum);
  if (!readAt(fd, sections.data(), sections.size() * sizeof(ElfW(Shdr)), header.e_shoff))
    return std::nullopt;
  for (const ElfW(Shdr) &section : sections) {
    if (section.sh_type != SHT_SYMTAB || section.sh_entsize != sizeof(ElfW(Sym)) ||
        !inside(section.sh_offset, section.sh_size, headers.fileSize) ||
        section.sh_size > (uint64_t(64) << 20))
      continue;
    std::vector<ElfW(Sym)> symbols(section.sh_size / sizeof(ElfW(Sym)));
    if (!readAt(fd, symbols.data(), symbols.size() * sizeof(ElfW(Sym)), section.sh_offset))
      return std::nullopt;
    std::set<uint64_t> starts;
    for (const ElfW(Sym) &symbol : symbols)
      if (ELF64_ST_TYPE(symbol.st_info) == STT_FUNC && symbol.st_shndx != SHN_UNDEF)
        starts.insert(symbol.st_value);
    return starts;
  }
  return std::nullopt;
}

/// What the dynamic loader would trip over in the dynamic section and the
/// relocations it names ("" if nothing): every table it reads must lie in
/// the file's loadable segments, every string offset inside the string
/// table, every relocation write inside a loaded segment.
std::string dynamicProblem(int fd, const ElfHeaders &headers) {
  const ElfW(Phdr) *dynamic = nullptr;
  for (const ElfW(Phdr) &program : headers.programs)
    if (program.p_type == PT_DYNAMIC)
      dynamic = &program;
  if (!dynamic)
    return "it has no dynamic section";
  size_t count = dynamic->p_filesz / sizeof(ElfW(Dyn));
  std::vector<ElfW(Dyn)> entries(count);
  if (count && !readAt(fd, entries.data(), count * sizeof(ElfW(Dyn)), dynamic->p_offset))
    return "its dynamic section cannot be read";
  std::map<int64_t, uint64_t> value;
  std::vector<uint64_t> strings; // offsets into the string table
  bool terminated = false;
  for (const ElfW(Dyn) &entry : entries) {
    if (entry.d_tag == DT_NULL) {
      terminated = true;
      break;
    }
    if (entry.d_tag == DT_NEEDED || entry.d_tag == DT_SONAME || entry.d_tag == DT_RPATH ||
        entry.d_tag == DT_RUNPATH)
      strings.push_back(entry.d_un.d_val);
    else
      value[entry.d_tag] = entry.d_un.d_val;
  }
  if (!terminated)
    return "its dynamic section has no DT_NULL entry";
  auto has = [&](int64_t tag) { return value.count(tag) > 0; };
  auto bad = [](const std::string &what) { return "its dynamic section is damaged: " + what; };
  // Tables the loader reads: inside the file's part of a segment.
  auto table = [&](int64_t tag, uint64_t size) -> std::string {
    if (!has(tag))
      return "";
    if (!segmentHolding(headers, value[tag], size, /*inFile=*/true))
      return bad(std::string(dynamicTagName(tag)) + " (" + bytes(size) + " at address " +
                 std::to_string(value[tag]) + ") lies outside the file's loadable segments");
    return "";
  };
  if (!has(DT_STRTAB) || !has(DT_STRSZ))
    return bad("it has no string table (DT_STRTAB, DT_STRSZ)");
  if (has(DT_SYMENT) && value[DT_SYMENT] != sizeof(ElfW(Sym)))
    return bad("DT_SYMENT is " + std::to_string(value[DT_SYMENT]));
  if (has(DT_RELAENT) && value[DT_RELAENT] != sizeof(ElfW(Rela)))
    return bad("DT_RELAENT is " + std::to_string(value[DT_RELAENT]));
  if (has(DT_PLTREL) && value[DT_PLTREL] != DT_RELA && value[DT_PLTREL] != DT_REL)
    return bad("DT_PLTREL is " + std::to_string(value[DT_PLTREL]));
  uint64_t stringBytes = value[DT_STRSZ];
  std::string problem = table(DT_STRTAB, stringBytes);
  for (int64_t tag : {DT_SYMTAB, DT_HASH, DT_GNU_HASH, DT_VERSYM, DT_VERNEED, DT_VERDEF})
    if (problem.empty())
      problem = table(tag, 1);
  if (problem.empty())
    problem = table(DT_RELA, has(DT_RELASZ) ? value[DT_RELASZ] : 0);
  if (problem.empty())
    problem = table(DT_REL, has(DT_RELSZ) ? value[DT_RELSZ] : 0);
  if (problem.empty())
    problem = table(DT_JMPREL, has(DT_PLTRELSZ) ? value[DT_PLTRELSZ] : 0);
  if (!problem.empty())
    return problem;
  if ((has(DT_RELASZ) && !has(DT_RELA)) || (has(DT_PLTRELSZ) && !has(DT_JMPREL)))
    return bad("a relocation table's size is given without the table");
  // The loader reads a table's companions unchecked (a missing DT_RELAENT
  // or DT_FINI_ARRAYSZ is a null pointer it follows).
  for (auto [tag, companion] : {std::pair<int64_t, int64_t>{DT_RELA, DT_RELASZ},
                                {DT_RELA, DT_RELAENT},
                                {DT_REL, DT_RELSZ},
                                {DT_REL, DT_RELENT},
                                {DT_JMPREL, DT_PLTRELSZ},
                                {DT_JMPREL, DT_PLTREL},
                                {DT_INIT_ARRAY, DT_INIT_ARRAYSZ},
                                {DT_FINI_ARRAY, DT_FINI_ARRAYSZ},
                                {DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ}})
    if (has(tag) && !has(companion))
      return bad(std::string(dynamicTagName(tag)) + " is given without its size or entry size");
  // Code the loader calls (DT_INIT, DT_FINI): in an executable segment; the
  // arrays of such code: inside a loaded segment (their entries are checked
  // with the relocations that fill them).
  std::vector<std::pair<uint64_t, uint64_t>> arrays;
  for (auto [tag, sizeTag] : {std::pair<int64_t, int64_t>{DT_INIT_ARRAY, DT_INIT_ARRAYSZ},
                              {DT_FINI_ARRAY, DT_FINI_ARRAYSZ},
                              {DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ},
                              {DT_INIT, -1},
                              {DT_FINI, -1}}) {
    if (!has(tag))
      continue;
    uint64_t size = sizeTag < 0 ? 1 : has(sizeTag) ? value[sizeTag] : 0;
    if (!segmentHolding(headers, value[tag], size, /*inFile=*/false))
      return bad(std::string(dynamicTagName(tag)) + " (" + bytes(size) + " at address " +
                 std::to_string(value[tag]) + ") lies outside the loadable segments");
    if (sizeTag < 0 && !isCode(headers, value[tag]))
      return bad(std::string(dynamicTagName(tag)) + " (address " + std::to_string(value[tag]) +
                 ") is not in an executable segment");
    if (sizeTag >= 0)
      arrays.emplace_back(value[tag], size);
  }
  auto inArray = [&](uint64_t address) {
    for (auto [start, size] : arrays)
      if (address >= start && address - start < size)
        return true;
    return false;
  };
  // Names: inside the string table, and ended by its last byte at the latest.
  for (uint64_t offset : strings)
    if (offset >= stringBytes)
      return bad("a library name's offset " + std::to_string(offset) +
                 " is past the string table (" + bytes(stringBytes) + ")");
  std::vector<char> stringTable(stringBytes);
  const ElfW(Phdr) *holder = segmentHolding(headers, value[DT_STRTAB], stringBytes, true);
  if (stringBytes && (!readAt(fd, stringTable.data(), stringBytes,
                              fileOffsetOf(*holder, value[DT_STRTAB])) ||
                      stringTable.back() != '\0'))
    return bad("its string table does not end with a NUL byte");
  // How many symbols the dynamic symbol table holds, as the loader finds
  // them: DT_HASH's chain count, else the end of DT_GNU_HASH's last chain.
  std::optional<uint64_t> symbols;
  if (has(DT_HASH)) {
    uint32_t counts[2];
    const ElfW(Phdr) *at = segmentHolding(headers, value[DT_HASH], sizeof counts, true);
    if (!at || !readAt(fd, counts, sizeof counts, fileOffsetOf(*at, value[DT_HASH])))
      return bad("DT_HASH cannot be read");
    symbols = counts[1];
  } else if (has(DT_GNU_HASH)) {
    uint32_t head[4]; // buckets, first symbol, bloom words, bloom shift
    uint64_t address = value[DT_GNU_HASH];
    const ElfW(Phdr) *at = segmentHolding(headers, address, sizeof head, true);
    if (!at || !readAt(fd, head, sizeof head, fileOffsetOf(*at, address)))
      return bad("DT_GNU_HASH cannot be read");
    uint64_t bucketsAt = address + sizeof head + uint64_t(head[2]) * sizeof(ElfW(Addr));
    uint64_t bucketBytes = uint64_t(head[0]) * sizeof(uint32_t);
    at = segmentHolding(headers, bucketsAt, bucketBytes, true);
    if (!at || head[0] == 0 || (head[2] & (head[2] - 1)) != 0)
      return bad("DT_GNU_HASH's buckets lie outside the file or its bloom filter is not a "
                 "power of two words");
    std::vector<uint32_t> buckets(head[0]);
    if (!readAt(fd, buckets.data(), bucketBytes, fileOffsetOf(*at, bucketsAt)))
      return bad("DT_GNU_HASH cannot be read");
    uint32_t last = 0;
    for (uint32_t bucket : buckets)
      last = std::max(last, bucket);
    symbols = head[1];
    if (last != 0) {
      if (last < head[1])
        return bad("a DT_GNU_HASH bucket names a symbol before its first hashed one");
      // Walk the last chain to its end (bit 0 set), inside the file.
      uint64_t chainAt = bucketsAt + bucketBytes + uint64_t(last - head[1]) * sizeof(uint32_t);
      for (uint64_t index = last;; ++index, chainAt += sizeof(uint32_t)) {
        uint32_t hash;
        at = segmentHolding(headers, chainAt, sizeof hash, true);
        if (!at || !readAt(fd, &hash, sizeof hash, fileOffsetOf(*at, chainAt)))
          return bad("a DT_GNU_HASH chain runs past the file");
        if (hash & 1) {
          symbols = index + 1;
          break;
        }
      }
    }
  }
  if (symbols && has(DT_SYMTAB) &&
      !segmentHolding(headers, value[DT_SYMTAB], *symbols * sizeof(ElfW(Sym)), true))
    return bad("its " + std::to_string(*symbols) +
               " dynamic symbols run past the file's loadable segments");
  // Every relocation writes inside a writable segment (a read-only one only
  // with DT_TEXTREL), with a known type and a symbol the table holds.
  bool textRelocations = has(DT_TEXTREL) || (has(DT_FLAGS) && (value[DT_FLAGS] & DF_TEXTREL));
  std::set<uint64_t> filledSlots; // the array slots relocations fill
  std::optional<std::set<uint64_t>> functions = functionStarts(fd, headers);
  for (auto [tag, sizeTag] : {std::pair<int64_t, int64_t>{DT_RELA, DT_RELASZ},
                              {DT_JMPREL, DT_PLTRELSZ}}) {
    if (!has(tag) || (tag == DT_JMPREL && has(DT_PLTREL) && value[DT_PLTREL] != DT_RELA))
      continue;
    uint64_t size = has(sizeTag) ? value[sizeTag] : 0;
    if (size % sizeof(ElfW(Rela)) != 0)
      return bad(std::string(dynamicTagName(tag)) + "'s size " + std::to_string(size) +
                 " is not a whole number of entries");
    std::vector<ElfW(Rela)> relocations(size / sizeof(ElfW(Rela)));
    const ElfW(Phdr) *segment = segmentHolding(headers, value[tag], size, true);
    if (size && !readAt(fd, relocations.data(), size, fileOffsetOf(*segment, value[tag])))
      return bad("its relocations cannot be read");
    for (size_t i = 0; i < relocations.size(); ++i) {
      const ElfW(Rela) &relocation = relocations[i];
      uint32_t type = static_cast<uint32_t>(ELF64_R_TYPE(relocation.r_info));
      if (!knownRelocation(type))
        return bad("relocation " + std::to_string(i) + " of " + dynamicTagName(tag) +
                   " has the unknown type " + std::to_string(type));
      if (type != 0 && !segmentHolding(headers, relocation.r_offset, sizeof(uint64_t), false))
        return bad("relocation " + std::to_string(i) + " of " + dynamicTagName(tag) +
                   " writes at address " + std::to_string(relocation.r_offset) +
                   ", outside the loadable segments");
      if (type != 0 && !textRelocations && !isWritable(headers, relocation.r_offset))
        return bad("relocation " + std::to_string(i) + " of " + dynamicTagName(tag) +
                   " writes at address " + std::to_string(relocation.r_offset) +
                   ", in a read-only segment");
      uint64_t symbol = ELF64_R_SYM(relocation.r_info);
      if (symbol != 0 && symbols && symbol >= *symbols)
        return bad("relocation " + std::to_string(i) + " of " + dynamicTagName(tag) +
                   " names symbol " + std::to_string(symbol) + " of " +
                   std::to_string(*symbols));
      if (type != 0 && inArray(relocation.r_offset))
        filledSlots.insert(relocation.r_offset);
#if defined(__x86_64__)
      // GOT and PLT slots are whole, aligned words.
      if ((type == R_X86_64_GLOB_DAT || type == R_X86_64_JUMP_SLOT) &&
          relocation.r_offset % sizeof(uint64_t) != 0)
        return bad("relocation " + std::to_string(i) + " of " + dynamicTagName(tag) +
                   " fills a GOT slot at the unaligned address " +
                   std::to_string(relocation.r_offset));
      // An initializer or finalizer the loader will call: code of the file,
      // and where the file names its functions, the start of one.
      if (type == R_X86_64_RELATIVE && inArray(relocation.r_offset)) {
        auto target = static_cast<uint64_t>(relocation.r_addend);
        if (!isCode(headers, target))
          return bad("relocation " + std::to_string(i) + " of " + dynamicTagName(tag) +
                     " makes an initializer or finalizer point to address " +
                     std::to_string(target) + ", outside the executable segments");
        if (functions && !functions->count(target))
          return bad("relocation " + std::to_string(i) + " of " + dynamicTagName(tag) +
                     " makes an initializer or finalizer point to address " +
                     std::to_string(target) + ", which starts none of its functions");
      }
#endif
    }
  }
  // A slot no relocation fills keeps the file's unrelocated value: the
  // loader would call an address of the file as one of the process.
  for (auto [start, size] : arrays)
    for (uint64_t slot = start; slot + sizeof(uint64_t) <= start + size; slot += sizeof(uint64_t))
      if (!filledSlots.count(slot))
        return bad("no relocation fills the initializer or finalizer at address " +
                   std::to_string(slot));
  return "";
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
  // Non-blocking: opening a FIFO for reading waits for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return path + ": " + std::strerror(errno);
  ElfHeaders headers;
  std::string problem = readElfHeaders(fd, headers);
  auto fail = [&](const std::string &why) { return path + " is not a shared library: " + why; };
  if (!problem.empty()) {
    ::close(fd);
    return fail(problem);
  }
  // (The descriptor stays open for the dynamic section, read last.)
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
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
  if (std::string dynamic = dynamicProblem(fd, headers); !dynamic.empty())
    return fail(dynamic);
  return "";
}
