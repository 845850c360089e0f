//===- ObjectLoader.cpp - Linking kernel objects without LLVM -------------===//

#include "opal/JIT/ObjectLoader.h"

#include "opal/JIT/KernelRuntime.h"
#include "opal/Support/Environment.h"

#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

using namespace opal;
using namespace opal::jit;

// GDB's JIT interface (GDB manual, "JIT Compilation Interface"): a debugger
// sets a breakpoint in __jit_debug_register_code and reads the descriptor's
// list of in-memory object files when it is hit.
extern "C" {
// The unwinder's registry of unwind tables (libgcc): an .eh_frame run of
// records ending in a zero-length one.
void __register_frame(void *begin);
void __deregister_frame(void *begin);

struct jit_code_entry {
  jit_code_entry *next_entry;
  jit_code_entry *prev_entry;
  const char *symfile_addr;
  uint64_t symfile_size;
};
struct jit_descriptor {
  uint32_t version;
  uint32_t action_flag; // 0 none, 1 register, 2 unregister
  jit_code_entry *relevant_entry;
  jit_code_entry *first_entry;
};
__attribute__((noinline, used, visibility("default"))) void __jit_debug_register_code() {
  __asm__ volatile("" ::: "memory");
}
__attribute__((used, visibility("default"))) jit_descriptor __jit_debug_descriptor = {1, 0, nullptr,
                                                                                      nullptr};
}

namespace {

std::mutex &toolsMutex() {
  static std::mutex mutex;
  return mutex;
}

/// Adds an object image (new[]'d; the entry owns it) to GDB's list; both
/// stay until unregisterWithGdb.
jit_code_entry *registerWithGdb(const char *image, size_t size) {
  auto *entry = new jit_code_entry{nullptr, nullptr, image, size};
  std::lock_guard<std::mutex> lock(toolsMutex());
  entry->next_entry = __jit_debug_descriptor.first_entry;
  if (entry->next_entry)
    entry->next_entry->prev_entry = entry;
  __jit_debug_descriptor.first_entry = entry;
  __jit_debug_descriptor.relevant_entry = entry;
  __jit_debug_descriptor.action_flag = 1;
  __jit_debug_register_code();
  return entry;
}

void unregisterWithGdb(jit_code_entry *entry) {
  if (!entry)
    return;
  {
    std::lock_guard<std::mutex> lock(toolsMutex());
    if (entry->prev_entry)
      entry->prev_entry->next_entry = entry->next_entry;
    else
      __jit_debug_descriptor.first_entry = entry->next_entry;
    if (entry->next_entry)
      entry->next_entry->prev_entry = entry->prev_entry;
    __jit_debug_descriptor.relevant_entry = entry;
    __jit_debug_descriptor.action_flag = 2;
    __jit_debug_register_code();
  }
  delete[] entry->symfile_addr;
  delete entry;
}

bool perfMapWanted() {
  static const bool wanted = [] {
    std::optional<std::string> value = readKnob("OPAL_PERF_MAP");
    return value && *value == "1";
  }();
  return wanted;
}

/// What a group of objects (packObjectGroup) starts with, and the most
/// objects it may hold.
constexpr char kGroupMagic[] = "\x7fOPALGRP";
constexpr uint32_t kMaxGroupObjects = 64;

/// The largest object, section and alignment the loader accepts.
constexpr uint64_t kMaxLoadedBytes = 1ull << 30;
constexpr uint64_t kMaxAlignment = 4096;

/// The three kinds of pages a loaded object needs.
enum class Group { Code, ReadOnly, Writable };
constexpr int kGroups = 3;

/// A jump stub (jmp *0(%rip); .quad target): a PC32 call that cannot reach
/// its target goes through one placed after the code.
constexpr size_t kStubBytes = 16;

Group groupOf(const Elf64_Shdr &section) {
  if (section.sh_flags & SHF_EXECINSTR)
    return Group::Code;
  return (section.sh_flags & SHF_WRITE) ? Group::Writable : Group::ReadOnly;
}

/// `value` rounded up to `alignment` (a power of two of at most a page;
/// values stay below kMaxLoadedBytes, so nothing overflows).
size_t alignUp(size_t value, size_t alignment) {
  return alignment > 1 ? (value + alignment - 1) & ~(alignment - 1) : value;
}

class Loader {
public:
  Loader(const std::string &object, const SymbolAddresses &extra)
      : bytes_(object), extra_(extra) {}

