//===- RemoteCache.cpp - Kernel cache entries shared through Redis --------===//

#include "opal/JIT/RemoteCache.h"

#include "opal/Config.h"
#include "opal/Support/Decimal.h"
#include "opal/Support/Environment.h"

#if OPAL_HAVE_HIREDIS
#include <hiredis/hiredis.h>
#endif

#include <sys/time.h>

#include <cstdio>
#include <cstdlib>

using namespace opal;
using namespace opal::jit;

namespace {

bool parseNumber(const std::string &text, int low, int high, int &out) {
  uint64_t value = 0;
  if (!readDecimal(text, 9, value) || value < static_cast<uint64_t>(low) ||
      value > static_cast<uint64_t>(high))
    return false;
  out = static_cast<int>(value);
  return true;
}

void logCache(const std::string &line) {
  if (logEnabled(LogTopic::Cache))
    logLine(LogTopic::Cache, line);
}

} // namespace

Expected<RemoteCache::Address> RemoteCache::parse(const std::string &url) {
  auto bad = [&](const std::string &why) {
    return makeUnexpected(Error("OPAL_REMOTE_CACHE=" + url + " " + why +
                                "; expected redis://[:password@]host[:port][/db] or "
                                "unix:///path/to/socket[?db=N]"));
  };
  Address address;
  if (url.rfind("unix://", 0) == 0) {
    std::string rest = url.substr(7);
    size_t query = rest.find('?');
    address.socketPath = rest.substr(0, query);
    if (address.socketPath.empty() || address.socketPath[0] != '/')
      return bad("has no absolute socket path");
    if (query != std::string::npos) {
      std::string option = rest.substr(query + 1);
      if (option.rfind("db=", 0) != 0 || !parseNumber(option.substr(3), 0, 1 << 20,
                                                      address.database))
        return bad("has an unknown option '" + option + "'");
    }
    return address;
  }
  if (url.rfind("redis://", 0) != 0)
    return bad("is not a redis:// or unix:// address");
  std::string rest = url.substr(8);
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos && slash + 1 < rest.size() &&
      !parseNumber(rest.substr(slash + 1), 0, 1 << 20, address.database))
    return bad("has a database that is not a number");
  if (size_t at = authority.rfind('@'); at != std::string::npos) {
    std::string credentials = authority.substr(0, at);
    address.password = credentials.substr(credentials.find(':') == std::string::npos
                                              ? 0
                                              : credentials.find(':') + 1);
    authority = authority.substr(at + 1);
  }
  size_t colon = authority.rfind(':');
  address.host = authority.substr(0, colon);
  if (colon != std::string::npos && !parseNumber(authority.substr(colon + 1), 1, 65535,
                                                 address.port))
    return bad("has a port that is not a number from 1 to 65535");
  if (address.host.empty())
    return bad("has no host");
  return address;
}

RemoteCache::RemoteCache(Address address, std::string url, int timeoutMs)
    : address_(std::move(address)), url_(std::move(url)), timeoutMs_(timeoutMs) {}

RemoteCache::~RemoteCache() {
#if OPAL_HAVE_HIREDIS
  if (context_)
    redisFree(context_);
#endif
}

RemoteCache::Stats RemoteCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void RemoteCache::fail(const std::string &what) {
  ++stats_.failures;
#if OPAL_HAVE_HIREDIS
  std::string detail = context_ && context_->err ? std::string(": ") + context_->errstr : "";
  if (context_)
    redisFree(context_);
#else
  std::string detail;
#endif
  context_ = nullptr;
  retryAt_ = std::chrono::steady_clock::now() + std::chrono::seconds(kBackOffSeconds);
  std::string line = "the remote kernel cache " + url_ + " " + what + detail +
                     "; skipping it for " + std::to_string(kBackOffSeconds) + " s";
  if (!warned_ && !logEnabled(LogTopic::Cache))
    std::fprintf(stderr, "opal: %s (OPAL_LOG=cache says more)\n", line.c_str());
  warned_ = true;
  logCache(line);
}

