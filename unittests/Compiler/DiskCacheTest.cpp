//===- DiskCacheTest.cpp - Compiled kernels on disk -----------------------===//

#include "opal/Compiler/CacheKey.h"
#include "opal/JIT/DiskCache.h"
#include "opal/JIT/RemoteCache.h"
#include "opal/Support/Decimal.h"
#include "opal/Support/Hmac.h"
#include "opal/Support/Sha256.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  std::string dir = cache.root() + "/v2/" + key.substr(0, 2) + "/" + key;
  std::string manifest = readAll(dir + "/manifest.txt");
  EXPECT_NE(manifest.find("op: t::f\nobject-bytes: 17\nobject-sha256: "), std::string::npos);
  // Sealed last: the HMAC of the domain, the entry's name and the text
  // under the key generated in the cache directory.
  size_t tag = manifest.rfind("hmac: ");
  ASSERT_NE(tag, std::string::npos);
  std::string secret = readAll(cache.root() + "/key");
  secret.pop_back(); // its newline
  EXPECT_EQ(manifest.substr(tag + 6, 64),
            hmacSha256Hex(secret, "opal-cache-entry 2\n" + key + "\n" + manifest.substr(0, tag)));
  // Storing again keeps the first entry and leaves no temporary behind.
  cache.store(key, "other", "op: t::f\n");
  EXPECT_EQ(*cache.load(key), std::string("\x7f" "ELF object bytes", 17));
}

TEST(DiskCache, CorruptEntriesAreDroppedAndReported) {
  DiskCache cache(temporaryDirectory(), true);
  std::string key = diskCacheKey({"corrupt"});
  cache.store(key, "0123456789", "op: t::g\n");
  std::string dir = cache.root() + "/v2/" + key.substr(0, 2) + "/" + key;
  std::ofstream(dir + "/kernel.o", std::ios::binary) << "0123456780";
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.load(key));
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("refused entry " + dir + ": kernel.o does not match its checksum"),
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
  EXPECT_TRUE(readAll(cache.root() + "/v2/" + key.substr(0, 2) + "/" + key + "/kernel.o").empty());
}

