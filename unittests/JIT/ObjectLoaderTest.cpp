//===- ObjectLoaderTest.cpp - Linking objects without LLVM ----------------===//
//
// The JIT's own objects (large code model: absolute 64-bit relocations) are
// covered end to end by python/test/test_jit_cache.py's warm starts. Here:
// an object from the system C compiler, with the small code model's
// PC-relative data and call relocations (a call that cannot reach libc
// goes through a jump stub), writable data, and the loader's refusals.
//
//===----------------------------------------------------------------------===//

#include "opal/JIT/ObjectLoader.h"

#include <gtest/gtest.h>
#include <unwind.h>

#include <elf.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <cstring>
#include <dlfcn.h>
#include <vector>

using namespace opal::jit;

namespace {

const char *kSource = R"(
#include <string.h>
static const long table[4] = {10, 20, 30, 40};
static long counter;
long extra_value(void);
long lookup(long i, const char *s) { return table[i & 3] + (long)strlen(s); }
long count(void) { return ++counter; }
double twice_extra(void) { return 2.0 * (double)extra_value(); }
)";

/// The object the system C compiler makes of kSource; "" without one.
std::string compileWithCc(const char *flags = "-fno-asynchronous-unwind-tables",
                          const char *text = kSource) {
  char dir[] = "/tmp/opal-object-loader-XXXXXX";
  if (!mkdtemp(dir))
    return "";
  std::string source = std::string(dir) + "/k.c", object = std::string(dir) + "/k.o";
  std::ofstream(source) << text;
  std::string command = std::string("cc -O2 ") + flags + " -c " + source + " -o " + object +
                        " 2>/dev/null";
  if (std::system(command.c_str()) != 0)
    return "";
  std::ifstream file(object, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

long extraValue() { return 21; }

/// The return addresses of the stack, as the unwinder (libgcc) walks it.
std::vector<uintptr_t> *walked = nullptr;
long extraValueThatWalksTheStack() {
  _Unwind_Backtrace(
      [](_Unwind_Context *context, void *) {
        walked->push_back(_Unwind_GetIP(context));
        return _URC_NO_REASON;
      },
      nullptr);
  return 21;
}

__attribute__((noinline)) double callTwice(double (*twice)()) { return twice() + 0.0; }

// A kernel split across threads (Compiler/ModuleSplit.h): objects that call
// each other's functions, loaded as one group.
const char *kFirstOfGroup = R"(
long helper(long);
long back(long x) { return -x; }
long entry(long x) { return helper(x) + 1; }
)";
const char *kSecondOfGroup = R"(
static const long factors[2] = {5, 7};
long back(long);
long helper(long x) { return factors[x & 1] * x; }
long uses_back(long x) { return back(x) * 2; }
)";

TEST(ObjectLoader, LinksAGroupOfObjectsThatCallEachOther) {
  std::string first = compileWithCc("-fno-asynchronous-unwind-tables", kFirstOfGroup);
  std::string second = compileWithCc("-fno-asynchronous-unwind-tables", kSecondOfGroup);
  if (first.empty() || second.empty())
    GTEST_SKIP() << "no C compiler (cc) to make a test object";
  EXPECT_EQ(packObjectGroup({first}), first); // one object is its own blob
  std::string group = packObjectGroup({first, second});
  auto loaded = loadNativeObject(group);
  ASSERT_TRUE(loaded) << loaded.error().message();
  for (const char *name : {"entry", "back", "helper", "uses_back"})
    EXPECT_TRUE(loaded->count(name)) << name;
  auto entry = reinterpret_cast<long (*)(long)>(loaded->at("entry"));
  auto usesBack = reinterpret_cast<long (*)(long)>(loaded->at("uses_back"));
  EXPECT_EQ(entry(3), 7 * 3 + 1);
  EXPECT_EQ(entry(4), 5 * 4 + 1);
  EXPECT_EQ(usesBack(6), -12);
  // The scoped form unloads every object of the group.
  auto scoped = ScopedNativeObject::load(group);
  ASSERT_TRUE(scoped) << scoped.error().message();
  EXPECT_EQ(reinterpret_cast<long (*)(long)>((*scoped)->symbols().at("entry"))(1), 8);
}

TEST(ObjectLoader, RefusesDamagedGroups) {
  std::string first = compileWithCc("-fno-asynchronous-unwind-tables", kFirstOfGroup);
  std::string second = compileWithCc("-fno-asynchronous-unwind-tables", kSecondOfGroup);
  if (first.empty() || second.empty())
    GTEST_SKIP() << "no C compiler (cc) to make a test object";
  std::string group = packObjectGroup({first, second});
  auto refusal = [](const std::string &blob) {
    auto loaded = loadNativeObject(blob);
    return loaded ? std::string("loaded") : loaded.error().message();
  };
  const std::string prefix = "cannot load the kernel's object code: a damaged group of objects (";
  EXPECT_EQ(refusal(group.substr(0, 10)), prefix + "no count)");
  std::string none = group.substr(0, 8) + std::string(4, '\0');
  EXPECT_EQ(refusal(none), prefix + "0 objects)");
  EXPECT_EQ(refusal(group.substr(0, 20)), prefix + "sizes past its end)");
  EXPECT_EQ(refusal(group.substr(0, group.size() - 1)), prefix + "an object past its end)");
  EXPECT_EQ(refusal(group + "x"), prefix + "bytes after its last object)");
  // The same function in two objects of a group is refused.
  EXPECT_EQ(refusal(packObjectGroup({first, first})),
            "cannot load the kernel's object code: symbol back is defined by two objects of "
            "the group");
  // An object of the group that cannot link refuses the whole group.
  auto alone = loadNativeObject(packObjectGroup({first, first.substr(0, 100)}));
  ASSERT_FALSE(alone);
}