  /// The pages it mapped, for an owner that unmaps them.
  void *base() const { return base_; }
  /// The unwind tables registered with the unwinder (null: none).
  void *unwindTables() const { return unwindTables_; }
  size_t mappedBytes() const { return mappedBytes_; }

  /// Makes the loaded code visible to gdb (always) and perf
  /// (OPAL_PERF_MAP=1); the GDB entry, for unregistering.
  jit_code_entry *registerWithTools(const std::string &label) {
    // A copy of the object whose section addresses say where each section
    // is: what gdb reads symbols and line tables from.
    auto *image = new char[bytes_.size()];
    std::memcpy(image, bytes_.data(), bytes_.size());
    for (size_t i = 0; i < sections_.size(); ++i) {
      if (!placement_[i])
        continue;
      uint64_t address = reinterpret_cast<uint64_t>(sectionAddress(i));
      std::memcpy(image + header_.e_shoff + i * sizeof(Elf64_Shdr) +
                      offsetof(Elf64_Shdr, sh_addr),
                  &address, sizeof address);
    }
    jit_code_entry *entry = registerWithGdb(image, bytes_.size());
    if (perfMapWanted()) {
      std::lock_guard<std::mutex> lock(toolsMutex());
      std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
      if (FILE *map = std::fopen(path.c_str(), "a")) {
        for (size_t i = 0; i < symbols_.size(); ++i) {
          const Elf64_Sym &symbol = symbols_[i];
          if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || !addresses_[i] || !symbol.st_size)
            continue;
          std::fprintf(map, "%lx %lx opal %s %s\n",
                       static_cast<unsigned long>(reinterpret_cast<uintptr_t>(addresses_[i])),
                       static_cast<unsigned long>(symbol.st_size),
                       label.empty() ? "kernel" : label.c_str(), nameOf(symbol).c_str());
        }
        std::fclose(map);
      }
    }
    return entry;
  }

  /// The first half of loading: the object read, its sections mapped and
  /// its own symbols given addresses (what another object of a group may
  /// bind to).
  Expected<bool> place() {
    Problem failed = readHeaders();
    if (!failed)
      failed = layOut();
    if (!failed)
      failed = bindDefined();
    if (failed)
      return makeUnexpected(Error(*failed));
    return true;
  }

  /// The second half: undefined symbols bound (to `extraSymbols`, then
  /// the runtime's, then the process's), relocations applied, pages
  /// protected and unwind tables registered.
  Expected<bool> link() {
    Problem failed = bindUndefined();
    if (!failed)
      failed = relocate();
    if (!failed)
      failed = checkUnwindTables();
    if (!failed)
      failed = protect();
    if (failed)
      return makeUnexpected(Error(*failed));
    if (ehFrame_) {
      unwindTables_ = sectionAddress(ehFrame_);
      __register_frame(unwindTables_);
    }
    return true;
  }

  /// Undoes place() and link(): the unwind tables and the pages go.
  void discard() {
    if (unwindTables_)
      __deregister_frame(unwindTables_);
    unwindTables_ = nullptr;
    if (base_)
      ::munmap(base_, mappedBytes_);
    base_ = nullptr;
  }

  /// The global symbols the object defines, by name.
  SymbolAddresses defined() const {
    SymbolAddresses found;
    for (size_t i = 0; i < symbols_.size() && i < addresses_.size(); ++i)
      if (ELF64_ST_BIND(symbols_[i].st_info) != STB_LOCAL &&
          symbols_[i].st_shndx != SHN_UNDEF && addresses_[i])
        if (std::string name = nameOf(symbols_[i]); !name.empty())
          found[name] = addresses_[i];
    return found;
  }

private:
  using Problem = std::optional<std::string>;