TEST(DiskCache, HmacSha256MatchesRfc4231) {
  EXPECT_EQ(hmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than a block is hashed first.
  EXPECT_EQ(hmacSha256Hex(std::string(131, '\xaa'),
                          "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_TRUE(equalInConstantTime("abc", "abc"));
  EXPECT_FALSE(equalInConstantTime("abc", "abd"));
  EXPECT_FALSE(equalInConstantTime("abc", "ab"));
}

TEST(DiskCache, AnEntryMovedToAnotherNameIsRefused) {
  DiskCache cache(temporaryDirectory(), true);
  std::string good = diskCacheKey({"good"}), other = diskCacheKey({"other"});
  cache.store(good, "good object", "op: t::good\n");
  std::string from = cache.root() + "/v2/" + good.substr(0, 2) + "/" + good;
  std::string to = cache.root() + "/v2/" + other.substr(0, 2);
  ::mkdir(to.c_str(), 0700);
  ASSERT_EQ(::rename(from.c_str(), (to + "/" + other).c_str()), 0);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.load(other));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("its HMAC does not match"),
            std::string::npos);
}

TEST(DiskCache, IndexFilesAreSealedAndChecked) {
  DiskCache cache(temporaryDirectory(), true);
  std::string key = diskCacheKey({"index"});
  cache.storeIndex(key, "opal-warm-start 1\nentry: x\nsizes: a0.0 a0.1\n");
  EXPECT_EQ(*cache.loadIndex(key), "opal-warm-start 1\nentry: x\nsizes: a0.0 a0.1\n");
  std::string path = cache.root() + "/warm-v2/" + key.substr(0, 2) + "/" + key;
  std::string text = readAll(path);
  size_t at = text.find("a0.1");
  text.replace(at, 4, "a0.0");
  std::ofstream(path, std::ios::binary) << text;
  EXPECT_FALSE(cache.loadIndex(key));
  EXPECT_TRUE(readAll(path).empty()); // removed
  // Another key's process refuses what this one wrote.
  cache.storeIndex(key, "opal-warm-start 1\n");
  setenv("OPAL_CACHE_KEY", "another key of sixteen bytes", 1);
  DiskCache foreign(cache.root(), true);
  unsetenv("OPAL_CACHE_KEY");
  ASSERT_TRUE(foreign.enabled()) << foreign.problem();
  EXPECT_FALSE(foreign.loadIndex(key));
}

TEST(DiskCache, UnsafeDirectoriesAreRefusedWithAFix) {
  std::string root = temporaryDirectory();
  ASSERT_EQ(::chmod(root.c_str(), 0777), 0);
  DiskCache open(root, true);
  EXPECT_FALSE(open.enabled());
  EXPECT_EQ(open.problem(), "the kernel cache " + root + " is writable by others (mode 0777): "
            "make it private with `chmod 700 " + root + "`; opal neither reads nor writes it "
            "(the disk cache is off for this process)");
  ASSERT_EQ(::chmod(root.c_str(), 0770), 0);
  EXPECT_NE(DiskCache(root, true).problem().find("is writable by its group (mode 0770)"),
            std::string::npos);
  ASSERT_EQ(::chmod(root.c_str(), 0700), 0);
  std::string link = root + "-link";
  ASSERT_EQ(::symlink(root.c_str(), link.c_str()), 0);
  EXPECT_NE(DiskCache(link, true).problem().find("is a symbolic link"), std::string::npos);
  EXPECT_NE(DiskCache("relative/dir", true).problem().find("is not an absolute path"),
            std::string::npos);
  // A fresh directory is created private.
  DiskCache made(root + "/a/b", true);
  ASSERT_TRUE(made.enabled()) << made.problem();
  struct stat info;
  ASSERT_EQ(::stat((root + "/a/b").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((root + "/a/b/key").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(DiskCache, SymbolicLinksInsideAreNeverFollowed) {
  DiskCache cache(temporaryDirectory(), true);
  std::string victim = temporaryDirectory();
  std::ofstream(victim + "/precious") << "keep me";
  std::string key = diskCacheKey({"linked"});
  std::string prefix = cache.root() + "/v2/" + key.substr(0, 2);
  ::mkdir((cache.root() + "/v2").c_str(), 0700);
  ::mkdir(prefix.c_str(), 0700);
  ASSERT_EQ(::symlink(victim.c_str(), (prefix + "/" + key).c_str()), 0);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.load(key));
  testing::internal::GetCapturedStderr();
  // The link is gone, what it pointed at is not.
  EXPECT_EQ(readAll(victim + "/precious"), "keep me");
  struct stat info;
  EXPECT_NE(::lstat((prefix + "/" + key).c_str(), &info), 0);
  // A symlinked manifest is not read either.
  cache.store(key, "object", "op: t::l\n");
  std::string manifest = prefix + "/" + key + "/manifest.txt";
  std::string saved = readAll(manifest);
  std::ofstream(victim + "/manifest.txt") << saved;
  ::unlink(manifest.c_str());
  ASSERT_EQ(::symlink((victim + "/manifest.txt").c_str(), manifest.c_str()), 0);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.load(key));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("manifest.txt is a symbolic link"),
            std::string::npos);
  EXPECT_EQ(readAll(victim + "/precious"), "keep me");
}

TEST(DiskCache, PruningDropsTheLeastRecentlyUsedFirst) {
  DiskCache cache(temporaryDirectory(), true, nullptr, /*maxBytes=*/0);
  std::vector<std::string> keys;
  for (int i = 0; i < 4; ++i) {
    keys.push_back(diskCacheKey({"prune" + std::to_string(i)}));
    cache.store(keys.back(), std::string(10000, 'x'), "op: t::p\n");
    // Used at 1000 s, 2000 s, ... after the epoch, oldest first; the
    // first is used again last.
    std::string manifest = cache.root() + "/v2/" + keys.back().substr(0, 2) + "/" +
                           keys.back() + "/manifest.txt";
    struct timespec times[2] = {{1000 * (i + 1), 0}, {1000 * (i + 1), 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, manifest.c_str(), times, 0), 0);
    std::string object = manifest.substr(0, manifest.rfind('/')) + "/kernel.o";
    ASSERT_EQ(::utimensat(AT_FDCWD, object.c_str(), times, 0), 0);
  }
  ASSERT_TRUE(cache.load(keys[0])); // now the most recently used
  auto pruned = cache.prune(25000);
  EXPECT_EQ(pruned.entries, 2u);
  EXPECT_LE(pruned.bytesAfter, 22500u);
  EXPECT_TRUE(cache.load(keys[0]));
  EXPECT_FALSE(cache.load(keys[1]));
  EXPECT_FALSE(cache.load(keys[2]));
  EXPECT_TRUE(cache.load(keys[3]));
  // Under the bound nothing goes.
  EXPECT_EQ(cache.prune(1 << 20).entries, 0u);
  EXPECT_EQ(parseByteCount("2G"), 2ull << 30);
  EXPECT_EQ(parseByteCount("512k"), 512ull << 10);
  EXPECT_EQ(parseByteCount("0"), 0u);
  EXPECT_FALSE(parseByteCount("1.5G"));
  EXPECT_FALSE(parseByteCount("G"));
}

TEST(DiskCache, RemoteAddressesParseOrSayWhatIsAccepted) {
  using jit::RemoteCache;
  auto tcp = RemoteCache::parse("redis://cache.example:6380/3");
  ASSERT_TRUE(tcp);
  EXPECT_EQ(tcp->host, "cache.example");
  EXPECT_EQ(tcp->port, 6380);
  EXPECT_EQ(tcp->database, 3);
  auto plain = RemoteCache::parse("redis://:s3cret@10.0.0.7");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->port, 6379);
  EXPECT_EQ(plain->password, "s3cret");
  auto unixSocket = RemoteCache::parse("unix:///run/redis.sock?db=2");
  ASSERT_TRUE(unixSocket);
  EXPECT_EQ(unixSocket->socketPath, "/run/redis.sock");
  EXPECT_EQ(unixSocket->database, 2);
  auto bad = RemoteCache::parse("http://host");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "OPAL_REMOTE_CACHE=http://host is not a redis:// or unix:// address; expected "
            "redis://[:password@]host[:port][/db] or unix:///path/to/socket[?db=N]");
  EXPECT_FALSE(RemoteCache::parse("redis://host:99999"));
  EXPECT_FALSE(RemoteCache::parse("redis://host/x"));
  EXPECT_FALSE(RemoteCache::parse("unix://relative.sock"));
}

} // namespace