TEST(ObjectLoader, LinksSmallCodeModelObjects) {
  std::string object = compileWithCc();
  if (object.empty())
    GTEST_SKIP() << "no C compiler (cc) to make a test object";
  auto loaded = loadNativeObject(object, {{"extra_value", reinterpret_cast<void *>(&extraValue)}});
  ASSERT_TRUE(loaded) << loaded.error().message();
  auto lookup = reinterpret_cast<long (*)(long, const char *)>(loaded->at("lookup"));
  auto count = reinterpret_cast<long (*)()>(loaded->at("count"));
  auto twice = reinterpret_cast<double (*)()>(loaded->at("twice_extra"));
  EXPECT_EQ(lookup(2, "four"), 34); // rodata through PC32, a call into libc
  EXPECT_EQ(count(), 1);    // .bss, writable
  EXPECT_EQ(count(), 2);
  EXPECT_EQ(twice(), 42.0); // an extra symbol the caller gave
  EXPECT_FALSE(loaded->count("table")); // local symbols are not exported
}

TEST(ObjectLoader, RefusesWhatItCannotLink) {
  auto garbage = loadNativeObject("not an object at all, just text");
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().message(),
            "cannot load the kernel's object code: not a 64-bit little-endian ELF object");
  std::string object = compileWithCc();
  if (object.empty())
    GTEST_SKIP() << "no C compiler (cc) to make a test object";
  // Without extra_value, the object has an undefined symbol.
  auto unresolved = loadNativeObject(object);
  ASSERT_FALSE(unresolved);
  EXPECT_EQ(unresolved.error().message(),
            "cannot load the kernel's object code: undefined symbol extra_value");
  // Truncated: its section headers are gone.
  auto truncated = loadNativeObject(object.substr(0, 200));
  ASSERT_FALSE(truncated);
  EXPECT_NE(truncated.error().message().find("past the end"), std::string::npos);
  // A shared object is not a relocatable one.
  std::string shared = object;
  shared[16] = 3; // e_type = ET_DYN
  auto dynamic = loadNativeObject(shared);
  ASSERT_FALSE(dynamic);
  EXPECT_NE(dynamic.error().message().find("not an x86-64 relocatable object"), std::string::npos);
}

/// The object's section headers, copied out.
std::vector<Elf64_Shdr> sectionsOf(const std::string &object) {
  Elf64_Ehdr header;
  std::memcpy(&header, object.data(), sizeof header);
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  std::memcpy(sections.data(), object.data() + header.e_shoff,
              sections.size() * sizeof(Elf64_Shdr));
  return sections;
}

/// Rewrites section `index`'s header with `edit`.
template <typename Edit> std::string withSection(std::string object, size_t index, Edit edit) {
  Elf64_Ehdr header;
  std::memcpy(&header, object.data(), sizeof header);
  Elf64_Shdr section;
  char *at = object.data() + header.e_shoff + index * sizeof(Elf64_Shdr);
  std::memcpy(&section, at, sizeof section);
  edit(section);
  std::memcpy(at, &section, sizeof section);
  return object;
}

size_t sectionOfType(const std::string &object, uint32_t type) {
  auto sections = sectionsOf(object);
  for (size_t i = 0; i < sections.size(); ++i)
    if (sections[i].sh_type == type)
      return i;
  return 0;
}

std::string loadError(const std::string &object) {
  auto loaded = loadNativeObject(object, {{"extra_value", reinterpret_cast<void *>(&extraValue)}});
  return loaded ? "loaded" : loaded.error().message();
}