  /// Whether `count` T's at `offset` lie inside the object.
  template <typename T> bool inside(uint64_t offset, uint64_t count = 1) const {
    return offset <= bytes_.size() && count <= (bytes_.size() - offset) / sizeof(T);
  }

  /// Copies `count` T's at `offset` out of the object (which aligns nothing);
  /// false if they do not lie inside it.
  template <typename T> bool copyOut(uint64_t offset, uint64_t count, std::vector<T> &out) const {
    if (!inside<T>(offset, count))
      return false;
    out.resize(count);
    if (count)
      std::memcpy(out.data(), bytes_.data() + offset, count * sizeof(T));
    return true;
  }

  std::string nameOf(const Elf64_Sym &symbol) const {
    if (symbol.st_name >= strings_.size())
      return "";
    return std::string(strings_.c_str() + symbol.st_name);
  }

  Problem readHeaders() {
    std::vector<Elf64_Ehdr> header;
    if (!copyOut(0, 1, header))
      return "not a 64-bit little-endian ELF object";
    header_ = header[0];
    if (std::memcmp(header_.e_ident, ELFMAG, SELFMAG) != 0 ||
        header_.e_ident[EI_CLASS] != ELFCLASS64 || header_.e_ident[EI_DATA] != ELFDATA2LSB)
      return "not a 64-bit little-endian ELF object";
    if (header_.e_type != ET_REL || header_.e_machine != EM_X86_64)
      return "not an x86-64 relocatable object";
    if (header_.e_shentsize != sizeof(Elf64_Shdr))
      return "unexpected section header size";
    if (!copyOut(header_.e_shoff, header_.e_shnum, sections_))
      return "section headers past the end of the object";
    for (const Elf64_Shdr &section : sections_) {
      if (section.sh_size > kMaxLoadedBytes)
        return "a section is larger than " + std::to_string(kMaxLoadedBytes) + " bytes";
      uint64_t alignment = section.sh_addralign;
      if (alignment > kMaxAlignment || (alignment & (alignment - 1)) != 0)
        return "a section's alignment (" + std::to_string(alignment) +
               ") is not a power of two of at most " + std::to_string(kMaxAlignment);
      if (section.sh_type == SHT_NOBITS)
        continue;
      if (!inside<char>(section.sh_offset, section.sh_size))
        return "a section runs past the end of the object";
    }
    if (header_.e_shstrndx < sections_.size() &&
        sections_[header_.e_shstrndx].sh_type != SHT_STRTAB)
      return "the section names are not a string table";
    for (const Elf64_Shdr &section : sections_) {
      if (section.sh_type != SHT_SYMTAB)
        continue;
      if (section.sh_entsize != sizeof(Elf64_Sym) || section.sh_link >= sections_.size() ||
          sections_[section.sh_link].sh_type != SHT_STRTAB)
        return "malformed symbol table";
      const Elf64_Shdr &names = sections_[section.sh_link];
      copyOut(section.sh_offset, section.sh_size / sizeof(Elf64_Sym), symbols_);
      strings_.assign(bytes_.data() + names.sh_offset, names.sh_size);
      strings_.push_back('\0');
    }
    return std::nullopt;
  }

