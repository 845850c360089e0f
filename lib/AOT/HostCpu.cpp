//===- HostCpu.cpp - Which CPU features this machine has ------------------===//
//
// An ahead-of-time library records the LLVM feature names its kernels were
// compiled with; before registering it, the loader checks them here with
// CPUID (and XGETBV for the register state the OS saves), without LLVM.
//
//===----------------------------------------------------------------------===//

#include "opal/AOT/OpLibrary.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace opal;

namespace {

#if defined(__x86_64__) || defined(__i386__)
enum Reg : uint8_t { EAX, EBX, ECX, EDX };

struct Feature {
  const char *name; ///< LLVM's name
  uint32_t leaf, subleaf;
  Reg reg;
  uint8_t bit;
};

const Feature kFeatures[] = {
    {"sse3", 1, 0, ECX, 0},          {"pclmul", 1, 0, ECX, 1},
    {"ssse3", 1, 0, ECX, 9},         {"fma", 1, 0, ECX, 12},
    {"cx16", 1, 0, ECX, 13},         {"sse4.1", 1, 0, ECX, 19},
    {"sse4.2", 1, 0, ECX, 20},       {"movbe", 1, 0, ECX, 22},
    {"popcnt", 1, 0, ECX, 23},       {"aes", 1, 0, ECX, 25},
    {"xsave", 1, 0, ECX, 26},        {"avx", 1, 0, ECX, 28},
    {"f16c", 1, 0, ECX, 29},         {"rdrnd", 1, 0, ECX, 30},
    {"cmov", 1, 0, EDX, 15},         {"mmx", 1, 0, EDX, 23},
    {"fxsr", 1, 0, EDX, 24},         {"sse", 1, 0, EDX, 25},
    {"sse2", 1, 0, EDX, 26},         {"fsgsbase", 7, 0, EBX, 0},
    {"bmi", 7, 0, EBX, 3},           {"avx2", 7, 0, EBX, 5},
    {"bmi2", 7, 0, EBX, 8},          {"invpcid", 7, 0, EBX, 10},
    {"avx512f", 7, 0, EBX, 16},      {"avx512dq", 7, 0, EBX, 17},
    {"rdseed", 7, 0, EBX, 18},       {"adx", 7, 0, EBX, 19},
    {"avx512ifma", 7, 0, EBX, 21},   {"clflushopt", 7, 0, EBX, 23},
    {"clwb", 7, 0, EBX, 24},         {"avx512cd", 7, 0, EBX, 28},
    {"sha", 7, 0, EBX, 29},          {"avx512bw", 7, 0, EBX, 30},
    {"avx512vl", 7, 0, EBX, 31},     {"avx512vbmi", 7, 0, ECX, 1},
    {"avx512vbmi2", 7, 0, ECX, 6},   {"gfni", 7, 0, ECX, 8},
    {"vaes", 7, 0, ECX, 9},          {"vpclmulqdq", 7, 0, ECX, 10},
    {"avx512vnni", 7, 0, ECX, 11},   {"avx512bitalg", 7, 0, ECX, 12},
    {"avx512vpopcntdq", 7, 0, ECX, 14}, {"rdpid", 7, 0, ECX, 22},
    {"serialize", 7, 0, EDX, 14},    {"amx-bf16", 7, 0, EDX, 22},
    {"avx512fp16", 7, 0, EDX, 23},   {"amx-tile", 7, 0, EDX, 24},
    {"amx-int8", 7, 0, EDX, 25},     {"avxvnni", 7, 1, EAX, 4},
    {"avx512bf16", 7, 1, EAX, 5},    {"xsaveopt", 0xd, 1, EAX, 0},
    {"xsavec", 0xd, 1, EAX, 1},      {"xsaves", 0xd, 1, EAX, 3},
    {"sahf", 0x80000001, 0, ECX, 0}, {"lzcnt", 0x80000001, 0, ECX, 5},
    {"sse4a", 0x80000001, 0, ECX, 6}, {"prfchw", 0x80000001, 0, ECX, 8},
    {"xop", 0x80000001, 0, ECX, 11}, {"fma4", 0x80000001, 0, ECX, 16},
};

bool cpuHas(const Feature &feature) {
  unsigned regs[4] = {0, 0, 0, 0};
  if (!__get_cpuid_count(feature.leaf, feature.subleaf, &regs[0], &regs[1], &regs[2], &regs[3]))
    return false;
  return regs[feature.reg] >> feature.bit & 1;
}

/// XCR0: the register state the OS saves (AVX needs bits 1-2, AVX-512 5-7).
uint64_t savedState() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx >> 27 & 1)) // OSXSAVE
    return 0;
  uint32_t low, high;
  __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return uint64_t(high) << 32 | low;
}

bool present(std::string_view name) {
  for (const Feature &feature : kFeatures) {
    if (name != feature.name)
      continue;
    if (!cpuHas(feature))
      return false;
    std::string_view n(feature.name);
    if (n.substr(0, 3) == "avx" || n == "fma" || n == "f16c" || n == "vaes" ||
        n == "vpclmulqdq" || n == "gfni") {
      uint64_t state = savedState();
      if ((state & 6) != 6)
        return false;
      if (n.substr(0, 6) == "avx512" && (state & 0xe0) != 0xe0)
        return false;
    }
    return true;
  }
  return true; // not a feature opal checks
}
#else
bool present(std::string_view) { return true; }
#endif

} // namespace

std::vector<std::string> aot::missingCpuFeatures(std::string_view features) {
  std::vector<std::string> missing;
  while (!features.empty()) {
    size_t comma = features.find(',');
    std::string_view item = features.substr(0, comma);
    features = comma == std::string_view::npos ? std::string_view() : features.substr(comma + 1);
    if (item.size() > 1 && item[0] == '+' && !present(item.substr(1)))
      missing.emplace_back(item.substr(1));
  }
  return missing;
}
