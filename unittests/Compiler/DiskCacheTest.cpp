//===- DiskCacheTest.cpp - Compiled kernels on disk -----------------------===//

#include "opal/Compiler/CacheKey.h"
#include "opal/JIT/DiskCache.h"
#include "opal/Support/Sha256.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace opal;
using namespace opal::ir;
using opal::jit::DiskCache;

namespace {

std::string temporaryDirectory() {
  char pattern[] = "/tmp/opal-disk-cache-test-XXXXXX";
  return mkdtemp(pattern);
}

std::string readAll(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

TEST(DiskCache, KeysAreSha256OfLengthPrefixedParts) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // FIPS 180-4's two-block message, a million a's (fed in uneven pieces),
  // and the padding edges: 55, 56 and 64 bytes.
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 million;
  std::string piece(997, 'a');
  size_t left = 1000000;
  for (; left >= piece.size(); left -= piece.size())
    million.update(piece);
  million.update(std::string(left, 'a'));
  auto digest = million.finish();
  EXPECT_EQ(toHex(digest.data(), digest.size()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sha256Hex(std::string(55, 'x')),
            "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  EXPECT_EQ(sha256Hex(std::string(56, 'x')),
            "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  EXPECT_EQ(sha256Hex(std::string(64, 'x')),
            "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
  // ("ab", "c") and ("a", "bc") are different keys.
  EXPECT_NE(diskCacheKey({"ab", "c"}), diskCacheKey({"a", "bc"}));
  EXPECT_EQ(diskCacheKey({"a", "bc"}).size(), 64u);
  EXPECT_NE(compilerIdentity().find("LLVM 22"), std::string::npos);
  EXPECT_NE(compilerIdentity().find("cache-format 1"), std::string::npos);
}

TEST(DiskCache, StoresAndLoadsEntries) {
  DiskCache cache(temporaryDirectory(), true);
  std::string key = diskCacheKey({"kernel"});
  EXPECT_FALSE(cache.load(key));
  cache.store(key, std::string("\x7f" "ELF object bytes", 17), "op: t::f\n");
  auto object = cache.load(key);
  ASSERT_TRUE(object);
  EXPECT_EQ(*object, std::string("\x7f" "ELF object bytes", 17));
  std::string dir = cache.root() + "/v1/" + key.substr(0, 2) + "/" + key;
  std::string manifest = readAll(dir + "/manifest.txt");
  EXPECT_NE(manifest.find("op: t::f\nobject-bytes: 17\nobject-sha256: "), std::string::npos);
  // Storing again keeps the first entry and leaves no temporary behind.
  cache.store(key, "other", "op: t::f\n");
  EXPECT_EQ(*cache.load(key), std::string("\x7f" "ELF object bytes", 17));
}

TEST(DiskCache, CorruptEntriesAreDroppedAndReported) {
  DiskCache cache(temporaryDirectory(), true);
  std::string key = diskCacheKey({"corrupt"});
  cache.store(key, "0123456789", "op: t::g\n");
  std::string dir = cache.root() + "/v1/" + key.substr(0, 2) + "/" + key;
  std::ofstream(dir + "/kernel.o", std::ios::binary) << "0123456780";
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.load(key));
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("corrupt entry " + dir + ": kernel.o does not match its checksum"),
            std::string::npos);
  // The entry is gone, so the next store writes a good one.
  cache.store(key, "0123456789", "op: t::g\n");
  EXPECT_EQ(*cache.load(key), "0123456789");
}

TEST(DiskCache, DisabledCacheNeitherReadsNorWrites) {
  DiskCache cache(temporaryDirectory(), false);
  std::string key = diskCacheKey({"off"});
  cache.store(key, "bytes", "op: t::h\n");
  EXPECT_FALSE(cache.load(key));
  EXPECT_TRUE(readAll(cache.root() + "/v1/" + key.substr(0, 2) + "/" + key + "/kernel.o").empty());
}

} // namespace