  /// Places every allocated section in one of three page groups and maps
  /// them; counts the jump stubs the code may need.
  Problem layOut() {
    size_t stubs = 0;
    for (const Elf64_Shdr &section : sections_)
      if (section.sh_type == SHT_RELA)
        stubs += section.sh_size / sizeof(Elf64_Rela);
    size_t sizes[kGroups] = {0, 0, 0};
    placement_.assign(sections_.size(), 0);
    for (size_t i = 0; i < sections_.size(); ++i) {
      const Elf64_Shdr &section = sections_[i];
      if (!(section.sh_flags & SHF_ALLOC) || section.sh_size == 0)
        continue;
      std::string name = sectionName(section);
      if (name.rfind(".init_array", 0) == 0 || name.rfind(".ctors", 0) == 0 ||
          name.rfind(".fini_array", 0) == 0 || name.rfind(".dtors", 0) == 0)
        return "the object has initializers (" + name + ")";
      if (section.sh_flags & SHF_TLS)
        return "the object has thread-local data (" + name + ")";
      int group = static_cast<int>(groupOf(section));
      sizes[group] = alignUp(sizes[group], std::max<uint64_t>(section.sh_addralign, 1));
      placement_[i] = sizes[group] + 1; // 0: not loaded
      sizes[group] += section.sh_size;
      if (name == ".eh_frame" && group == static_cast<int>(Group::ReadOnly)) {
        // The unwind tables, followed by the zero-length record that ends
        // them (the linker adds it in a linked binary): registered with
        // the unwinder once relocated.
        if (ehFrame_)
          return "the object has two .eh_frame sections";
        ehFrame_ = i;
        sizes[group] += 4;
      }
      if (sizes[group] > kMaxLoadedBytes)
        return "the object's sections add up to more than " + std::to_string(kMaxLoadedBytes) +
               " bytes";
    }
    stubOffset_ = alignUp(sizes[0], kStubBytes);
    sizes[0] = stubOffset_ + stubs * kStubBytes;
    size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    size_t total = 0;
    for (int group = 0; group < kGroups; ++group) {
      groupStart_[group] = total;
      groupSize_[group] = alignUp(sizes[group], page);
      total += groupSize_[group];
    }
    if (total == 0)
      return "the object has no code";
    void *memory = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
    if (memory == MAP_FAILED)
      return std::string("cannot map memory for the code: ") + std::strerror(errno);
    base_ = static_cast<char *>(memory);
    mappedBytes_ = total;
    for (size_t i = 0; i < sections_.size(); ++i) {
      if (!placement_[i])
        continue;
      const Elf64_Shdr &section = sections_[i];
      char *address = sectionAddress(i);
      if (section.sh_type == SHT_NOBITS)
        std::memset(address, 0, section.sh_size);
      else
        std::memcpy(address, bytes_.data() + section.sh_offset, section.sh_size);
    }
    return std::nullopt;
  }

  std::string sectionName(const Elf64_Shdr &section) const {
    if (header_.e_shstrndx >= sections_.size())
      return "";
    const Elf64_Shdr &names = sections_[header_.e_shstrndx];
    if (section.sh_name >= names.sh_size)
      return "";
    const char *start = bytes_.data() + names.sh_offset + section.sh_name;
    return std::string(start, strnlen(start, names.sh_size - section.sh_name));
  }

  char *sectionAddress(size_t index) const {
    int group = static_cast<int>(groupOf(sections_[index]));
    return base_ + groupStart_[group] + placement_[index] - 1;
  }

  /// Addresses for the symbols the object defines.
  Problem bindDefined() {
    addresses_.assign(symbols_.size(), nullptr);
    for (size_t i = 1; i < symbols_.size(); ++i) {
      const Elf64_Sym &symbol = symbols_[i];
      int type = ELF64_ST_TYPE(symbol.st_info);
      if (type == STT_FILE)
        continue;
      if (type == STT_TLS)
        return "the object uses thread-local symbol " + nameOf(symbol);
      switch (symbol.st_shndx) {
      case SHN_UNDEF:
        break; // (bindUndefined)
      case SHN_ABS:
        addresses_[i] = reinterpret_cast<void *>(symbol.st_value);
        break;
      case SHN_COMMON:
        return "the object has common symbol " + nameOf(symbol);
      default:
        if (symbol.st_shndx >= sections_.size())
          return "symbol " + nameOf(symbol) + " is in an unknown section";
        if (!placement_[symbol.st_shndx])
          continue; // a section not loaded (debug info, unwind tables)
        if (symbol.st_value > sections_[symbol.st_shndx].sh_size)
          return "symbol " + nameOf(symbol) + " lies past the end of its section";
        addresses_[i] = sectionAddress(symbol.st_shndx) + symbol.st_value;
      }
    }
    return std::nullopt;
  }

