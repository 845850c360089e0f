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

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

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
std::string compileWithCc() {
  char dir[] = "/tmp/opal-object-loader-XXXXXX";
  if (!mkdtemp(dir))
    return "";
  std::string source = std::string(dir) + "/k.c", object = std::string(dir) + "/k.o";
  std::ofstream(source) << kSource;
  std::string command = "cc -O2 -fno-asynchronous-unwind-tables -c " + source + " -o " + object +
                        " 2>/dev/null";
  if (std::system(command.c_str()) != 0)
    return "";
  std::ifstream file(object, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

long extraValue() { return 21; }

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

} // namespace
