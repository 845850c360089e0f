//===- RemoteCache.h - Kernel cache entries shared through Redis -*- C++ -*-===//
//
// OPAL_REMOTE_CACHE names a Redis server that a fleet of machines shares:
//
//   redis://[:password@]host[:port][/db]     TCP (port 6379, db 0 by default)
//   unix:///path/to/redis.sock[?db=N]        a unix socket
//
// The disk cache (DiskCache.h) asks it after a local miss and writes to it
// after a compile; what it holds are the disk cache's own sealed entries
// (each authenticated by an HMAC under the user's key), under keys
// "opal:v2:<kind>:<sha256>". This class only moves bytes, and never lets a
// call fail or wait long: every connect and command has a deadline
// (OPAL_REMOTE_CACHE_TIMEOUT_MS, default 50 ms), and after any failure the
// server is skipped for a back-off period (30 s) before it is tried again.
// Values larger than kMaxEntryBytes are neither written nor read.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_REMOTECACHE_H
#define OPAL_JIT_REMOTECACHE_H

#include "opal/Support/Expected.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

struct redisContext;

namespace opal::jit {

class RemoteCache {
public:
  static constexpr uint64_t kMaxEntryBytes = 64ull << 20;
  static constexpr int kBackOffSeconds = 30;

  struct Address {
    std::string host;       ///< empty for a unix socket
    int port = 6379;
    std::string socketPath; ///< for unix://
    int database = 0;
    std::string password;
  };
  /// Parses an OPAL_REMOTE_CACHE value; the error says what is accepted.
  static Expected<Address> parse(const std::string &url);

  RemoteCache(Address address, std::string url, int timeoutMs);
  ~RemoteCache();

  /// The value of `key`; nothing on a miss, a failure or while backing off.
  std::optional<std::string> get(const std::string &key);
  /// Stores `value` under `key` (failures only log and start the back-off).
  void put(const std::string &key, const std::string &value);

  const std::string &url() const { return url_; }

  struct Stats {
    uint64_t hits = 0, misses = 0, stores = 0, failures = 0, skipped = 0;
  };
  Stats stats() const;

private:
  /// Connects if needed; false while backing off or when it fails.
  bool ready();
  void fail(const std::string &what);
  /// Sends one command (connected); a string reply goes to `value` (if
  /// given). No answer in time or an error reply fails, with `refusal` (or
  /// a message naming the command and the error), and returns false.
  bool command(std::initializer_list<std::string_view> words, std::optional<std::string> *value,
               const std::string &refusal = "");

  Address address_;
  std::string url_;
  int timeoutMs_;
  redisContext *context_ = nullptr;
  std::chrono::steady_clock::time_point retryAt_{};
  bool warned_ = false;
  Stats stats_;
  mutable std::mutex mutex_;
};

/// The process's remote cache from OPAL_REMOTE_CACHE; null when unset or
/// unusable (the reason is printed once).
RemoteCache *remoteCache();

} // namespace opal::jit

#endif // OPAL_JIT_REMOTECACHE_H