TEST(ObjectLoader, BoundsEveryOffsetSizeAndAlignment) {
  std::string object = compileWithCc();
  if (object.empty())
    GTEST_SKIP() << "no C compiler (cc) to make a test object";
  size_t symtab = sectionOfType(object, SHT_SYMTAB);
  ASSERT_NE(symtab, 0u);
  // A symbol table whose names are not a string table (here: no bytes).
  size_t names = sectionsOf(object)[symtab].sh_link;
  EXPECT_EQ(loadError(withSection(object, names, [](Elf64_Shdr &s) { s.sh_type = SHT_NOBITS; })),
            "cannot load the kernel's object code: malformed symbol table");
  // Alignments that would overflow the layout or are not powers of two.
  size_t text = 1;
  auto sections = sectionsOf(object);
  for (size_t i = 0; i < sections.size(); ++i)
    if (sections[i].sh_flags & SHF_EXECINSTR)
      text = i;
  EXPECT_EQ(loadError(withSection(object, text, [](Elf64_Shdr &s) { s.sh_addralign = 1ull << 63; })),
            "cannot load the kernel's object code: a section's alignment "
            "(9223372036854775808) is not a power of two of at most 4096");
  EXPECT_NE(loadError(withSection(object, text, [](Elf64_Shdr &s) { s.sh_addralign = 24; }))
                .find("is not a power of two"),
            std::string::npos);
  // A .bss-like section of 2^62 bytes: refused before anything is mapped.
  EXPECT_NE(loadError(withSection(object, text, [](Elf64_Shdr &s) {
              s.sh_type = SHT_NOBITS;
              s.sh_size = 1ull << 62;
            })).find("larger than"),
            std::string::npos);
  // A defined symbol past the end of its section.
  std::string bad = object;
  const Elf64_Shdr &table = sectionsOf(object)[symtab];
  for (uint64_t at = table.sh_offset + sizeof(Elf64_Sym); at < table.sh_offset + table.sh_size;
       at += sizeof(Elf64_Sym)) {
    Elf64_Sym symbol;
    std::memcpy(&symbol, bad.data() + at, sizeof symbol);
    if (ELF64_ST_TYPE(symbol.st_info) == STT_FUNC && symbol.st_shndx == text) {
      symbol.st_value = 1ull << 40;
      std::memcpy(bad.data() + at, &symbol, sizeof symbol);
      break;
    }
  }
  EXPECT_NE(loadError(bad).find("lies past the end of its section"), std::string::npos);
  EXPECT_EQ(loadError(object), "loaded");
}

TEST(ObjectLoader, UnwindsThroughLoadedCode) {
  std::string object = compileWithCc("-fasynchronous-unwind-tables -fno-omit-frame-pointer");
  if (object.empty())
    GTEST_SKIP() << "no C compiler (cc) to make a test object";
  auto loaded = ScopedNativeObject::load(
      object, {{"extra_value", reinterpret_cast<void *>(&extraValueThatWalksTheStack)}});
  ASSERT_TRUE(loaded) << loaded.error().message();
  auto twice = reinterpret_cast<double (*)()>((*loaded)->symbols().at("twice_extra"));
  std::vector<uintptr_t> frames;
  walked = &frames;
  EXPECT_EQ(callTwice(twice), 42.0);
  walked = nullptr;
  // The walk passes through twice_extra (loaded code) and on into this
  // test's own frames: the loaded object's unwind tables are registered.
  auto start = reinterpret_cast<uintptr_t>(twice);
  auto inLoaded = std::find_if(frames.begin(), frames.end(),
                               [&](uintptr_t ip) { return ip > start && ip < start + 256; });
  ASSERT_NE(inLoaded, frames.end());
  auto caller = reinterpret_cast<uintptr_t>(&callTwice);
  EXPECT_NE(std::find_if(inLoaded, frames.end(),
                         [&](uintptr_t ip) { return ip > caller && ip < caller + 64; }),
            frames.end());
  // A record whose length runs past the section is refused.
  size_t eh = 0;
  auto sections = sectionsOf(object);
  Elf64_Ehdr header;
  std::memcpy(&header, object.data(), sizeof header);
  const Elf64_Shdr &names = sections[header.e_shstrndx];
  for (size_t i = 0; i < sections.size(); ++i)
    if (std::string(object.data() + names.sh_offset + sections[i].sh_name) == ".eh_frame")
      eh = i;
  ASSERT_NE(eh, 0u);
  std::string bad = object;
  uint32_t huge = 0x7ffffff0;
  std::memcpy(bad.data() + sections[eh].sh_offset, &huge, 4);
  auto refused = ScopedNativeObject::load(
      bad, {{"extra_value", reinterpret_cast<void *>(&extraValueThatWalksTheStack)}});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("malformed unwind tables"), std::string::npos);
}

TEST(ObjectLoader, ScopedObjectsAreUnloadedAndSeenByGdb) {
  std::string object = compileWithCc();
  if (object.empty())
    GTEST_SKIP() << "no C compiler (cc) to make a test object";
  struct jit_descriptor_view {
    uint32_t version, action;
    void *relevant, *first;
  };
  auto *descriptor = static_cast<jit_descriptor_view *>(dlsym(RTLD_DEFAULT, "__jit_debug_descriptor"));
  ASSERT_NE(descriptor, nullptr);
  {
    auto loaded = ScopedNativeObject::load(
        object, {{"extra_value", reinterpret_cast<void *>(&extraValue)}});
    ASSERT_TRUE(loaded) << loaded.error().message();
    auto count = reinterpret_cast<long (*)()>((*loaded)->symbols().at("count"));
    EXPECT_EQ(count(), 1);
    EXPECT_EQ(descriptor->action, 1u); // registered
    EXPECT_EQ(descriptor->first, descriptor->relevant);
  }
  EXPECT_EQ(descriptor->action, 2u); // unregistered
}

} // namespace