  /// Addresses for the symbols the object uses and does not define.
  Problem bindUndefined() {
    for (size_t i = 1; i < symbols_.size(); ++i) {
      const Elf64_Sym &symbol = symbols_[i];
      if (symbol.st_shndx != SHN_UNDEF || ELF64_ST_TYPE(symbol.st_info) == STT_FILE)
        continue;
      std::string name = nameOf(symbol);
      if (name.empty())
        continue;
      auto extra = extra_.find(name);
      void *address = extra != extra_.end() ? extra->second : kernelRuntimeSymbol(name);
      if (!address)
        address = ::dlsym(RTLD_DEFAULT, name.c_str());
      if (!address) {
        if (ELF64_ST_BIND(symbol.st_info) == STB_WEAK)
          continue;
        return "undefined symbol " + name;
      }
      addresses_[i] = address;
    }
    return std::nullopt;
  }

  /// A stub that jumps to `target`; its address.
  char *stubFor(void *target) {
    char *stub = base_ + groupStart_[0] + stubOffset_ + stubCount_++ * kStubBytes;
    static const unsigned char jump[6] = {0xff, 0x25, 0, 0, 0, 0}; // jmp *0(%rip)
    std::memcpy(stub, jump, sizeof jump);
    std::memcpy(stub + sizeof jump, &target, sizeof target);
    return stub;
  }

  Problem relocate() {
    for (const Elf64_Shdr &section : sections_) {
      if (section.sh_type == SHT_REL)
        return "the object has REL relocations";
      if (section.sh_type != SHT_RELA)
        continue;
      if (section.sh_info >= sections_.size() || !placement_[section.sh_info])
        continue; // relocations of a section not loaded
      if (section.sh_entsize != sizeof(Elf64_Rela))
        return "malformed relocation section";
      const Elf64_Shdr &target = sections_[section.sh_info];
      char *targetStart = sectionAddress(section.sh_info);
      std::vector<Elf64_Rela> entries;
      copyOut(section.sh_offset, section.sh_size / sizeof(Elf64_Rela), entries);
      for (size_t i = 0; i < section.sh_size / sizeof(Elf64_Rela); ++i) {
        const Elf64_Rela &entry = entries[i];
        uint32_t type = ELF64_R_TYPE(entry.r_info);
        uint32_t index = ELF64_R_SYM(entry.r_info);
        if (index >= symbols_.size())
          return "a relocation names an unknown symbol";
        uint64_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
        if (entry.r_offset > target.sh_size || width > target.sh_size - entry.r_offset)
          return "a relocation past the end of its section";
        char *place = targetStart + entry.r_offset;
        char *symbol = static_cast<char *>(addresses_[index]);
        if (!symbol && index != 0 && ELF64_ST_BIND(symbols_[index].st_info) != STB_WEAK)
          return "a relocation against " + nameOf(symbols_[index]) + ", which is not loaded";
        auto value = reinterpret_cast<uint64_t>(symbol) + static_cast<uint64_t>(entry.r_addend);
        auto relative = static_cast<int64_t>(value - reinterpret_cast<uint64_t>(place));
        switch (type) {
        case R_X86_64_NONE:
          break;
        case R_X86_64_64:
          std::memcpy(place, &value, 8);
          break;
        case R_X86_64_PC64:
          std::memcpy(place, &relative, 8);
          break;
        case R_X86_64_PC32:
        case R_X86_64_PLT32: {
          if (relative != static_cast<int32_t>(relative)) {
            if (type != R_X86_64_PLT32 || !symbol)
              return "a 32-bit PC-relative relocation against " + nameOf(symbols_[index]) +
                     " is out of range";
            // A call beyond 2 GiB: through a stub next to the code.
            char *stub = stubFor(symbol);
            relative = static_cast<int64_t>(reinterpret_cast<uint64_t>(stub) +
                                            static_cast<uint64_t>(entry.r_addend) -
                                            reinterpret_cast<uint64_t>(place));
          }
          auto narrow = static_cast<int32_t>(relative);
          std::memcpy(place, &narrow, 4);
          break;
        }
        case R_X86_64_32:
        case R_X86_64_32S: {
          bool fits = type == R_X86_64_32 ? value == static_cast<uint32_t>(value)
                                          : static_cast<int64_t>(value) ==
                                                static_cast<int32_t>(value);
          if (!fits)
            return "a 32-bit absolute relocation against " + nameOf(symbols_[index]) +
                   " is out of range";
          auto narrow = static_cast<uint32_t>(value);
          std::memcpy(place, &narrow, 4);
          break;
        }
        default:
          return "unsupported relocation type " + std::to_string(type);
        }
      }
    }
    return std::nullopt;
  }

