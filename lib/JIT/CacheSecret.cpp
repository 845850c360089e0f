//===- CacheSecret.cpp - The key that authenticates cache entries ---------===//

#include "opal/JIT/CacheSecret.h"

#include "opal/Support/Environment.h"
#include "opal/Support/Sha256.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using namespace opal;
using namespace opal::jit;

namespace {

constexpr size_t kMinimumKeyBytes = 16;
constexpr uint64_t kMaximumKeyBytes = 4096;

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' ||
                           text.back() == '\t'))
    text.pop_back();
  return text;
}

Expected<std::string> readKeyFile(const std::string &path) {
  auto bad = [&](const std::string &why) {
    return makeUnexpected(Error("OPAL_CACHE_KEY_FILE " + path + " " + why));
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return bad(errno == ELOOP ? "is a symbolic link: name the file itself"
                              : std::string("cannot be opened: ") + std::strerror(errno));
  struct stat info;
  std::string problem;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    problem = "is not a regular file";
  else if (info.st_uid != ::geteuid())
    problem = "is owned by uid " + std::to_string(info.st_uid) + ", not by you (uid " +
              std::to_string(::geteuid()) + ")";
  else if (info.st_mode & (S_IRWXG | S_IRWXO)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
    problem = std::string("can be read or written by others (mode ") + mode +
              "): make it private with `chmod 600 " + path + "`";
  } else if (static_cast<uint64_t>(info.st_size) > kMaximumKeyBytes)
    problem = "is larger than " + std::to_string(kMaximumKeyBytes) + " bytes";
  std::string bytes;
  if (problem.empty()) {
    bytes.resize(static_cast<size_t>(info.st_size));
    if (::read(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
      problem = "cannot be read";
  }
  ::close(fd);
  if (!problem.empty())
    return bad(problem);
  return trimmed(bytes);
}

Expected<CacheSecret> checked(CacheSecret secret) {
  if (secret.key.size() < kMinimumKeyBytes)
    return makeUnexpected(Error(
        secret.source + " holds a key of " + std::to_string(secret.key.size()) +
        " bytes; a cache key needs at least " + std::to_string(kMinimumKeyBytes) +
        " (make one with `head -c 32 /dev/urandom | base64`)"));
  return secret;
}

} // namespace

Expected<std::optional<CacheSecret>> jit::userCacheSecret() {
  using Result = std::optional<CacheSecret>;
  if (auto key = readKnob("OPAL_CACHE_KEY"); key && !key->empty()) {
    auto secret = checked({trimmed(*key), "OPAL_CACHE_KEY", true});
    if (!secret)
      return makeUnexpected(secret.error());
    return Result(std::move(*secret));
  }
  if (auto path = readKnob("OPAL_CACHE_KEY_FILE"); path && !path->empty()) {
    auto bytes = readKeyFile(*path);
    if (!bytes)
      return makeUnexpected(bytes.error());
    auto secret = checked({std::move(*bytes), "OPAL_CACHE_KEY_FILE " + *path, true});
    if (!secret)
      return makeUnexpected(secret.error());
    return Result(std::move(*secret));
  }
  return Result();
}

Expected<CacheSecret> jit::generatedCacheSecret(const CacheDirectory &dir) {
  std::string source = dir.root() + "/key";
  std::string problem;
  std::optional<std::string> existing = dir.read("key", kMaximumKeyBytes, problem);
  if (!existing && problem.empty()) {
    uint8_t random[32];
    size_t got = 0;
    while (got < sizeof random) {
      ssize_t n = ::getrandom(random + got, sizeof random - got, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return makeUnexpected(Error(std::string("cannot draw a cache key: ") +
                                    std::strerror(errno)));
      got += static_cast<size_t>(n);
    }
    std::string error;
    if (!dir.writeOnce("key", toHex(random, sizeof random) + "\n", error))
      return makeUnexpected(Error("cannot write the cache key " + source + ": " + error));
    existing = dir.read("key", kMaximumKeyBytes, problem);
  }
  if (!existing)
    return makeUnexpected(Error("cannot read the cache key " + source + ": " +
                                (problem.empty() ? std::string("it vanished") : problem)));
  return checked({trimmed(*existing), source, false});
}