bool RemoteCache::ready() {
#if OPAL_HAVE_HIREDIS
  if (context_)
    return true;
  if (std::chrono::steady_clock::now() < retryAt_) {
    ++stats_.skipped;
    return false;
  }
  timeval deadline{timeoutMs_ / 1000, (timeoutMs_ % 1000) * 1000};
  context_ = address_.socketPath.empty()
                 ? redisConnectWithTimeout(address_.host.c_str(), address_.port, deadline)
                 : redisConnectUnixWithTimeout(address_.socketPath.c_str(), deadline);
  if (!context_ || context_->err) {
    fail("cannot be reached");
    return false;
  }
  if (redisSetTimeout(context_, deadline) != REDIS_OK) {
    fail("cannot take a timeout");
    return false;
  }
  if (!address_.password.empty() &&
      !command({"AUTH", address_.password}, nullptr, "refused the password"))
    return false;
  if (address_.database != 0 &&
      !command({"SELECT", std::to_string(address_.database)}, nullptr,
               "refused database " + std::to_string(address_.database)))
    return false;
  logCache("connected to the remote kernel cache " + url_);
  return true;
#else
  return false;
#endif
}

bool RemoteCache::command(std::initializer_list<std::string_view> words,
                          std::optional<std::string> *value, const std::string &refusal) {
#if OPAL_HAVE_HIREDIS
  std::vector<const char *> argv;
  std::vector<size_t> lengths;
  for (std::string_view word : words) {
    argv.push_back(word.data());
    lengths.push_back(word.size());
  }
  std::string name(*words.begin());
  auto *reply = static_cast<redisReply *>(
      redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()));
  if (!reply) {
    fail("did not answer a " + name + " in time");
    return false;
  }
  bool error = reply->type == REDIS_REPLY_ERROR;
  std::string message = error ? std::string(reply->str, reply->len) : "";
  if (value && reply->type == REDIS_REPLY_STRING && reply->len <= kMaxEntryBytes)
    *value = std::string(reply->str, reply->len);
  freeReplyObject(reply);
  if (error)
    fail(refusal.empty() ? "answered a " + name + " with an error (" + message + ")" : refusal);
  return !error;
#else
  return false;
#endif
}

std::optional<std::string> RemoteCache::get(const std::string &key) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<std::string> value;
  if (!ready() || !command({"GET", key}, &value))
    return std::nullopt;
  ++(value ? stats_.hits : stats_.misses);
  return value;
}

void RemoteCache::put(const std::string &key, const std::string &value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (value.size() > kMaxEntryBytes) {
    logCache("not storing " + key + " remotely: " + std::to_string(value.size()) +
             " bytes is more than the " + std::to_string(kMaxEntryBytes) + " allowed");
    return;
  }
  if (ready() && command({"SET", key, value}, nullptr))
    ++stats_.stores;
}

RemoteCache *jit::remoteCache() {
  static RemoteCache *cache = []() -> RemoteCache * {
    std::optional<std::string> url = readKnob("OPAL_REMOTE_CACHE");
    if (!url || url->empty())
      return nullptr;
    auto refuse = [&](const std::string &why) -> RemoteCache * {
      std::fprintf(stderr, "opal: %s; the remote kernel cache is off\n", why.c_str());
      return nullptr;
    };
#if !OPAL_HAVE_HIREDIS
    return refuse("OPAL_REMOTE_CACHE is set, but this opal was built without hiredis "
                  "(install libhiredis-dev and rebuild)");
#endif
    auto address = RemoteCache::parse(*url);
    if (!address)
      return refuse(address.error().message());
    int timeoutMs = 50;
    // A value it does not take was warned of when libopal loaded
    // (Support/Environment.h) and is ignored.
    if (auto text = readKnob("OPAL_REMOTE_CACHE_TIMEOUT_MS"); text && !text->empty())
      if (!parseNumber(*text, 1, 60000, timeoutMs))
        timeoutMs = 50;
    return new RemoteCache(std::move(*address), *url, timeoutMs);
  }();
  return cache;
}