  /// Checks that the unwind tables are a well-formed run of records (each
  /// length inside the section, each FDE's CIE pointer at a CIE record
  /// start) before the unwinder may read them.
  Problem checkUnwindTables() const {
    if (!ehFrame_)
      return std::nullopt;
    const Elf64_Shdr &section = sections_[ehFrame_];
    if (section.sh_type == SHT_NOBITS)
      return "malformed unwind tables (.eh_frame has no bytes)";
    const char *start = bytes_.data() + section.sh_offset;
    std::vector<uint64_t> cies;
    uint64_t at = 0;
    while (at < section.sh_size) {
      if (section.sh_size - at < 4)
        return "malformed unwind tables (a record runs past .eh_frame)";
      uint32_t length;
      std::memcpy(&length, start + at, 4);
      if (length == 0)
        break;
      if (length == 0xffffffffu || length < 4 || length > section.sh_size - at - 4)
        return "malformed unwind tables (a record's length)";
      uint32_t id;
      std::memcpy(&id, start + at + 4, 4);
      if (id == 0) {
        cies.push_back(at);
      } else {
        uint64_t cie = at + 4 >= id ? at + 4 - id : ~0ull;
        if (std::find(cies.begin(), cies.end(), cie) == cies.end())
          return "malformed unwind tables (an FDE without its CIE)";
      }
      at += 4 + uint64_t(length);
    }
    return std::nullopt;
  }

  Problem protect() {
    const int protection[kGroups] = {PROT_READ | PROT_EXEC, PROT_READ, PROT_READ | PROT_WRITE};
    for (int group = 0; group < kGroups; ++group)
      if (groupSize_[group] &&
          ::mprotect(base_ + groupStart_[group], groupSize_[group], protection[group]) != 0)
        return std::string("cannot protect the code's pages: ") + std::strerror(errno);
    __builtin___clear_cache(base_ + groupStart_[0], base_ + groupStart_[0] + groupSize_[0]);
    return std::nullopt;
  }

  const std::string &bytes_;
  const SymbolAddresses &extra_;
  Elf64_Ehdr header_{};
  std::vector<Elf64_Shdr> sections_;
  std::vector<Elf64_Sym> symbols_;
  std::string strings_;
  std::vector<size_t> placement_; ///< offset in its group + 1; 0: not loaded
  std::vector<void *> addresses_;
  char *base_ = nullptr;
  size_t mappedBytes_ = 0;
  size_t groupStart_[kGroups] = {0, 0, 0}, groupSize_[kGroups] = {0, 0, 0};
  size_t stubOffset_ = 0, stubCount_ = 0;
  size_t ehFrame_ = 0;            ///< the .eh_frame section's index; 0: none
  void *unwindTables_ = nullptr;  ///< where it was registered
};

} // namespace

Expected<std::vector<std::string>> jit::unpackObjectGroup(const std::string &blob) {
  if (blob.compare(0, sizeof kGroupMagic - 1, kGroupMagic) != 0)
    return std::vector<std::string>{blob};
  auto damaged = [](const std::string &why) {
    return makeUnexpected(Error("a damaged group of objects (" + why + ")"));
  };
  size_t at = sizeof kGroupMagic - 1;
  uint32_t count = 0;
  if (blob.size() - at < sizeof count)
    return damaged("no count");
  std::memcpy(&count, blob.data() + at, sizeof count);
  at += sizeof count;
  if (count == 0 || count > kMaxGroupObjects)
    return damaged(std::to_string(count) + " objects");
  if ((blob.size() - at) / sizeof(uint64_t) < count)
    return damaged("sizes past its end");
  std::vector<uint64_t> sizes(count);
  std::memcpy(sizes.data(), blob.data() + at, count * sizeof(uint64_t));
  at += count * sizeof(uint64_t);
  std::vector<std::string> objects;
  for (uint64_t size : sizes) {
    if (size > blob.size() - at)
      return damaged("an object past its end");
    objects.push_back(blob.substr(at, size));
    at += size;
  }
  if (at != blob.size())
    return damaged("bytes after its last object");
  return objects;
}

namespace {

/// Objects loaded as one: each placed, then each linked with the others'
/// global symbols (and `extra`) bound. The loaders stay for their owner
/// (tools registration, unloading).
struct LoadedGroup {
  std::vector<std::string> objects;
  std::vector<std::unique_ptr<Loader>> loaders;
  SymbolAddresses symbols;
  SymbolAddresses bound; ///< extra, then every object's globals
};

Expected<std::unique_ptr<LoadedGroup>> loadGroup(const std::string &blob,
                                                 const SymbolAddresses &extra) {
  auto objects = unpackObjectGroup(blob);
  if (!objects)
    return makeUnexpected(objects.error());
  auto group = std::make_unique<LoadedGroup>();
  group->objects = std::move(*objects);
  group->bound = extra;
  auto fail = [&](const Error &error) {
    for (auto &loader : group->loaders)
      loader->discard();
    return makeUnexpected(error);
  };
  for (const std::string &object : group->objects) {
    group->loaders.push_back(std::make_unique<Loader>(object, group->bound));
    auto placed = group->loaders.back()->place();
    if (!placed)
      return fail(placed.error());
  }
  for (auto &loader : group->loaders)
    for (auto &[name, address] : loader->defined()) {
      if (group->symbols.count(name))
        return fail(Error("symbol " + name + " is defined by two objects of the group"));
      group->symbols[name] = address;
      group->bound[name] = address;
    }
  for (auto &loader : group->loaders)
    if (auto linked = loader->link(); !linked)
      return fail(linked.error());
  return group;
}

} // namespace

std::string jit::packObjectGroup(const std::vector<std::string> &objects) {
  if (objects.size() == 1)
    return objects.front();
  std::string blob(kGroupMagic, sizeof kGroupMagic - 1);
  auto count = static_cast<uint32_t>(objects.size());
  blob.append(reinterpret_cast<const char *>(&count), sizeof count);
  for (const std::string &object : objects) {
    uint64_t size = object.size();
    blob.append(reinterpret_cast<const char *>(&size), sizeof size);
  }
  for (const std::string &object : objects)
    blob += object;
  return blob;
}

Expected<SymbolAddresses> jit::loadNativeObject(const std::string &object,
                                                const SymbolAddresses &extraSymbols,
                                                const std::string &label) {
  auto group = loadGroup(object, extraSymbols);
  if (!group)
    return makeUnexpected(Error("cannot load the kernel's object code: " +
                                group.error().message()));
  for (auto &loader : (*group)->loaders)
    loader->registerWithTools(label); // for the life of the process, as the code
  return std::move((*group)->symbols);
}

Expected<std::unique_ptr<ScopedNativeObject>>
ScopedNativeObject::load(const std::string &object, const SymbolAddresses &extraSymbols) {
  auto group = loadGroup(object, extraSymbols);
  if (!group)
    return makeUnexpected(Error("cannot load the kernel's object code: " +
                                group.error().message()));
  std::unique_ptr<ScopedNativeObject> scoped(new ScopedNativeObject());
  scoped->symbols_ = std::move((*group)->symbols);
  for (auto &loader : (*group)->loaders)
    scoped->parts_.push_back({loader->base(), loader->mappedBytes(),
                              loader->registerWithTools(""), loader->unwindTables()});
  return scoped;
}

ScopedNativeObject::~ScopedNativeObject() {
  for (const Part &part : parts_) {
    if (part.unwindTables)
      __deregister_frame(part.unwindTables);
    unregisterWithGdb(static_cast<jit_code_entry *>(part.debugEntry));
    if (part.base)
      ::munmap(part.base, part.bytes);
  }
}
